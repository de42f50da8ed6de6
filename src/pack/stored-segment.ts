import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { IoStoreError } from '../errors.js';
import type { ChunkHasher } from '../hash/chunk-hash.js';
import { ioError, withIoError } from '../toc/read-file.js';
import { storedEntryHeader, type PakEntryLayout } from '../pak/entry.js';
import { padBlockInPlace, storedSize } from './stored-blocks.js';
import { readFullSync } from '../util/read-full.js';

/**
 * Consecutive stored chunks, each exactly a file's bytes, that one thread reads, hashes and writes to the .ucas in
 * one positioned write: their places were reserved by the writer (ContainerWriter.reserveStored), so any thread can
 * do this while others do the next ones. The same for a stored `.pak`'s files (`entryHeader`), placed by writePak.
 */
export interface StoredSegment {
  /** The .ucas file's descriptor (shared by the process's threads) and what its errors name. */
  fd: number;
  shownAs: string;
  blockSize: number;
  /** The files, separated by NUL (one string: a message of hundreds of strings cost this thread more to send). */
  files: string;
  /** Each file's size when the folder was read: the bytes its place holds. */
  sizes: Float64Array;
  /** Where each chunk's stored bytes go in the .ucas (ascending; gaps between them are zeros). */
  positions: Float64Array;
  /**
   * A stored `.pak`'s files instead of a .ucas's chunks: each file's bytes as they are (no block padding), right
   * after its in-place entry header of `entryHeader.size` bytes, written here once its SHA-1 is known.
   */
  entryHeader?: PakEntryLayout & { size: number };
}

/** The bytes a file of `size` takes at its place: a .ucas chunk's blocks padded to 16, a pak entry's as they are. */
function placedSize(s: StoredSegment, size: number): number {
  return s.entryHeader ? size : storedSize(size, s.blockSize);
}

/** A pak file's in-place entry header, before its bytes at `at` of `buf`. */
function putEntryHeader(s: StoredSegment, buf: Uint8Array, at: number, size: number, hash: Uint8Array): void {
  buf.set(storedEntryHeader(size, hash, s.entryHeader!), at - s.entryHeader!.size);
}

/** Bytes of each chunk-meta hash in a segment's reply. */
export const SEGMENT_HASH_SIZE = 20;

/** What a segment's buffer is made with: 512 KiB of files, then a file of up to 1 MiB (larger ones go in pieces). */
const SEGMENT_ROOM = (3 << 19) + (64 << 10);

/** A buffer reused from segment to segment by one thread. */
export class SegmentBuffer {
  bytes = new Uint8Array(0);

  /**
   * At least `n` bytes (contents not kept). Made at once for what a segment of small files and its last file
   * usually need: a buffer let go of is freed only by a full collection, which seldom comes.
   */
  room(n: number): Uint8Array {
    if (this.bytes.length < n) this.bytes = new Uint8Array(Math.max(n, 2 * this.bytes.length, SEGMENT_ROOM));
    return this.bytes;
  }
}

/**
 * Reads the segment's files into `buffer` where their stored bytes go, pads each chunk's last block to 16 bytes with
 * its own bytes from its start (the engine's rule, as ContainerWriter stages blocks), hashes each file and writes
 * the segment. Returns the hashes back to back. A file whose size changed since the folder was read is refused:
 * the places of the chunks after it are already given.
 */
