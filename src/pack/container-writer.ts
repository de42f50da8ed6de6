import { randomBytes } from 'node:crypto';
import { aesCtrCrypt, aesEcbEncrypt } from '../crypto/aes.js';
import type { Codec } from '../codecs/codec.js';
import { IoStoreError } from '../errors.js';
import { createChunkHasher, type ChunkHashAlgorithm, type ChunkHasher } from '../hash/chunk-hash.js';
import { align, toHex, writeU24LE, writeU40LE } from '../util/bytes.js';
import { ByteList, IntList, NumberList } from '../util/int-list.js';
import { alignedChunkStart } from '../toc/block-alignment.js';
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import { BLOCK_ENTRY_SIZE, BlockTable } from '../toc/compression-blocks.js';
import { NO_PARTITION_SIZE, type TocHeader } from '../toc/header.js';
import { serializeTocParts } from '../toc/write.js';
import { ContainerFlags, EncryptionMethod, TocVersion } from '../toc/version.js';
import { openTempFile } from '../layout/output.js';
import { ioError } from '../toc/read-file.js';
import { concatBytes } from '../toc/directory-index.js';
import { encodeBlock, type EncodedBlock, type EncodedChunk } from './block-encoder.js';
import { padBlockInPlace, storedSize } from './stored-blocks.js';
import { tocLayout, type TocLayout } from './toc-layout.js';

/** Stored bytes gathered before a write: fewer, larger writes. */
const STREAM_BATCH = 1 << 20;

/** Where a partition's bytes go: a file (pack) or memory (buildContainer, browsers, tests). */
export interface PartitionSink {
  /**
   * Writes pieces back to back from `position`; positions only grow, gaps are zero padding. The pieces are the
   * writer's buffers, reused once the returned promise settles: a sink keeping bytes copies them.
   */
  write(pieces: readonly Uint8Array[], position: number): Promise<void>;
  close(): Promise<void>;
  /**
   * The open file's descriptor, when the sink is a file: stored chunks may then be written to it directly, at the
   * places the writer reserved for them (see `ContainerWriter.reserveStored`), from any thread.
   */
  readonly fd?: number;
}

/**
 * A sink writing a new file, registered as temporary so an interrupted process removes it; its errors (a full disk)
 * name `shownAs`, the file it becomes.
 */
export async function fileSink(path: string, shownAs = path): Promise<PartitionSink> {
  const fh = await openTempFile(path, shownAs);
  const write = async (pieces: readonly Uint8Array[], position: number) => {
    let pos = position;
    for (let i = 0; i < pieces.length; i += 256) {
      const batch = pieces.slice(i, i + 256);
      const want = batch.reduce((a, p) => a + p.length, 0);
      let done = (await fh.writev(batch, pos)).bytesWritten;
      for (let k = 0, skip = done; done < want && k < batch.length; k++) {
        const p = batch[k]!;
        if (skip >= p.length) {
          skip -= p.length;
          continue;
        }
        done += (await fh.write(p, skip, p.length - skip, pos + done)).bytesWritten;
        skip = 0;
      }
      pos += want;
    }
  };
  return {
    write: (pieces, position) => write(pieces, position).catch((e: unknown) => {
      throw ioError(e, shownAs);
    }),
    close: () => fh.close(),
    fd: fh.fd,
  };
}

/** A sink collecting a partition in memory; `bytes()` gives its contents. */
export function memorySink(): PartitionSink & { bytes(): Uint8Array } {
  const parts: Uint8Array[] = [];
  let end = 0;
  return {
    async write(pieces, position) {
      if (position > end) parts.push(new Uint8Array(position - end));
      // Copied: the writer reuses its buffers once the write settles.
      for (const p of pieces) parts.push(p.slice());
      end = position + pieces.reduce((a, p) => a + p.length, 0);
    },
    close: async () => {},
    bytes: () => concatBytes(parts),
  };
}

