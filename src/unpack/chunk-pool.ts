import { unlink } from 'node:fs/promises';
import type { ContainerOrigin, ContainerReader } from '../cas/container-reader.js';
import type { CodecRecipe } from '../codecs/codec.js';
import type { CodecRegistry } from '../codecs/registry.js';
import type { ChunkHashAlgorithm } from '../hash/chunk-hash.js';
import { runnableUrl, threadsFor, WorkerPool } from '../util/worker-pool.js';
import { abortHooks, tempFilesInFlight, tempPathFor } from './output.js';

/** Work on one whole chunk, done by a worker thread from read to written file or digest. */
export type ChunkTask =
  /** Writes the chunk to `target` (atomically, under `tmp`); with `verify`, only if it matches its chunk meta hash. */
  | { kind: 'write'; container: number; index: number; target: string; tmp: string; verify: boolean }
  /** Hashes the chunk. */
  | { kind: 'hash'; container: number; index: number; algorithm: ChunkHashAlgorithm };

/** Bytes written (or hashed), and the digest of a hash task. */
export interface ChunkOutcome {
  bytes: number;
  digest?: Uint8Array;
}

export interface WorkerSetup {
  containers: ContainerOrigin[];
  recipes: CodecRecipe[];
}

/** Containers worth splitting over threads: below this, starting the workers costs more than they save. */
export const PARALLEL_MIN_BYTES = 32 << 20;

/**
 * Worker threads by default for `bytes` of chunk data: one per core when there is more than one core and enough
 * work. Each worker reads, decodes and writes whole chunks with blocking calls, so both the decoding and the file
 * system's per-file work spread over the cores; the main thread only hands out chunks.
 */
export function defaultThreads(bytes: number): number {
  return threadsFor(bytes, PARALLEL_MIN_BYTES);
}

/**
 * Whole-chunk work on worker threads. Every container must have been opened from files (its `origin`), and every
 * codec it uses must be a built-in or carry a recipe; `ChunkPool.setupFor` says whether that holds. A chunk that
 * fails rejects with its IoStoreError.
 */
export class ChunkPool {
  private readonly pool: WorkerPool<ChunkTask, ChunkOutcome>;
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
    this.pool = new WorkerPool(runnableUrl('./chunk-worker.js', import.meta.url), threads, setup);
    abortHooks.add(this.stop);
  }

  get size(): number {
    return this.pool.size;
  }

  async run(task: ChunkTask): Promise<ChunkOutcome> {
    if (task.kind !== 'write') return this.pool.run(task);
    // Registered here, not in the worker: after an interrupt the main thread stops the workers, then removes these.
    tempFilesInFlight.add(task.tmp);
    this.pendingTemps.add(task.tmp);
    const r = await this.pool.run(task);
    tempFilesInFlight.delete(task.tmp);
    this.pendingTemps.delete(task.tmp);
    return r;
  }

  /** A write task's temporary name: beside the target, unique in the process. */
  static tempPath(target: string): string {
    return tempPathFor(target);
  }

  async close(): Promise<void> {
    abortHooks.delete(this.stop);
    await this.pool.close();
    for (const t of this.pendingTemps) {
      await unlink(t).catch(() => {});
      tempFilesInFlight.delete(t);
    }
    this.pendingTemps.clear();
  }
}

