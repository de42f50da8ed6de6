import { aesCtrCrypt, aesEcbDecrypt } from '../crypto/aes.js';
import { IoStoreError } from '../errors.js';
import { ByteReader, fromHex, latin1, LITTLE_ENDIAN, readU40LE, toHex } from '../util/bytes.js';
import { BLOCK_ENTRY_SIZE, BlockTable } from './compression-blocks.js';
import { CHUNK_ID_SIZE, chunkIdHex, chunkTypeName, decodeChunkId, type ChunkId } from './chunk-id.js';
import {
  ChunkPaths,
  directoryIndexFromShared,
  findDirectoryIndexFile,
  directoryIndexFiles,
  mountPointRelative,
  parseDirectoryIndex,
  type DirectoryFile,
  type DirectoryIndex,
  type SharedChunkPaths,
  type SharedDirectoryIndex,
} from './directory-index.js';
import { engineGeneration, generationFromTocVersion, type EngineGeneration, type EngineVersion } from './engine.js';
import { effectiveEncryption, parseTocHeader, TOC_HEADER_SIZE, NO_PARTITION_SIZE, type TocHeader } from './header.js';
import { perfectHashLookup } from './perfect-hash.js';
import { blocksStoredTotal, checkBlocks, chunkSpanArrays, decodeChunkSpans, sumOf, ucasOrderOf } from './toc-scan.js';
import { ContainerFlags, EncryptionMethod, TocVersion } from './version.js';

export interface ReadTocOptions {
  /** Name used in error messages (usually the file path). */
  source?: string;
  /** AES-256 key that decrypts the directory index of an encrypted container. */
  aesKey?: Uint8Array;
  /** Overrides the engine generation the TOC version implies (chunk-type numbering, hash algorithm). */
  engine?: EngineVersion;
  /**
   * The chunk offsets and lengths of these same bytes as another thread parsed them (`IoStoreToc.chunkOffsets` and
   * `chunkLengths` over SharedArrayBuffers, made so when the TOC's bytes are shared): taken instead of decoding a copy
   * of them, 16 bytes a chunk in every worker thread.
   */
  parsedChunks?: { chunkOffsets: Float64Array; chunkLengths: Float64Array };
  /** The directory index of these same bytes as another thread parsed and checked it (sharedDirectoryIndex). */
  parsedIndex?: SharedDirectoryIndex;
}

/** One section of the .utoc file, in file order. */
export interface TocSection {
  name: string;
  offset: number;
  size: number;
}

/** The signature block of a Signed container (checked by `verify`). */
export interface TocSignatures {
  tocSignature: Uint8Array;
  blockSignature: Uint8Array;
  /** 20-byte SHA-1 per compression block, over the block's bytes as stored. */
  blockHashes: Uint8Array;
}

/** Chunk meta flag bits. */
export const ChunkMetaFlags = { Compressed: 0x01, MemoryMapped: 0x02 } as const;

/**
 * A parsed .utoc. Per-chunk and per-block data live in typed arrays indexed by TOC order, so a container of
 * thousands of chunks parses without building an object per entry; accessors decode on demand.
 */
export class IoStoreToc {
  directoryIndexError: IoStoreError | undefined;
  private pathCache: ChunkPaths | null | undefined;
  private fileCache: DirectoryFile[] | undefined;
  private idMap: Map<string, number> | undefined;
  private ucasOrder: Int32Array | undefined;
  private tocOrder: Int32Array | undefined;

