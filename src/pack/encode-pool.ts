import { defaultCodecs, encoderSettings, type EncoderSettings } from '../codecs/registry.js';
import type { Codec } from '../codecs/codec.js';
import type { ChunkHashAlgorithm } from '../hash/chunk-hash.js';
import { abortHooks } from '../layout/output.js';
import { runnableUrl, threadsFor, WorkerPool } from '../util/worker-pool.js';
import type { EncodedChunk } from './block-encoder.js';

/** Encode one chunk that is exactly the bytes of `file`. */
export interface EncodeTask {
  file: string;
  blockSize: number;
  /** A built-in codec by name, or null to store blocks raw. */
  codec: string | null;
  /** How the codec encodes (a level, an Oodle codec), when not as the built-in does. */
  settings?: EncoderSettings;
  memoryMapped: boolean;
  algorithm: ChunkHashAlgorithm;
}

/** A chunk's payloads back to back in one transferred buffer, with each block's sizes. */
export interface EncodeReply {
  data: ArrayBuffer;
  payloadSizes: number[];
  rawSizes: number[];
  compressed: boolean[];
  hash: Uint8Array;
  length: number;
}

/** What an encode worker starts with: a flag the pool sets to stop it mid-chunk (an interrupt). */
export interface EncodeWorkerSetup {
  stop: Int32Array;
}

/** Chunks encoded on workers are held whole, from read to write: larger ones stream through the writer instead. */
export const MAX_WORKER_CHUNK = 16 << 20;
/** Below this much work for the workers, starting them costs more than they save. */
const PARALLEL_MIN_BYTES = 32 << 20;

/** Worker threads by default for `bytes` of chunks small enough to encode on a worker. */
export function defaultEncodeThreads(bytes: number): number {
  return threadsFor(bytes, PARALLEL_MIN_BYTES);
}

/** Worker threads that read, hash and compress whole chunk files for `pack`, so compression uses every core. */
export class EncodePool {
  private readonly pool: WorkerPool<EncodeTask, EncodeReply>;
  // An interrupt stops the workers before the process exits: the exit would otherwise end them inside a zlib call,
  // which aborts Node. A chunk under way is given up at its next block (the shared flag), not finished: a 16 MiB
  // chunk took the workers half a second.
  private readonly stopFlag = new Int32Array(new SharedArrayBuffer(4));
  private readonly stop = () => {
    Atomics.store(this.stopFlag, 0, 1);
    return this.close();
  };

  /** Whether workers can encode with `codec` (the built-ins, and encoderFor's codecs: they rebuild it by name). */
  static supports(codec: Pick<Codec, 'name' | 'compress'> | undefined): boolean {
    return codec === undefined || defaultCodecs().get(codec.name) === codec || encoderSettings(codec) !== undefined;
  }

  constructor(threads: number) {
    this.pool = new WorkerPool(runnableUrl('./encode-worker.js', import.meta.url), threads, { stop: this.stopFlag } satisfies EncodeWorkerSetup);
    abortHooks.add(this.stop);
  }

  get size(): number {
    return this.pool.size;
  }

  async encode(task: EncodeTask): Promise<EncodedChunk> {
    const r = await this.pool.run(task);
    const data = new Uint8Array(r.data);
    let at = 0;
    const blocks = r.payloadSizes.map((n, k) => {
      const block = { payload: data.subarray(at, at + n), rawSize: r.rawSizes[k]!, compressed: r.compressed[k]! };
      at += n;
      return block;
    });
    return { blocks, hash: r.hash, length: r.length };
  }

  close(): Promise<void> {
    abortHooks.delete(this.stop);
    return this.pool.close();
  }
}
