import { createHash } from 'node:crypto';
import { aesEcbEncrypt } from '../crypto/aes.js';
import type { Codec } from '../codecs/codec.js';
import { lz4LiteralBlock } from '../codecs/lz4.js';
import { defaultCodecs, type CodecRegistry } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import { fullEntrySize, PAK_ENTRY_FLAG_ENCRYPTED, writeFullEntry, type PakEntryLayout, type PakEntryRecord } from './entry.js';
import { defaultSlots, PakEncryptionMethod, writePakFooter, type PakFooterInit } from './footer.js';
import { checkAesKey } from './pak-crypto.js';
import { unsafePakPathReason } from './safe-path.js';
import { MAX_PAK_STRING } from './strings.js';
import { PAK_VERSION_LATEST, PakVersion } from './version.js';
import { buildPakIndex, padAes } from './write.js';
import { PakRecordTable } from './record-table.js';
import { eventLoopTurns } from '../util/turns.js';
import { KeyTable } from '../util/key-table.js';

/** Where a pak is written: positioned writes (an entry's header is written after its data). */
export interface PakSink {
  /** `data` is the writer's again once the promise settles (it may read the next file's bytes into it). */
  write(data: Uint8Array, position: number): Promise<void>;
  /** Cuts the output at `size` (a file stored raw after a failed compression may leave bytes behind). */
  truncate(size: number): Promise<void>;
  /**
   * The file's descriptor and the name its errors give, when other threads may write places of it the sink is
   * never given (PakWriterOptions.copyStored); `writtenTo(end)` then tells the sink that bytes up to `end` were
   * written that way (it must not write a gap of its own over them).
   */
  readonly direct?: { fd: number; shownAs: string; writtenTo(end: number): void };
}

/** One file to store: its path below the mount point and its bytes, read in order (possibly twice). */
export interface PakInputFile {
  path: string;
  size: number;
  /**
   * The file's bytes in order. `room`, when given, is the caller's buffer the pieces may be read into: each piece
   * is then valid only until the next is asked for (the writer copies each before it asks again).
   */
  read(room?: Uint8Array): AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** The file on disk holding exactly these bytes, when there is one (another thread may then copy it). */
  diskPath?(): string;
}

/** Stored files copied to the pak by other threads as well as this one (see PakWriterOptions.copyStored). */
export interface StoredFilesCopy {
  /**
   * Copies the file of `size` bytes to `position`, after its in-place entry header; its SHA-1 is the `index`-th
   * handed to `setHashes`. A promise only when the caller should wait before adding more.
   */
  addFile(file: string, size: number, position: number, index: number): Promise<void> | undefined;
  /** Waits for every file: all are written and hashed when this returns. */
  finish(): Promise<void>;
  close(): Promise<void>;
}

/** Bytes of the room a file's pieces are read into (PakInputFile.read): its sources read at most this at once. */
export const PAK_READ_ROOM = 1 << 20;

export interface PakWriterOptions {
  /** Pak version, 1 to 15 (compression and entry encryption need 3+, index encryption 4+). */
  version: number;
  /** Default `../../../`. */
  mountPoint?: string;
  /** Compression method name (None, Zlib, Gzip, LZ4, Oodle when a codec can encode it); default None. */
  compression?: string;
  codecs?: CodecRegistry;
  /** Uncompressed bytes per compression block; default 65536. */
  blockSize?: number;
  /** AES-256 key for `encryptEntries` and/or `encryptIndex` (AES-ECB, as every engine can read). */
  aesKey?: Uint8Array;
  encryptEntries?: boolean;
  encryptIndex?: boolean;
  /** 16 bytes naming the key for the engine (all zero: the embedded key). */
  encryptionKeyGuid?: Uint8Array;
  /** v8 only: 4 name slots (UE 4.22, one-byte entry method) or 5 (UE 4.23+, default). */
  compressionSlots?: 4 | 5;
  /** v10+: seed of the path hashes (UnrealPak derives it from the file name; any value reads). Default 0. */
  pathHashSeed?: bigint | number;
  /** v14+: the footer's pakchunk index; default -1. */
  pakchunkIndex?: number;
  /** After each file: its path, its stored size and its place in `files`. */
  onFile?: (path: string, stored: number, index: number) => void;
  /**
   * Blocks read and compressed ahead of the writer (e.g. on every core: see src/pack/pak-deflate-ahead.ts), for
   * `codec`; undefined (or none returned) compresses each block on this thread as it is written. The bytes are the
   * same either way.
   */
  compressAhead?: (files: readonly PakInputFile[], codec: Codec, blockSize: number) => BlocksAhead | undefined;
  /**
   * A pak of files stored as they are, unencrypted, all on disk (`diskPath`), written to a sink with a `direct`
   * file: their copy by this thread and others side by side (see src/pack/stored-copy.ts), each file's bytes of
   * `bytes` in all after its in-place header (`layout`), the SHA-1s handed back through `setHashes`. Undefined (or
   * none returned) copies each file on this thread. The bytes are the same either way.
   */
  copyStored?: (direct: { fd: number; shownAs: string }, bytes: number, layout: PakEntryLayout & { size: number }, hashes: { setHashes(first: number, hashes: Uint8Array): void }) => StoredFilesCopy | undefined;
  /**
   * v10+: files (mount-relative paths) the pruned directory index keeps, as the project's `[Pak]
   * DirectoryIndexKeepFiles` wildcards select them. Default: `keepInPrunedIndexDefault`.
   */
  keepInPrunedIndex?: (path: string) => boolean;
}