/** Pads a stored block to 16 bytes with its own bytes from the start (the engine's rule, encrypted or not). */
export function padBlock(payload: Uint8Array): Uint8Array {
  const size = align(payload.length, 16);
  if (size === payload.length) return payload;
  const out = new Uint8Array(size);
  out.set(payload);
  padBlockInPlace(out, 0, payload.length);
  return out;
}

export interface ContainerWriterOptions {
  version: number;
  containerId: bigint;
  blockSize: number;
  /** Codec for blocks, or undefined to store every block raw. A block is kept raw when compressing does not pay. */
  codec?: Pick<Codec, 'name' | 'compress'>;
  hashAlgorithm: ChunkHashAlgorithm;
  /** AES-256 key: ECB before TOC v10, CTR with random per-block IVs from v10. */
  aesKey?: Uint8Array;
  encryptionKeyGuid?: Uint8Array;
  /** Split the .ucas into `_sN` files of at most this many bytes (no chunk straddles two). */
  partitionSize?: number;
  /** Move a chunk to the next multiple of this when its stored bytes would cross one (2048 on Windows). */
  compressionBlockAlignment?: number;
  mountPoint: string;
  /**
   * Write a directory index (the mount point alone) even when no chunk is named, as the engine does for a patch
   * container without files; by default an index is written only for named chunks.
   */
  indexWhenEmpty?: boolean;
  /** Seeds for the engine's lookup (TOC v4+). */
  perfectHash: boolean;
  /** How many chunks will be added, when known: the per-chunk lists are made that size at once. */
  expectedChunks?: number;
  /**
   * A perfect-hash table to reuse (with the chunks' TOC order), as unpack recorded it: when the chunk set is
   * unchanged this reproduces the original TOC exactly. Ignored when it does not place every chunk.
   */
  reuseLayout?: { order: Map<string, number>; seeds: Int32Array; overflow: Int32Array };
}

/**
 * Writes a container chunk by chunk: each chunk's blocks are compressed, padded to 16 bytes by repeating their own
 * bytes, encrypted and appended to the current .ucas partition; the TOC is written at the end. One chunk's stored
 * blocks are held at a time (placement rules need the chunk's stored size before it is written), and up to 1 MiB of
 * stored bytes waiting for the next write, never the container. Both in buffers reused from chunk to chunk, and what
 * the TOC needs of each chunk in packed arrays: a game has 500,000+ chunks, and an array per chunk or block (its id,
 * hash, a 64 KiB block buffer) had cost far more than the chunk's bytes.
 */
export class ContainerWriter {
  /**
   * Per chunk, in the order added: id, chunk-meta hash (20 bytes), meta flags, offset and length, path. Sized for
   * the chunks expected: lists grown by doubling left the smaller copies behind in the allocator.
   */
  private readonly ids: ByteList;
  private readonly hashes: ByteList;
  private readonly metaFlags: ByteList;
  private readonly offsets: NumberList;
  private readonly lengths: NumberList;
  private readonly paths: PathList;
  /** The compression block table as the TOC stores it, and the AES-CTR nonces (12 bytes per block). */
  private readonly blocks: ByteList;
  private readonly ivs = new ByteList();
  private readonly methods = ['None'];
  private readonly partitions: PartitionSink[] = [];
  private readonly hasherPromise: Promise<ChunkHasher>;
  private partitionOffset = 0;
  private inflight: Promise<void> | undefined;
  /** The chunk being added: its stored blocks (padded, encrypted) until they are placed and written. */
  private staging = new ByteList(1 << 16);
  /** Raw bytes of the block being cut from a chunk's pieces (addChunk). */
  private pending: Uint8Array | undefined;
  /** Stored bytes waiting for the next write, which starts at batchStart of batchSink; the other buffer is in flight. */
  // Made when first written to: a writer whose chunks are all copied directly (reserveStored) needs neither.
  private batch = new Uint8Array(0);
  private spare = new Uint8Array(0);
  private batchFill = 0;
  private batchStart = 0;
  private batchSink: PartitionSink | undefined;
  private writeError: unknown;
  private virtualOffset = 0;
  /** No chunk can be added (drain), and the TOC was written (finish). */
  private closed = false;
  private utocWritten = false;

