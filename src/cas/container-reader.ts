import { aesCtrCrypt, aesEcbDecrypt } from '../crypto/aes.js';
import { IoStoreError } from '../errors.js';
import { defaultCodecs, type CodecRegistry } from '../codecs/registry.js';
import { align } from '../util/bytes.js';
import { BLOCK_ENTRY_SIZE, entryCompressedSize, entryMethod, entryOffset, entryUncompressedSize } from '../toc/compression-blocks.js';
import { readToc, type IoStoreToc, type ReadTocOptions } from '../toc/toc.js';
import type { SharedDirectoryIndex } from '../toc/directory-index.js';
import type { EngineVersion } from '../toc/engine.js';
import { readTocBytes } from '../toc/read-file.js';
import { EncryptionMethod } from '../toc/version.js';
import { BlockCache } from './block-cache.js';
import { fileSource, fileSourceSync, partitionPaths, type RandomAccessSource } from './source.js';

/** Padding between blocks that a span read may include rather than split the read. */
const MAX_GAP = 64 * 1024;
/**
 * Read span of a transient twin (one pass, buffers reused): it holds a read and a decoded buffer of this size per
 * thread. 2 MiB spans measured no faster than 512 KiB (bench container, stored and Zlib verify) and cost 2 MB of RSS.
 */
export const TRANSIENT_SPAN = 512 << 10;

export interface ContainerReaderOptions {
  /** AES-256 key for encrypted containers. */
  aesKey?: Uint8Array;
  codecs?: CodecRegistry;
  /** Decoded blocks kept for re-reads (default 16, about 1 MiB at 64 KiB blocks). */
  cacheBlocks?: number;
  /** Largest span of consecutive blocks fetched and decoded together, stored or decoded (default 2 MiB). */
  maxReadSpan?: number;
  /** Where the TOC came from, so that worker threads can open the same container (see `ContainerReader.origin`). */
  origin?: ContainerOrigin;
}

/** What another thread needs to open the same container: its files, key and engine. */
export interface ContainerOrigin {
  utoc: string;
  /** The .ucas partition files, in order. */
  partitions: string[];
  aesKey?: Uint8Array;
  engine?: EngineVersion;
  /**
   * The .utoc's bytes in a SharedArrayBuffer: a worker parses them in place rather than reading a copy of its own
   * (a game container's TOC is tens of MB).
   */
  tocBytes?: Uint8Array;
  /** The chunk offsets and lengths parsed from `tocBytes`, when shared (see ReadTocOptions.parsedChunks). */
  parsedChunks?: { chunkOffsets: Float64Array; chunkLengths: Float64Array };
  /** The directory index parsed from `tocBytes`, when shared (see ReadTocOptions.parsedIndex). */
  parsedIndex?: SharedDirectoryIndex;
}

/**
 * Serves the bytes of any chunk of one container: finds the chunk's compression blocks, reads them from the right
 * partition, decrypts and decodes them. Consecutive blocks are fetched in one read of at most `maxReadSpan` bytes,
 * so memory stays bounded by that span and the block cache whatever the container or chunk size.
 */
export class ContainerReader {
  private readonly cache: BlockCache;
  /** The codecs this reader decodes with. */
  readonly codecs: CodecRegistry;
  private readonly maxSpan: number;
  private readonly partSize: number;
  /**
   * Blocks neither encrypted nor split over partitions: a block's place is its offset in the one .ucas, and the loop's
   * span and raw-run checks (eachChunkPieceSync) read the block table's bytes in place. In a short run the loop runs
   * without TurboFan, where each accessor call and each location object per block was a call and property loads.
   */
  private readonly plain: boolean;
  private readonly blockBytes: Uint8Array;
  private readonly blockSize: number;
  /** Reads land in reused buffers: nothing handed out outlives the next read. */
  private readonly transient: boolean;
  private decoded: Uint8Array | undefined;