export function copySegment(s: StoredSegment, buffer: SegmentBuffer, hasher: ChunkHasher, stopped: () => void = () => {}): Uint8Array {
  const n = s.sizes.length;
  if (n === 1 && s.sizes[0]! > STREAM_PIECE) return copyLargeFile(s, buffer, hasher, stopped);
  const files = s.files.split('\0');
  const start = s.positions[0]! - (s.entryHeader?.size ?? 0);
  const last = n - 1;
  const end = s.positions[last]! + placedSize(s, s.sizes[last]!);
  // One spare byte: each file is asked for one byte more than planned, so a file that grew is seen.
  const buf = buffer.room(end - start + 1);
  const hashes = new Uint8Array(n * SEGMENT_HASH_SIZE);
  let filled = 0;
  for (let k = 0; k < n; k++) {
    stopped();
    const file = files[k]!;
    const size = s.sizes[k]!;
    const at = s.positions[k]! - start;
    // Zeros where an alignment gap is (the buffer holds an earlier segment's bytes).
    if (at > filled) buf.fill(0, filled, at);
    const got = readInto(file, buf, at, size);
    if (got !== size) throw new IoStoreError('IO', `changed size while being packed: ${size} bytes when the folder was read, ${got > size ? 'more' : got} now`, { file });
    hasher.reset();
    hasher.update(buf.subarray(at, at + size));
    hasher.digestInto(hashes, k * SEGMENT_HASH_SIZE);
    if (s.entryHeader) putEntryHeader(s, buf, at, size, hashes.subarray(k * SEGMENT_HASH_SIZE, (k + 1) * SEGMENT_HASH_SIZE));
    else if (size > 0) {
      const lastStart = at + Math.floor((size - 1) / s.blockSize) * s.blockSize;
      padBlockInPlace(buf, lastStart, at + size - lastStart);
    }
    filled = at + placedSize(s, size);
  }
  writeAt(s, buf, filled, start);
  return hashes;
}

/** A file larger than this is read, hashed and written in pieces of about this size (whole blocks). */
export const STREAM_PIECE = 1 << 20;

/** A segment of one large file: read, hashed and written piece by piece (a piece holds whole blocks). */
function copyLargeFile(s: StoredSegment, buffer: SegmentBuffer, hasher: ChunkHasher, stopped: () => void): Uint8Array {
  const file = s.files;
  const size = s.sizes[0]!;
  const bs = s.blockSize;
  const piece = Math.max(1, Math.floor(STREAM_PIECE / bs)) * bs;
  const buf = buffer.room(piece + 16);
  const fd = withIoError(file, () => openSync(file, 'r'));
  hasher.reset();
  try {
    let pos = s.positions[0]!;
    for (let done = 0; done < size; ) {
      stopped();
      const want = Math.min(piece, size - done);
      let got: number;
      try {
        got = readFullSync(fd, buf, 0, want, done);
      } catch (e) {
        throw ioError(e, file);
      }
      if (got < want) throw new IoStoreError('IO', `changed size while being packed: ${size} bytes when the folder was read, ${done + got} now`, { file });
      hasher.update(buf.subarray(0, got));
      done += got;
      // The chunk's last block is whole in its last piece (pieces hold whole blocks): padded as in copySegment.
      let len = got;
      if (done === size && !s.entryHeader) {
        const lastStart = Math.floor((got - 1) / bs) * bs;
        len = lastStart + padBlockInPlace(buf, lastStart, got - lastStart);
      }
      writeAt(s, buf, len, pos);
      pos += len;
    }
    let more: number;
    try {
      more = readSync(fd, buf, 0, 1, size);
    } catch (e) {
      throw ioError(e, file);
    }
    if (more > 0) throw new IoStoreError('IO', `changed size while being packed: ${size} bytes when the folder was read, more now`, { file });
  } finally {
    closeSync(fd);
  }
  const hashes = new Uint8Array(SEGMENT_HASH_SIZE);
  hasher.digestInto(hashes, 0);
  if (s.entryHeader) {
    putEntryHeader(s, buf, s.entryHeader.size, size, hashes);
    writeAt(s, buf, s.entryHeader.size, s.positions[0]! - s.entryHeader.size);
  }
  return hashes;
}


/** Reads up to `size` + 1 bytes of `file` into `buf` at `at`; returns how many it held (size + 1: it grew). */
function readInto(file: string, buf: Uint8Array, at: number, size: number): number {
  const fd = withIoError(file, () => openSync(file, 'r'));
  try {
    let done = 0;
    for (;;) {
      const want = size + 1 - done;
      const got = readSync(fd, buf, at + done, want, done);
      done += got;
      // A regular file reads short only at its end.
      if (got < want || done > size) return done;
    }
  } catch (e) {
    throw ioError(e, file);
  } finally {
    closeSync(fd);
  }
}

/** The first `len` bytes of `buf`, written whole to the segment's .ucas at `position`. */
function writeAt(s: StoredSegment, buf: Uint8Array, len: number, position: number): void {
  try {
    for (let o = 0; o < len; ) o += writeSync(s.fd, buf, o, len - o, position + o);
  } catch (e) {
    throw ioError(e, s.shownAs);
  }
}
