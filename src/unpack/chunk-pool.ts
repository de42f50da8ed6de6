import { unlink } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ContainerOrigin, ContainerReader } from '../cas/container-reader.js';
import type { CodecRecipe } from '../codecs/codec.js';
import type { CodecRegistry } from '../codecs/registry.js';
import { IoStoreError, type IoStoreErrorCode } from '../errors.js';
import type { ChunkHashAlgorithm } from '../hash/chunk-hash.js';
import { abortHooks, tempFilesInFlight, tempPathFor } from './output.js';

/** Work on one whole chunk, done by a worker thread from read to written file or digest. */
export type ChunkTask =
  /** Writes the chunk to `target` (atomically, under `tmp`); with `verify`, only if it matches its chunk meta hash. */
  | { kind: 'write'; container: number; index: number; target: string; tmp: string; verify: boolean }
  /** Hashes the chunk. */
  | { kind: 'hash'; container: number; index: number; algorithm: ChunkHashAlgorithm };

export type ChunkOutcome = { ok: true; bytes: number; digest?: Uint8Array } | { ok: false; code: IoStoreErrorCode; message: string };

export interface WorkerSetup {
  containers: ContainerOrigin[];
  recipes: CodecRecipe[];
}

export type WorkerReply = { id: number; outcome: ChunkOutcome } | { id: -1; fatal: string };

const MAX_THREADS = 64;

/** Containers worth splitting over threads: below this, starting the workers costs more than they save. */
export const PARALLEL_MIN_BYTES = 32 << 20;

/**
 * Worker threads by default for `bytes` of chunk data: one per core when there is more than one core and enough
 * work. Each worker reads, decodes and writes whole chunks with blocking calls, so both the decoding and the file
 * system's per-file work spread over the cores; the main thread only hands out chunks.
 */
export function defaultThreads(bytes: number): number {
  const cores = availableParallelism();
  return cores > 1 && bytes >= PARALLEL_MIN_BYTES ? Math.min(cores, 8) : 0;
}

/**
 * Whole-chunk work on worker threads. Every container must have been opened from files (its `origin`), and every
 * codec it uses must be a built-in or carry a recipe; `ChunkPool.setupFor` says whether that holds.
 */
export class ChunkPool {
  private readonly workers: Worker[] = [];
  private readonly load: number[] = [];
  private readonly waiting = new Map<number, { worker: number; resolve: (o: ChunkOutcome) => void; reject: (e: unknown) => void }>();
  private nextId = 0;
  private failed: Error | undefined;
  /** Temporary files of write tasks not yet reported: a stopped or broken worker may have left them. */
  private readonly pendingTemps = new Set<string>();
  private readonly stop = () => this.close();

  /** What workers need to serve these readers, or undefined when one of them cannot be opened off this thread. */
  static setupFor(readers: readonly ContainerReader[], codecs: CodecRegistry): WorkerSetup | undefined {
    const containers: ContainerOrigin[] = [];
    const methods = new Set<string>();
    for (const r of readers) {
      if (!r.origin) return undefined;
      containers.push(r.origin);
      r.toc.compressionMethods.forEach((m, k) => k > 0 && methods.add(m));
    }
    const recipes = codecs.workerRecipes([...methods]);
    return recipes ? { containers, recipes } : undefined;
  }

  constructor(threads: number, setup: WorkerSetup) {
    // Past a few per core, more threads only add memory.
    const n = Math.max(1, Math.min(Math.floor(threads) || 1, MAX_THREADS));
    for (let i = 0; i < n; i++) {
      const w = new Worker(workerUrl(), { workerData: setup, execArgv: workerExecArgv() });
      w.on('message', (m: WorkerReply) => this.settle(m));
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => code !== 0 && this.fail(new Error(`a worker thread stopped (exit code ${code})`)));
      this.workers.push(w);
      this.load.push(0);
    }
    abortHooks.add(this.stop);
  }

  get size(): number {
    return this.workers.length;
  }

  /** Runs a task on the least loaded worker. Failures of the chunk resolve as `ok: false`; a broken worker rejects. */
  run(task: ChunkTask): Promise<ChunkOutcome> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    let w = 0;
    for (let i = 1; i < this.workers.length; i++) if (this.load[i]! < this.load[w]!) w = i;
    this.load[w]!++;
    // Registered here, not in the worker: after an interrupt the main thread stops the workers, then removes these.
    if (task.kind === 'write') {
      tempFilesInFlight.add(task.tmp);
      this.pendingTemps.add(task.tmp);
    }
    return new Promise((resolve, reject) => {
      this.waiting.set(id, {
        worker: w,
        resolve: (o) => {
          if (task.kind === 'write') {
            tempFilesInFlight.delete(task.tmp);
            this.pendingTemps.delete(task.tmp);
          }
          resolve(o);
        },
        reject,
      });
      this.workers[w]!.postMessage({ id, task });
    });
  }

  /** A write task's temporary name: beside the target, unique in the process. */
  static tempPath(target: string): string {
    return tempPathFor(target);
  }

  private settle(m: WorkerReply): void {
    if ('fatal' in m) return this.fail(new Error(m.fatal));
    const entry = this.waiting.get(m.id);
    if (!entry) return;
    this.waiting.delete(m.id);
    this.load[entry.worker]!--;
    entry.resolve(m.outcome);
  }

  private fail(e: Error): void {
    this.failed ??= e;
    for (const w of this.waiting.values()) w.reject(this.failed);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    abortHooks.delete(this.stop);
    const ws = this.workers.splice(0);
    this.failed ??= new IoStoreError('IO', 'the worker threads were stopped');
    await Promise.all(ws.map((w) => w.terminate()));
    for (const t of this.pendingTemps) {
      await unlink(t).catch(() => {});
      tempFilesInFlight.delete(t);
    }
    this.pendingTemps.clear();
  }
}

/** The process's Node flags minus those a worker started from a file refuses (`node --input-type=module -e`). */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const args = process.execArgv;
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') k++; // and its script
    else if (!a.startsWith('--input-type') && !a.startsWith('--eval=') && !a.startsWith('--print=')) out.push(a);
  }
  return out;
}

/** The compiled worker script: from the sources (tests) it is the build output, which `npm test` builds first. */
function workerUrl(): URL {
  const here = new URL('.', import.meta.url);
  return here.pathname.includes('/src/') ? new URL('../../dist/unpack/chunk-worker.js', import.meta.url) : new URL('./chunk-worker.js', import.meta.url);
}