  constructor(
    readonly source: string,
    readonly fileSize: number,
    readonly header: TocHeader,
    readonly generation: EngineGeneration,
    readonly chunkIds: Uint8Array,
    readonly chunkOffsets: Float64Array,
    readonly chunkLengths: Float64Array,
    readonly perfectHashSeeds: Int32Array,
    readonly chunksWithoutPerfectHash: Int32Array,
    readonly blocks: BlockTable,
    /** 12 bytes per nonce (TOC v10 AES-CTR): one per block, then one for the directory index. */
    readonly encryptionIvs: Uint8Array,
    /** Index 0 is the implicit "None". */
    readonly compressionMethods: readonly string[],
    readonly signatures: TocSignatures | null,
    /** The directory index as stored (encrypted when the container is). */
    readonly directoryIndexBytes: Uint8Array,
    readonly directoryIndex: DirectoryIndex | null,
    /**
     * The chunk metas as stored: per chunk its hash field (32 bytes before v8, 20 after), its flags, padding. Read in
     * place: a copy of the hashes was 20 bytes per chunk more in every thread that opened the container.
     */
    readonly metas: Uint8Array,
    readonly metaSize: number,
    /** v6 OnDemand containers: 20-byte disk hashes per chunk, then per block. */
    readonly onDemandHashes: Uint8Array | null,
    /** v9+: 20-byte source hashes (layout inferred from the count; no sample had any). */
    readonly sourceHashes: Uint8Array | null,
    readonly sections: readonly TocSection[],
  ) {}

  get version(): number {
    return this.header.version;
  }
  get chunkCount(): number {
    return this.header.entryCount;
  }
  get blockCount(): number {
    return this.header.compressedBlockEntryCount;
  }
  get blockSize(): number {
    return this.header.compressionBlockSize;
  }
  get flags(): number {
    return this.header.containerFlags;
  }
  get isEncrypted(): boolean {
    return (this.flags & ContainerFlags.Encrypted) !== 0;
  }
  /** EncryptionMethod value that applies to blocks and the directory index. */
  get encryption(): number {
    return effectiveEncryption(this.header);
  }
  /** Number of .ucas files: 1 before TOC v3. */
  get partitionCount(): number {
    return this.header.version < TocVersion.PartitionSize ? 1 : Math.max(1, this.header.partitionCount);
  }
  /** Bytes per partition, or Infinity when the container is not partitioned. */
  get partitionSize(): number {
    const s = this.header.partitionSize;
    return this.header.version < TocVersion.PartitionSize || s === NO_PARTITION_SIZE || s === 0n ? Infinity : Number(s);
  }
  /** Mount point with the engine's leading `../` removed (`` or `Game/`). */
  get mountPoint(): string {
    return this.directoryIndex?.mountPoint ?? '';
  }

