import { randomBytes } from 'node:crypto';
import { aesCtrCrypt, aesEcbEncrypt } from '../crypto/aes.js';
import type { Codec } from '../codecs/codec.js';
import { IoStoreError } from '../errors.js';
import { createChunkHasher, type ChunkHashAlgorithm, type ChunkHasher } from '../hash/chunk-hash.js';
import { align } from '../util/bytes.js';
import { alignedChunkStart } from '../toc/block-alignment.js';
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import { BlockTable, type BlockEntry } from '../toc/compression-blocks.js';
import { buildDirectoryIndex, serializeDirectoryIndex, type DirectoryFile } from '../toc/directory-index.js';
import { NO_PARTITION_SIZE, type TocHeader } from '../toc/header.js';
import { buildPerfectHash } from '../toc/perfect-hash.js';
import { serializeToc } from '../toc/write.js';
import { ContainerFlags, EncryptionMethod, TocVersion } from '../toc/version.js';
import { openTempFile } from '../layout/output.js';
import { ioError } from '../toc/read-file.js';
import { concatBytes } from '../toc/directory-index.js';
import { encodeBlock, type EncodedBlock, type EncodedChunk } from './block-encoder.js';

/** Stored bytes gathered before a write: fewer, larger writes. */
const STREAM_BATCH = 1 << 20;

/** Where a partition's bytes go: a file (pack) or memory (buildContainer, browsers, tests). */
export interface PartitionSink {
  /** Writes pieces back to back from `position`; positions only grow, gaps are zero padding. */
  write(pieces: readonly Uint8Array[], position: number): Promise<void>;
  close(): Promise<void>;
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
  };
}