  private constructor(
    private readonly openPartition: (partition: number) => Promise<PartitionSink>,
    private readonly o: ContainerWriterOptions,
  ) {
    if (o.blockSize <= 0 || o.blockSize > 0xffffff || o.blockSize % 16 !== 0) {
      throw new IoStoreError('USAGE', `block size ${o.blockSize} must be a multiple of 16 below 16 MiB`);
    }
    this.hasherPromise = createChunkHasher(o.hashAlgorithm);
    const n = Math.max(1 << 10, Math.min(o.expectedChunks ?? 0, 1 << 24));
    this.ids = new ByteList(n * CHUNK_ID_SIZE);
    this.hashes = new ByteList(n * HASH_SIZE);
    this.metaFlags = new ByteList(n);
    this.offsets = new NumberList(n);
    this.lengths = new NumberList(n);
    this.paths = new PathList(n);
    this.blocks = new ByteList(n * BLOCK_ENTRY_SIZE);
  }

  /** Starts a container whose partitions (`.ucas`, `_s1.ucas` ...) go to the sinks `openPartition(i)` gives. */
  static async create(openPartition: (partition: number) => Promise<PartitionSink>, o: ContainerWriterOptions): Promise<ContainerWriter> {
    const w = new ContainerWriter(openPartition, o);
    w.partitions.push(await openPartition(0));
    return w;
  }

  private get encryption(): number {
    if (!this.o.aesKey) return EncryptionMethod.None;
    return this.o.version >= TocVersion.ContainerEncryptionMethod ? EncryptionMethod.AesCtr : EncryptionMethod.AesEcb;
  }

  /** Chunks added so far. */
  get chunkCount(): number {
    return this.offsets.length;
  }

  /**
   * Adds one chunk from its pieces (any sizes; re-cut into blocks here) and returns its chunk-meta hash. A piece may
   * be a reused buffer: it is copied before the next is pulled.
   */
  async addChunk(id: Uint8Array, pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, path?: string, memoryMapped = false): Promise<Uint8Array> {
    this.checkOpen(id);
    const hasher = (this.hasher ??= await this.hasherPromise);
    hasher.reset();
    const bs = this.o.blockSize;
    // One block buffer for the writer's life: a block is copied into the staging buffer as soon as it is encoded.
    const pending = (this.pending ??= new Uint8Array(bs));
    this.beginChunk(memoryMapped);
    let fill = 0;
    for await (const piece of pieces) {
      for (let o = 0; o < piece.length; ) {
        const n = Math.min(bs - fill, piece.length - o);
        pending.set(piece.subarray(o, o + n), fill);
        fill += n;
        o += n;
        if (fill === bs) {
          hasher.update(pending);
          await this.addBlock(encodeBlock(pending, this.o.codec, memoryMapped), id, path);
          fill = 0;
        }
      }
    }
    if (fill > 0) {
      hasher.update(pending.subarray(0, fill));
      await this.addBlock(encodeBlock(pending.subarray(0, fill), this.o.codec, memoryMapped), id, path);
    }
    return this.endChunk(id, hasher.digest(), path);
  }

  /**
   * Adds one chunk whose bytes are at hand whole (`bytes` may be a reused buffer: nothing is kept of it); returns its
   * hash. Nothing is awaited but the writes a full batch starts: a container of many small files is written without
   * a promise or a closure per chunk.
   */
  async addChunkBytes(id: Uint8Array, bytes: Uint8Array, path?: string, memoryMapped = false): Promise<Uint8Array> {
    this.checkOpen(id);
    const hasher = (this.hasher ??= await this.hasherPromise);
    hasher.reset();
    hasher.update(bytes);
    const bs = this.o.blockSize;
    this.beginChunk(memoryMapped);
    for (let o = 0; o < bytes.length; o += bs) {
      const pending = this.addBlock(encodeBlock(bytes.subarray(o, o + bs), this.o.codec, memoryMapped), id, path);
      if (pending) await pending;
    }
    return this.endChunk(id, hasher.digest(), path);
  }

