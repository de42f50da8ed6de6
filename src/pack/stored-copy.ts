import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { createChunkHasher, type ChunkHashAlgorithm, type ChunkHasher } from '../hash/chunk-hash.js';
import { abortHooks } from '../layout/output.js';
import { eventLoopTurns } from '../util/turns.js';
import { runnableUrl, threadsFor, WorkerPool } from '../util/worker-pool.js';
import { keptV8Flags } from '../util/v8-flags.js';
import type { ContainerWriter } from './container-writer.js';
import type { PlannedChunk } from './planned-chunk.js';
import { SegmentFeed, type FeedShared, type FeedTarget } from './segment-feed.js';
import { copySegment, SEGMENT_HASH_SIZE, SegmentBuffer, STREAM_PIECE } from './stored-segment.js';

/** A copy worker's task: the feed of segments to claim from (see segment-feed.ts), the port their files come by. */
export interface CopyTask {
  feed: FeedShared;
  port: MessagePort;
  target: FeedTarget;
  algorithm: ChunkHashAlgorithm;
}

/** What a copy worker starts with. */
export interface CopyWorkerSetup {
  /** V8 flags the process keeps (src/util/v8-flags.ts), set again by the worker once it has loaded its code. */
  v8Flags: string[];
}

/**
 * A segment holds consecutive chunk files up to about this many bytes and files: one write each. A larger file is a
 * segment of its own, read and written in pieces (STREAM_PIECE).
 */
const SEGMENT_BYTES = 512 << 10;
const SEGMENT_FILES = 256;
/**
 * How far this thread publishes segments ahead of those claimed before it copies one itself: enough work queued for
 * the workers to copy while this thread makes the TOC's layout once every chunk is placed (~0.4 s for 30,000 chunks,
 * when a worker copies ~0.75 GB/s), and few enough queued file names to hold.
 */
const LEAD_BYTES = 384 << 20;
/** Below this much to copy, starting a worker costs more than it saves. */
const PARALLEL_MIN_BYTES = 32 << 20;

/**
 * Stored chunks that are each a whole file, read, hashed and written to the .ucas by worker threads and this thread
 * side by side: the writer places and tables each chunk when it is added (reserveStored), so segments of consecutive
 * chunks can be written by any thread, in any order. The workers claim segments as this thread publishes them (a
 * shared feed: no message per segment, no worker waiting for this thread's turn), and this thread claims what is
 * left once it has done its own work (finish): a stored pack of 30,000 files had taken ~2.4x the time of `cp -r` of
 * them on this thread alone, and 1.5x with segments handed to a worker by message while this thread made the TOC
 * after the copy.
 */
export class StoredCopy {
  /** Files added (their order in the feed), and the first of the segment under way with its files and bytes. */
  private count = 0;
  private segmentStart = 0;
  private files: string[] = [];
  private bytes = 0;
  /** Per file: its chunk's index in the writer; the `written` callbacks of those that have one. */
  private readonly writerIndex: Int32Array;
  private readonly callbacks = new Map<number, (hash: Uint8Array) => void>();
  /** Segments whose hashes are in the writer (in order). */
  private reported = 0;
  /** finish() was called: every chunk was added. */
  finished = false;
  private readonly running: Array<Promise<number>> = [];
  private readonly buffer = new SegmentBuffer();
  /** Per segment published: the bytes of it and those before it; and the bytes published. */
  private readonly bytesTo: Float64Array;
  private publishedBytes = 0;
  private readonly stop = () => {
    this.feed.stop();
    return this.close();
  };

  private constructor(
    private readonly writer: ContainerWriter,
    private readonly target: FeedTarget,
    algorithm: ChunkHashAlgorithm,
    private readonly hasher: ChunkHasher,
    private readonly pool: WorkerPool<CopyTask, number>,
    private readonly feed: SegmentFeed,
    files: number,
    /** Called as segments are written: their chunks and bytes. */
    private readonly done: (chunks: number, bytes: number) => void,
  ) {
    this.writerIndex = new Int32Array(files);
    this.bytesTo = new Float64Array(files);
    abortHooks.add(this.stop);
    for (let w = 0; w < pool.size; w++) {
      const { port1, port2 } = new MessageChannel();
      feed.connect(port1);
      const task = pool.run({ feed: feed.shared, port: port2, target, algorithm }, [port2 as unknown as ArrayBuffer]);
      // Awaited in finish; until then (or after this thread failed) a failure must not count as unhandled.
      task.catch(() => {});
      this.running.push(task);
    }
  }