  chunkId(i: number): ChunkId {
    return decodeChunkId(this.chunkIds, i * CHUNK_ID_SIZE, this.generation);
  }
  chunkIdBytes(i: number): Uint8Array {
    return this.chunkIds.subarray(i * CHUNK_ID_SIZE, (i + 1) * CHUNK_ID_SIZE);
  }
  chunkIdHex(i: number): string {
    // Made per call: a hex string of every id, kept for the run, was 24 bytes per chunk in every thread.
    return toHex(this.chunkIds.subarray(i * CHUNK_ID_SIZE, (i + 1) * CHUNK_ID_SIZE));
  }
  chunkType(i: number): number {
    return this.chunkIds[i * CHUNK_ID_SIZE + 11]!;
  }
  chunkTypeName(i: number): string {
    return chunkTypeName(this.chunkType(i), this.generation);
  }
  chunkOffset(i: number): number {
    return this.chunkOffsets[i]!;
  }
  chunkSize(i: number): number {
    return this.chunkLengths[i]!;
  }
  chunkFirstBlock(i: number): number {
    return Math.floor(this.chunkOffsets[i]! / this.blockSize);
  }
  chunkBlockCount(i: number): number {
    const len = this.chunkLengths[i]!;
    if (len === 0) return 0;
    const off = this.chunkOffsets[i]!;
    return Math.ceil((off + len) / this.blockSize) - Math.floor(off / this.blockSize);
  }
  /**
   * Chunk indices in the order their first blocks lie in the .ucas (offset across partitions): chunks without
   * blocks first, ties in TOC order. Made once per TOC: unpack, verify and the block-alignment replay all walk it.
   */
  chunksInUcasOrder(): Int32Array {
    if (!this.ucasOrder) {
      // Each chunk's offset read once: the sort compares each chunk a dozen times. Sorted as a typed array: an
      // array of numbers to sort was ~100 bytes per chunk of peak memory.
      const n = this.chunkCount;
      const quick = ucasOrderOf(this.chunkOffsets.subarray(0, n), this.chunkLengths.subarray(0, n), this.blocks.bytes, this.blockSize, this.blockCount);
      if (quick !== undefined) return (this.ucasOrder = quick === 'toc' ? this.chunksInTocOrder() : quick);
      const at = new Float64Array(n);
      const lengths = this.chunkLengths;
      const offsets = this.chunkOffsets;
      const blocks = this.blocks.bytes;
      const blockSize = this.blockSize;
      // One pass, its reads inline (a game's 150,000 chunks, run once: calls per chunk were most of it).
      let sorted = true;
      let max = 0;
      for (let i = 0; i < n; i++) {
        let o = 0;
        if (lengths[i] !== 0) {
          const e = Math.floor(offsets[i]! / blockSize) * BLOCK_ENTRY_SIZE;
          o = readU40LE(blocks, e);
        }
        at[i] = o;
        if (o < max) sorted = false;
        else max = o;
      }
      // Containers the engine writes list chunks mostly in .ucas order already (not those with a perfect hash).
      this.ucasOrder = sorted ? this.chunksInTocOrder() : (inBlockOrder(at, offsets, lengths, blockSize, this.blockCount) ?? sortedByKey(at, max) ?? identity(n).sort((a, b) => at[a]! - at[b]! || a - b));
    }
    return this.ucasOrder;
  }
  /**
   * The chunk indices 0 ... chunkCount - 1 (read only), made once per TOC: the .ucas order of most containers, and a
   * whole container's plan and manifest list. Each made by its own loop, these were three interpreted loops over
   * every chunk before a short unpack's first chunk, each long enough for V8 to compile it again on the side (OSR).
   */
  chunksInTocOrder(): Int32Array {
    return (this.tocOrder ??= identity(this.chunkCount));
  }
  /** Sum of the stored (compressed, unpadded) sizes of the chunk's blocks. */
  chunkStoredSize(i: number): number {
    const first = this.chunkFirstBlock(i);
    const end = first + this.chunkBlockCount(i);
    let n = 0;
    for (let b = first; b < end; b++) n += this.blocks.compressedSize(b);
    return n;
  }
  /** Bytes of each chunk meta's hash field: 32 (v<8) or 20 (v8+). */
  get metaHashSize(): number {
    return this.metaSize === 24 ? 20 : 32;
  }
  /** The hash fields of every chunk meta, packed (a copy made per call). */
  get metaHashes(): Uint8Array {
    const s = this.metaHashSize;
    const out = new Uint8Array(this.chunkCount * s);
    for (let i = 0; i < this.chunkCount; i++) out.set(this.metas.subarray(i * this.metaSize, i * this.metaSize + s), i * s);
    return out;
  }
  /** The flags of every chunk meta (a copy made per call). */
  get metaFlags(): Uint8Array {
    const out = new Uint8Array(this.chunkCount);
    for (let i = 0; i < out.length; i++) out[i] = this.chunkMetaFlags(i);
    return out;
  }
  /** The stored hash: 20 bytes (BLAKE3-160 in UE5), or all 32 when the extra 12 bytes of a v<8 slot are used. */
  chunkHash(i: number): Uint8Array {
    const s = this.metaHashSize;
    const h = this.metas.subarray(i * this.metaSize, i * this.metaSize + s);
    if (s > 20) {
      for (let k = 20; k < s; k++) if (h[k] !== 0) return h;
      return h.subarray(0, 20);
    }
    return h;
  }
  chunkHashHex(i: number): string {
    return toHex(this.chunkHash(i));
  }
  chunkMetaFlags(i: number): number {
    return this.metas[i * this.metaSize + this.metaHashSize]!;
  }
  blockMethodName(b: number): string {
    return this.compressionMethods[this.blocks.method(b)]!;
  }

