import { ByteReader } from '../util/bytes.js';
import { ByteOut } from './byte-out.js';
import { IV_SIZE } from './footer.js';
import { PakVersion } from './version.js';

export const PAK_ENTRY_FLAG_ENCRYPTED = 0x01;
export const PAK_ENTRY_FLAG_DELETED = 0x02;

/** One compression block as absolute byte offsets in the pak file (end exclusive, before AES padding). */
export interface PakBlock {
  start: number;
  end: number;
}

/** FPakEntry, as stored in the index (full form) or decoded from the bit-packed form of v10+. */
export interface PakEntryRecord {
  /** Absolute offset of the entry's in-place header; the payload follows that header. */
  offset: number;
  /** Stored payload size (compressed size when compressed, before AES padding). */
  size: number;
  uncompressedSize: number;
  /** 0 = none; i > 0 = the footer's i-th named method. */
  compressionMethodIndex: number;
  /** SHA-1 of the stored payload; only full entries carry it (the v10+ index zero-fills or omits it). */
  hash?: Uint8Array;
  blocks: PakBlock[];
  compressionBlockSize: number;
  flags: number;
  /** v15 AES-CTR paks: the IV of this entry's encryption unit. */
  encryptionIv?: Uint8Array;
}

/** Legacy (pre-v8) ECompressionFlags bits that select the engine's fixed method list. */
const COMPRESS_ZLIB = 0x01;
const COMPRESS_GZIP = 0x02;
const COMPRESS_CUSTOM = 0x04;

function methodFieldWidth(version: number, methodWidth: 1 | 4): number {
  return version >= PakVersion.FNameBasedCompressionMethod ? methodWidth : 4;
}

/**
 * Size of a full entry as serialized for `version`: the in-place header before each payload has this size, which
 * is how the payload (and the blocks of a bit-encoded entry) are located.
 */
export function fullEntrySize(version: number, methodIndex: number, blockCount: number, methodWidth: 1 | 4 = 4): number {
  let n = 8 + 8 + 8 + methodFieldWidth(version, methodWidth) + 20;
  if (version <= PakVersion.Initial) n += 8;
  if (version >= PakVersion.CompressionEncryption) {
    n += 1 + 4;
    if (methodIndex !== 0) n += 4 + 16 * blockCount;
  }
  return n;
}

function sizeField(r: ByteReader, what: string): number {
  const at = r.pos;
  const v = r.i64(what);
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) r.fail('BAD_VALUE', `${what} ${v} is out of range`, at);
  return Number(v);
}

/** Reads a full FPakEntry (legacy index, non-encodable v10+ entries, and the in-place header before a payload). */
export function readFullEntry(r: ByteReader, version: number, methodWidth: 1 | 4): PakEntryRecord {
  const offset = sizeField(r, 'entry offset');
  const size = sizeField(r, 'entry size');
  const uncompressedSize = sizeField(r, 'entry uncompressed size');
  let compressionMethodIndex: number;
  const methodAt = r.pos;
  if (version < PakVersion.FNameBasedCompressionMethod) {
    const legacy = r.i32('entry compression flags');
    if (legacy === 0) compressionMethodIndex = 0;
    else if (legacy & COMPRESS_ZLIB) compressionMethodIndex = 1;
    else if (legacy & COMPRESS_GZIP) compressionMethodIndex = 2;
    else if (legacy & COMPRESS_CUSTOM) compressionMethodIndex = 3;
    else r.fail('BAD_VALUE', `unknown legacy compression flags 0x${(legacy >>> 0).toString(16)}`, methodAt);
  } else {
    compressionMethodIndex = methodWidth === 1 ? r.u8('entry compression method') : r.u32('entry compression method');
  }
  if (version <= PakVersion.Initial) r.skip(8, 'entry timestamp');
  const hash = Uint8Array.from(r.bytesView(20, 'entry hash'));
  const blocks: PakBlock[] = [];
  let flags = 0;
  let compressionBlockSize = 0;
  if (version >= PakVersion.CompressionEncryption) {
    if (compressionMethodIndex !== 0) {
      const countAt = r.pos;
      const count = r.i32('compression block count');
      if (count < 0) r.fail('BAD_VALUE', `negative compression block count ${count}`, countAt);
      r.needArray(count, 16, 'compression blocks');
      // Since v5 block offsets are relative to the entry; before, they were absolute in the file.
      const base = version >= PakVersion.RelativeChunkOffsets ? offset : 0;
      for (let i = 0; i < count; i++) {
        const at = r.pos;
        const start = sizeField(r, 'block start');
        const end = sizeField(r, 'block end');
        if (end < start || base + end > Number.MAX_SAFE_INTEGER) r.fail('BAD_VALUE', `compression block ${i} runs from ${start} to ${end}`, at);
        blocks.push({ start: base + start, end: base + end });
      }
    }
    flags = r.u8('entry flags');
    compressionBlockSize = r.u32('compression block size');
  }
  return { offset, size, uncompressedSize, compressionMethodIndex, hash, blocks, compressionBlockSize, flags };
}

