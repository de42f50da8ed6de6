import { createChunkHasher, type ChunkHashAlgorithm, type ChunkHasher } from '../hash/chunk-hash.js';
import { abortHooks } from '../layout/output.js';
import { runnableUrl, SEGMENT_BYTES, SEGMENT_FILES, TasksBeside, threadsFor, WorkerPool } from '../util/worker-pool.js';
import { keptV8Flags } from '../util/v8-flags.js';
import type { ContainerWriter } from './container-writer.js';
import { FileChunk, type PlannedChunk } from './planned-chunk.js';
import { copySegment, SEGMENT_HASH_SIZE, SegmentBuffer, STREAM_PIECE, type StoredSegment } from './stored-segment.js';
import type { PakEntryLayout } from '../pak/entry.js';

/** A segment for a copy worker, and the hash its chunks get. */
export interface CopyTask {
  segment: StoredSegment;
  algorithm: ChunkHashAlgorithm;
}

/** What a copy worker starts with: a flag set to stop it between files (an interrupt). */
export interface CopyWorkerSetup {
  stop: Int32Array;
  /** V8 flags the process keeps (src/util/v8-flags.ts), set again by the worker once it has loaded its code. */
  v8Flags: string[];
}

// A segment holds consecutive chunk files up to SEGMENT_BYTES and SEGMENT_FILES; a larger file is a segment of its
// own, read and written in pieces (STREAM_PIECE).
/**
 * What the workers copy alone at the end, while this thread makes the TOC's layout (~0.15-0.3 s of a 30,000-file
 * pack, which the workers had waited for): TAIL_BYTES_PER_CHUNK for each chunk of the container (the layout's time
 * grows with the chunks), at least TAIL_BYTES and at most TAIL_MAX_BYTES. With 64 MiB at 30,000 files, the worker was
 * done 50-70 ms before this thread's layout and idle meanwhile; with 4 KiB a chunk this thread waited 30-40 ms.
 */
const TAIL_BYTES = 64 << 20;
const TAIL_BYTES_PER_CHUNK = 3 << 10;
const TAIL_MAX_BYTES = 256 << 20;
/** What the workers copy alone at the end of a container of `chunks` chunks, while this thread makes its TOC's layout. */
export function tailBytes(chunks: number): number {
  return Math.min(TAIL_MAX_BYTES, Math.max(TAIL_BYTES, chunks * TAIL_BYTES_PER_CHUNK));
}

/** Below this much to copy, starting a worker costs more than it saves. */
const PARALLEL_MIN_BYTES = 32 << 20;

/** Where the hashes of copied files go: those of the files placed at `first`, `first + 1`, ... back to back. */
export interface CopiedHashes {
  setHashes(first: number, hashes: Uint8Array): void;
}

/**
 * Stored chunks that are each a whole file, read, hashed and written to the .ucas by this thread
 * and worker threads side by side: the writer places and tables each chunk when it is added (reserveStored), so
 * segments of consecutive chunks can be written by any thread, in any order. This thread had read, hashed and copied
 * every byte twice (into the chunk's staging buffer, then the write batch) on its own: a stored pack of 30,000 files
 * took ~2.4x the time of `cp -r` of them.
 */
export class StoredCopy {
  // The segment under way: its files, sizes and places, and its chunks with their writer indexes.
  private files: string[] = [];
  private readonly sizes = new Float64Array(SEGMENT_FILES);
  private readonly positions = new Float64Array(SEGMENT_FILES);
  private chunks: Array<PlannedChunk | undefined> | undefined;
  private firstIndex = 0;
  private bytes = 0;
  private readonly buffer = new SegmentBuffer();
  private hasher: ChunkHasher | undefined;
  /** The segments, on the workers and (when they have enough queued) on this thread. */
  private readonly tasks: TasksBeside<CopyTask, Uint8Array>;
  /** The container whose chunks `add` places (made by `create`). */
  private container: ContainerWriter | undefined;
  // An interrupt: the workers stop at their next file, and the cleanup waits until no segment is being written (not
  // for the threads' exit, which did not always come before the run ended: exit 2 and a temporary file left).
  private readonly stop = async () => {
    Atomics.store(this.stopFlag, 0, 1);
    await this.tasks.settled();
    void this.close();
  };

  private constructor(
    private readonly writer: CopiedHashes,
    private readonly fd: number,
    private readonly shownAs: string,
    private readonly blockSize: number,
    private readonly algorithm: ChunkHashAlgorithm,
    private readonly pool: WorkerPool<CopyTask, Uint8Array>,
    /** The workers' stop flag (see CopyWorkerSetup). */
    private readonly stopFlag: Int32Array,
    /** Called as each segment is written: its chunks and bytes. */
    private readonly done: (chunks: number, bytes: number) => void,
    /** Bytes of the chunks still to be added. */
    private left: number,
    /** What the workers copy alone at the end (see TAIL_BYTES). */
    private readonly tailBytes: number,
    /** A stored pak's files (see StoredSegment.entryHeader). */
    private readonly entryHeader?: StoredSegment['entryHeader'],
  ) {
    abortHooks.add(this.stop);
    this.tasks = new TasksBeside(pool, async (task) => copySegment(task.segment, this.buffer, (this.hasher ??= await createChunkHasher(task.algorithm))));
  }