  /**
   * Adds one chunk already cut, hashed and encoded (see `encodeChunk`, which worker threads run), with the same
   * settings this writer was created with; returns its hash.
   */
  async addEncodedChunk(id: Uint8Array, chunk: EncodedChunk, path?: string, memoryMapped = false): Promise<Uint8Array> {
    this.checkOpen(id);
    this.beginChunk(memoryMapped);
    for (const block of chunk.blocks) {
      const pending = this.addBlock(block, id, path);
      if (pending) await pending;
    }
    return this.endChunk(id, chunk.hash, path);
  }

  /**
   * Adds one chunk whose blocks come encoded one at a time, with the same settings this writer was created with (a
   * block's payload may be a reused buffer: it is copied before the next is pulled); `hash()` gives the chunk-meta
   * hash once the last block is in. Returns the hash.
   */
  async addEncodedBlocks(id: Uint8Array, blocks: AsyncIterable<EncodedBlock>, hash: () => Uint8Array, path?: string, memoryMapped = false): Promise<Uint8Array> {
    this.checkOpen(id);
    this.beginChunk(memoryMapped);
    for await (const block of blocks) {
      const pending = this.addBlock(block, id, path);
      if (pending) await pending;
    }
    return this.endChunk(id, hash(), path);
  }

  /**
   * The file descriptor stored chunks can be written to directly (see reserveStored), or undefined when this writer
   * must write them itself: blocks are compressed or encrypted, the .ucas is split into partitions, or its sink is
   * not a file.
   */
  get directFd(): number | undefined {
    if (this.closed || this.o.codec !== undefined || this.o.aesKey !== undefined || this.o.partitionSize !== undefined) return undefined;
    return this.partitions[0]?.fd;
  }

  /**
   * Adds a chunk of `size` raw bytes whose stored blocks the caller writes itself to `directFd` (stored, each padded
   * to 16 bytes with its own bytes from its start, as addChunkBytes would), and returns where they go and the
   * chunk's index for setHash: the chunk is placed and tabled now, its bytes and hash may come later, on any thread.
   */
  reserveStored(id: Uint8Array, size: number, path?: string, memoryMapped = false): { position: number; index: number } {
    this.checkOpen(id);
    const bs = this.o.blockSize;
    const stored = storedSize(size, bs);
    // The rule placeChunk applies to the stored size (no partitions here): a chunk crossing an alignment boundary
    // moves to it.
    const start = alignedChunkStart(this.partitionOffset, stored, this.o.compressionBlockAlignment ?? 0);
    for (let o = 0, at = start; o < size; o += bs) {
      const n = Math.min(bs, size - o);
      writeBlockEntry(this.blocks.extend(BLOCK_ENTRY_SIZE), 0, at, n, n, 0);
      at += align(n, 16);
    }
    this.partitionOffset = start + stored;
    const index = this.offsets.length;
    this.ids.append(id);
    this.hashes.extend(HASH_SIZE).fill(0);
    this.metaFlags.extend(1)[0] = memoryMapped ? 2 : 0;
    this.offsets.push(this.virtualOffset);
    this.lengths.push(size);
    this.paths.push(path);
    this.virtualOffset = align(this.virtualOffset + size, bs);
    return { position: start, index };
  }

  /** The TOC's layout made ahead (layoutAhead), and for how many chunks. */
  private layout: { chunks: number; made: TocLayout } | undefined;

  /**
   * Makes the TOC's layout (perfect-hash order, directory index) of the chunks added so far, which needs their ids
   * and paths only: once the last chunk is placed, this thread makes it while others still copy their bytes.
   * `finishInParts` uses it when no chunk was added since.
   */
  layoutAhead(): void {
    const n = this.chunkCount;
    this.layout = { chunks: n, made: tocLayout({ ids: this.ids.view(), path: (k) => this.paths.get(k) }, this.o) };
  }