  /** File entries the directory index names (0 when there is none), without making their paths. */
  get fileCount(): number {
    return this.paths()?.fileCount ?? 0;
  }

  /** Files of the directory index with their paths below the mount point; empty when there is none. */
  files(): readonly DirectoryFile[] {
    if (!this.fileCache) {
      this.fileCache = this.directoryIndex ? directoryIndexFiles(this.directoryIndex, this.chunkCount, this.source) : [];
    }
    return this.fileCache;
  }

  /** Path of chunk i (mount point without its `../` hops, then the file's path), or undefined if unnamed. */
  chunkPath(i: number): string | undefined {
    return this.paths()?.get(i);
  }

  /** The directory index's paths by chunk, packed (folders and names: see ChunkPaths), or null when there is none. */
  get chunkPaths(): ChunkPaths | null {
    return this.paths();
  }

  /**
   * Takes the path tables another thread made of this same TOC (ChunkPaths.shared) instead of walking the index again
   * (a worker thread of unpack: ~0.1-0.2 s and 2.4 MB at 150,000 chunks).
   */
  adoptChunkPaths(shared: SharedChunkPaths): void {
    if (this.directoryIndex && this.pathCache === undefined) {
      this.pathCache = new ChunkPaths(this.directoryIndex, this.chunkCount, this.source, mountPointRelative(this.mountPoint), shared);
    }
  }

  private paths(): ChunkPaths | null {
    if (this.pathCache === undefined) {
      this.pathCache = this.directoryIndex ? new ChunkPaths(this.directoryIndex, this.chunkCount, this.source, mountPointRelative(this.mountPoint)) : null;
    }
    return this.pathCache;
  }

  /**
   * TOC index of the file at `path`, or -1: the path as `chunkPath` gives it (`Game/Content/Maps/Level.umap`) or
   * below the mount point, `\\` or `/`, compared case-insensitively as the engine does.
   */
  findPath(path: string): number {
    if (!this.directoryIndex) return -1;
    const p = path.replace(/\\/g, '/').replace(/^\/+/, '');
    const prefix = mountPointRelative(this.mountPoint);
    if (prefix !== '' && p.toLowerCase().startsWith(prefix.toLowerCase())) {
      const hit = findDirectoryIndexFile(this.directoryIndex, p.slice(prefix.length));
      if (hit >= 0) return hit;
    }
    return findDirectoryIndexFile(this.directoryIndex, p);
  }

  /**
   * TOC index of a chunk id (12 bytes or 24 hex digits), or -1. Uses the engine's perfect-hash lookup when the
   * container has seeds, a map otherwise.
   */
  findChunk(id: Uint8Array | string): number {
    if (typeof id === 'string' && !/^[0-9a-fA-F]{24}$/.test(id)) return -1;
    const bytes = typeof id === 'string' ? fromHex(id) : id;
    if (bytes.length !== CHUNK_ID_SIZE) return -1;
    const hit = perfectHashLookup({ chunkIds: this.chunkIds, seeds: this.perfectHashSeeds, overflow: this.chunksWithoutPerfectHash }, bytes);
    if (hit !== undefined) return hit;
    if (!this.idMap) {
      this.idMap = new Map();
      for (let i = 0; i < this.chunkCount; i++) this.idMap.set(this.chunkIdHex(i), i);
    }
    return this.idMap.get(chunkIdHex(bytes)) ?? -1;
  }

  /** Σ uncompressed chunk sizes and Σ stored block sizes. */
  totals(): { rawSize: number; storedSize: number } {
    return { rawSize: sumOf(this.chunkLengths.subarray(0, this.chunkCount)), storedSize: blocksStoredTotal(this.blocks.bytes.subarray(0, 12 * this.blockCount)) };
  }
}

/**
 * Indices 0..n-1 ordered by `at[i]`, ties by index, through one native sort of `at[i] * n + i` (exact while that
 * stays below 2^53: a .ucas of 60 GB with 150,000 chunks): a comparator run by V8's interpreter was ~30 ms of a short
 * verify of 3,000 chunks. Undefined when the keys would not be exact.
 */