  /**
   * The copier for a writer that lets chunks be written to its .ucas directly (stored, unencrypted, one partition,
   * a file), or undefined. `threads`: worker threads beside this one (default: one fewer than the cores, for 32 MiB
   * or more of such chunks); 0 keeps every chunk on this thread, as the writer's own path.
   */
  static async create(writer: ContainerWriter, chunks: readonly PlannedChunk[], o: { blockSize: number; algorithm: ChunkHashAlgorithm; shownAs: string; threads: number | undefined }, done: (chunks: number, bytes: number) => void): Promise<StoredCopy | undefined> {
    const fd = writer.directFd;
    if (fd === undefined || o.threads === 0) return undefined;
    let bytes = 0;
    let files = 0;
    for (const c of chunks) {
      if (!StoredCopy.takes(c)) continue;
      bytes += c.size;
      files++;
    }
    const n = o.threads ?? Math.max(0, threadsFor(bytes, PARALLEL_MIN_BYTES) - 1);
    if (n === 0) return undefined;
    const hasher = await createChunkHasher(o.algorithm);
    const pool = new WorkerPool<CopyTask, number>(runnableUrl('./copy-worker.js', import.meta.url), n, { v8Flags: keptV8Flags() } satisfies CopyWorkerSetup);
    return new StoredCopy(writer, { fd, shownAs: o.shownAs, blockSize: o.blockSize }, o.algorithm, hasher, pool, new SegmentFeed(files), files, done);
  }

  /** Whether a chunk is copied here: exactly a file's bytes. */
  static takes(c: PlannedChunk): boolean {
    return c.file !== undefined;
  }

  get threads(): number {
    return this.pool.size;
  }

  /** Places the chunk (it is the writer's next) and adds it to the segment under way. */
  add(chunk: PlannedChunk): void {
    if (chunk.size > STREAM_PIECE && this.files.length > 0) this.flush();
    const { position, index } = this.writer.reserveStored(chunk.id, chunk.size, chunk.path, chunk.memoryMapped);
    const k = this.count++;
    const f = this.feed.shared;
    f.sizes[k] = chunk.size;
    f.positions[k] = position;
    this.writerIndex[k] = index;
    if (chunk.written) this.callbacks.set(k, chunk.written);
    this.files.push(chunk.file!);
    this.bytes += chunk.size;
    if (this.bytes >= SEGMENT_BYTES || chunk.size > STREAM_PIECE || this.files.length >= SEGMENT_FILES) this.flush();
  }

  /**
   * Publishes the segment under way (before a chunk the writer adds itself, and at the end); then, while the workers
   * have more than LEAD_BYTES published and not claimed, copies the next segment on this thread.
   */
  flush(): void {
    if (this.files.length === 0) return;
    this.publishedBytes += this.bytes;
    this.bytesTo[this.feed.published] = this.publishedBytes;
    this.feed.publish(this.segmentStart, this.files.length, this.files.join('\0'));
    this.segmentStart = this.count;
    this.files = [];
    this.bytes = 0;
    while (!this.finished && this.publishedBytes - this.claimedBytes() > LEAD_BYTES && this.copyNext()) {
      // one segment more on this thread
    }
    this.collect();
  }

  /** The bytes of the segments claimed so far. */
  private claimedBytes(): number {
    const k = Math.min(this.feed.claimed, this.feed.published);
    return k === 0 ? 0 : this.bytesTo[k - 1]!;
  }

  /** Claims and copies the next segment on this thread; false when none is left. */
  private copyNext(): boolean {
    const c = this.feed.claim(this.target);
    if (!c) return false;
    const first = this.feed.shared.segmentFirst[c.index]!;
    try {
      copySegment(c.segment, this.buffer, this.hasher, () => {}, this.feed.shared.hashes.subarray(first * SEGMENT_HASH_SIZE, (first + c.segment.sizes.length) * SEGMENT_HASH_SIZE));
    } catch (e) {
      this.feed.stop();
      throw e;
    }
    this.feed.copied(c.index);
    return true;
  }

  /**
   * Copies on this thread what the workers have not claimed, and waits for theirs: all chunks are written and hashed
   * (their `written` called) when this returns, as a chunk written last (the container header) needs.
   */
  async finish(): Promise<void> {
    if (this.finished) return;
    this.flush();
    this.finished = true;
    this.feed.close();
    const turn = eventLoopTurns();
    while (this.copyNext()) {
      this.collect();
      await turn();
    }
    await Promise.all(this.running);
    this.collect();
    if (this.reported !== this.feed.published) throw new Error(`stored copy: ${this.feed.published - this.reported} segments not copied`);
  }

  /** Puts the hashes of the segments copied so far (in order) in the writer, and tells of their progress. */
  private collect(): void {
    const f = this.feed.shared;
    while (this.reported < this.feed.published && this.feed.isDone(this.reported)) {
      const s = this.reported++;
      const first = f.segmentFirst[s]!;
      const n = f.segmentFiles[s]!;
      let bytes = 0;
      for (let k = first; k < first + n; k++) {
        const hash = f.hashes.subarray(k * SEGMENT_HASH_SIZE, (k + 1) * SEGMENT_HASH_SIZE);
        this.writer.setHash(this.writerIndex[k]!, hash);
        this.callbacks.get(k)?.(hash.slice());
        bytes += f.sizes[k]!;
      }
      this.done(n, bytes);
    }
  }

  /** Stops the workers (after the file each is copying). */
  close(): Promise<void> {
    this.feed.stop();
    abortHooks.delete(this.stop);
    return this.pool.close();
  }
}