  constructor(
    readonly toc: IoStoreToc,
    readonly partitions: readonly RandomAccessSource[],
    private readonly options: ContainerReaderOptions = {},
  ) {
    // Blocks read from a source that reuses its buffer are only valid until the next read: nothing can be kept.
    const transient = partitions.some((p) => p.transient);
    this.transient = transient;
    this.cache = new BlockCache(transient ? 0 : (options.cacheBlocks ?? 16));
    this.codecs = options.codecs ?? defaultCodecs();
    this.maxSpan = Math.max(options.maxReadSpan ?? 2 << 20, toc.blockSize + 16);
    this.partSize = toc.partitionSize;
    this.plain = toc.encryption === EncryptionMethod.None && !Number.isFinite(this.partSize);
    this.blockBytes = toc.blocks.bytes;
    this.blockSize = toc.blockSize;
    if (toc.encryption !== EncryptionMethod.None && !options.aesKey && toc.blockCount > 0) {
      throw new IoStoreError('NEEDS_KEY', 'the container is encrypted: pass its AES key (--aes-key)', { file: toc.source });
    }
  }

  /** Opens `x.utoc` and its `x.ucas` / `x_sN.ucas` partitions. */
  static async open(utocPath: string, options: ContainerReaderOptions & Omit<ReadTocOptions, 'source'> = {}): Promise<ContainerReader> {
    const tocOptions: ReadTocOptions = {};
    if (options.aesKey) tocOptions.aesKey = options.aesKey;
    if (options.engine) tocOptions.engine = options.engine;
    const bytes = await readTocBytes(utocPath, { shared: true });
    const toc = readToc(bytes, { source: utocPath, ...tocOptions });
    const paths = partitionPaths(utocPath, toc.partitionCount);
    const origin: ContainerOrigin = { utoc: utocPath, partitions: paths, ...(options.aesKey ? { aesKey: options.aesKey } : {}), ...(options.engine ? { engine: options.engine } : {}), tocBytes: bytes };
    return new ContainerReader(toc, paths.map(fileSource), { ...options, origin });
  }

  /** The container's files, key and engine when it was opened from files; undefined for in-memory sources. */
  get origin(): ContainerOrigin | undefined {
    return this.options.origin;
  }

  async close(): Promise<void> {
    this.cache.clear();
    await Promise.all(this.partitions.map((p) => p.close()));
  }

  /** Where block b's stored bytes live: partition index and offset in that file. */
  locate(b: number): { partition: number; offset: number } {
    const off = this.toc.blocks.offset(b);
    if (!Number.isFinite(this.partSize)) return { partition: 0, offset: off };
    return { partition: Math.floor(off / this.partSize), offset: off % this.partSize };
  }

  /** Bytes a block occupies on disk: its stored size, rounded to 16 when encrypted (AES works on whole blocks). */
  storedLength(b: number): number {
    const c = this.toc.blocks.compressedSize(b);
    return this.toc.encryption === EncryptionMethod.None ? c : align(c, 16);
  }

  /** The decoded bytes of block b. */
  async readBlock(b: number): Promise<Uint8Array> {
    const hit = this.cache.get(b);
    if (hit) return hit;
    const [data] = await this.readBlockSpan(b, b + 1);
    return data!;
  }

  /** The stored bytes of block b as on disk (still encrypted, compressed, with padding when encrypted). */
  async readStoredBlock(b: number): Promise<Uint8Array> {
    this.checkBlock(b);
    const { partition, offset } = this.locate(b);
    return this.source(partition, b).read(offset, this.storedLength(b));
  }

  /** A whole chunk in one buffer (use `chunkBlocks` to stream large ones). */
  async readChunk(i: number): Promise<Uint8Array> {
    return this.readRange(i, 0, this.toc.chunkSize(i));
  }

  /** `length` bytes of chunk i from `offset`. */
  async readRange(i: number, offset: number, length: number): Promise<Uint8Array> {
    this.checkChunk(i);
    const size = this.toc.chunkSize(i);
    if (offset < 0 || length < 0 || offset + length > size) {
      throw new IoStoreError('USAGE', `range ${offset}+${length} is outside chunk ${i} (${size} bytes)`, { file: this.toc.source });
    }
    const out = new Uint8Array(length);
    let o = 0;
    for await (const piece of this.chunkBlocks(i, offset, offset + length)) {
      if (o + piece.length > length) throw new IoStoreError('BAD_VALUE', `chunk ${i}'s blocks give more than its ${length} bytes`, { file: this.toc.source });
      out.set(piece, o);
      o += piece.length;
    }
    return out;
  }