  /** The chunk-meta hash of a chunk added by reserveStored. */
  setHash(index: number, hash: Uint8Array): void {
    this.hashes.view(index * HASH_SIZE, (index + 1) * HASH_SIZE).set(hash.subarray(0, HASH_SIZE));
  }

  /** The chunk-meta hashes of consecutive chunks added by reserveStored, from `first`: 20 bytes each, back to back. */
  setHashes(first: number, hashes: Uint8Array): void {
    this.hashes.view(first * HASH_SIZE, first * HASH_SIZE + hashes.length).set(hashes);
  }

  private checkOpen(id: Uint8Array): void {
    if (this.closed) throw new IoStoreError('USAGE', 'the container is already finished');
    if (id.length !== CHUNK_ID_SIZE) throw new IoStoreError('USAGE', 'a chunk id must be 12 bytes');
  }

  /** The hasher, once created. */
  private hasher: ChunkHasher | undefined;

  // The chunk being added. Its stored blocks (padded, encrypted) wait in `staging`, each block's sizes and method in
  // `staged` (4 numbers a block), until the chunk is placed; then they go to the batch as they come.
  private readonly staged: number[] = [];
  private chunkLength = 0;
  private chunkFlags = 0;
  private placed = false;
  /** Where the chunk's next stored byte goes in the current partition, once placed. */
  private at = 0;

  private beginChunk(memoryMapped: boolean): void {
    this.staging.clear();
    this.staged.length = 0;
    this.chunkLength = 0;
    this.chunkFlags = memoryMapped ? 2 : 0;
    this.placed = false;
  }

  /**
   * Pads and encrypts a block into the staging buffer, then places the chunk or flushes the staged blocks when due;
   * returns a promise only when that has to wait for a write.
   */
  private addBlock(block: EncodedBlock, id: Uint8Array, path: string | undefined): Promise<void> | undefined {
    this.stage(block);
    // Placement needs a chunk's stored size only as far as the rules look at it: all of it with partitions,
    // whether it crosses the next alignment boundary otherwise (known after at most A bytes). Blocks are held until
    // then and streamed after, so without partitions memory does not grow with the chunk.
    const alignTo = this.o.compressionBlockAlignment ?? 0;
    const size = this.staging.length;
    if (!this.placed && this.o.partitionSize === undefined && (alignTo <= 1 || size > alignTo - (this.partitionOffset % alignTo))) {
      const placing = this.place(id, path);
      if (placing) return placing.then(() => (this.staging.length >= STREAM_BATCH ? this.flush() : undefined));
    }
    return this.placed && this.staging.length >= STREAM_BATCH ? this.flush() : undefined;
  }

  private stage(block: EncodedBlock): void {
    this.chunkLength += block.rawSize;
    let method = 0;
    if (block.compressed) {
      method = this.methodIndex(this.o.codec!.name);
      this.chunkFlags |= 1;
    }
    const n = block.payload.length;
    const size = align(n, 16);
    const data = this.staging.extend(size);
    data.set(block.payload);
    padBlockInPlace(data, 0, n);
    if (this.encryption === EncryptionMethod.AesEcb) data.set(aesEcbEncrypt(this.o.aesKey!, data));
    else if (this.encryption === EncryptionMethod.AesCtr) {
      const iv = new Uint8Array(randomBytes(12));
      data.set(aesCtrCrypt(this.o.aesKey!, iv, data));
      this.ivs.append(iv);
    }
    this.staged.push(n, block.rawSize, method, size);
  }

  /** Places the chunk (see placeChunk); a promise only when it has to wait (a new partition). */
  private place(id: Uint8Array, path: string | undefined): Promise<void> | undefined {
    const done = () => {
      this.at = this.partitionOffset;
      this.placed = true;
    };
    const moving = this.placeChunk(this.staging.length, () => path ?? toHex(id));
    if (moving) return moving.then(done);
    done();
    return undefined;
  }

