import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ContainerOrigin, ContainerReader } from '../cas/container-reader.js';
import type { CodecRecipe } from '../codecs/codec.js';
import type { CodecRegistry } from '../codecs/registry.js';
import { IoStoreError, type IoStoreErrorCode } from '../errors.js';
import { createChunkHasher, type ChunkHashAlgorithm } from '../hash/chunk-hash.js';
import type { IoStoreToc } from '../toc/toc.js';
import { sharedDirectoryIndex, type SharedChunkPaths } from '../toc/directory-index.js';
import { tocLoopsModule } from '../toc/toc-scan.js';
import { EncryptionMethod } from '../toc/version.js';
import { newWorkerWithFlags, runnableUrl } from '../util/worker-pool.js';
import { LoopCounters, runChunkLoop, type LoopOutcome, type LoopTaskData, type LoopTasks } from './chunk-loop.js';
import { abortHooks } from '../layout/output.js';
import { keptV8Flags } from '../util/v8-flags.js';

/** What a loop worker is started with: enough to open the containers and decode their blocks. */
export interface LoopWorkerSetup {
  containers: ContainerOrigin[];
  recipes: CodecRecipe[];
  /** V8 flags the process keeps (src/util/v8-flags.ts), set again by the worker once it has loaded its code. */
  v8Flags: string[];
  /**
   * The tasks will write chunks under their own paths: the worker makes the containers' path tables (ChunkPaths) as
   * it opens them, while the caller plans, rather than at its first chunk (~0.1-0.2 s of 150,000 chunks).
   */
  paths?: boolean;
  /** The TOC loops' module this thread compiled (tocLoopsModule), taken by the worker instead of compiling it. */
  tocLoops?: object;
}

/** The one message a loop worker then gets: its work. */
export interface LoopWorkerTasks {
  tasks: LoopTaskData;
  /** Per container: the hash to check (write tasks: before the rename; hash tasks: against the meta), if any. */
  hash: Array<ChunkHashAlgorithm | undefined>;
  counters: SharedArrayBuffer;
  /** This worker's segment of the task list (LoopCounters); the calling thread has segment 0. */
  self: number;
  /** LoopOptions.finalNames. */
  finalNames: boolean;
  /** Per container: the caller's path tables over shared memory (LoopWorkerSetup.paths), taken instead of making them. */
  paths?: Array<SharedChunkPaths | undefined>;
}

/**
 * Bytes of block decoding (compressed or encrypted blocks) below which worker threads are not started: a worker
 * costs ~30 ms and ~12 MB to start, more than it saves on a small job. Stored blocks start one only for many files
 * (WRITE_FILES_MIN).
 */
export const DECODE_MIN_BYTES = 16 << 20;

/** Bytes of the chunks `tasks` names whose blocks need decoding or decrypting. */
export function decodeBytes(readers: readonly ContainerReader[], tasks: LoopTasks): number {
  let n = 0;
  for (let t = 0; t < tasks.length; t++) {
    const toc = readers[tasks.container(t)]!.toc;
    const i = tasks.index(t);
    const first = toc.chunkFirstBlock(i);
    for (let b = first, e = first + toc.chunkBlockCount(i); b < e; b++) if (needsDecoding(toc, b)) n += toc.blocks.uncompressedSize(b);
  }
  return n;
}

/**
 * Files at or above which a job with little decoding still gets one worker: each file costs its creation in system
 * time (0.1-1 ms on the ext4 measured), and a second thread creating files in other folders cut the wall time of
 * the bench's 3,000 files from 1.05 s to 0.81 s (medians of 5), for ~30 ms and ~18 MB to start it.
 */
export const WRITE_FILES_MIN = 1024;

/**
 * Default worker threads beside the calling thread: one per other core when there is enough decoding to share, one
 * when there are many files to create, else none. Hashing stored chunks starts none below HASH_STORED_MIN_BYTES.
 */