/**
 * What UnrealPak kept in the pruned directory index of the corpus's UE 5.8 and 6.0 paks: `.ini` files and
 * localization files (the engine's default DirectoryIndexKeepFiles).
 */
export const keepInPrunedIndexDefault = (path: string): boolean => /\.ini$/i.test(path) || /(^|\/)Localization\//.test(path);

export interface PakWriteResult {
  version: number;
  mountPoint: string;
  entries: number;
  compression: string;
  encryptedEntries: boolean;
  encryptedIndex: boolean;
  /** Entries stored raw because compression did not make them smaller. */
  storedRaw: number;
  rawBytes: number;
  storedBytes: number;
  size: number;
}

/** One block of a file: its bytes and their compressed stream. */
export interface CompressedBlock {
  raw: Uint8Array;
  packed: Uint8Array;
}

/** Files' blocks compressed ahead of the writer (PakWriterOptions.compressAhead). */
export interface BlocksAhead {
  /**
   * The blocks of `files[index]`, in order. Asked for in the order of the files, once each, for every file of one
   * byte or more.
   */
  blocksOf(index: number): AsyncIterable<CompressedBlock>;
  /** Ends the reading and compressing ahead (the pak is written, or failed). */
  stop(): void;
}

/** Legacy (pre-v8) entries name compression by flag: the engine's fixed list. */
const LEGACY_METHODS = ['Zlib', 'Gzip', 'Oodle'];

function usage(message: string): never {
  throw new IoStoreError('USAGE', message);
}

/**
 * Pieces of any size regrouped into blocks of exactly `size` bytes (the last shorter). With `total`, the file's
 * expected size, each block's buffer is no larger than what is left of it (a small file's block is not a whole
 * block's allocation); bytes past `total` (a file that grew) come out in blocks of their own, so the count differs.
 */
export async function* blocksOf(pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, size: number, total = Infinity): AsyncGenerator<Uint8Array> {
  let done = 0;
  const room = () => new Uint8Array(done < total ? Math.min(size, total - done) : size);
  let buf = room();
  let fill = 0;
  for await (const piece of pieces) {
    let at = 0;
    while (at < piece.length) {
      const n = Math.min(buf.length - fill, piece.length - at);
      buf.set(piece.subarray(at, at + n), fill);
      fill += n;
      at += n;
      if (fill === buf.length) {
        done += fill;
        yield buf;
        buf = room();
        fill = 0;
      }
    }
  }
  if (fill > 0) yield buf.subarray(0, fill);
}

interface Checked {
  version: number;
  mountPoint: string;
  method: string;
  methodIndex: number;
  codec: Codec | undefined;
  blockSize: number;
  key: Uint8Array | undefined;
  slots: number;
  methodWidth: 1 | 4;
  seed: bigint;
}