  /** Gives the staged blocks their table entries and their bytes to the batch; a promise when a write must wait. */
  private flush(): Promise<void> | undefined {
    const staged = this.staged;
    if (staged.length === 0) return undefined;
    const sink = this.partitions[this.partitions.length - 1]!;
    const partBase = (this.partitions.length - 1) * (this.o.partitionSize ?? 0);
    const start = this.at;
    for (let k = 0; k < staged.length; k += 4) {
      writeBlockEntry(this.blocks.extend(BLOCK_ENTRY_SIZE), 0, partBase + this.at, staged[k]!, staged[k + 1]!, staged[k + 2]!);
      this.at += staged[k + 3]!;
    }
    staged.length = 0;
    const writing = this.queueWrite(sink, this.staging.view(), start);
    if (writing) return writing.then(() => this.staging.clear());
    this.staging.clear();
    return undefined;
  }

  private async endChunk(id: Uint8Array, hash: Uint8Array, path: string | undefined): Promise<Uint8Array> {
    if (!this.placed) await this.place(id, path);
    await this.flush();
    this.partitionOffset = this.at;
    this.ids.append(id);
    this.hashes.append(hash.subarray(0, HASH_SIZE));
    this.metaFlags.extend(1)[0] = this.chunkFlags;
    this.offsets.push(this.virtualOffset);
    this.lengths.push(this.chunkLength);
    this.paths.push(path);
    this.virtualOffset = align(this.virtualOffset + this.chunkLength, this.o.blockSize);
    return hash;
  }

  /**
   * Applies the partition and block-alignment rules before a chunk is written, given its stored size (or, without
   * partitions, enough of it to tell whether it crosses the next alignment boundary): a chunk that would cross one
   * moves to it, and one that would overflow the partition starts the next partition file.
   */
  private placeChunk(size: number, name: () => string): Promise<void> | undefined {
    const a = this.o.compressionBlockAlignment ?? 0;
    const start = alignedChunkStart(this.partitionOffset, size, a);
    const ps = this.o.partitionSize;
    if (ps !== undefined && start + size > ps && this.partitionOffset > 0) {
      return (async () => {
        await this.writeBatch();
        await this.settleWrite();
        this.partitions.push(await this.openPartition(this.partitions.length));
        this.checkFits(0, size, name);
        this.partitionOffset = 0;
      })();
    }
    this.checkFits(start, size, name);
    this.partitionOffset = start;
    return undefined;
  }

  /** Block offsets address partitions as index * size + offset, so no chunk can be larger than one partition. */
  private checkFits(start: number, size: number, name: () => string): void {
    const ps = this.o.partitionSize;
    if (ps !== undefined && start + size > ps) {
      throw new IoStoreError('USAGE', `chunk ${name()} takes ${size} bytes stored, more than a partition of ${ps}: pass --partition-size ${size} or more, or compress (--compression zlib)`);
    }
  }

  /**
   * Copies stored bytes into the batch of the next write: one write per STREAM_BATCH bytes, not one per chunk (a
   * container of many small chunks had made one call through libuv's pool per chunk, each waited for in turn).
   * A batch is written early when the bytes do not follow it (another partition, an alignment gap).
   */
  private queueWrite(sink: PartitionSink, bytes: Uint8Array, start: number): Promise<void> | undefined {
    if (this.batchFill > 0 && (sink !== this.batchSink || start !== this.batchStart + this.batchFill)) {
      return this.writeBatch().then(() => this.queueWrite(sink, bytes, start));
    }
    if (this.batch.length === 0 && bytes.length > 0) this.batch = new Uint8Array(STREAM_BATCH);
    for (let o = 0; o < bytes.length; ) {
      if (this.batchFill === 0) {
        this.batchSink = sink;
        this.batchStart = start + o;
      }
      const n = Math.min(bytes.length - o, this.batch.length - this.batchFill);
      this.batch.set(bytes.subarray(o, o + n), this.batchFill);
      this.batchFill += n;
      o += n;
      if (this.batchFill === this.batch.length) {
        const rest = bytes.subarray(o);
        return this.writeBatch().then(() => this.queueWrite(sink, rest, start + o));
      }
    }
    return undefined;
  }