  /**
   * The copier for a writer that lets chunks be written to its .ucas directly (stored, unencrypted, one partition,
   * a file), or undefined. `threads`: worker threads beside this one (default: one fewer than the cores, for 32 MiB
   * or more of such chunks); 0 keeps every chunk on this thread, as the writer's own path.
   */
  static create(writer: ContainerWriter, chunks: readonly PlannedChunk[], o: { blockSize: number; algorithm: ChunkHashAlgorithm; shownAs: string; threads: number | undefined }, done: (chunks: number, bytes: number) => void): StoredCopy | undefined {
    const fd = writer.directFd;
    if (fd === undefined || o.threads === 0) return undefined;
    let bytes = 0;
    for (const c of chunks) if (StoredCopy.takes(c)) bytes += c.size;
    const n = o.threads ?? Math.max(0, threadsFor(bytes, PARALLEL_MIN_BYTES) - 1);
    if (n === 0) return undefined;
    const { pool, stop } = StoredCopy.workers(n);
    const copy = new StoredCopy(writer, fd, o.shownAs, o.blockSize, o.algorithm, pool, stop, done, bytes, tailBytes(chunks.length));
    copy.container = writer;
    return copy;
  }

  /**
   * The copier of a stored, unencrypted `.pak`'s files (`bytes` of them) to `fd`, each after its in-place entry
   * header (writePak places them: PakWriterOptions.copyStored), or undefined below the bytes worth a worker;
   * `threads` as for `create`.
   */
  static forPak(fd: number, shownAs: string, bytes: number, layout: PakEntryLayout & { size: number }, hashes: CopiedHashes, threads: number | undefined): StoredCopy | undefined {
    const n = threads ?? Math.max(0, threadsFor(bytes, PARALLEL_MIN_BYTES) - 1);
    if (n === 0) return undefined;
    const { pool, stop } = StoredCopy.workers(n);
    return new StoredCopy(hashes, fd, shownAs, 1, 'sha1', pool, stop, () => {}, bytes, TAIL_BYTES, layout);
  }

  private static workers(n: number): { pool: WorkerPool<CopyTask, Uint8Array>; stop: Int32Array } {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const pool = new WorkerPool<CopyTask, Uint8Array>(runnableUrl('./copy-worker.js', import.meta.url), n, { stop, v8Flags: keptV8Flags() } satisfies CopyWorkerSetup);
    return { pool, stop };
  }

  /** Whether a chunk is copied here: exactly a file's bytes. */
  static takes(c: PlannedChunk): boolean {
    // A file chunk says so without making its file's name (a string per chunk).
    return c instanceof FileChunk ? c.onDisk : c.file !== undefined;
  }

  get threads(): number {
    return this.pool.size;
  }

  /**
   * Places the chunk (it is the writer's next) and adds it to the segment under way; a promise only when the segment
   * is started and that has to wait (no promise per chunk: a pack of 150,000 files calls this for each).
   */
  add(chunk: PlannedChunk): Promise<void> | undefined {
    this.check();
    if (chunk.size > STREAM_PIECE && this.files.length > 0) return this.flush().then(() => this.add(chunk));
    const { position, index } = this.container!.reserveStored(chunk.id, chunk.size, chunk.path, chunk.memoryMapped);
    // Only chunks that want their hash are kept (see flush).
    if (chunk.written) {
      this.chunks ??= [];
      this.chunks[this.files.length] = chunk;
    }
    return this.addFile(chunk.file!, chunk.size, position, index);
  }

  /**
   * Adds the file of `size` bytes whose place is `position` (its hash the `index`-th of the target's) to the segment
   * under way; as `add`, a promise only when a segment is started and that has to wait.
   */
  addFile(file: string, size: number, position: number, index: number): Promise<void> | undefined {
    this.check();
    if (size > STREAM_PIECE && this.files.length > 0) return this.flush().then(() => this.addFile(file, size, position, index));
    const k = this.files.length;
    if (k === 0) this.firstIndex = index;
    this.files.push(file);
    this.sizes[k] = size;
    this.positions[k] = position;
    this.bytes += size;
    this.left -= size;
    return this.bytes >= SEGMENT_BYTES || size > STREAM_PIECE || this.files.length >= SEGMENT_FILES ? this.flush() : undefined;
  }

  /** Starts the segment under way (before a chunk the writer adds itself, and at the end). */
  async flush(): Promise<void> {
    if (this.files.length === 0) return;
    const n = this.files.length;
    const segment: StoredSegment = { fd: this.fd, shownAs: this.shownAs, blockSize: this.blockSize, files: this.files.join('\0'), sizes: this.sizes.slice(0, n), positions: this.positions.slice(0, n), ...(this.entryHeader ? { entryHeader: this.entryHeader } : {}) };
    const chunks = this.chunks;
    // A segment's chunks are consecutive in the writer.
    const first = this.firstIndex;
    const bytes = this.bytes;
    this.files = [];
    this.chunks = undefined;
    this.bytes = 0;
    const apply = (hashes: Uint8Array) => {
      this.writer.setHashes(first, hashes);
      if (chunks) {
        for (let k = 0; k < n; k++) chunks[k]?.written?.(hashes.subarray(k * SEGMENT_HASH_SIZE, (k + 1) * SEGMENT_HASH_SIZE));
      }
      this.done(n, bytes);
    };
    // The last tailBytes all go to the workers: this thread makes the TOC's layout meanwhile (see writeChunks).
    await this.tasks.run({ segment, algorithm: this.algorithm }, apply, this.left < this.tailBytes);
  }

  /**
   * Waits for every segment: all chunks are written and hashed (their `written` called) when this returns, as a
   * chunk written last (the container header) needs.
   */
  async finish(): Promise<void> {
    await this.flush();
    await this.tasks.finish();
  }

  private check(): void {
    this.tasks.check();
  }

  /** Stops the workers (after the segment each is copying). */
  close(): Promise<void> {
    abortHooks.delete(this.stop);
    return this.pool.close();
  }
}