function check(o: PakWriterOptions, files: readonly PakInputFile[]): Checked {
  const v = o.version;
  if (!Number.isInteger(v) || v < 1 || v > PAK_VERSION_LATEST) usage(`pak version must be an integer from 1 to ${PAK_VERSION_LATEST}, got ${v}`);
  const mountPoint = o.mountPoint ?? '../../../';
  if (mountPoint.length > MAX_PAK_STRING || mountPoint.includes('\0')) usage('mount point must be a string without NUL of at most 65535 characters');
  let method = o.compression ?? 'None';
  if (/^none$/i.test(method)) method = 'None';
  let methodIndex = 0;
  let codec: Codec | undefined;
  if (method !== 'None') {
    if (v < PakVersion.CompressionEncryption) usage(`pak version ${v} cannot hold compressed entries (3 or later can)`);
    codec = (o.codecs ?? defaultCodecs()).get(method);
    if (!codec?.compress) usage(`cannot compress with ${method}: no encoder in this build; pass --compression zlib, gzip, lz4 or none`);
    method = codec.name;
    if (v < PakVersion.FNameBasedCompressionMethod) {
      methodIndex = LEGACY_METHODS.findIndex((m) => m.toLowerCase() === method.toLowerCase()) + 1;
      if (methodIndex === 0) usage(`pak version ${v} names compression by flag (Zlib, Gzip, Oodle); ${method} needs version 8 or later`);
    } else methodIndex = 1;
  }
  const blockSize = o.blockSize ?? 65536;
  if (!Number.isInteger(blockSize) || blockSize < 1024 || blockSize > 0x7fffffff) usage(`block size must be a whole number of bytes from 1024, got ${blockSize}`);
  const encrypting = !!o.encryptEntries || !!o.encryptIndex;
  if (encrypting && !o.aesKey) usage('encryption needs an AES key (--aes-key)');
  if (o.encryptEntries && v < PakVersion.CompressionEncryption) usage(`pak version ${v} cannot hold encrypted entries (3 or later can)`);
  if (o.encryptIndex && v < PakVersion.IndexEncryption) usage(`pak version ${v} cannot encrypt its index (4 or later can)`);
  if (o.aesKey) checkAesKey(o.aesKey, 'AES key', 0);
  let slots = defaultSlots(v);
  if (o.compressionSlots !== undefined) {
    if (v !== PakVersion.FNameBasedCompressionMethod) usage('4 or 5 compression slots only apply to pak version 8');
    slots = o.compressionSlots;
  }
  const methodWidth: 1 | 4 = v === PakVersion.FNameBasedCompressionMethod && slots === 4 ? 1 : 4;
  let seed: bigint;
  try {
    seed = BigInt(o.pathHashSeed ?? 0);
  } catch {
    usage(`path hash seed must be an integer, got ${String(o.pathHashSeed)}`);
  }
  if (seed < 0n || seed >= 1n << 64n) usage(`path hash seed ${seed} does not fit in 64 bits`);
  // Lower-case paths as hashes and references into `files` (a Map of the strings took ~0.1 KB a file).
  const seen = new KeyTable((k) => files[k]!.path.toLowerCase());
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const why = unsafePakPathReason(f.path);
    if (why !== undefined) throw new IoStoreError('UNSAFE_PATH', `pak path ${JSON.stringify(f.path)} ${why}`);
    if (f.path.includes('\\')) usage(`pak path ${JSON.stringify(f.path)} must use "/" separators`);
    // The engine finds files by a case-insensitive path hash, so two paths differing only in case collide.
    const k = seen.addIfAbsent(f.path.toLowerCase(), i);
    const other = k < 0 ? undefined : files[k]!.path;
    if (other !== undefined) usage(other === f.path ? `pak path ${JSON.stringify(f.path)} is given twice (a pak finds one file per path)` : `pak paths ${JSON.stringify(other)} and ${JSON.stringify(f.path)} differ only in case`);
  }
  return { version: v, mountPoint, method, methodIndex, codec, blockSize, key: o.aesKey, slots, methodWidth, seed };
}

/**
 * Writes a pak as UnrealPak lays it out: per file an in-place entry header (offset field 0; block offsets relative to
 * the entry from v5, absolute before) then its bytes, compressed block by block when that makes the file smaller and
 * each block (or the whole file) padded to 16 bytes and AES-ECB encrypted when asked; then the index (encrypted when
 * asked) and the footer of the version. Files are streamed: memory holds one block at a time.
 */
