import { Worker } from 'node:worker_threads';
import { IoStoreError } from '../errors.js';

export interface DecodeRequest {
  id: number;
  blocks: Array<{ method: string; data: ArrayBuffer; size: number }>;
}
export type DecodeResponse = { id: number; outs: ArrayBuffer[] } | { id: number; error: { message: string; code: string; blockIndex: number } };

/** The codecs a worker has (the built-in registry); blocks of other codecs decode on the calling thread. */
export const POOL_CODECS = new Set(['zlib', 'gzip', 'lz4', 'oodle']);

/**
 * Worker threads that decode spans of compressed blocks, so decoding uses every core while the main thread reads
 * and writes files. Only codecs a worker can build itself (the built-ins) go through the pool.
 */
export class DecodePool {
  private readonly workers: Worker[] = [];
  private readonly busy: number[] = [];
  private readonly waiting = new Map<number, { worker: number; resolve: (v: Uint8Array[]) => void; reject: (e: unknown) => void }>();
  private nextId = 0;
  private failed: Error | undefined;

  constructor(threads: number) {
    const url = workerUrl();
    for (let i = 0; i < threads; i++) {
      const w = new Worker(url);
      w.unref();
      w.on('message', (res: DecodeResponse) => this.settle(res));
      w.on('error', (e) => this.fail(e));
      this.workers.push(w);
      this.busy.push(0);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  supports(method: string): boolean {
    return POOL_CODECS.has(method.toLowerCase());
  }

  /** Decodes blocks on the least busy worker; a failure rejects with `blockIndex` set to the failing block. */
  decode(blocks: Array<{ method: string; data: Uint8Array; size: number }>): Promise<Uint8Array[]> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    let worker = 0;
    for (let i = 1; i < this.workers.length; i++) if (this.busy[i]! < this.busy[worker]!) worker = i;
    this.busy[worker]!++;
    const req: DecodeRequest = { id, blocks: blocks.map((b) => ({ method: b.method, data: copyOut(b.data), size: b.size })) };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { worker, resolve, reject });
      this.workers[worker]!.postMessage(req, req.blocks.map((b) => b.data));
    });
  }

  private settle(res: DecodeResponse): void {
    const w = this.waiting.get(res.id);
    if (!w) return;
    this.waiting.delete(res.id);
    this.busy[w.worker]!--;
    if ('error' in res) w.reject(Object.assign(new IoStoreError(res.error.code as never, res.error.message), { blockIndex: res.error.blockIndex }));
    else w.resolve(res.outs.map((b) => new Uint8Array(b)));
  }

  private fail(e: Error): void {
    this.failed = e;
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}

function copyOut(b: Uint8Array): ArrayBuffer {
  return b.slice().buffer as ArrayBuffer;
}

/**
 * The compiled worker script. From the sources (tests) this points at the build output, which `npm test` builds
 * first: a worker thread runs plain JavaScript.
 */
function workerUrl(): URL {
  const here = new URL('.', import.meta.url);
  return here.pathname.includes('/src/') ? new URL('../../dist/cas/decode-worker.js', import.meta.url) : new URL('./decode-worker.js', import.meta.url);
}