  /**
   * Starts writing the batch; one write in flight at most, overlapping with encoding what follows (into the other
   * buffer).
   */
  private async writeBatch(): Promise<void> {
    if (this.batchFill === 0) return;
    await this.settleWrite();
    const pieces = [this.batch.subarray(0, this.batchFill)];
    const sink = this.batchSink!;
    const start = this.batchStart;
    if (this.spare.length === 0) this.spare = new Uint8Array(STREAM_BATCH);
    [this.batch, this.spare] = [this.spare, this.batch];
    this.batchFill = 0;
    this.inflight = sink.write(pieces, start).catch((e) => {
      this.writeError = e;
    });
  }

  /** Waits for the write in flight, and fails with its error if it had one. */
  private async settleWrite(): Promise<void> {
    await this.inflight;
    this.inflight = undefined;
    if (this.writeError !== undefined) throw this.writeError;
  }

  private methodIndex(name: string): number {
    let i = this.methods.indexOf(name);
    if (i < 0) i = this.methods.push(name) - 1;
    return i;
  }

  /**
   * Writes what waits for a write and lets go of the buffers chunks were staged and batched in (~4 MB), so that a
   * collection before finish() frees them; no chunk can be added after.
   */
  async drain(): Promise<void> {
    if (this.closed) throw new IoStoreError('USAGE', 'the container is already finished');
    await this.writeBatch();
    await this.settleWrite();
    this.closed = true;
    this.batch = this.spare = new Uint8Array(0);
    this.staging = new ByteList(16);
    this.pending = undefined;
  }

  /** Writes the .utoc (and closes the partitions); returns its bytes and the number of partitions. */
  async finish(): Promise<{ utoc: Uint8Array; partitions: number }> {
    const { utocParts, partitions } = await this.finishInParts();
    return { utoc: concatBytes(utocParts), partitions };
  }

  /** finish(), the .utoc's bytes left in pieces (its sections) to write in turn. */
  async finishInParts(): Promise<{ utocParts: Uint8Array[]; partitions: number }> {
    if (!this.closed) await this.drain();
    else if (this.utocWritten) throw new IoStoreError('USAGE', 'the container is already finished');
    this.utocWritten = true;
    await Promise.all(this.partitions.map((p) => p.close()));
    const n = this.chunkCount;
    const v = this.o.version;
    const allIds = this.ids.view();
    const layout = this.layout?.chunks === n ? this.layout.made : tocLayout({ ids: allIds, path: (k) => this.paths.get(k) }, this.o);
    this.layout = undefined;
    const { order, seeds, overflow, indexed } = layout;
    const srcOf = (slot: number) => (order ? order[slot]! : slot);

    const chunkIds = new Uint8Array(n * CHUNK_ID_SIZE);
    const offsets = new Float64Array(n);
    const lengths = new Float64Array(n);
    const hashSize = HASH_SIZE;
    const metaHashes = new Uint8Array(n * hashSize);
    const metaFlags = new Uint8Array(n);
    const allHashes = this.hashes.view();
    for (let slot = 0; slot < n; slot++) {
      const src = srcOf(slot);
      chunkIds.set(allIds.subarray(src * CHUNK_ID_SIZE, (src + 1) * CHUNK_ID_SIZE), slot * CHUNK_ID_SIZE);
      offsets[slot] = this.offsets.get(src);
      lengths[slot] = this.lengths.get(src);
      metaHashes.set(allHashes.subarray(src * hashSize, (src + 1) * hashSize), slot * hashSize);
      metaFlags[slot] = this.metaFlags.at(src);
    }
    let dirIndex = layout.directoryIndex;
    const enc = this.encryption;
    if (enc !== EncryptionMethod.None && dirIndex.length > 0) {
      const padded = padBlock(dirIndex);
      if (enc === EncryptionMethod.AesCtr) {
        const iv = new Uint8Array(randomBytes(12));
        this.ivs.append(iv);
        dirIndex = aesCtrCrypt(this.o.aesKey!, iv, padded);
      } else {
        dirIndex = aesEcbEncrypt(this.o.aesKey!, padded);
      }
    }
    let flags = ContainerFlags.Indexed * (indexed ? 1 : 0);
    if (this.methods.length > 1) flags |= ContainerFlags.Compressed;
    if (enc !== EncryptionMethod.None) flags |= ContainerFlags.Encrypted;
    const partitionCount = this.partitions.length;
    const header: TocHeader = {
      version: v,
      entryCount: n,
      compressedBlockEntryCount: this.blocks.length / BLOCK_ENTRY_SIZE,
      compressionMethodNameCount: this.methods.length - 1,
      compressionMethodNameLength: 32,
      compressionBlockSize: this.o.blockSize,
      directoryIndexSize: dirIndex.length,
      partitionCount: n > 0 ? partitionCount : 0,
      containerId: this.o.containerId,
      encryptionKeyGuid: this.o.encryptionKeyGuid ?? new Uint8Array(16),
      containerFlags: flags,
      encryptionMethodByte: v >= TocVersion.ContainerEncryptionMethod ? enc : 0,
      perfectHashSeedsCount: seeds.length,
      partitionSize: this.o.partitionSize !== undefined ? BigInt(this.o.partitionSize) : NO_PARTITION_SIZE,
      chunksWithoutPerfectHashCount: overflow.length,
      sourceHashCount: 0,
      encryptionIvCount: this.ivs.length / 12,
    };
    const utocParts = serializeTocParts({
      header, chunkIds, chunkOffsets: offsets, chunkLengths: lengths, perfectHashSeeds: seeds, chunksWithoutPerfectHash: overflow,
      blocks: new BlockTable(this.blocks.view()), encryptionIvs: this.ivs.view(), compressionMethods: this.methods, signatures: null,
      directoryIndexBytes: dirIndex, metaHashes, metaHashSize: hashSize, metaFlags, onDemandHashes: null, sourceHashes: null,
    });
    return { utocParts, partitions: partitionCount };
  }