export function defaultLoopThreads(readers: readonly ContainerReader[], tasks: LoopTasks): number {
  let files = 0;
  for (let t = 0; t < tasks.length; t++) if (tasks.writes(t)) files++;
  return threadsFor(decodeBytes(readers, tasks), files);
}

/**
 * `defaultLoopThreads` as if every chunk of the containers were written: known before a plan is made, so workers
 * can start while it is (a filter can only take work away).
 */
export function defaultWriteThreads(readers: readonly ContainerReader[]): number {
  let files = 0;
  for (const r of readers) files += r.toc.chunkCount;
  return threadsFor(containerDecodeBytes(readers, DECODE_MIN_BYTES), files);
}

/**
 * Bytes of stored chunks at or above which hashing them starts one worker: one thread reads and hashes ~0.7-1.5 GB/s,
 * and a second (~30 ms of the other core and ~11 MB to start, its bundle from its code cache, TurboFan off for a
 * short run) halves what is left: the bench's 3,000 chunks (246 MiB) took the calling thread 0.46-0.55 s of CPU
 * alone and 0.30-0.45 s with one worker (which took 0.15-0.24 s), where the Node floor's two threads take 0.30-0.45 s
 * and 0.16-0.20 s. At 256 MiB (until issue 28r) that container started none.
 */
export const HASH_STORED_MIN_BYTES = 128 << 20;

/**
 * `defaultWriteThreads` for hashing every chunk of the containers (verify): no files; one worker for a large
 * container of stored blocks (HASH_STORED_MIN_BYTES).
 */
export function defaultHashThreads(readers: readonly ContainerReader[]): number {
  const threads = threadsFor(containerDecodeBytes(readers, DECODE_MIN_BYTES), 0);
  if (threads > 0 || availableParallelism() < 2) return threads;
  let bytes = 0;
  for (const r of readers) bytes += r.toc.totals().rawSize;
  return bytes >= HASH_STORED_MIN_BYTES ? 1 : 0;
}

/**
 * Bytes of all the containers' blocks that need decoding or decrypting, counted up to `enough` (all a caller compares
 * with): workers start after this, and a game's every block walked was ~0.1 s of the calling thread before they did
 * (150,000 Oodle blocks), with no other core busy.
 */
export function containerDecodeBytes(readers: readonly ContainerReader[], enough = Infinity): number {
  let decode = 0;
  for (const r of readers) {
    const toc = r.toc;
    // A TOC that names no compression method (its blocks' method indices were checked) and is not encrypted has
    // nothing to decode: a stored game's 150,000 blocks walked were ~15 ms before its verify's worker started.
    if (toc.encryption === EncryptionMethod.None && toc.compressionMethods.length === 1) continue;
    for (let b = 0; b < toc.blockCount && decode < enough; b++) if (needsDecoding(toc, b)) decode += toc.blocks.uncompressedSize(b);
  }
  return decode;
}

/** Whether block b is more than a copy: compressed, or in an encrypted container. */
function needsDecoding(toc: IoStoreToc, b: number): boolean {
  return toc.encryption !== EncryptionMethod.None || toc.blocks.method(b) !== 0;
}

function threadsFor(decode: number, files: number): number {
  const cores = availableParallelism();
  if (cores < 2) return 0;
  if (decode >= DECODE_MIN_BYTES) return Math.min(cores - 1, 7);
  return files >= WRITE_FILES_MIN ? 1 : 0;
}

/** A thread count asked for, as loop workers started: none below 0, at most 64. */
function workerCount(threads: number): number {
  return Math.max(0, Math.min(64, threads));
}

/** What a loop worker started ahead of its containers (`WorkersAhead`) is started with. */
export interface LoopWorkerAhead {
  ahead: true;
  /**
   * V8 flags kept for any run (keptV8Flags(0): those the process holds and `--no-opt` of a short run), set once the
   * worker has loaded its code, as a worker started with its setup does; those kept for larger runs come with the setup.
   */
  v8Flags: string[];
  /** LoopWorkerSetup.tocLoops: compiled before the workers start, so that neither thread compiles it beside the other. */
  tocLoops?: object;
}

