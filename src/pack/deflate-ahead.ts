import { closeSync, openSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Codec } from '../codecs/codec.js';
import { encoderSettings } from '../codecs/registry.js';
import { deflateRoom, ZLIB_DEFAULT_LEVEL, zlibNode } from '../codecs/zlib.js';
import { IoStoreError } from '../errors.js';
import { createChunkHasher, type ChunkHashAlgorithm, type ChunkHasher } from '../hash/chunk-hash.js';
import { ioError, withIoError } from '../toc/read-file.js';
import type { EncodedBlock } from './block-encoder.js';
import type { PlannedChunk } from './planned-chunk.js';
import { DeflatePool } from './deflate-pool.js';
import { readFullSync } from '../util/read-full.js';

/** Raw bytes read ahead of the writer, as whole blocks: enough to keep every deflate busy between the writer's turns. */
const AHEAD_BYTES = 2 << 20;
/**
 * Deflates at once by default: three per core, so that the cores stay busy while this thread reads, hashes and
 * writes (a finished deflate gets its next block only when this thread is free to hand it over: with one per core,
 * a 2-core pack of 30,000 files ran 1.45x the wall time of worker threads at the same CPU; with three, ~1.15x).
 * At most libuv's pool less the one the writer's file writes need (the CLI sets 16; Node's default is 4).
 */
export function defaultDeflates(): number {
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return Math.max(1, Math.min(3 * availableParallelism(), pool - 1));
}

/** A block's room: its raw bytes as read, and its deflated form. */
interface Slot {
  raw: Uint8Array;
  out: Uint8Array;
}

/** What the reader queued for the writer, in order: a block of chunk `k`, or the end of chunk `k` with its hash. */
type Queued =
  | { k: number; slot: Slot; size: number; job: Promise<number> | undefined }
  | { k: number; slot: undefined; hash: Uint8Array };

/**
 * Zlib blocks compressed on every core without worker threads: this thread reads each chunk file block by block (a
 * blocking read into a reused block buffer) and hashes it, node:zlib deflates the blocks on libuv's thread pool
 * (backgroundDeflater), and the writer takes them in order, so the output is byte for byte the same as compressing on
 * this thread. What is in flight is bounded by blocks, not by files: AHEAD_BYTES of raw blocks and their deflated
 * forms, whatever the size of the files (a worker thread per core had held whole files of up to 16 MiB, batches of
 * them, and ~20 MB of its own: 30,000 files packed in 160-170 MB of peak RSS).
 */
export class DeflateAhead {
  private readonly free: Slot[] = [];
  private slots = 0;
  private readonly queue: Queued[] = [];
  /** The next chunk to read, and the file being read (its descriptor and the next position). */
  private next = 0;
  private fd = -1;
  private pos = 0;
  private lastHash: Uint8Array | undefined;

  private constructor(
    private readonly chunks: readonly PlannedChunk[],
    private readonly blockSize: number,
    private readonly deflates: DeflatePool,
    private readonly hasher: ChunkHasher,
    private readonly maxSlots: number,
  ) {}

  /**
   * A reader for the file chunks of `chunks` with `threads` deflates at once (default: defaultDeflates),
   * or undefined when the codec is not Zlib or this runtime's node:zlib cannot deflate this way.
   */
  static async create(chunks: readonly PlannedChunk[], o: { codec?: Pick<Codec, 'name'>; blockSize: number; hashAlgorithm: ChunkHashAlgorithm }, threads?: number): Promise<DeflateAhead | undefined> {
    const level = zlibLevel(o.codec);
    if (level === undefined || threads === 0) return undefined;
    const n = threads ?? defaultDeflates();
    if (n < 1) return undefined;
    const deflates = DeflatePool.create(level, n);
    if (!deflates) return undefined;
    const maxSlots = Math.max(2 * n + 2, Math.min(32, Math.floor(AHEAD_BYTES / o.blockSize)));
    return new DeflateAhead(chunks, o.blockSize, deflates, await createChunkHasher(o.hashAlgorithm), maxSlots);
  }