export async function writePak(sink: PakSink, files: readonly PakInputFile[], o: PakWriterOptions): Promise<PakWriteResult> {
  const c = check(o, files);
  const w: EntryWriter = { sink, c, encrypt: !!o.encryptEntries, room: new Uint8Array(PAK_READ_ROOM) };
  const records = new PakRecordTable((i) => files[i]!.path);
  const result: PakWriteResult = { version: c.version, mountPoint: c.mountPoint, entries: files.length, compression: c.method, encryptedEntries: w.encrypt, encryptedIndex: !!o.encryptIndex, storedRaw: 0, rawBytes: 0, storedBytes: 0, size: 0 };
  let pos = 0;
  // Sources and sinks may block (files read and written with blocking calls): Ctrl-C and the progress bar need turns.
  const turn = eventLoopTurns();
  const ahead = c.codec ? o.compressAhead?.(files, c.codec, c.blockSize) : undefined;
  const copy = ahead ? undefined : storedCopy(w, files, records, o);
  try {
    if (copy) pos = await copyStoredFiles(w, files, records, copy, result);
    else for (let i = 0; i < files.length; i++) {
      const f = files[i]!;
      const at = pos;
      let record = c.codec && f.size > 0 ? await storeCompressed(w, c.codec, f, at, ahead?.blocksOf(i)) : undefined;
      if (!record) {
        record = await storeRaw(w, f, at);
        if (c.codec && f.size > 0) result.storedRaw++;
      }
      pos = entryEnd(w, record, at);
      records.push(record);
      result.rawBytes += f.size;
      result.storedBytes += record.size;
      o.onFile?.(f.path, record.size, i);
      await turn();
    }
  } finally {
    ahead?.stop();
    await copy?.close();
  }
  result.size = await writeIndexAndFooter(sink, c, o, records, pos);
  await sink.truncate(result.size);
  return result;
}

/** The copy of a stored pak's files by other threads too, when the options and sink allow it (see copyStored). */
function storedCopy(w: EntryWriter, files: readonly PakInputFile[], records: PakRecordTable, o: PakWriterOptions): StoredFilesCopy | undefined {
  const { c, sink } = w;
  if (c.codec || w.encrypt || !sink.direct || !o.copyStored || !files.every((f) => f.diskPath)) return undefined;
  const bytes = files.reduce((a, f) => a + f.size, 0);
  const layout = { version: c.version, methodWidth: c.methodWidth, size: fullEntrySize(c.version, 0, 0, c.methodWidth) };
  return o.copyStored(sink.direct, bytes, layout, {
    setHashes: (first, hashes) => {
      records.setHashes(first, hashes);
      for (let i = first; i < first + hashes.length / 20; i++) o.onFile?.(files[i]!.path, files[i]!.size, i);
    },
  });
}

/**
 * Places every file (stored, unencrypted: its in-place header, then its bytes) and has `copy` write them; the
 * records' hashes come as the copy goes. Returns where the index goes.
 */
async function copyStoredFiles(w: EntryWriter, files: readonly PakInputFile[], records: PakRecordTable, copy: StoredFilesCopy, result: PakWriteResult): Promise<number> {
  const headerLen = fullEntrySize(w.c.version, 0, 0, w.c.methodWidth);
  const turn = eventLoopTurns();
  let pos = 0;
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    records.push({ offset: pos, size: f.size, uncompressedSize: f.size, compressionMethodIndex: 0, blocks: [], compressionBlockSize: 0, flags: 0 });
    const waiting = copy.addFile(f.diskPath!(), f.size, pos + headerLen, i);
    if (waiting) await waiting;
    pos += headerLen + f.size;
    result.rawBytes += f.size;
    result.storedBytes += f.size;
    await turn();
  }
  await copy.finish();
  w.sink.direct!.writtenTo(pos);
  return pos;
}

/** What storing one entry needs. */
interface EntryWriter {
  sink: PakSink;
  c: Checked;
  encrypt: boolean;
  /** The room files stored raw are read into (each piece written, or copied, before the next is read). */
  room: Uint8Array;
}

