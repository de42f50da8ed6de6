import { availableParallelism } from 'node:os';
import { abortHooks } from '../layout/output.js';
import { WRITE_FILES_MIN } from '../chunks/loop-pool.js';
import type { PlacementFacts } from '../pak/archive.js';
import { runnableUrl, SEGMENT_BYTES, SEGMENT_FILES, TasksBeside, WorkerPool } from '../util/worker-pool.js';
import { keptV8Flags } from '../util/v8-flags.js';
import type { PakOutWorkerSetup } from './pak-out-worker.js';
import { pakSegmentEnd, PakOutThread, PIECE, writePakSegment, type PakOutResult, type PakOutSegment } from './pak-stored-out.js';

/** One file for PakStoredOut: its entry's offset (its in-place header) and size, its path in the pak, its output file. */
export interface PakOutFile {
  offset: number;
  size: number;
  path: string;
  target: string;
}

/**
 * A stored, unencrypted pak's files written out by this thread and worker threads side by side, a segment of
 * consecutive files at a time (see writePakSegment): one thread had made every file's system calls (its creation,
 * most of an unpack's time) alone.
 */
export class PakStoredOut {
  private paths: string[] = [];
  private targets: string[] = [];
  private readonly offsets = new Float64Array(SEGMENT_FILES);
  private readonly sizes = new Float64Array(SEGMENT_FILES);
  private refs: number[] = [];
  private pak = '';
  private facts: PlacementFacts | undefined;
  private readonly thread = new PakOutThread();
  private readonly tasks: TasksBeside<PakOutSegment, PakOutResult>;
  // An interrupt: the workers stop at their next file, and the cleanup waits until no segment is being written (not
  // for the threads' exit, which the run's end does not wait for).
  private readonly stop = async () => {
    Atomics.store(this.stopFlag, 0, 1);
    await this.tasks.settled();
    void this.close();
  };

  private constructor(
    private readonly pool: WorkerPool<PakOutSegment, PakOutResult>,
    private readonly stopFlag: Int32Array,
    /** Called for each file as its segment is done: its ref (given to `add`), bytes written, or -1 and its failure. */
    private readonly done: (ref: number, written: number, failure?: { code: string; message: string }) => void,
  ) {
    abortHooks.add(this.stop);
    this.tasks = new TasksBeside(pool, (task) => writePakSegment(task, this.thread));
  }

  /** With `threads` workers (default: one for WRITE_FILES_MIN files or more on 2 cores or more), or undefined for none. */
  static create(files: number, threads: number | undefined, done: PakStoredOut['done']): PakStoredOut | undefined {
    const n = Math.min(threads ?? (availableParallelism() > 1 && files >= WRITE_FILES_MIN ? 1 : 0), 7);
    if (n <= 0) return undefined;
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const pool = new WorkerPool<PakOutSegment, PakOutResult>(runnableUrl('./pak-out-worker.js', import.meta.url), n, { stop, v8Flags: keptV8Flags() } satisfies PakOutWorkerSetup);
    return new PakStoredOut(pool, stop, done);
  }

  /** Adds a file of the pak `pak` (in offset order); a promise only when a segment is started and that has to wait. */
  add(pak: string, facts: PlacementFacts, f: PakOutFile, ref: number): Promise<void> | undefined {
    this.tasks.check();
    if (this.refs.length > 0 && (pak !== this.pak || f.size > PIECE)) return this.flush().then(() => this.add(pak, facts, f, ref));
    const k = this.refs.length;
    this.pak = pak;
    this.facts = facts;
    this.paths.push(f.path);
    this.targets.push(f.target);
    this.offsets[k] = f.offset;
    this.sizes[k] = f.size;
    this.refs.push(ref);
    const span = pakSegmentEnd(this.offsets.subarray(0, k + 1), this.sizes.subarray(0, k + 1)) - this.offsets[0]!;
    return span >= SEGMENT_BYTES || f.size > PIECE || k + 1 >= SEGMENT_FILES ? this.flush() : undefined;
  }

  /** Starts the segment under way. */
  async flush(): Promise<void> {
    const n = this.refs.length;
    if (n === 0) return;
    const segment: PakOutSegment = { pak: this.pak, facts: this.facts!, paths: this.paths.join('\0'), targets: this.targets.join('\0'), offsets: this.offsets.slice(0, n), sizes: this.sizes.slice(0, n) };
    const refs = this.refs;
    this.paths = [];
    this.targets = [];
    this.refs = [];
    await this.tasks.run(segment, (r) => {
      const failed = new Map(r.failures.map((x) => [x.k, x]));
      for (let k = 0; k < n; k++) this.done(refs[k]!, r.written[k]!, failed.get(k));
    });
  }

  /** Waits for every file: all are written (or failed) when this returns. */
  async finish(): Promise<void> {
    await this.flush();
    await this.tasks.finish();
  }

  /** Stops the workers (after the segment each is writing). */
  close(): Promise<void> {
    abortHooks.delete(this.stop);
    this.thread.close();
    return this.pool.close();
  }
}
