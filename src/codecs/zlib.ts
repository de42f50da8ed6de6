import { createDeflate, createInflate, deflateSync, gunzipSync, gzipSync, inflateSync, constants, type ZlibOptions } from 'node:zlib';
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

/** The parts of a node:zlib stream's native handle that one blocking whole-block call needs. */
interface ZlibHandle {
  reset(): void;
  writeSync(flush: number, src: Uint8Array, srcOff: number, srcLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  onerror: (message: string, errno: number, code?: string) => void;
}

/**
 * One node:zlib stream's native handle for blocking whole-block calls: `run` resets it, writes `src` into `out` with
 * Z_FINISH and returns the output room left (the handle's write state), throwing zlib's message on failure.
 * Undefined where the handle is missing (other runtimes).
 */
function blockingHandle(make: () => unknown): ((src: Uint8Array, out: Uint8Array, room: number) => Uint32Array) | undefined {
  let handle: ZlibHandle | undefined;
  let state: Uint32Array | undefined;
  try {
    const stream = make() as { _handle?: ZlibHandle; _writeState?: Uint32Array };
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
  return (src, out, room) => {
    failure = undefined;
    h.reset();
    h.writeSync(constants.Z_FINISH, src, 0, src.length, out, 0, room);
    if (failure !== undefined) throw new Error(failure);
    return st;
  };
}

/**
 * One inflate stream per thread, reset between blocks and writing straight into the caller's buffer: inflateSync
 * builds a stream object, a native handle and a 32 KiB window per call and returns a fresh buffer, which measured
 * 15-30% more CPU per 64 KiB block, and left tens of MB of dead buffers to the garbage collector. Node's handle is
 * not public API: where it is missing (other runtimes), this is undefined and the codec copies inflateSync's output.
 */
function reusableInflate(): ((src: Uint8Array, out: Uint8Array, outLen: number) => number) | undefined {
  const run = blockingHandle(() => createInflate());
  if (!run) return undefined;
  return (src, out, outLen) => outLen - run(src, out, outLen)[0]!;
}

let inflateInto: ReturnType<typeof reusableInflate> | null = null;

/**
 * Deflate at `level` through one stream per thread and level, reset between blocks, into a reused output buffer:
 * deflateSync sets up a stream (~270 KiB of state at level 6) per call and returns a buffer that was copied again,
 * which for the small files of a mod folder (a block each) cost more than compressing them. Returns a fresh array of
 * the stream, the same bytes deflateSync makes. Undefined where node:zlib's handle is missing.
 */
function reusableDeflate(level: number): ((src: Uint8Array) => Uint8Array) | undefined {
  const run = blockingHandle(() => createDeflate({ level }));
  if (!run) return undefined;
  let out = new Uint8Array(0);
  return (src) => {
    // zlib's bound for incompressible input (stored blocks and the stream's header and checksum), with room to spare.
    const room = src.length + (src.length >> 3) + (src.length >> 6) + 64;
    if (out.length < room) out = new Uint8Array(room);
    const st = run(src, out, room);
    if (st[1] !== 0 || st[0] === 0) throw new Error('deflate did not finish the block');
    return out.slice(0, room - st[0]!);
  };
}

/** Deflaters by level (see reusableDeflate); null where node:zlib's handle is missing. */
const deflaters = new Map<number, ((src: Uint8Array) => Uint8Array) | null>();

function deflateBlock(src: Uint8Array, level: number): Uint8Array {
  let d = deflaters.get(level);
  if (d === undefined) deflaters.set(level, (d = reusableDeflate(level) ?? null));
  return d ? d(src) : new Uint8Array(deflateSync(src, { level }));
}

function nodeCodec(name: string, decode: (src: Uint8Array, o: ZlibOptions) => Buffer, encode: (src: Uint8Array) => Uint8Array, reuse: boolean): Codec {
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
    compress: (src) => encode(src),
  };
  return codec;
}

/** node:zlib's default level, which Zlib blocks are written at unless one is given. */
const DEFAULT_LEVEL = 6;

export const zlibNode = nodeCodec('Zlib', inflateSync, (s) => deflateBlock(s, DEFAULT_LEVEL), true);
export const gzipNode = nodeCodec('Gzip', gunzipSync, (s) => new Uint8Array(gzipSync(s)), false);

/** Zlib or Gzip encoding at `level` (1-9; the codecs above use node:zlib's default, 6). */
export function zlibAtLevel(base: Codec, level: number): Codec {
  const gzip = base.name === 'Gzip';
  return { ...base, compress: (s) => (gzip ? new Uint8Array(gzipSync(s, { level })) : deflateBlock(s, level)) };
}
