import { backgroundDeflater, type BackgroundDeflate } from '../codecs/zlib.js';

/**
 * Background deflates at one level (node:zlib on libuv's thread pool, see backgroundDeflater), each block given to
 * the first one free: what `pack` uses to deflate a container's (DeflateAhead) and a pak's (pakDeflateAhead) blocks
 * on every core.
 */
export class DeflatePool {
  private readonly idle: BackgroundDeflate[];
  /** Blocks waiting for a deflate, each started by the first to be free. */
  private readonly waiting: Array<(d: BackgroundDeflate) => void> = [];

  private constructor(readonly size: number, deflaters: BackgroundDeflate[]) {
    this.idle = deflaters;
  }

  /** `count` deflates at `level`, or undefined where node:zlib cannot deflate this way. */
  static create(level: number, count: number): DeflatePool | undefined {
    const deflaters: BackgroundDeflate[] = [];
    for (let i = 0; i < count; i++) {
      const d = backgroundDeflater(level);
      if (!d) return undefined;
      deflaters.push(d);
    }
    return new DeflatePool(count, deflaters);
  }

  /**
   * Deflates `src` into `out` (of at least deflateRoom(src.length) bytes) on the first free deflate: the stream's
   * length. A job nobody awaits (the write failed first) does not fail the process.
   */
  deflate(src: Uint8Array, out: Uint8Array): Promise<number> {
    const job = new Promise<number>((resolve, reject) => {
      const start = (d: BackgroundDeflate) => {
        const freed = () => {
          const w = this.waiting.shift();
          if (w) w(d);
          else this.idle.push(d);
        };
        d(src, out).then(
          (n) => {
            freed();
            resolve(n);
          },
          (e: unknown) => {
            freed();
            reject(e);
          },
        );
      };
      const d = this.idle.pop();
      if (d) start(d);
      else this.waiting.push(start);
    });
    job.catch(() => {});
    return job;
  }
}