  /**
   * Streams chunk i (or its bytes [start, end)) as decoded pieces, one per block, in order. Consecutive blocks are
   * read together; at most one span is held at a time. When a source is `transient`, a piece is valid only until
   * the next one is requested: use or copy it first.
   */
  async *chunkBlocks(i: number, start = 0, end = this.toc.chunkSize(i)): AsyncGenerator<Uint8Array> {
    for await (const span of this.chunkSpans(i, start, end)) yield* span;
  }

  /**
   * Streams chunk i (or its bytes [start, end)) as the decoded pieces of each read span (consecutive blocks read
   * together, at most `maxReadSpan` bytes), in order. When a source is `transient`, a span's pieces are valid only
   * until the next span is requested.
   */
  async *chunkSpans(i: number, start = 0, end = this.toc.chunkSize(i)): AsyncGenerator<Uint8Array[]> {
    for (const [first, spanEnd] of this.spanRanges(i, start, end)) {
      yield this.piecesOf(i, start, end, first, await this.readBlockSpan(first, spanEnd));
    }
  }

  /** Whether every partition serves blocking reads (`chunkSpansSync` works). */
  get readsSync(): boolean {
    return this.partitions.every((p) => p.readSync !== undefined);
  }

  /**
   * `chunkSpans` with blocking reads, for the whole-chunk loops of unpack and verify (see `readsSync`): no promise
   * or thread-pool round trip per span. The same transient rule holds.
   */
  *chunkSpansSync(i: number, start = 0, end = this.toc.chunkSize(i)): Generator<Uint8Array[]> {
    for (const [first, spanEnd] of this.spanRanges(i, start, end)) {
      yield this.piecesOf(i, start, end, first, this.readBlockSpanSync(first, spanEnd));
    }
  }

  /**
   * `chunkSpansSync` over a whole chunk without its generators and arrays, for the chunk loop: each piece of chunk i
   * in order is given to `take`, and `afterSpan` runs after each read's pieces (a piece stays valid until
   * `afterSpan` returns, so a span's pieces can be written together there). A run
   * of raw blocks lying back to back in one partition (a stored container) is read as the chunk's bytes alone and
   * given as one piece: verify of 150,000 stored chunks had spent as much time in the objects made per span and
   * block as in reading them.
   */
  eachChunkPieceSync(i: number, take: (piece: Uint8Array) => void, afterSpan?: () => void): void {
    this.checkChunk(i);
    const size = this.toc.chunkLengths[i]!;
    if (size <= 0) return;
    const bs = this.blockSize;
    const base = this.toc.chunkOffsets[i]!;
    const last = Math.floor((base + size - 1) / bs);
    const plain = this.plain;
    for (let b = Math.floor(base / bs); b <= last; ) {
      const end = plain ? this.plainSpanEnd(b, last + 1) : this.spanEnd(b, last + 1);
      const start = b * bs;
      const from = base > start ? base - start : 0;
      const to = base + size - start < (end - b) * bs ? base + size - start : (end - b) * bs;
      const lastNeeds = to - (end - 1 - b) * bs;
      if (plain ? this.plainRawRun(b, end, lastNeeds) : this.rawRun(b, end, lastNeeds)) {
        const src = plain ? this.source(0, b) : this.source(this.locate(b).partition, b);
        if (!src.readSync) throw new IoStoreError('USAGE', 'this reader\'s sources do not serve blocking reads', { file: src.name });
        take(src.readSync((plain ? this.plainOffset(b) : this.locate(b).offset) + from, to - from));
      } else {
        // Indexed, not for-of: in code without TurboFan an iterator costs calls per piece.
        const pieces = this.piecesOf(i, 0, size, b, this.readBlockSpanSync(b, end));
        for (let k = 0; k < pieces.length; k++) take(pieces[k]!);
      }
      afterSpan?.();
      b = end;
    }
  }

  /** Block b's offset in the .ucas of a plain reader (see `plain`): BlockTable.offset without its calls. */
  private plainOffset(b: number): number {
    const x = this.blockBytes;
    const o = b * BLOCK_ENTRY_SIZE;
    return entryOffset(x, o);
  }