/** Where the entry at `at` ends: its header, then its bytes (each block, or the whole file, padded when encrypted). */
function entryEnd({ c, encrypt }: EntryWriter, r: PakEntryRecord, at: number): number {
  const align = (n: number) => (encrypt ? Math.ceil(n / 16) * 16 : n);
  if (r.compressionMethodIndex === 0) return at + fullEntrySize(c.version, 0, 0, c.methodWidth) + align(r.size);
  const last = r.blocks.at(-1);
  return last ? align(last.end - last.start) + last.start : at;
}

/** The entry header written before the bytes: offset 0, its blocks relative to the entry from v5 (as the index's are). */
function writeInPlaceEntry({ sink, c }: EntryWriter, r: PakEntryRecord, at: number): Promise<void> {
  const rel = c.version >= PakVersion.RelativeChunkOffsets;
  const blocks = r.blocks.map((b) => ({ start: rel ? b.start - r.offset : b.start, end: rel ? b.end - r.offset : b.end }));
  return sink.write(writeFullEntry({ ...r, offset: 0, blocks }, c.version, c.methodWidth), at);
}

/** Stores a file block by block through `codec`; undefined when it does not shrink (it is then stored raw). */
async function storeCompressed(w: EntryWriter, codec: Codec, f: PakInputFile, at: number, ahead?: AsyncIterable<CompressedBlock>): Promise<PakEntryRecord | undefined> {
  const { sink, c, encrypt } = w;
  const blockCount = Math.ceil(f.size / c.blockSize);
  const headerLen = fullEntrySize(c.version, c.methodIndex, blockCount, c.methodWidth);
  const hash = createHash('sha1');
  const blocks: { start: number; end: number }[] = [];
  let p = at + headerLen;
  let compressed = 0;
  let read = 0;
  for await (const { raw: block, packed: made } of ahead ?? compressedHere(f, codec, c.blockSize)) {
    read += block.length;
    let packed = made;
    // A codec may hand back its input for a block that does not shrink (IoStore marks such blocks raw); a pak
    // names one method per file, so the block must still be a stream of that method.
    if (packed === block) {
      if (codec.name !== 'LZ4') throw new IoStoreError('CODEC', `${codec.name} returned a block uncompressed, which a pak cannot hold`);
      packed = lz4LiteralBlock(block);
    }
    const out = encrypt ? aesEcbEncrypt(c.key!, padAes(packed)) : packed;
    hash.update(out);
    await sink.write(out, p);
    blocks.push({ start: p, end: p + packed.length });
    compressed += packed.length;
    p += out.length;
  }
  if (blocks.length !== blockCount || read !== f.size) throw new IoStoreError('IO', `${f.path} changed while it was packed (${read} bytes read, ${f.size} expected)`);
  // As the engine does: a file that does not shrink is stored as it is.
  if (compressed >= f.size) return undefined;
  const record: PakEntryRecord = {
    offset: at,
    size: p - at - headerLen,
    uncompressedSize: f.size,
    compressionMethodIndex: c.methodIndex,
    hash: new Uint8Array(hash.digest()),
    blocks,
    compressionBlockSize: Math.min(c.blockSize, f.size),
    flags: encrypt ? PAK_ENTRY_FLAG_ENCRYPTED : 0,
  };
  await writeInPlaceEntry(w, record, at);
  return record;
}

/** A file's blocks compressed on this thread as they are asked for. */
async function* compressedHere(f: PakInputFile, codec: Codec, blockSize: number): AsyncGenerator<CompressedBlock> {
  for await (const raw of blocksOf(f.read(), blockSize, f.size)) yield { raw, packed: codec.compress!(raw) };
}

