import { existsSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort, Worker, type WorkerOptions } from 'node:worker_threads';
import { IoStoreError, type IoStoreErrorCode } from '../errors.js';

/** What a worker sends back for one task. `fatal` means the worker is broken (a bug), not that the input was bad. */
type Reply<R> = { id: number; result: R } | { id: number; error: { code: IoStoreErrorCode; message: string } } | { id: -1; fatal: string };

/** Past a few per core, more threads only add memory. */
const MAX_THREADS = 64;
/** The message that asks a worker to end once its current task is done (see `WorkerPool.close`). */
const STOP = 'iostore-worker-stop';
/** How long `close` waits for a worker to finish its task before terminating it. */
const STOP_WAIT_MS = 5000;

/** Worker threads by default for `bytes` of work: one per core (at most 8) when there is more than one core. */
export function threadsFor(bytes: number, minBytes: number): number {
  const cores = availableParallelism();
  return cores > 1 && bytes >= minBytes ? Math.min(cores, 8) : 0;
}

/**
 * Worker threads running one script, each doing its tasks one after another. A task that fails with an
 * IoStoreError rejects with that error (same code and message); any other failure in a worker breaks the pool and
 * rejects every task.
 */
export class WorkerPool<T, R> {
  private readonly workers: Worker[] = [];
  private readonly exited = new Set<Worker>();
  private readonly load: number[] = [];
  private readonly waiting = new Map<number, { worker: number; resolve: (r: R) => void; reject: (e: unknown) => void }>();
  private nextId = 0;
  private failed: Error | undefined;

  constructor(script: URL, threads: number, workerData: unknown) {
    const n = Math.max(1, Math.min(Math.floor(threads) || 1, MAX_THREADS));
    for (let i = 0; i < n; i++) {
      // V8's default heap settings. A 2 MiB young generation (resourceLimits) saved 30-50 MiB of peak RSS for two
      // workers, but resource limits can turn an allocation failure into an abort of the whole process, and one test
      // run with them saw the process die of a signal (cause not found, never reproduced): not worth the risk.
      const w = newWorkerWithFlags(script, { workerData });
      w.on('message', (m: Reply<R>) => this.settle(m));
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        this.exited.add(w);
        if (code !== 0) this.fail(new Error(`a worker thread stopped (exit code ${code})`));
      });
      this.workers.push(w);
      this.load.push(0);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  /** Runs a task on the least loaded worker; `transfer` lists buffers handed over rather than copied. */
  run(task: T, transfer: ArrayBuffer[] = []): Promise<R> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    let w = 0;
    for (let i = 1; i < this.workers.length; i++) if (this.load[i]! < this.load[w]!) w = i;
    this.load[w]!++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { worker: w, resolve, reject });
      this.workers[w]!.postMessage({ id, task }, transfer);
    });
  }

  private settle(m: Reply<R>): void {
    if ('fatal' in m) return this.fail(new Error(m.fatal));
    const entry = this.waiting.get(m.id);
    if (!entry) return;
    this.waiting.delete(m.id);
    this.load[entry.worker]!--;
    // Built without a file, so the message (which already names the file and offset) stays as the worker wrote it.
    if ('error' in m) entry.reject(new IoStoreError(m.error.code, m.error.message));
    else entry.resolve(m.result);
  }

  private fail(e: Error): void {
    this.failed ??= e;
    for (const w of this.waiting.values()) w.reject(this.failed);
    this.waiting.clear();
  }

  /**
   * Stops the workers; tasks not finished reject. Each worker is asked to end between tasks and terminated only if it
   * has not within STOP_WAIT_MS: Node aborts the whole process (a native assertion, "close before init") when a
   * worker is terminated inside a synchronous zlib call, as an interrupted `pack` did.
   */
  async close(): Promise<void> {
    const ws = this.workers.splice(0);
    this.fail(new IoStoreError('IO', 'the worker threads were stopped'));
    await Promise.all(ws.map((w) => (this.exited.has(w) ? undefined : endWorker(w))));
  }
}

/** Asks a worker to end after its current task; terminates it if it has not ended in time. */
function endWorker(w: Worker): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => void w.terminate().then(() => resolve(), () => resolve()), STOP_WAIT_MS);
    w.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    w.postMessage(STOP);
  });
}

/**
 * A worker thread running `script`. A worker entry point's bundle started by the bundled CLI (runnableUrl) runs
 * through bin/bundle-loader.js, which compiles it with its V8 code cache (written at build time beside it): the
 * bundle of unpack's and verify's workers is 335 KB, and compiling it from source was most of such a worker's start.
 */
/**
 * newWorker with this process's Node flags (workerExecArgv). A worker refuses V8 flags given to node
 * (`node --max-old-space-size=8192 iostore ...`, --trace-gc, --expose-gc): they hold for the whole process already,
 * and the worker starts with none.
 */
export function newWorkerWithFlags(script: URL, options: Omit<WorkerOptions, 'execArgv'>): Worker {
  try {
    return newWorker(script, { ...options, execArgv: workerExecArgv() });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
    return newWorker(script, { ...options, execArgv: [] });
  }
}

export function newWorker(script: URL, options: WorkerOptions): Worker {
  const loader = (globalThis as { __iostoreWorkerLoader?: string }).__iostoreWorkerLoader;
  if (loader === undefined || script.protocol !== 'file:' || !script.pathname.endsWith('-worker.cjs')) return new Worker(script, options);
  // Its stdout and stderr are not piped through this thread's process.stdout and process.stderr: Node's Worker
  // creates those streams for that before it starts the thread (for pipes: net's and the streams' modules, ~2 ms of
  // the calling thread, which the CLI otherwise never makes). bin/bundle-loader.js has the worker write its own to
  // the process's descriptors.
  return new Worker(loader, { ...options, stdout: true, stderr: true, argv: [...(options.argv ?? []), fileURLToPath(script)] });
}