/** A sink collecting a partition in memory; `bytes()` gives its contents. */
export function memorySink(): PartitionSink & { bytes(): Uint8Array } {
  const parts: Uint8Array[] = [];
  let end = 0;
  return {
    async write(pieces, position) {
      if (position > end) parts.push(new Uint8Array(position - end));
      for (const p of pieces) parts.push(p);
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
  for (let i = payload.length; i < size; i++) out[i] = payload[(i - payload.length) % payload.length]!;
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
  /**
   * A perfect-hash table to reuse (with the chunks' TOC order), as unpack recorded it: when the chunk set is
   * unchanged this reproduces the original TOC exactly. Ignored when it does not place every chunk.
   */
  reuseLayout?: { order: Map<string, number>; seeds: Int32Array; overflow: Int32Array };
}

interface ChunkRecord {
  id: Uint8Array;
  offset: number;
  length: number;
  hash: Uint8Array;
  flags: number;
  path: string | undefined;
}

/**
 * Whether a recorded TOC order places exactly these chunks: every id has a slot, and the slots are 0..n-1 (a
 * subset of the original chunks, as a partial unpack holds, has slots beyond its count).
 */
function reusable(order: ReadonlyMap<string, number>, ids: readonly string[]): boolean {
  if (order.size !== ids.length) return false;
  const seen = new Uint8Array(ids.length);
  for (const id of ids) {
    const slot = order.get(id);
    if (slot === undefined || !Number.isInteger(slot) || slot < 0 || slot >= ids.length || seen[slot]) return false;
    seen[slot] = 1;
  }
  return true;
}

/**
 * Writes a container chunk by chunk: each chunk's blocks are compressed, padded to 16 bytes by repeating their own
 * bytes, encrypted and appended to the current .ucas partition; the TOC is written at the end. One chunk's stored
 * blocks are held at a time (placement rules need the chunk's stored size before it is written), and up to 1 MiB of
 * stored bytes waiting for the next write, never the container.
 */
export class ContainerWriter {
  private readonly chunks: ChunkRecord[] = [];
  private readonly blocks: BlockEntry[] = [];
  private readonly ivs: Uint8Array[] = [];
  private readonly methods = ['None'];
  private readonly partitions: PartitionSink[] = [];
  private readonly hasherPromise: Promise<ChunkHasher>;
  private partitionOffset = 0;
  private inflight: Promise<void> | undefined;
  /** Stored bytes waiting for the next write, which starts at batchStart of batchSink. */
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private batchStart = 0;
  private batchSink: PartitionSink | undefined;
  private writeError: unknown;
  private virtualOffset = 0;
  private closed = false;

  private constructor(
    private readonly openPartition: (partition: number) => Promise<PartitionSink>,
    private readonly o: ContainerWriterOptions,
  ) {
    if (o.blockSize <= 0 || o.blockSize > 0xffffff || o.blockSize % 16 !== 0) {
      throw new IoStoreError('USAGE', `block size ${o.blockSize} must be a multiple of 16 below 16 MiB`);
    }
    this.hasherPromise = createChunkHasher(o.hashAlgorithm);
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

  /** Adds one chunk from its pieces (any sizes; re-cut into blocks here) and returns its chunk-meta hash. */
  async addChunk(id: Uint8Array, pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, path?: string, memoryMapped = false): Promise<Uint8Array> {
    this.checkOpen(id);
    const hasher = await this.hasherPromise;
    hasher.reset();
    const bs = this.o.blockSize;
    const codec = this.o.codec;
    async function* blocks(): AsyncGenerator<EncodedBlock> {
      let pending = new Uint8Array(bs);
      let fill = 0;
      for await (const piece of pieces) {
        let o = 0;
        while (o < piece.length) {
          const n = Math.min(bs - fill, piece.length - o);
          pending.set(piece.subarray(o, o + n), fill);
          fill += n;
          o += n;
          if (fill === bs) {
            hasher.update(pending);
            yield encodeBlock(pending, codec, memoryMapped);
            // A block kept raw is stored as is: the next one needs a buffer of its own.
            pending = new Uint8Array(bs);
            fill = 0;
          }
        }
      }
      if (fill > 0) {
        hasher.update(pending.subarray(0, fill));
        yield encodeBlock(pending.subarray(0, fill), codec, memoryMapped);
      }
    }
    return this.addBlocks(id, blocks(), () => hasher.digest(), path, memoryMapped);
  }

  /**
   * Adds one chunk already cut, hashed and encoded (see `encodeChunk`, which worker threads run), with the same
   * settings this writer was created with; returns its hash.
   */
  async addEncodedChunk(id: Uint8Array, chunk: EncodedChunk, path?: string, memoryMapped = false): Promise<Uint8Array> {
    this.checkOpen(id);
    return this.addBlocks(id, chunk.blocks, () => chunk.hash, path, memoryMapped);
  }

  private checkOpen(id: Uint8Array): void {
    if (this.closed) throw new IoStoreError('USAGE', 'the container is already finished');
    if (id.length !== CHUNK_ID_SIZE) throw new IoStoreError('USAGE', 'a chunk id must be 12 bytes');
  }

  /** Pads, encrypts and places a chunk's encoded blocks, streaming them to the current partition. */
  private async addBlocks(id: Uint8Array, blocks: AsyncIterable<EncodedBlock> | Iterable<EncodedBlock>, digest: () => Uint8Array, path: string | undefined, memoryMapped: boolean): Promise<Uint8Array> {
    const stored: Array<{ data: Uint8Array; entry: Omit<BlockEntry, 'offset'>; iv?: Uint8Array }> = [];
    let length = 0;
    let flags = memoryMapped ? 2 : 0;
    const store = (block: EncodedBlock) => {
      length += block.rawSize;
      let method = 0;
      if (block.compressed) {
        method = this.methodIndex(this.o.codec!.name);
        flags |= 1;
      }
      let data = padBlock(block.payload);
      let iv: Uint8Array | undefined;
      if (this.encryption === EncryptionMethod.AesEcb) data = aesEcbEncrypt(this.o.aesKey!, data);
      else if (this.encryption === EncryptionMethod.AesCtr) {
        iv = new Uint8Array(randomBytes(12));
        data = aesCtrCrypt(this.o.aesKey!, iv, data);
      }
      const rec: { data: Uint8Array; entry: Omit<BlockEntry, 'offset'>; iv?: Uint8Array } = { data, entry: { compressedSize: block.payload.length, uncompressedSize: block.rawSize, method } };
      if (iv) rec.iv = iv;
      stored.push(rec);
    };
    // Placement needs a chunk's stored size only as far as the rules look at it: all of it with partitions,
    // whether it crosses the next alignment boundary otherwise (known after at most A bytes). Blocks are held until
    // then and streamed after, so without partitions memory does not grow with the chunk.
    const name = path ?? Buffer.from(id).toString('hex');
    const alignTo = this.o.compressionBlockAlignment ?? 0;
    let placed = false;
    let buffered = 0;
    let at = 0;
    const flush = async () => {
      if (stored.length === 0) return;
      const sink = this.partitions[this.partitions.length - 1]!;
      const partBase = (this.partitions.length - 1) * (this.o.partitionSize ?? 0);
      const start = at;
      for (const b of stored) {
        this.blocks.push({ offset: partBase + at, ...b.entry });
        if (b.iv) this.ivs.push(b.iv);
        at += b.data.length;
      }
      await this.queueWrite(sink, stored.map((b) => b.data), start);
      stored.length = 0;
      buffered = 0;
    };
    const place = async () => {
      await this.placeChunk(buffered, name);
      at = this.partitionOffset;
      placed = true;
    };
    const afterBlock = async () => {
      buffered += stored[stored.length - 1]!.data.length;
      if (!placed && this.o.partitionSize === undefined && (alignTo <= 1 || buffered > alignTo - (this.partitionOffset % alignTo))) await place();
      if (placed && buffered >= STREAM_BATCH) await flush();
    };
    for await (const block of blocks) {
      store(block);
      await afterBlock();
    }
    if (!placed) await place();
    await flush();
    this.partitionOffset = at;
    const hash = digest();
    this.chunks.push({ id: id.slice(), offset: this.virtualOffset, length, hash, flags, path });
    this.virtualOffset = align(this.virtualOffset + length, this.o.blockSize);
    return hash;
  }

  /**
   * Applies the partition and block-alignment rules before a chunk is written, given its stored size (or, without
   * partitions, enough of it to tell whether it crosses the next alignment boundary): a chunk that would cross one
   * moves to it, and one that would overflow the partition starts the next partition file.
   */
  private async placeChunk(size: number, name: string): Promise<void> {
    const a = this.o.compressionBlockAlignment ?? 0;
    let start = alignedChunkStart(this.partitionOffset, size, a);
    const ps = this.o.partitionSize;
    if (ps !== undefined && start + size > ps && this.partitionOffset > 0) {
      await this.writeBatch();
      await this.settleWrite();
      this.partitions.push(await this.openPartition(this.partitions.length));
      start = 0;
    }
    // Block offsets address partitions as index * size + offset, so no chunk can be larger than one partition.
    if (ps !== undefined && start + size > ps) {
      throw new IoStoreError('USAGE', `chunk ${name} takes ${size} bytes stored, more than a partition of ${ps}: pass --partition-size ${size} or more, or compress (--compression zlib)`);
    }
    this.partitionOffset = start;
  }

  /**
   * Adds stored bytes to the batch of the next write: one write per STREAM_BATCH bytes, not one per chunk (a
   * container of many small chunks had made one call through libuv's pool per chunk, each waited for in turn).
   * A batch is written early when the bytes do not follow it (another partition, an alignment gap).
   */
  private async queueWrite(sink: PartitionSink, pieces: readonly Uint8Array[], start: number): Promise<void> {
    if (this.batch.length > 0 && (sink !== this.batchSink || start !== this.batchStart + this.batchBytes)) await this.writeBatch();
    if (this.batch.length === 0) {
      this.batchSink = sink;
      this.batchStart = start;
    }
    for (const p of pieces) {
      this.batch.push(p);
      this.batchBytes += p.length;
    }
    if (this.batchBytes >= STREAM_BATCH) await this.writeBatch();
  }

  /** Starts writing the batch; one write in flight at most, overlapping with encoding what follows. */
  private async writeBatch(): Promise<void> {
    if (this.batch.length === 0) return;
    await this.settleWrite();
    const pieces = this.batch;
    const sink = this.batchSink!;
    const start = this.batchStart;
    this.batch = [];
    this.batchBytes = 0;
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

  /** Writes the .utoc (and closes the partitions); returns its bytes and the number of partitions. */
  async finish(): Promise<{ utoc: Uint8Array; partitions: number }> {
    if (this.closed) throw new IoStoreError('USAGE', 'the container is already finished');
    await this.writeBatch();
    await this.settleWrite();
    this.closed = true;
    await Promise.all(this.partitions.map((p) => p.close()));
    const n = this.chunks.length;
    const v = this.o.version;

    // TOC order: perfect-hash slots when the version has them, else the order chunks were added.
    let order = this.chunks.map((_, i) => i);
    let seeds: Int32Array = new Int32Array(0);
    let overflow: Int32Array = new Int32Array(0);
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const reuse = this.o.reuseLayout;
    if (reuse && reusable(reuse.order, this.chunks.map((c) => hex(c.id)))) {
      order = new Array(n);
      this.chunks.forEach((c, i) => (order[reuse.order.get(hex(c.id))!] = i));
      seeds = reuse.seeds;
      overflow = reuse.overflow;
    } else if (this.o.perfectHash && v >= TocVersion.PerfectHash) {
      const layout = buildPerfectHash(this.chunks.map((c) => c.id));
      if (v >= TocVersion.PerfectHashWithOverflow || layout.overflow.length === 0) {
        order = Array.from(layout.slotToInput);
        seeds = layout.seeds;
        overflow = layout.overflow;
      }
    }

    const chunkIds = new Uint8Array(n * CHUNK_ID_SIZE);
    const offsets = new Float64Array(n);
    const lengths = new Float64Array(n);
    const hashSize = 20;
    const metaHashes = new Uint8Array(n * hashSize);
    const metaFlags = new Uint8Array(n);
    const files: DirectoryFile[] = [];
    order.forEach((src, slot) => {
      const c = this.chunks[src]!;
      chunkIds.set(c.id, slot * CHUNK_ID_SIZE);
      offsets[slot] = c.offset;
      lengths[slot] = c.length;
      metaHashes.set(c.hash, slot * hashSize);
      metaFlags[slot] = c.flags;
      if (c.path !== undefined) files.push({ path: c.path, tocIndex: slot });
    });

    const indexed = files.length > 0 || this.o.indexWhenEmpty === true;
    let dirIndex = indexed ? serializeDirectoryIndex(buildDirectoryIndex(this.o.mountPoint, files)) : new Uint8Array(0);
    const enc = this.encryption;
    if (enc !== EncryptionMethod.None && dirIndex.length > 0) {
      const padded = padBlock(dirIndex);
      if (enc === EncryptionMethod.AesCtr) {
        const iv = new Uint8Array(randomBytes(12));
        this.ivs.push(iv);
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
      compressedBlockEntryCount: this.blocks.length,
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
      encryptionIvCount: this.ivs.length,
    };
    const ivBytes = new Uint8Array(this.ivs.length * 12);
    this.ivs.forEach((iv, i) => ivBytes.set(iv, i * 12));
    const utoc = serializeToc({
      header, chunkIds, chunkOffsets: offsets, chunkLengths: lengths, perfectHashSeeds: seeds, chunksWithoutPerfectHash: overflow,
      blocks: BlockTable.fromEntries(this.blocks), encryptionIvs: ivBytes, compressionMethods: this.methods, signatures: null,
      directoryIndexBytes: dirIndex, metaHashes, metaHashSize: hashSize, metaFlags, onDemandHashes: null, sourceHashes: null,
    });
    return { utoc, partitions: partitionCount };
  }

  /** Closes the partition files without writing a TOC (after a failure). */
  async abort(): Promise<void> {
    this.closed = true;
    this.batch = [];
    await this.inflight;
    await Promise.all(this.partitions.map((p) => p.close().catch(() => {})));
  }
}