  /** Closes the partition files without writing a TOC (after a failure). */
  async abort(): Promise<void> {
    this.closed = true;
    this.utocWritten = true;
    this.batchFill = 0;
    await this.inflight;
    await Promise.all(this.partitions.map((p) => p.close().catch(() => {})));
  }
}

/** Bytes of the chunk-meta hash the writer records (BLAKE3-160 or SHA-1). */
const HASH_SIZE = 20;

/** One block-table entry written at `b[o]`, as the TOC stores it (see BlockTable). */
function writeBlockEntry(b: Uint8Array, o: number, offset: number, compressedSize: number, uncompressedSize: number, method: number): void {
  writeU40LE(b, o, offset);
  writeU24LE(b, o + 5, compressedSize);
  writeU24LE(b, o + 8, uncompressedSize);
  b[o + 11] = method;
}

/** The chunks' paths (or none), kept as UTF-8 in one buffer until the directory index is built. */
class PathList {
  private readonly text: ByteList;
  /** Per chunk: where its path starts in `text`, or -1; the end is the next start. */
  private readonly starts: IntList;
  private readonly ends: IntList;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  constructor(chunks: number) {
    // Paths of a game's files are ~40-80 bytes.
    this.text = new ByteList(chunks * 48);
    this.starts = new IntList(chunks);
    this.ends = new IntList(chunks);
  }

  push(path: string | undefined): void {
    if (path === undefined) {
      this.starts.push(-1);
      this.ends.push(-1);
      return;
    }
    const at = this.text.length;
    const room = this.text.extend(path.length * 3);
    const { written } = this.encoder.encodeInto(path, room);
    this.text.truncate(at + written);
    this.starts.push(at);
    this.ends.push(at + written);
  }

  has(k: number): boolean {
    return this.starts.get(k) >= 0;
  }

  get(k: number): string | undefined {
    const at = this.starts.get(k);
    return at < 0 ? undefined : this.decoder.decode(this.text.view(at, this.ends.get(k)));
  }
}