  /**
   * `spanEnd` of a plain reader (see `plain`), from the block table's bytes: the same end, with no object or
   * BlockTable call per block.
   */
  private plainSpanEnd(b: number, limit: number): number {
    const x = this.blockBytes;
    const max = this.maxSpan;
    let o = b * BLOCK_ENTRY_SIZE;
    const first = entryOffset(x, o);
    let prevEnd = first + entryCompressedSize(x, o);
    let end = b + 1;
    // Decoded bytes are bounded as well as stored ones (as spanEnd).
    while (end < limit && (end + 1 - b) * this.blockSize <= max) {
      o += BLOCK_ENTRY_SIZE;
      const q = entryOffset(x, o);
      const qEnd = q + entryCompressedSize(x, o);
      if (q < prevEnd || q - prevEnd > MAX_GAP || qEnd - first > max) break;
      prevEnd = qEnd;
      end++;
    }
    return end;
  }

  /** `rawRun` of a plain reader (see `plain`), from the block table's bytes. */
  private plainRawRun(b: number, end: number, lastNeeds: number): boolean {
    const x = this.blockBytes;
    const bs = this.blockSize;
    let next = -1;
    for (let k = b, o = b * BLOCK_ENTRY_SIZE; k < end; k++, o += BLOCK_ENTRY_SIZE) {
      const usize = entryUncompressedSize(x, o);
      if (entryMethod(x, o) !== 0 || usize > entryCompressedSize(x, o) || usize < (k === end - 1 ? lastNeeds : bs)) return false;
      const off = entryOffset(x, o);
      if (k > b && off !== next) return false;
      next = off + bs;
    }
    return true;
  }

  /**
   * Whether blocks [b, end) are raw (no compression, no encryption), hold what the chunk needs of them (`lastNeeds`
   * bytes of the last) and lie back to back in one partition, so that the chunk's bytes in them are one range.
   */
  private rawRun(b: number, end: number, lastNeeds: number): boolean {
    if (this.toc.encryption !== EncryptionMethod.None) return false;
    const blocks = this.toc.blocks;
    const bs = this.toc.blockSize;
    let next = -1;
    for (let k = b; k < end; k++) {
      const usize = blocks.uncompressedSize(k);
      if (blocks.method(k) !== 0 || usize > blocks.compressedSize(k) || usize < (k === end - 1 ? lastNeeds : bs)) return false;
      const off = blocks.offset(k);
      if (k > b && off !== next) return false;
      next = off + bs;
    }
    // One partition: spanEnd ends a span at a partition's end.
    return true;
  }

  /**
   * A reader of the same container for one pass over chunks with blocking reads into one reused buffer (transient,
   * no block cache), or undefined when this one was not opened from files. Close it after use.
   */
  transientTwin(): ContainerReader | undefined {
    const origin = this.options.origin;
    if (!origin) return undefined;
    return new ContainerReader(this.toc, origin.partitions.map((p) => fileSourceSync(p, { reuseBuffer: true, readAhead: TRANSIENT_SPAN })), { maxReadSpan: TRANSIENT_SPAN, ...this.options, codecs: this.codecs, cacheBlocks: 0 });
  }

  /** The runs of blocks [first, end) that cover chunk i's bytes [start, end), each one read. */
  private *spanRanges(i: number, start: number, end: number): Generator<[number, number]> {
    this.checkChunk(i);
    if (end <= start) return;
    const bs = this.toc.blockSize;
    const base = this.toc.chunkOffset(i);
    const last = Math.floor((base + end - 1) / bs);
    let b = Math.floor((base + start) / bs);
    while (b <= last) {
      const spanEnd = this.spanEnd(b, last + 1);
      yield [b, spanEnd];
      b = spanEnd;
    }
  }