/** What the in-place entry headers of a pak's files look like: its version and method field width. */
export interface PakEntryLayout {
  version: number;
  methodWidth: 1 | 4;
}

/**
 * The in-place header of a file stored as it is, unencrypted (offset 0, no blocks, its SHA-1): all a stored pak's
 * header depends on, so any thread copying the file can write it (src/pack/stored-segment.ts).
 */
export function storedEntryHeader(size: number, hash: Uint8Array, l: PakEntryLayout): Uint8Array {
  return writeFullEntry({ offset: 0, size, uncompressedSize: size, compressionMethodIndex: 0, hash, blocks: [], compressionBlockSize: 0, flags: 0 }, l.version, l.methodWidth);
}

/** Serializes a full FPakEntry; block offsets are written relative to the entry from v5 on. */
export function writeFullEntry(e: PakEntryRecord, version: number, methodWidth: 1 | 4 = 4): Uint8Array {
  const out = new Uint8Array(fullEntrySize(version, e.compressionMethodIndex, e.blocks.length, methodWidth));
  const view = new DataView(out.buffer);
  let p = 0;
  view.setBigInt64(p, BigInt(e.offset), true);
  view.setBigInt64(p + 8, BigInt(e.size), true);
  view.setBigInt64(p + 16, BigInt(e.uncompressedSize), true);
  p += 24;
  if (version < PakVersion.FNameBasedCompressionMethod) {
    const legacy = [0, COMPRESS_ZLIB, COMPRESS_GZIP, COMPRESS_CUSTOM][e.compressionMethodIndex] ?? 0;
    view.setInt32(p, legacy, true);
    p += 4;
  } else if (methodWidth === 1) {
    out[p++] = e.compressionMethodIndex;
  } else {
    view.setUint32(p, e.compressionMethodIndex, true);
    p += 4;
  }
  if (version <= PakVersion.Initial) p += 8;
  if (e.hash) out.set(e.hash.subarray(0, 20), p);
  p += 20;
  if (version >= PakVersion.CompressionEncryption) {
    if (e.compressionMethodIndex !== 0) {
      view.setInt32(p, e.blocks.length, true);
      p += 4;
      const base = version >= PakVersion.RelativeChunkOffsets ? e.offset : 0;
      for (const b of e.blocks) {
        view.setBigInt64(p, BigInt(b.start - base), true);
        view.setBigInt64(p + 8, BigInt(b.end - base), true);
        p += 16;
      }
    }
    out[p++] = e.flags;
    view.setUint32(p, e.compressionBlockSize, true);
  }
  return out;
}

const alignAes = (n: number) => Math.ceil(n / 16) * 16;

/*
 * Bit-encoded entries (v10+). The leading u32 holds:
 *   bits 0-5   compression block size >> 11 (0x3f: a full u32 block size follows)
 *   bits 6-21  compression block count
 *   bit  22    encrypted
 *   bits 23-28 compression method index
 *   bit  29    compressed size fits in u32
 *   bit  30    uncompressed size fits in u32
 *   bit  31    offset fits in u32
 * then [block size], offset, uncompressed size, [v15 AES-CTR: 12-byte IV], [compressed size if compressed],
 * [u32 size of each block, unless there is a single unencrypted block].
 */