/**
 * Loop workers started before the containers are read, from cheap facts (`aheadThreads`): each loads its bundle
 * (~30-50 ms; ~0.25 s while a 150,000-chunk TOC is read beside it) while the calling thread reads the TOCs and
 * plans. `startLoopWorkers` adopts them (their setup comes as their first message instead of as workerData) or
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
    const tocLoops = count > 0 ? tocLoopsModule() : undefined;
    const data: LoopWorkerAhead = { ahead: true, v8Flags: keptV8Flags(0), ...(tocLoops ? { tocLoops } : {}) };
    for (let k = 0, n = workerCount(count); k < n; k++) {
      const w = newWorkerWithFlags(url, { workerData: data });
      w.unref();
      // A worker that fails before it is adopted is not adopted (and not an uncaught 'error' of this thread).
      w.on('error', () => {});
      w.once('exit', () => this.exited.add(w));
      this.idle.push(w);
    }
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

/**
 * Loop workers started before their tasks are known: each opens the containers and builds its codecs while the
 * calling thread plans (a worker takes ~60 ms from its start to its first chunk), then waits for `dispatch`.
 * Whoever starts them terminates them; `runChunkTasks` does once it is given them.
 */
export class LoopWorkers {
  private readonly started: Worker[] = [];
  private readonly outcomes: Array<Promise<LoopOutcome>> = [];
  private counters: LoopCounters | undefined;

  /** Whether the tasks write under their own paths (LoopWorkerSetup.paths). */
  readonly paths: boolean;

  constructor(setup: LoopWorkerSetup, count: number, ahead?: WorkersAhead) {
    this.paths = setup.paths === true;
    const url = runnableUrl('./chunk-loop-worker.js', import.meta.url);
    const adopted = ahead?.take(count) ?? [];
    for (let k = 0; k < count; k++) {
      let w = adopted[k];
      // A worker started ahead gets its setup now, as its first message; the others with their start.
      if (w) w.postMessage(setup);
      else w = newWorkerWithFlags(url, { workerData: setup });
      // Idle workers do not hold the process open; dispatch makes them count.
      w.unref();
      this.started.push(w);
      const outcome = new Promise<LoopOutcome>((resolve, reject) => {
        let settled = false;
        w.once('message', (m: { outcome?: LoopOutcome; error?: { code: IoStoreErrorCode; message: string }; fatal?: string }) => {
          settled = true;
          this.replied.add(w);
          if (m.outcome) resolve(m.outcome);
          else if (m.error) reject(new IoStoreError(m.error.code, m.error.message));
          else reject(new Error(m.fatal));
        });
        w.once('error', (e) => {
          this.counters?.stop();
          settled = true;
          reject(e);
        });
        w.once('exit', (code) => {
          if (!settled) {
            this.counters?.stop();
            reject(new Error(`a worker thread stopped (exit code ${code})`));
          }
        });
      });
      // A worker that fails before it is given work is reported when its outcome is awaited, not as unhandled.
      outcome.catch(() => {});
      this.outcomes.push(outcome);
    }
  }

  get size(): number {
    return this.started.length;
  }

  /** Gives every worker the tasks (worker k takes segment k + 1 first); the outcomes settle as they finish. */
  dispatch(tasks: LoopTasks, hash: Array<ChunkHashAlgorithm | undefined>, counters: LoopCounters, finalNames = false, paths?: Array<SharedChunkPaths | undefined>): Array<Promise<LoopOutcome>> {
    this.counters = counters;
    this.started.forEach((w, k) => {
      w.ref();
      const m: LoopWorkerTasks = { tasks: tasks.data, hash, counters: counters.buffer, self: k + 1, finalNames, ...(paths ? { paths } : {}) };
      w.postMessage(m);
    });
    return this.outcomes;
  }

  async terminate(): Promise<void> {
    if (this.released) return;
    await Promise.all(this.started.map((w) => w.terminate()));
  }