function sortedByKey(at: Float64Array, max: number): Int32Array | undefined {
  const n = at.length;
  if ((max + 1) * n > Number.MAX_SAFE_INTEGER) return undefined;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = at[i]! * n + i;
  keys.sort();
  const order = new Int32Array(n);
  for (let k = 0; k < n; k++) order[k] = keys[k]! % n;
  return order;
}

/**
 * The chunks ordered by (at[i], i) without a sort, when the table's block order is the .ucas order (as the engine and
 * pack write it): chunks without blocks (at 0) first, then the others by their first block's index, each block
 * starting at most one chunk; the result is checked against the (at, i) order and undefined when it is not that.
 * Sorting 150,000 keys was the largest part of unpack's task list (the workers wait for it).
 */
export function inBlockOrder(at: Float64Array, offsets: Float64Array, lengths: Float64Array, blockSize: number, blockCount: number): Int32Array | undefined {
  const n = at.length;
  const chunkAt = new Int32Array(blockCount).fill(-1);
  const order = new Int32Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (lengths[i] === 0) {
      order[k++] = i;
      continue;
    }
    const b = Math.floor(offsets[i]! / blockSize);
    if (chunkAt[b] !== -1) return undefined;
    chunkAt[b] = i;
  }
  for (let b = 0; b < blockCount; b++) if (chunkAt[b] !== -1) order[k++] = chunkAt[b]!;
  for (let j = 1; j < n; j++) {
    const x = order[j - 1]!;
    const y = order[j]!;
    if (at[x]! > at[y]! || (at[x] === at[y] && x > y)) return undefined;
  }
  return order;
}

/** 0, 1, ..., n - 1. */
function identity(n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return order;
}

/** Parses a whole .utoc held in memory. Throws IoStoreError naming the offset of the first problem. */
export function readToc(bytes: Uint8Array, options: ReadTocOptions = {}): IoStoreToc {
  const source = options.source ?? '<utoc>';
  const h = parseTocHeader(bytes, source);
  const generation = options.engine ? engineGeneration(options.engine) : generationFromTocVersion(h.version);
  const s = cutSections(bytes, h, source);
  const spans = chunkSpans(bytes, s.offLen, h, options);
  const compressionMethods = methodNames(s.methodBytes, h);
  const blocks = new BlockTable(s.blockBytes);
  checkBlockTable(bytes, s.blockBytes, blocks, compressionMethods.length, h.compressionBlockSize, source);
  checkChunkSpans(spans, h, source);
  const index = readDirectoryIndex(h, s, options, source);
  const toc = new IoStoreToc(
    source, bytes.length, h, generation, s.chunkIds, spans.chunkOffsets, spans.chunkLengths, int32s(s.seedBytes),
    int32s(s.overflowBytes), blocks, s.ivBytes, compressionMethods, s.signatures, s.dirBytes, index.directoryIndex,
    s.metaBytes, s.metaSize, s.onDemandHashes, s.sourceHashes, s.sections,
  );
  toc.directoryIndexError = index.directoryIndexError;
  return toc;
}

/** The .utoc's sections after its header, as views of `bytes`, each checked to be whole. */
interface TocSectionViews {
  sections: TocSection[];
  chunkIds: Uint8Array;
  offLen: Uint8Array;
  seedBytes: Uint8Array;
  overflowBytes: Uint8Array;
  blockBytes: Uint8Array;
  ivBytes: Uint8Array;
  methodBytes: Uint8Array;
  signatures: TocSignatures | null;
  dirBytes: Uint8Array;
  dirOffset: number;
  metaSize: number;
  metaBytes: Uint8Array;
  onDemandHashes: Uint8Array | null;
  sourceHashes: Uint8Array | null;
}

/** A section of the .utoc after its header: `count` entries of `size` bytes. */
interface SectionSpec {
  name: string;
  count: number;
  size: number;
}