  /** The pieces of decoded blocks `blocks` (from block `first`) that lie in chunk i's bytes [start, end). */
  private piecesOf(i: number, start: number, end: number, first: number, blocks: Uint8Array[]): Uint8Array[] {
    const bs = this.toc.blockSize;
    const base = this.toc.chunkOffset(i);
    const pieces: Uint8Array[] = new Array(blocks.length);
    for (let k = 0; k < blocks.length; k++) {
      const blockStart = (first + k) * bs;
      const from = Math.max(0, base + start - blockStart);
      const to = Math.min(bs, base + end - blockStart);
      // The chunk's bytes are laid out at block-size steps: a block that decodes shorter than the part of the chunk
      // it must hold (a TOC whose chunk offsets or block sizes disagree) would leave a gap, so it is an error.
      if (blocks[k]!.length < to) {
        throw this.blockError(first + k, `decodes to ${blocks[k]!.length} bytes but chunk ${i} (${this.toc.chunkIdHex(i)}) needs bytes ${from}..${to} of it`, 'BAD_VALUE');
      }
      pieces[k] = from === 0 && to === blocks[k]!.length ? blocks[k]! : blocks[k]!.subarray(from, to);
    }
    return pieces;
  }

  /**
   * The end (exclusive) of the run of blocks from `b` that lie in order in one partition with small gaps between
   * them (16-byte or 2 KiB alignment padding) and fit one read.
   */
  private spanEnd(b: number, limit: number): number {
    const p = this.locate(b);
    let end = b + 1;
    let prevEnd = p.offset + this.storedLength(b);
    while (end < limit) {
      const q = this.locate(end);
      const qEnd = q.offset + this.storedLength(end);
      if (q.partition !== p.partition || q.offset < prevEnd || q.offset - prevEnd > MAX_GAP || qEnd - p.offset > this.maxSpan) break;
      // Decoded bytes are bounded as well as stored ones: a span of well-compressed blocks would otherwise expand.
      if ((end + 1 - b) * this.toc.blockSize > this.maxSpan) break;
      prevEnd = qEnd;
      end++;
    }
    return end;
  }

  private async readBlockSpan(first: number, end: number): Promise<Uint8Array[]> {
    const { partition, offset, total } = this.spanPlace(first, end);
    return this.decodeSpan(first, end, offset, await this.source(partition, first).read(offset, total));
  }

  private readBlockSpanSync(first: number, end: number): Uint8Array[] {
    const { partition, offset, total } = this.spanPlace(first, end);
    const src = this.source(partition, first);
    if (!src.readSync) throw new IoStoreError('USAGE', 'this reader\'s sources do not serve blocking reads', { file: src.name });
    return this.decodeSpan(first, end, offset, src.readSync(offset, total));
  }

  /** Where the stored bytes of blocks [first, end) lie: one partition, from `offset`, `total` bytes. */
  private spanPlace(first: number, end: number): { partition: number; offset: number; total: number } {
    this.checkBlock(first);
    this.checkBlock(end - 1);
    if (this.plain) {
      const offset = this.plainOffset(first);
      const o = (end - 1) * BLOCK_ENTRY_SIZE;
      const x = this.blockBytes;
      return { partition: 0, offset, total: this.plainOffset(end - 1) + entryCompressedSize(x, o) - offset };
    }
    const { partition, offset } = this.locate(first);
    const lastLoc = this.locate(end - 1);
    return { partition, offset, total: lastLoc.offset + this.storedLength(end - 1) - offset };
  }

  private decodeSpan(first: number, end: number, offset: number, raw: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = new Array(end - first);
    // A transient reader decodes a span into one reused buffer (at most maxSpan bytes, see spanEnd), which it hands
    // out under the same rule as its read buffer: valid until the next span.
    const into = this.transient ? this.spanBuffer(first) : undefined;
    let pos = 0;
    const x = this.blockBytes;
    for (let b = first; b < end; b++) {
      let at: number;
      let stored: number;
      let size: number;
      if (this.plain) {
        // From the block table's bytes, as eachChunkPieceSync's spans (see `plain`): a plain block's stored length is its size.
        const o = b * BLOCK_ENTRY_SIZE;
        at = entryOffset(x, o) - offset;
        stored = entryCompressedSize(x, o);
        size = entryUncompressedSize(x, o);
      } else {
        at = this.locate(b).offset - offset;
        stored = this.storedLength(b);
        size = this.toc.blocks.uncompressedSize(b);
      }
      out[b - first] = this.decodeBlock(b, raw.subarray(at, at + stored), into?.subarray(pos, pos + size + 1));
      pos += size;
    }
    // A transient reader keeps nothing (its cache holds no block): no call per block to find that out.
    if (this.cache.capacity > 0) for (let k = 0; k < out.length; k++) this.cache.set(first + k, out[k]!);
    return out;
  }