/** Decodes one bit-encoded entry at the reader's position. `ctr` = the pak uses AES-CTR (v15 method 2). */
export function decodeEntry(r: ByteReader, version: number, ctr: boolean): PakEntryRecord {
  const bits = r.u32('encoded entry bitfield');
  const sizeBits = bits & 0x3f;
  const blockCount = (bits >>> 6) & 0xffff;
  const encrypted = ((bits >>> 22) & 1) === 1;
  const compressionMethodIndex = (bits >>> 23) & 0x3f;
  const sizeIs32 = ((bits >>> 29) & 1) === 1;
  const uncompressedIs32 = ((bits >>> 30) & 1) === 1;
  const offsetIs32 = bits >>> 31 === 1;
  const encodedBlockSize = sizeBits === 0x3f ? r.u32('compression block size') : sizeBits << 11;
  const offset = offsetIs32 ? r.u32('entry offset') : r.u64n('entry offset');
  const uncompressedSize = uncompressedIs32 ? r.u32('entry uncompressed size') : r.u64n('entry uncompressed size');
  let encryptionIv: Uint8Array | undefined;
  if (ctr && encrypted) encryptionIv = Uint8Array.from(r.bytesView(IV_SIZE, 'entry IV'));
  let size = uncompressedSize;
  if (compressionMethodIndex !== 0) size = sizeIs32 ? r.u32('entry size') : r.u64n('entry size');
  const blocks: PakBlock[] = [];
  if (blockCount > 0) {
    let start = offset + fullEntrySize(version, compressionMethodIndex, blockCount);
    if (blockCount === 1 && !encrypted) {
      blocks.push({ start, end: start + size });
    } else {
      r.needArray(blockCount, 4, 'encoded block sizes');
      for (let i = 0; i < blockCount; i++) {
        const len = r.u32('block size');
        blocks.push({ start, end: start + len });
        start += encrypted ? alignAes(len) : len;
      }
    }
  }
  const compressionBlockSize = blockCount === 0 ? 0 : blockCount === 1 ? uncompressedSize : encodedBlockSize;
  const e: PakEntryRecord = {
    offset,
    size,
    uncompressedSize,
    compressionMethodIndex,
    blocks,
    compressionBlockSize,
    flags: encrypted ? PAK_ENTRY_FLAG_ENCRYPTED : 0,
  };
  if (encryptionIv) e.encryptionIv = encryptionIv;
  return e;
}

/**
 * Bit-encodes an entry, or returns undefined when the compact form cannot hold it (the engine then stores the
 * full form in the primary index's list of non-encodable entries).
 */
export function encodeEntry(e: PakEntryRecord, version: number): Uint8Array | undefined {
  const out = new ByteOut(32 + 4 * e.blocks.length);
  return encodeEntryTo(out, e, version) ? out.done() : undefined;
}

/** encodeEntry appended to `out`; false (nothing written) when the compact form cannot hold the entry. */
export function encodeEntryTo(out: ByteOut, e: PakEntryRecord, version: number): boolean {
  const encrypted = (e.flags & PAK_ENTRY_FLAG_ENCRYPTED) !== 0;
  if ((e.flags & ~PAK_ENTRY_FLAG_ENCRYPTED) !== 0) return false;
  if (e.compressionMethodIndex > 0x3f || e.blocks.length > 0xffff || e.encryptionIv) return false;
  if (e.compressionMethodIndex === 0 && e.size !== e.uncompressedSize) return false;
  // The compact form only records block lengths, so the blocks must sit where it implies: packed right after
  // the in-place header, each aligned to 16 when encrypted.
  let start = e.offset + fullEntrySize(version, e.compressionMethodIndex, e.blocks.length);
  for (const b of e.blocks) {
    if (b.start !== start || b.end < b.start || b.end - b.start > 0xffffffff) return false;
    start += encrypted ? alignAes(b.end - b.start) : b.end - b.start;
  }
  let sizeBits = 0;
  if (e.blocks.length > 0 || encrypted) {
    const shifted = Math.floor(e.compressionBlockSize / 2048);
    sizeBits = e.compressionBlockSize % 2048 === 0 && shifted < 0x3f ? shifted : 0x3f;
  }
  const offsetIs32 = e.offset <= 0xffffffff;
  const uncompressedIs32 = e.uncompressedSize <= 0xffffffff;
  const sizeIs32 = e.size <= 0xffffffff;
  const bits =
    (sizeBits |
      (e.blocks.length << 6) |
      ((encrypted ? 1 : 0) << 22) |
      (e.compressionMethodIndex << 23) |
      ((sizeIs32 ? 1 : 0) << 29) |
      ((uncompressedIs32 ? 1 : 0) << 30) |
      ((offsetIs32 ? 1 : 0) << 31)) >>>
    0;
  const u64 = (v: number) => out.u64(v % 0x100000000, Math.floor(v / 0x100000000));
  out.u32(bits);
  if (sizeBits === 0x3f) out.u32(e.compressionBlockSize);
  if (offsetIs32) out.u32(e.offset);
  else u64(e.offset);
  if (uncompressedIs32) out.u32(e.uncompressedSize);
  else u64(e.uncompressedSize);
  if (e.compressionMethodIndex !== 0) {
    if (sizeIs32) out.u32(e.size);
    else u64(e.size);
  }
  if (e.blocks.length > 1 || (e.blocks.length === 1 && encrypted)) for (const b of e.blocks) out.u32(b.end - b.start);
  return true;
}