/** Where a Signed container's signatures lie among the sections: their size is read from the file (readSignatures). */
const SIGNATURES = 'signatures';

/** The longest signature hash readSignatures takes. */
const MAX_SIGNATURE_HASH = 4096;

/**
 * The sections after the header, in file order, as the header sizes them (the signatures' place marked, sized by
 * the file): the one list of the layout, for the reader (cutSections).
 */
function sectionSpecs(h: TocHeader): Array<SectionSpec | typeof SIGNATURES> {
  const n = h.entryCount;
  const b = h.compressedBlockEntryCount;
  const onDemand = h.version === TocVersion.OnDemandMetaData && h.containerFlags & ContainerFlags.OnDemand;
  const spec = (name: string, count: number, size: number): SectionSpec => ({ name, count, size });
  return [
    spec('chunk ids', n, CHUNK_ID_SIZE),
    spec('chunk offsets and lengths', n, 10),
    spec('perfect-hash seeds', h.perfectHashSeedsCount, 4),
    spec('chunks without perfect hash', h.chunksWithoutPerfectHashCount, 4),
    spec('compression blocks', b, 12),
    spec('encryption IVs', h.encryptionIvCount, 12),
    spec('compression method names', h.compressionMethodNameCount, h.compressionMethodNameLength),
    ...(h.containerFlags & ContainerFlags.Signed ? [SIGNATURES] as const : []),
    // The engine skips D bytes whether or not the Indexed flag is set; only then does it parse them.
    spec('directory index', h.directoryIndexSize, 1),
    spec('chunk metas', n, metaSizeOf(h)),
    ...(onDemand ? [spec('on-demand hashes', n + b, 20)] : []),
    ...(h.sourceHashCount > 0 ? [spec('source hashes', h.sourceHashCount, 20)] : []),
  ];
}

/** A chunk meta's bytes: 33 (a 32-byte hash and its flags) before the version that made the hash an IoHash, 24 from it. */
function metaSizeOf(h: TocHeader): number {
  return h.version >= TocVersion.ReplaceIoChunkHashWithIoHash ? 24 : 33;
}

/** Cuts the sections in file order; the file must end where the last one does. */
function cutSections(bytes: Uint8Array, h: TocHeader, source: string): TocSectionViews {
  const r = new ByteReader(bytes, source);
  r.pos = TOC_HEADER_SIZE;
  const sections: TocSection[] = [{ name: 'header', offset: 0, size: TOC_HEADER_SIZE }];
  const views = new Map<string, Uint8Array>();
  let signatures: TocSignatures | null = null;
  let dirOffset = 0;
  for (const x of sectionSpecs(h)) {
    if (x === SIGNATURES) {
      signatures = readSignatures(r, h.compressedBlockEntryCount, sections);
      continue;
    }
    r.needArray(x.count, x.size, x.name);
    if (x.name === 'directory index') dirOffset = r.pos;
    if (x.count * x.size > 0) sections.push({ name: x.name, offset: r.pos, size: x.count * x.size });
    views.set(x.name, r.bytesView(x.count * x.size, x.name));
  }
  if (r.remaining !== 0) {
    const last = sections[sections.length - 1]!;
    r.fail('SIZE_MISMATCH', `${r.remaining} bytes left over after the ${last.name} section (the file should end here; it is ${bytes.length} bytes)`);
  }
  const view = (name: string): Uint8Array => views.get(name)!;
  return {
    sections, chunkIds: view('chunk ids'), offLen: view('chunk offsets and lengths'), seedBytes: view('perfect-hash seeds'),
    overflowBytes: view('chunks without perfect hash'), blockBytes: view('compression blocks'), ivBytes: view('encryption IVs'),
    methodBytes: view('compression method names'), signatures, dirBytes: view('directory index'), dirOffset,
    metaSize: metaSizeOf(h),
    metaBytes: view('chunk metas'), onDemandHashes: views.get('on-demand hashes') ?? null, sourceHashes: views.get('source hashes') ?? null,
  };
}