  /**
   * The reused buffer a transient reader decodes a span into: the output area of the span's first block's codec
   * where it has one (Oodle's WebAssembly memory: its blocks are then decoded in place, not copied out of it; asked
   * for per span, as the area moves when that memory grows), else the reader's own.
   */
  private spanBuffer(first: number): Uint8Array {
    const method = this.toc.blocks.method(first);
    if (method !== 0) {
      const area = this.codecs.get(this.toc.compressionMethods[method] ?? '')?.outputArea?.(this.maxSpan + 1);
      if (area) return area;
    }
    return (this.decoded ??= new Uint8Array(this.maxSpan + 1));
  }

  /** A block's stored bytes decrypted (still compressed, padding included); unchanged when not encrypted. */
  decryptBlock(b: number, stored: Uint8Array): Uint8Array {
    const enc = this.toc.encryption;
    if (enc === EncryptionMethod.None) return stored;
    const key = this.options.aesKey!;
    if (enc === EncryptionMethod.AesCtr) {
      const ivs = this.toc.encryptionIvs;
      if ((b + 1) * 12 > ivs.length) throw new IoStoreError('BAD_VALUE', `block ${b} has no AES-CTR IV`, { file: this.toc.source });
      return aesCtrCrypt(key, ivs.subarray(b * 12, b * 12 + 12), stored);
    }
    return aesEcbDecrypt(key, stored);
  }

  /**
   * Decrypts and decodes one block's stored bytes. With `into` (room for the block's size + 1), a compressed block is
   * decoded there when its codec can (`decompressInto`), and the result is a view of it.
   */
  decodeBlock(b: number, stored: Uint8Array, into?: Uint8Array): Uint8Array {
    const blocks = this.toc.blocks;
    const csize = blocks.compressedSize(b);
    const usize = blocks.uncompressedSize(b);
    // A plain reader has nothing to decrypt: no getter and call per block to find that out.
    const payload = this.plain ? stored : this.decryptBlock(b, stored);
    const method = blocks.method(b);
    if (method === 0) {
      if (usize > csize) throw this.blockError(b, `is stored raw but its size ${csize} is smaller than its uncompressed size ${usize}`);
      return payload.subarray(0, usize);
    }
    const name = this.toc.compressionMethods[method]!;
    try {
      const codec = this.codecs.require(name);
      if (into && codec.decompressInto && into.length > usize) {
        codec.decompressInto(payload.subarray(0, csize), usize, into);
        return into.subarray(0, usize);
      }
      return codec.decompress(payload.subarray(0, csize), usize);
    } catch (e) {
      throw this.decodeFailure(b, name, e);
    }
  }

  private decodeFailure(b: number, name: string, e: unknown): unknown {
    if (e instanceof IoStoreError && e.code === 'CODEC' && e.file === undefined) {
      const hint = this.toc.encryption !== EncryptionMethod.None ? ' (wrong AES key?)' : '';
      return this.blockError(b, `(${name}) could not be decoded: ${e.message}${hint}`);
    }
    return e;
  }

  private blockError(b: number, what: string, code: 'CODEC' | 'BAD_VALUE' = 'CODEC'): IoStoreError {
    const { partition, offset } = this.locate(b);
    const file = this.partitions[partition]?.name ?? this.toc.source;
    return new IoStoreError(code, `block ${b} ${what}`, { file, offset });
  }

  private source(partition: number, b: number): RandomAccessSource {
    const s = this.partitions[partition];
    if (!s) throw new IoStoreError('NOT_FOUND', `block ${b} lies in partition ${partition} but the container has ${this.partitions.length} .ucas file(s)`, { file: this.toc.source });
    return s;
  }

  private checkChunk(i: number): void {
    if (!(i >= 0 && i < this.toc.chunkCount)) throw new IoStoreError('USAGE', `chunk index ${i} is out of range (${this.toc.chunkCount} chunks)`, { file: this.toc.source });
  }

  private checkBlock(b: number): void {
    if (!(b >= 0 && b < this.toc.blockCount)) throw new IoStoreError('BAD_VALUE', `block ${b} is out of range (${this.toc.blockCount} blocks)`, { file: this.toc.source });
  }
}
