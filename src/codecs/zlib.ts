import { createInflate, deflateSync, gunzipSync, gzipSync, inflateSync, constants, type ZlibOptions } from 'node:zlib';
import type { Codec } from './codec.js';
import { checkedOutput, codecError } from './errors.js';
import { IoStoreError } from '../errors.js';

// node:zlib measured about 2x faster than fflate on the corpus's Zlib blocks (243 vs 103 MB/s); fflate stays
// available as the pure-JS implementation for hosts without node:zlib (browsers), in zlib-fflate.ts. The async
// node:zlib API (inflate on the libuv pool) measured slower still for 64 KiB blocks: 160 vs 280 MB/s unpack
// throughput.
// Both decoders get room for one byte over the declared size: each truncates at its limit silently, and a stream
// that decodes to more than the TOC says is corrupt.

/**
 * One output buffer of the declared size (+1): node:zlib otherwise grows 16 KiB chunks and concatenates them,
 * which measured 12-15% slower on 64 KiB blocks.
 */
function outputOptions(size: number): ZlibOptions & { maxOutputLength: number } {
  return { maxOutputLength: size + 1, chunkSize: Math.max(64, size + 1) };
}

/** The parts of a node:zlib stream's native handle that one blocking inflate call needs. */
interface InflateHandle {
  reset(): void;
  writeSync(flush: number, src: Uint8Array, srcOff: number, srcLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  onerror: (message: string, errno: number, code?: string) => void;
}

/**
 * One inflate stream per thread, reset between blocks and writing straight into the caller's buffer: inflateSync
 * builds a stream object, a native handle and a 32 KiB window per call and returns a fresh buffer, which measured
 * 15-30% more CPU per 64 KiB block, and left tens of MB of dead buffers to the garbage collector. Node's handle is
 * not public API: where it is missing (other runtimes), this is undefined and the codec copies inflateSync's output.
 */
function reusableInflate(): ((src: Uint8Array, out: Uint8Array, outLen: number) => number) | undefined {
  let handle: InflateHandle | undefined;
  let state: Uint32Array | undefined;
  try {
    const stream = createInflate() as unknown as { _handle?: InflateHandle; _writeState?: Uint32Array };
    handle = stream._handle;
    state = stream._writeState;
  } catch {
    return undefined;
  }
  if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array)) return undefined;
  let failure: string | undefined;
  handle.onerror = (message) => {
    failure = message;
  };
  const h = handle;
  const st = state;
  return (src, out, outLen) => {
    failure = undefined;
    h.reset();
    h.writeSync(constants.Z_FINISH, src, 0, src.length, out, 0, outLen);
    if (failure !== undefined) throw new Error(failure);
    return outLen - st[0]!;
  };
}

let inflateInto: ReturnType<typeof reusableInflate> | null = null;

function nodeCodec(name: string, decode: (src: Uint8Array, o: ZlibOptions) => Buffer, encode: (src: Uint8Array) => Buffer, reuse: boolean): Codec {
  const codec: Codec = {
    name,
    decompressInto(src, size, out) {
      if (reuse && inflateInto === null) inflateInto = reusableInflate();
      if (!reuse || !inflateInto) {
        out.set(codec.decompress(src, size));
        return;
      }
      let n: number;
      try {
        n = inflateInto(src, out, size + 1);
      } catch (e) {
        throw codecError(name, e);
      }
      if (n !== size) throw new IoStoreError('CODEC', `${name}: block decoded to ${n > size ? 'more than ' : ''}${Math.min(n, size)} bytes, expected ${size}`);
    },
    decompress(src, size) {
      let out: Uint8Array;
      try {
        out = decode(src, outputOptions(size));
      } catch (e) {
        throw codecError(name, e);
      }
      return checkedOutput(name, out, size);
    },
    compress: (src) => new Uint8Array(encode(src)),
  };
  return codec;
}

export const zlibNode = nodeCodec('Zlib', inflateSync, (s) => deflateSync(s), true);
export const gzipNode = nodeCodec('Gzip', gunzipSync, (s) => gzipSync(s), false);

/** Zlib or Gzip encoding at `level` (1-9; the codecs above use node:zlib's default, 6). */
export function zlibAtLevel(base: Codec, level: number): Codec {
  const gzip = base.name === 'Gzip';
  return { ...base, compress: (s) => new Uint8Array(gzip ? gzipSync(s, { level }) : deflateSync(s, { level })) };
}