/** Stores a file as it is (encrypted in whole AES blocks when asked). */
async function storeRaw(w: EntryWriter, f: PakInputFile, at: number): Promise<PakEntryRecord> {
  const { sink, c, encrypt } = w;
  const headerLen = fullEntrySize(c.version, 0, 0, c.methodWidth);
  const hash = createHash('sha1');
  let p = at + headerLen;
  let total = 0;
  // The file's first 16 bytes: the padding of a short last AES block repeats them, as the engine does.
  const head = new Uint8Array(16);
  let headLength = 0;
  let carry = new Uint8Array(0);
  const emit = async (plain: Uint8Array) => {
    const out = encrypt ? aesEcbEncrypt(c.key!, plain) : plain;
    // The recorded SHA-1 covers the file's size in stored bytes (ciphertext when encrypted), not the padding.
    hash.update(out.subarray(0, Math.max(0, Math.min(out.length, f.size - (p - at - headerLen)))));
    await sink.write(out, p);
    p += out.length;
  };
  for await (const piece of f.read(w.room)) {
    total += piece.length;
    if (headLength < 16) {
      const take = piece.subarray(0, 16 - headLength);
      head.set(take, headLength);
      headLength += take.length;
    }
    if (!encrypt) {
      await emit(piece);
      continue;
    }
    // Whole AES blocks per write; the rest waits for the next piece.
    const joined = carry.length ? concatBytes(carry, piece) : piece;
    const whole = joined.length - (joined.length % 16);
    if (whole > 0) await emit(joined.slice(0, whole));
    carry = joined.slice(whole);
  }
  if (total !== f.size) throw new IoStoreError('IO', `${f.path} changed while it was packed (${total} bytes read, ${f.size} expected)`);
  if (encrypt && carry.length > 0) {
    const last = new Uint8Array(16);
    last.set(carry);
    const src = total < 16 ? carry : head;
    for (let i = carry.length; i < 16; i++) last[i] = src[(i - carry.length) % src.length]!;
    await emit(last);
  }
  const record: PakEntryRecord = { offset: at, size: f.size, uncompressedSize: f.size, compressionMethodIndex: 0, hash: new Uint8Array(hash.digest()), blocks: [], compressionBlockSize: 0, flags: encrypt ? PAK_ENTRY_FLAG_ENCRYPTED : 0 };
  await writeInPlaceEntry(w, record, at);
  return record;
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Writes the index (primary, then its secondary parts) and the footer at `indexOffset`; returns the pak's size. */
async function writeIndexAndFooter(sink: PakSink, c: Checked, o: PakWriterOptions, records: PakRecordTable, indexOffset: number): Promise<number> {
  const built = buildPakIndex({
    version: c.version,
    mountPoint: c.mountPoint,
    seed: c.seed,
    methodWidth: c.methodWidth,
    records,
    indexOffset,
    keepInPrunedIndex: o.keepInPrunedIndex ?? keepInPrunedIndexDefault,
    ...(o.encryptIndex ? { encrypt: (padded: Uint8Array) => aesEcbEncrypt(c.key!, padded) } : {}),
  });
  let p = indexOffset;
  for (const part of [built.primary, ...built.secondary]) {
    await sink.write(part, p);
    p += part.length;
  }
  const footer: PakFooterInit = {
    version: c.version,
    compressionSlots: c.slots,
    indexOffset,
    indexSize: built.primary.length,
    indexHash: built.primaryHash,
    encryptedIndex: !!o.encryptIndex,
    compressionMethods: c.version >= PakVersion.FNameBasedCompressionMethod && c.methodIndex > 0 ? [c.method] : [],
  };
  if (o.encryptionKeyGuid) footer.encryptionKeyGuid = o.encryptionKeyGuid;
  if (c.version >= PakVersion.PakchunkIndex) footer.pakchunkIndex = o.pakchunkIndex ?? -1;
  if (c.version >= PakVersion.EncryptionMethod) footer.encryptionMethod = PakEncryptionMethod.AesEcb;
  const tail = writePakFooter(footer);
  await sink.write(tail, p);
  return p + tail.length;
}

/** A growing in-memory sink: `bytes()` is the pak written so far. */
export function memorySink(): PakSink & { bytes(): Uint8Array } {
  let buf = new Uint8Array(1 << 16);
  let size = 0;
  return {
    async write(data, position) {
      const end = position + data.length;
      if (end > buf.length) {
        const grown = new Uint8Array(Math.max(end, buf.length * 2));
        grown.set(buf.subarray(0, size));
        buf = grown;
      }
      buf.set(data, position);
      size = Math.max(size, end);
    },
    async truncate(n) {
      size = Math.min(size, n);
    },
    bytes: () => buf.slice(0, size),
  };
}

/** A pak of in-memory files, in memory (tests, browsers). */
export async function writePakBytes(files: readonly { path: string; data: Uint8Array }[], o: PakWriterOptions): Promise<Uint8Array> {
  const sink = memorySink();
  await writePak(sink, files.map((f) => ({ path: f.path, size: f.data.length, read: () => [f.data] })), o);
  return sink.bytes();
}
