import { unlink } from 'node:fs/promises';
import type { CodecRecipe } from '../codecs/codec.js';
import { runnableUrl, WorkerPool } from '../util/worker-pool.js';
import { abortHooks, tempFilesInFlight } from '../layout/output.js';

/** One pak a worker opens: its file and the AES key chosen for its key GUID. */
export interface PakOrigin {
  pak: string;
  aesKey?: Uint8Array;
}

export interface PakWorkerSetup {
  paks: PakOrigin[];
  recipes: CodecRecipe[];
}

/** Writes entry `entry` of pak `pak` to `target` (atomically, under `tmp`), checked against its SHA-1 with `verify`. */
export interface PakTask {
  pak: number;
  entry: number;
  target: string;
  tmp: string;
  verify: boolean;
}

/**
 * Pak files unpacked on worker threads, each reading, decrypting, decoding and writing whole files, as ChunkPool
 * does for containers. A file that fails rejects with its IoStoreError.
 */
export class PakPool {
  private readonly pool: WorkerPool<PakTask, { bytes: number }>;
  private readonly pendingTemps = new Set<string>();
  private readonly stop = () => this.close();

  constructor(threads: number, setup: PakWorkerSetup) {
    this.pool = new WorkerPool(runnableUrl('./pak-worker.js', import.meta.url), threads, setup);
    abortHooks.add(this.stop);
  }

  get size(): number {
    return this.pool.size;
  }

  async run(task: PakTask): Promise<{ bytes: number }> {
    // Registered here, not in the worker: after an interrupt the main thread stops the workers, then removes these.
    tempFilesInFlight.add(task.tmp);
    this.pendingTemps.add(task.tmp);
    try {
      return await this.pool.run(task);
    } finally {
      tempFilesInFlight.delete(task.tmp);
      this.pendingTemps.delete(task.tmp);
    }
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