  /**
   * Lets workers that replied end by themselves (once it has replied, a worker has nothing left to wait for), and
   * does not wait for them: a thread's teardown took 8-10 ms, which the caller now spends writing its manifest. A
   * worker that did not reply is terminated, also without waiting.
   */
  release(): void {
    this.released = true;
    for (const w of this.started) {
      w.unref();
      if (!this.replied.has(w)) void w.terminate();
    }
  }

  private released = false;
  private readonly replied = new Set<Worker>();
}

/**
 * Starts `threads` loop workers for these containers, or none when they cannot open them (see workerSetup). Workers
 * started `ahead` are used first; those not used are terminated now.
 */
export function startLoopWorkers(readers: readonly ContainerReader[], codecs: CodecRegistry, threads: number, o: { paths?: boolean; ahead?: WorkersAhead } = {}): LoopWorkers | undefined {
  const n = workerCount(threads);
  const setup = n > 0 ? workerSetup(readers, codecs) : undefined;
  if (setup && o.paths) setup.paths = true;
  const pool = setup ? new LoopWorkers(setup, n, o.ahead) : undefined;
  void o.ahead?.discard();
  return pool;
}

export interface ChunkRunOptions {
  /** Worker threads beside the calling thread (default: `defaultLoopThreads`). */
  threads?: number;
  /** Workers already started (`startLoopWorkers`): used instead of starting others, and terminated at the end. */
  workers?: LoopWorkers;
  codecs: CodecRegistry;
  /** Per container: the hash to check, if any (see LoopWorkerData.hash). */
  hash: Array<ChunkHashAlgorithm | undefined>;
  /**
   * Called after each chunk of the calling thread (and from a timer while workers finish) with the run's counts. A
   * listener that returns `false` is not called again: the counts are read for it no more (a BigInt and two shared
   * words per chunk, which the calling thread of a quiet unpack with a worker read only to start its manifest).
   */
  onProgress?: (chunksDone: number, bytesDone: number) => boolean | void;
  /** LoopOptions.finalNames: the targets lie in a staged output folder. */
  finalNames?: boolean;
  /**
   * Work of the calling thread before it joins the loop, while the workers take the first chunks (unpack's manifest):
   * the threads then share its time. Throwing stops every thread and rejects the run.
   */
  first?: () => Promise<void>;
}

export interface ChunkRunResult extends LoopOutcome {
  /** Worker threads that took part (0: the calling thread alone). */
  threads: number;
}

/** Readers of the same containers that serve blocking reads into reused buffers, or undefined if one cannot. */
export function loopReaders(readers: readonly ContainerReader[]): { readers: ContainerReader[]; close(): Promise<void> } | undefined {
  const out: ContainerReader[] = [];
  const own: ContainerReader[] = [];
  for (const r of readers) {
    const twin = r.transientTwin();
    if (twin) {
      out.push(twin);
      own.push(twin);
    } else if (r.readsSync) {
      out.push(r);
    } else {
      return undefined;
    }
  }
  return { readers: out, close: async () => void (await Promise.all(own.map((r) => r.close()))) };
}

/**
 * Runs whole-chunk tasks (write or hash) on this thread and on worker threads, which start only when every
 * container was opened from files and every codec can be rebuilt in a worker. Chunk failures come back in the
 * outcome; a broken worker (a bug) rejects, after every thread stopped and removed its temporary file.
 */