  /** Blocks' rooms made so far: at most max(2 * threads + 2, min(32, AHEAD_BYTES / block size)), whatever the files. */
  get rooms(): number {
    return this.slots;
  }

  /** Deflates at once. */
  get threads(): number {
    return this.deflates.size;
  }

  /** Whether chunk k is read here (it is a file's bytes). */
  handles(k: number): boolean {
    return this.chunks[k]!.file !== undefined;
  }

  /**
   * Chunk k's blocks, encoded, in order (k must be the next chunk this reads); each payload is valid until the next
   * is pulled. `hash()` gives the chunk's hash once the last block has been pulled.
   */
  async *blocks(k: number): AsyncGenerator<EncodedBlock, void> {
    this.lastHash = undefined;
    for (;;) {
      this.fill();
      const q = this.queue.shift();
      if (!q || q.k !== k) throw new IoStoreError('USAGE', `chunk ${k} taken out of order`);
      if (q.slot === undefined) {
        this.lastHash = q.hash;
        return;
      }
      const made = q.job ? await q.job : 0;
      const compressed = made > 0 && made < q.size;
      yield { payload: compressed ? q.slot.out.subarray(0, made) : q.slot.raw.subarray(0, q.size), rawSize: q.size, compressed };
      this.free.push(q.slot);
    }
  }

  /** The hash of the chunk whose blocks were pulled last. */
  hash(): Uint8Array {
    if (!this.lastHash) throw new IoStoreError('USAGE', 'a chunk hash asked for before its last block');
    return this.lastHash;
  }

  /** Closes the file being read, if any (after a failure). */
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  /** Reads blocks ahead into every free slot (a file's end takes none), each queued and given to a deflate. */
  private fill(): void {
    for (;;) {
      if (this.fd < 0 && !this.open()) return;
      const slot = this.free.pop() ?? this.newSlot();
      if (!slot) return;
      const c = this.chunks[this.next]!;
      const n = this.read(c.file!, slot.raw);
      if (n === 0) {
        this.free.push(slot);
        this.endFile();
        continue;
      }
      this.hasher.update(slot.raw.subarray(0, n));
      this.pos += n;
      // The engine never compresses memory-mapped chunks: they are read in place.
      this.queue.push({ k: this.next, slot, size: n, job: c.memoryMapped ? undefined : this.deflates.deflate(slot.raw.subarray(0, n), slot.out) });
      // A regular file reads short only at its end.
      if (n < this.blockSize) this.endFile();
    }
  }

  /** Opens the next file chunk, or returns false when there is none. */
  private open(): boolean {
    while (this.next < this.chunks.length && !this.handles(this.next)) this.next++;
    if (this.next >= this.chunks.length) return false;
    const file = this.chunks[this.next]!.file!;
    this.fd = withIoError(file, () => openSync(file, 'r'));
    this.pos = 0;
    this.hasher.reset();
    return true;
  }

  private endFile(): void {
    this.close();
    this.queue.push({ k: this.next, slot: undefined, hash: this.hasher.digest() });
    this.next++;
  }

  /** One block's bytes from the open file at the current position (fewer at its end). */
  private read(file: string, into: Uint8Array): number {
    let done: number;
    try {
      done = readFullSync(this.fd, into, 0, this.blockSize, this.pos);
    } catch (e) {
      throw ioError(e, file);
    }
    return done;
  }

  private newSlot(): Slot | undefined {
    if (this.slots >= this.maxSlots) return undefined;
    this.slots++;
    return { raw: new Uint8Array(this.blockSize), out: new Uint8Array(deflateRoom(this.blockSize)) };
  }
}

/** The deflate level of a Zlib codec (pack's built-in one, or encoderFor's at a level), else undefined. */
export function zlibLevel(codec: Pick<Codec, 'name'> | undefined): number | undefined {
  if (!codec) return undefined;
  if (codec === zlibNode) return ZLIB_DEFAULT_LEVEL;
  const made = encoderSettings(codec);
  return made?.name === 'Zlib' ? (made.settings.level ?? ZLIB_DEFAULT_LEVEL) : undefined;
}