/** A Signed container's signature block: its hash size, two signatures and a SHA-1 per compression block. */
function readSignatures(r: ByteReader, blockCount: number, sections: TocSection[]): TocSignatures {
  const at = r.pos;
  const hashSize = r.i32('signature hash size');
  if (hashSize < 0 || hashSize > MAX_SIGNATURE_HASH) r.fail('BAD_VALUE', `signature hash size ${hashSize} is not plausible`, at);
  r.needArray(blockCount, 20, 'block signatures');
  r.need(hashSize * 2 + blockCount * 20, 'signatures');
  const signatures = {
    tocSignature: r.bytesView(hashSize),
    blockSignature: r.bytesView(hashSize),
    blockHashes: r.bytesView(blockCount * 20),
  };
  sections.push({ name: 'signatures', offset: at, size: r.pos - at });
  return signatures;
}

/** Each chunk's offset and length in the uncompressed stream, and the first chunk whose blocks are not all in the table (-1: none). */
interface ChunkSpans {
  chunkOffsets: Float64Array;
  chunkLengths: Float64Array;
  badChunk: number;
}

/**
 * Per-chunk arrays: over SharedArrayBuffers when the TOC's bytes are one (worker threads will parse them too, and
 * take these instead: see ReadTocOptions.parsedChunks).
 */
function chunkSpans(bytes: Uint8Array, offLen: Uint8Array, h: TocHeader, options: ReadTocOptions): ChunkSpans {
  const n = h.entryCount;
  const given = options.parsedChunks;
  // Checked by the thread that decoded them, from these same bytes.
  if (given && given.chunkOffsets.length === n && given.chunkLengths.length === n) return { ...given, badChunk: -1 };
  const shared = typeof SharedArrayBuffer !== 'undefined' && bytes.buffer instanceof SharedArrayBuffer;
  // Beside the bytes when they were read into module memory (src/toc/toc-scan.ts: decoded there, not copied out).
  const beside = shared ? undefined : chunkSpanArrays(offLen, n);
  const chunkOffsets = beside?.offsets ?? (shared ? new Float64Array(new SharedArrayBuffer(n * 8)) : new Float64Array(n));
  const chunkLengths = beside?.lengths ?? (shared ? new Float64Array(new SharedArrayBuffer(n * 8)) : new Float64Array(n));
  const badChunk = decodeChunkSpans(offLen, n, h.compressionBlockSize, h.compressedBlockEntryCount, chunkOffsets, chunkLengths);
  return { chunkOffsets, chunkLengths, badChunk };
}

/**
 * Little-endian int32s, copied as bytes on a little-endian host (a .utoc's perfect-hash seeds, one per chunk: read
 * one at a time by V8's interpreter they were ~0.3M instructions of a short run at 3,000 chunks).
 */
function int32s(bytes: Uint8Array): Int32Array {
  const out = new Int32Array(bytes.length >> 2);
  if (LITTLE_ENDIAN) {
    new Uint8Array(out.buffer).set(new Uint8Array(bytes.buffer, bytes.byteOffset, out.length * 4));
    return out;
  }
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = v.getInt32(i * 4, true);
  return out;
}

/** The compression methods' names, index 0 being "None" (the table's 1-based indexes point past it). */
function methodNames(methodBytes: Uint8Array, h: TocHeader): string[] {
  const names = ['None'];
  for (let i = 0; i < h.compressionMethodNameCount; i++) {
    const raw = methodBytes.subarray(i * h.compressionMethodNameLength, (i + 1) * h.compressionMethodNameLength);
    const end = raw.indexOf(0);
    names.push(latin1(end < 0 ? raw : raw.subarray(0, end)));
  }
  return names;
}