export async function runChunkTasks(readers: readonly ContainerReader[], tasks: LoopTasks, o: ChunkRunOptions): Promise<ChunkRunResult> {
  const own = loopReaders(readers);
  if (!own) throw new IoStoreError('USAGE', 'a container of this run does not serve blocking reads');
  const pool = o.workers ?? startLoopWorkers(readers, o.codecs, o.threads ?? defaultLoopThreads(readers, tasks));
  const counters = new LoopCounters(LoopCounters.create(tasks.length, (pool?.size ?? 0) + 1));
  const workers = pool ? pool.dispatch(tasks, o.hash, counters, o.finalNames, pool.paths ? readers.map(sharedPaths) : undefined) : [];
  // An interrupt stops every thread at its next span; each removes its own temporary file before it replies.
  const stop = async () => {
    counters.stop();
    const waited = Promise.allSettled(workers);
    const timer = new Promise((r) => setTimeout(r, 5000).unref());
    await Promise.race([waited, timer]);
    await pool?.terminate();
  };
  abortHooks.add(stop);
  const hashers = await Promise.all(o.hash.map((a) => (a ? createChunkHasher(a) : undefined)));
  let listening = o.onProgress !== undefined;
  const progress = () => {
    if (listening && o.onProgress!(counters.done, counters.bytesDone) === false) listening = false;
  };
  let ticker: NodeJS.Timeout | undefined;
  let finished = false;
  try {
    await o.first?.();
    const mine = await runChunkLoop({ readers: own.readers, tasks, counters, hashers, yieldEveryMs: 25, ...(listening ? { onTick: progress } : {}), ...(o.finalNames ? { finalNames: true } : {}) });
    // The calling thread is done: progress from the workers still shows while they finish their last chunks.
    ticker = workers.length > 0 && listening ? setInterval(progress, 100) : undefined;
    const settled = await Promise.allSettled(workers);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const result: ChunkRunResult = { ...mine, threads: pool?.size ?? 0 };
    for (const s of settled) {
      const x = (s as PromiseFulfilledResult<LoopOutcome>).value;
      x.done.forEach((n, c) => (result.done[c]! += n));
      result.bytes += x.bytes;
      result.failures.push(...x.failures);
      result.mismatches.push(...x.mismatches);
    }
    progress();
    finished = true;
    return result;
  } catch (e) {
    counters.stop();
    await Promise.allSettled(workers);
    throw e;
  } finally {
    if (ticker) clearInterval(ticker);
    abortHooks.delete(stop);
    if (finished) pool?.release();
    else await pool?.terminate();
    await own.close();
  }
}

/** A container's path tables for the workers, when made over shared memory. */
function sharedPaths(r: ContainerReader): SharedChunkPaths | undefined {
  try {
    return r.toc.chunkPaths?.shared;
  } catch {
    // a broken index: each thread finds it at its chunks
    return undefined;
  }
}

/** What workers need to open these containers and decode them as `codecs` does, or undefined if they cannot. */
function workerSetup(readers: readonly ContainerReader[], codecs: CodecRegistry): LoopWorkerSetup | undefined {
  const containers: ContainerOrigin[] = [];
  const methods = new Set<string>();
  for (const r of readers) {
    if (!r.origin) return undefined;
    const { chunkOffsets, chunkLengths } = r.toc;
    // Parsed arrays over shared memory go along (not copied): the worker takes them instead of its own.
    const shared = typeof SharedArrayBuffer !== 'undefined' && chunkOffsets.buffer instanceof SharedArrayBuffer && chunkLengths.buffer instanceof SharedArrayBuffer;
    const index = r.toc.directoryIndex ? sharedDirectoryIndex(r.toc.directoryIndex) : undefined;
    containers.push({ ...r.origin, ...(shared ? { parsedChunks: { chunkOffsets, chunkLengths } } : {}), ...(index ? { parsedIndex: index } : {}) });
    r.toc.compressionMethods.forEach((m, k) => k > 0 && methods.add(m));
  }
  const recipes = codecs.workerRecipes([...methods]);
  // Flags kept for larger runs only (keepV8FlagForWorkers' minChunks) are left out of a smaller one.
  let chunks = 0;
  for (const r of readers) chunks += r.toc.chunkCount;
  const tocLoops = recipes ? tocLoopsModule() : undefined;
  return recipes ? { containers, recipes, v8Flags: keptV8Flags(chunks), ...(tocLoops ? { tocLoops } : {}) } : undefined;
}

