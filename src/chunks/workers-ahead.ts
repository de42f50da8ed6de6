import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { newWorkerWithFlags, runnableUrl } from '../util/worker-pool.js';

// How many loop workers (chunk-loop-worker.ts) a run starts before its TOCs are read, and those workers. Apart from
// loop-pool.ts (which adopts them and holds the rules that need a TOC), so that the CLI can start them before the
// command's bundle loads (src/cli/workers-ahead.ts) without loading the loop's code.

/**
 * Bytes of block decoding (compressed or encrypted blocks) below which worker threads are not started: a worker
 * costs ~30 ms and ~12 MB to start, more than it saves on a small job. Stored blocks start one only for many files
 * (WRITE_FILES_MIN).
 */
export const DECODE_MIN_BYTES = 16 << 20;

/**
 * Files at or above which a job with little decoding still gets one worker: each file costs its creation in system
 * time (0.1-1 ms on the ext4 measured), and a second thread creating files in other folders cut the wall time of
 * the bench's 3,000 files from 1.05 s to 0.81 s (medians of 5), for ~30 ms and ~18 MB to start it.
 */
export const WRITE_FILES_MIN = 1024;

/**
 * Bytes of stored chunks at or above which hashing them starts one worker: one thread reads and hashes ~0.7-1.5 GB/s,
 * and a second (~30 ms of the other core and ~11 MB to start, its bundle from its code cache, TurboFan off for a
 * short run) halves what is left: the bench's 3,000 chunks (246 MiB) took the calling thread 0.46-0.55 s of CPU
 * alone and 0.30-0.45 s with one worker (which took 0.15-0.24 s), where the Node floor's two threads take 0.30-0.45 s
 * and 0.16-0.20 s. At 256 MiB (until issue 28r) that container started none.
 */
export const HASH_STORED_MIN_BYTES = 128 << 20;

/** A thread count asked for, as loop workers started: none below 0, at most 64. */
export function workerCount(threads: number): number {
  return Math.max(0, Math.min(64, threads));
}

/**
 * What a loop worker started ahead of its containers (`WorkersAhead`) is started with: nothing it needs yet. Its
 * V8 flags come by message (`WorkersAhead.setFlags`), as the workers may start before the command has kept any
 * (src/cli/workers-ahead.ts), and its setup (LoopWorkerSetup) with the run.
 */
export interface LoopWorkerAhead {
  ahead: true;
}

/**
 * A message to a worker started ahead, before its setup: V8 flags kept for any run (keptV8Flags(0): those the process
 * holds and `--no-opt` of a short run), which it sets once it has loaded its code, as a worker started with its setup
 * does; those kept for larger runs come with the setup.
 */
export interface LoopWorkerFlags {
  v8Flags: string[];
}

/**
 * Loop workers started before the containers are read, from cheap facts (`aheadThreads`): each loads its bundle
 * (~30-50 ms; ~0.25 s while a 150,000-chunk TOC is read beside it) while the calling thread reads the TOCs and
 * plans. `startLoopWorkers` adopts them (their setup comes as a message instead of as workerData) or
 * terminates them when the run wants fewer or none. Whoever starts them calls `discard` once the run is over:
 * a no-op for those adopted. Idle, they do not hold the process open.
 */
export class WorkersAhead {
  private readonly idle: Worker[] = [];
  private readonly exited = new Set<Worker>();
  private readonly ended: Array<Promise<unknown>> = [];
  private given = 0;

  constructor(count: number) {
    const url = runnableUrl('./chunk-loop-worker.js', import.meta.url);
    const data: LoopWorkerAhead = { ahead: true };
    for (let k = 0, n = workerCount(count); k < n; k++) {
      const w = newWorkerWithFlags(url, { workerData: data });
      w.unref();
      // A worker that fails before it is adopted is not adopted (and not an uncaught 'error' of this thread).
      w.on('error', () => {});
      w.once('exit', () => this.exited.add(w));
      this.idle.push(w);
    }
  }

  /** Gives the workers not yet adopted the V8 flags to set once they have loaded (LoopWorkerFlags). */
  setFlags(v8Flags: string[]): void {
    const m: LoopWorkerFlags = { v8Flags };
    for (const w of this.idle) w.postMessage(m);
  }

  /** Workers started and neither adopted nor terminated. */
  get size(): number {
    return this.idle.length;
  }

  /** Workers a run adopted (take). */
  get adopted(): number {
    return this.given;
  }

  /** Up to `n` workers for a run, which now owns them; those that already ended are terminated, not given. */
  take(n: number): Worker[] {
    const out: Worker[] = [];
    while (out.length < n && this.idle.length > 0) {
      const w = this.idle.shift()!;
      if (this.exited.has(w)) this.ended.push(w.terminate());
      else out.push(w);
    }
    this.given += out.length;
    return out;
  }

  /** Terminates the workers not adopted; resolves once they have ended. Does not wait when not awaited. */
  discard(): Promise<void> {
    for (const w of this.idle.splice(0)) this.ended.push(w.terminate());
    return Promise.allSettled(this.ended).then(() => undefined);
  }
}

/**
 * Loop workers to start ahead (`WorkersAhead`) from facts known before the TOCs are read: the threads asked for,
 * the cores, and the files' sizes. Never more than the run's default would start: `verify` (kind 'hash') gets one
 * for HASH_STORED_MIN_BYTES or more of .ucas (stored: one; compressed: its blocks hold at least as many bytes to
 * decode, one per other core); `unpack` ('write') one for DECODE_MIN_BYTES or more of .ucas, or a .utoc of
 * WRITE_FILES_MIN chunks or more at ~96 bytes each (the bench's 3,000 chunks: 325 KB; 150,000: 15 MB). A guess
 * that is wrong costs a worker terminated idle (the other core's ~30 ms); a smaller job starts none.
 */
export function aheadThreads(kind: 'hash' | 'write', o: { threads?: number; utocBytes: number; ucasBytes: number }): number {
  if (o.threads !== undefined) return workerCount(Math.floor(o.threads));
  if (availableParallelism() < 2) return 0;
  if (kind === 'hash') return o.ucasBytes >= HASH_STORED_MIN_BYTES ? 1 : 0;
  return o.ucasBytes >= DECODE_MIN_BYTES || o.utocBytes >= WRITE_FILES_MIN * 96 ? 1 : 0;
}