/**
 * The worker side: runs `handle` for each task, one at a time (a pool keeps a few queued so the worker never waits
 * for the main thread), and replies with its result and the buffers to transfer.
 */
export function serveTasks<T, R>(handle: (task: T) => Promise<{ result: R; transfer?: ArrayBuffer[] }>): void {
  let chain = Promise.resolve();
  let stopping = false;
  parentPort!.on('message', (m: { id: number; task: T } | typeof STOP) => {
    if (m === STOP) {
      // Tasks still queued are skipped; the thread ends once the one under way is done.
      stopping = true;
      chain = chain.then(() => process.exit(0));
      return;
    }
    const { id, task } = m;
    chain = chain.then(async () => {
      if (stopping) return;
      try {
        const { result, transfer } = await handle(task);
        parentPort!.postMessage({ id, result } satisfies Reply<R>, transfer ?? []);
      } catch (e) {
        if (e instanceof IoStoreError) parentPort!.postMessage({ id, error: { code: e.code, message: e.message } } satisfies Reply<R>);
        else parentPort!.postMessage({ id: -1, fatal: (e as Error)?.stack ?? String(e) } satisfies Reply<R>);
      }
    });
  });
}

/**
 * A module of this package (`specifier`, relative to the calling module) as a worker thread can load it: when the
 * caller runs from the sources (tests run TypeScript), its build output in dist/, which `npm test` builds first (a
 * worker entry point's bundle, as the CLI starts it, when it is built); from the bundled CLI, a worker entry point's
 * (`*-worker.js`) bundle.
 */
export function runnableUrl(specifier: string, callerUrl: string): URL {
  const url = new URL(specifier, callerUrl).href;
  // The bundled CLI (scripts/build-cli.mjs) starts the worker bundles: one file each, not dozens of modules.
  if ((globalThis as { __iostoreBundled?: boolean }).__iostoreBundled && url.endsWith('-worker.js')) return new URL(url.replace(/\.js$/, '.cjs'));
  if (!callerUrl.endsWith('.ts')) return new URL(url);
  const built = new URL(url.replace(/\/src\/(?!.*\/src\/)/, '/dist/').replace(/\.ts$/, '.js'));
  // A worker started from its bundle costs a third of the CPU time one started from dist's modules does (50 ms, not
  // 150), and the test suite starts hundreds. A bundle older than any of dist's modules (tsc run alone since) is not
  // used.
  const bundle = new URL(built.href.replace(/-worker\.js$/, '-worker.cjs'));
  if (bundle.href === built.href || !existsSync(bundle)) return built;
  const dist = fileURLToPath(new URL(built.href.slice(0, built.href.lastIndexOf('/dist/') + 6)));
  return statSync(bundle).mtimeMs >= newestModuleMs(dist) ? bundle : built;
}

/** The newest modification time of the modules under `dist` (the page's folder aside), found once per process. */
let newestBuilt: { dist: string; ms: number } | undefined;
function newestModuleMs(dist: string): number {
  if (newestBuilt?.dist !== dist) {
    let ms = 0;
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) {
          if (e.name !== 'web') walk(join(dir, e.name));
        } else if (e.name.endsWith('.js')) ms = Math.max(ms, statSync(join(dir, e.name)).mtimeMs);
      }
    };
    walk(dist);
    newestBuilt = { dist, ms };
  }
  return newestBuilt.ms;
}

/** The process's Node flags minus those a worker started from a file refuses (`node --input-type=module -e`). */
export function workerExecArgv(): string[] {
  const out: string[] = [];
  const args = process.execArgv;
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') k++; // and its script
    else if (!a.startsWith('--input-type') && !a.startsWith('--eval=') && !a.startsWith('--print=')) out.push(a);
  }
  return out;
}

/**
 * A segment of consecutive files that threads share out (a stored pack's copy, a stored pak's unpack) holds up to
 * about this many bytes and files: one read or write each, and enough segments for the threads to balance.
 */
export const SEGMENT_BYTES = 512 << 10;
export const SEGMENT_FILES = 256;

/** Tasks queued per worker before this thread runs one itself (TasksBeside), so no worker waits for the next. */
const QUEUED_PER_WORKER = 8;

/**
 * Tasks run by a pool's workers and this thread side by side: a task goes to the workers while fewer than
 * QUEUED_PER_WORKER each are queued, else this thread runs it itself and then lets the replies in, so the work
 * balances itself. Each result is handed to its `apply` as it comes; the first failure is thrown by the next call.
 */
export class TasksBeside<T, R> {
  private queued = 0;
  private readonly running: Array<Promise<void>> = [];
  private failure: unknown;

  constructor(
    readonly pool: WorkerPool<T, R>,
    private readonly here: (task: T) => R | Promise<R>,
  ) {}

  /** Runs `task` (on the workers when `toWorkers`, whatever their queue), then `apply` to its result. */
  async run(task: T, apply: (result: R) => void, toWorkers = false): Promise<void> {
    this.check();
    if (toWorkers || this.queued < this.pool.size * QUEUED_PER_WORKER) {
      this.queued++;
      this.running.push(this.pool.run(task).then(
        (r) => {
          this.queued--;
          apply(r);
        },
        (e: unknown) => {
          this.queued--;
          this.failure ??= e;
        },
      ));
      return;
    }
    apply(await this.here(task));
    await new Promise<void>((r) => setImmediate(r));
  }

  /** Waits for every task run so far to end, failed or not (an interrupt: nothing runs once this returns). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.running);
  }

  /** Waits for every task run so far. */
  async finish(): Promise<void> {
    await Promise.all(this.running);
    this.running.length = 0;
    this.check();
  }

  check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