/** Every block names a method the TOC has and decodes to at most the block size. */
function checkBlockTable(bytes: Uint8Array, blockBytes: Uint8Array, blocks: BlockTable, methods: number, blockSize: number, source: string): void {
  const { badMethod, oversized } = checkBlocks(blockBytes, methods, blockSize);
  const at = blockBytes.byteOffset - bytes.byteOffset;
  if (badMethod >= 0) {
    throw new IoStoreError('BAD_VALUE', `compression block ${badMethod} uses method index ${blocks.method(badMethod)} but the TOC names ${methods - 1} method(s)`, { file: source, offset: at + badMethod * 12 + 11 });
  }
  // Chunks are cut into blocks of the header's size: a block that decodes to more would overrun the chunk it is in.
  if (oversized >= 0) {
    throw new IoStoreError('BAD_VALUE', `compression block ${oversized} decodes to ${blocks.uncompressedSize(oversized)} bytes, more than the block size ${blockSize}`, { file: source, offset: at + oversized * 12 + 8 });
  }
}

/** Every chunk's blocks must exist: later stages index the block arrays with these numbers. */
function checkChunkSpans(spans: ChunkSpans, h: TocHeader, source: string): void {
  const i = spans.badChunk;
  if (i < 0) return;
  const len = spans.chunkLengths[i]!;
  const last = Math.ceil((spans.chunkOffsets[i]! + len) / h.compressionBlockSize);
  const offLenAt = TOC_HEADER_SIZE + h.entryCount * CHUNK_ID_SIZE;
  throw new IoStoreError('BAD_VALUE', `chunk ${i} (offset ${spans.chunkOffsets[i]}, length ${len}) needs blocks up to ${last - 1} but the TOC has ${h.compressedBlockEntryCount}`, { file: source, offset: offLenAt + i * 10 });
}

/**
 * The directory index of an Indexed container: parsed here, taken from another thread's parse, decrypted with the
 * key, or (encrypted, no key) an error kept for the commands that need paths.
 */
function readDirectoryIndex(h: TocHeader, s: TocSectionViews, options: ReadTocOptions, source: string): { directoryIndex: DirectoryIndex | null; directoryIndexError?: IoStoreError } {
  if (!(h.containerFlags & ContainerFlags.Indexed) || s.dirBytes.length === 0) return { directoryIndex: null };
  if (options.parsedIndex) return { directoryIndex: directoryIndexFromShared(options.parsedIndex) };
  if (effectiveEncryption(h) === EncryptionMethod.None) return { directoryIndex: parseDirectoryIndex(s.dirBytes, source, s.dirOffset) };
  if (!options.aesKey) {
    return { directoryIndex: null, directoryIndexError: new IoStoreError('NEEDS_KEY', 'the directory index is encrypted: pass the AES key (--aes-key) to read file paths', { file: source, offset: s.dirOffset }) };
  }
  return { directoryIndex: decryptDirectoryIndex(h, s.dirBytes, s.dirOffset, s.ivBytes, options.aesKey, source) };
}

function decryptDirectoryIndex(
  h: TocHeader,
  stored: Uint8Array,
  at: number,
  ivs: Uint8Array,
  key: Uint8Array,
  source: string,
): DirectoryIndex {
  if (stored.length % 16 !== 0) {
    throw new IoStoreError('BAD_VALUE', `encrypted directory index size ${stored.length} is not a multiple of 16`, { file: source, offset: at });
  }
  let plain: Uint8Array;
  if (effectiveEncryption(h) === EncryptionMethod.AesCtr) {
    const count = ivs.length / 12;
    if (count < 1) throw new IoStoreError('BAD_VALUE', 'AES-CTR container has no IV for its directory index', { file: source, offset: at });
    plain = aesCtrCrypt(key, ivs.subarray((count - 1) * 12, count * 12), stored);
  } else {
    plain = aesEcbDecrypt(key, stored);
  }
  try {
    return parseDirectoryIndex(plain, source, at);
  } catch (e) {
    if (e instanceof IoStoreError && e.code !== 'UNSAFE_PATH') {
      throw new IoStoreError('BAD_KEY', 'the AES key does not decrypt the directory index (wrong key?)', { file: source, offset: at });
    }
    throw e;
  }
}
