import { closeSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { IoStoreError } from '../errors.js';
import { placedEntry, type PlacementFacts } from '../pak/archive.js';
import { ioError } from '../toc/read-file.js';
import { readFullSync } from '../util/read-full.js';

/**
 * Consecutive files of a pak stored as they are, unencrypted, that one thread writes out under their final names:
 * their bytes (in-place headers included) read with one call, each header checked against the index, each file
 * created and written with one call each. Any thread can write a segment while others write the next ones.
 */
export interface PakOutSegment {
  /** The pak file (each thread opens it once) and what its header checks need. */
  pak: string;
  facts: PlacementFacts;
  /** The files' paths in the pak (for messages) and their output files, each list separated by NUL. */
  paths: string;
  targets: string;
  /** Each entry's offset (its in-place header), ascending and back to back, and its size. */
  offsets: Float64Array;
  sizes: Float64Array;
}

/** What a segment did: per file its bytes written, or -1 with its failure. */
export interface PakOutResult {
  written: Float64Array;
  failures: Array<{ k: number; code: string; message: string }>;
}

/** A file larger than this is read and written in pieces of this size (a segment of its own). */
export const PIECE = 1 << 20;

/** What one thread keeps from segment to segment: its pak descriptors and a buffer. */
export class PakOutThread {
  private readonly fds = new Map<string, number>();
  private bytes = new Uint8Array(0);

  fdOf(pak: string): number {
    let fd = this.fds.get(pak);
    if (fd === undefined) {
      try {
        fd = openSync(pak, 'r');
      } catch (e) {
        throw ioError(e, pak);
      }
      this.fds.set(pak, fd);
    }
    return fd;
  }

  /** At least `n` bytes (contents not kept). */
  room(n: number): Uint8Array {
    if (this.bytes.length < n) this.bytes = new Uint8Array(Math.max(n, 2 * this.bytes.length, 3 << 19));
    return this.bytes;
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

/**
 * Writes the segment's files; a file that fails (its header disagrees with the index, the output cannot be
 * written) is a failure of its own, as on the one-file path (PakArchive.read). `stopped` is asked between files.
 */
export function writePakSegment(s: PakOutSegment, t: PakOutThread, stopped: () => void = () => {}): PakOutResult {
  const n = s.sizes.length;
  const fd = t.fdOf(s.pak);
  const paths = s.paths.split('\0');
  const targets = s.targets.split('\0');
  const out: PakOutResult = { written: new Float64Array(n).fill(-1), failures: [] };
  const start = s.offsets[0]!;
  const large = n === 1 && s.sizes[0]! > PIECE;
  const want = Math.min(large ? start + MAX_STORED_HEADER : pakSegmentEnd(s.offsets, s.sizes), s.facts.dataEnd) - start;
  const buf = t.room(want);
  // Only what this read gave: a pak that shrank since it was opened leaves the rest of the buffer from an earlier
  // segment, which must read as missing (each file past the end fails as truncated), not as a file's bytes.
  const read = buf.subarray(0, readFull(fd, buf, want, start, s.pak));
  for (let k = 0; k < n; k++) {
    stopped();
    const e = { path: paths[k]!, offset: s.offsets[k]!, size: s.sizes[k]!, uncompressedSize: s.sizes[k]!, compressionMethodIndex: 0 };
    try {
      const at = e.offset - start;
      const header = read.subarray(at, at + MAX_STORED_HEADER);
      const { dataOffset } = placedEntry(s.facts, e, header);
      out.written[k] = large ? copyLarge(fd, s, t, targets[k]!, dataOffset, e.size, stopped) : writeFileSync1(targets[k]!, read.subarray(dataOffset - start, dataOffset - start + e.size), e, s);
    } catch (err) {
      if (!(err instanceof IoStoreError)) throw err;
      out.failures.push({ k, code: err.code, message: err.message });
    }
  }
  return out;
}

/**
 * Where the bytes of a segment's entries (`offsets` ascending, `sizes`) end at most: each one's in-place header of
 * up to MAX_STORED_HEADER bytes, then its bytes (a pak's entries may overlap, so each counts).
 */
export function pakSegmentEnd(offsets: Float64Array, sizes: Float64Array): number {
  let end = 0;
  for (let k = 0; k < offsets.length; k++) end = Math.max(end, offsets[k]! + MAX_STORED_HEADER + sizes[k]!);
  return end;
}

/** A stored entry's in-place header is at most this long (v1: 8 more for a timestamp; no blocks). */
export const MAX_STORED_HEADER = 8 + 8 + 8 + 4 + 8 + 20 + 1 + 4;

function readFull(fd: number, buf: Uint8Array, want: number, position: number, pak: string): number {
  try {
    return readFullSync(fd, buf, 0, want, position);
  } catch (e) {
    throw ioError(e, pak);
  }
}

/** One file's bytes, all in `data`, written under its final name (its folder made if it is not there). */
function writeFileSync1(target: string, data: Uint8Array, e: { path: string; size: number }, s: PakOutSegment): number {
  if (data.length < e.size) throw new IoStoreError('TRUNCATED', `"${e.path}": data runs past the end of the file`, { file: s.pak });
  const fd = create(target);
  try {
    for (let o = 0; o < data.length; ) o += writeSync(fd, data, o, data.length - o);
  } catch (err) {
    closeSync(fd);
    dropFile(target);
    throw ioError(err, target);
  }
  closeSync(fd);
  return data.length;
}

/** A large file read and written a piece at a time. */
function copyLarge(pakFd: number, s: PakOutSegment, t: PakOutThread, target: string, from: number, size: number, stopped: () => void): number {
  const buf = t.room(PIECE);
  const fd = create(target);
  try {
    for (let done = 0; done < size; ) {
      stopped();
      const want = Math.min(PIECE, size - done);
      const got = readFull(pakFd, buf, want, from + done, s.pak);
      if (got < want) throw new IoStoreError('TRUNCATED', `data at ${from} runs past the end of the file`, { file: s.pak, offset: from + done + got });
      try {
        for (let o = 0; o < got; ) o += writeSync(fd, buf, o, got - o);
      } catch (err) {
        throw ioError(err, target);
      }
      done += got;
    }
  } catch (err) {
    closeSync(fd);
    dropFile(target);
    throw err;
  }
  closeSync(fd);
  return size;
}

/** A file whose write failed, removed (gone already is fine). */
function dropFile(target: string): void {
  try {
    unlinkSync(target);
  } catch {
    // not there
  }
}

function create(target: string): number {
  try {
    return openSync(target, 'w');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(e, target);
  }
  try {
    mkdirSync(dirname(target), { recursive: true });
    return openSync(target, 'w');
  } catch (e) {
    throw ioError(e, target);
  }
}
