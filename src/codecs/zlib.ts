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

/** The parts of node:zlib's native deflate handle that whole-block calls on a handle of this module's own use. */
interface NativeDeflate {
  init(windowBits: number, level: number, memLevel: number, strategy: number, writeState: Uint32Array, callback: () => void, dictionary: undefined): void;
  reset(): void;
  write(flush: number, src: Uint8Array, srcOff: number, srcLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  writeSync(flush: number, src: Uint8Array, srcOff: number, srcLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  close(): void;
  onerror: (message: string) => void;
}

let nativeDeflateClass: (new (mode: number) => NativeDeflate) | null | undefined;

/** Handles with a write on libuv's pool (see DeflateHandle.start). */
const busy = new Set<object>();

/** node:zlib's native handle class (not public API), or null where it is missing (other runtimes). */
function nativeDeflate(): (new (mode: number) => NativeDeflate) | null {
  if (nativeDeflateClass !== undefined) return nativeDeflateClass;
  nativeDeflateClass = null;
  try {
    const h = (createDeflate() as unknown as { _handle?: NativeDeflate })._handle;
    const make = h?.constructor as (new (mode: number) => NativeDeflate) | undefined;
    if (h && make && typeof h.init === 'function' && typeof h.write === 'function' && typeof h.writeSync === 'function' && typeof h.reset === 'function') nativeDeflateClass = make;
    h?.close();
  } catch {
    // Left null: the callers fall back to deflateSync.
  }
  return nativeDeflateClass;
}

/**
 * A native deflate handle at `level` for whole blocks, reset between them, whose output is always the stream a new
 * one (deflateSync) makes. A handle reset for the next block is not quite new: zlib's matcher reads a little of
 * the window and hash chains past the block's end, where an earlier longer block left its bytes (node's zlib clears
 * them only when a handle is made), so a block after a longer one can come out a few bits different (1 byte of 2.4
 * MB in a corpus pack; as valid, but then the bytes depend on which blocks a thread had compressed before, and so on
 * the number of threads). Every block no longer than the longest the handle has compressed gets a new handle.
 * `done` is called after each `start` (a write on libuv's pool) with the output room left, or an error.
 */
class DeflateHandle {
  private h: NativeDeflate;
  private readonly state = new Uint32Array(2);
  private longest = 0;
  private failure: string | undefined;

  constructor(
    private readonly make: new (mode: number) => NativeDeflate,
    private readonly level: number,
    private readonly done: (left: number, error?: Error) => void = () => {},
  ) {
    this.h = this.open();
  }

  private open(): NativeDeflate {
    const h = new this.make(constants.DEFLATE);
    h.onerror = (message) => {
      this.failure = message;
      // Asynchronous writes report here instead of through the callback.
      if (this.writing) {
        this.settled();
        this.done(0, new Error(message));
      }
    };
    h.init(15, this.level, 8, constants.Z_DEFAULT_STRATEGY, this.state, () => {
      this.settled();
      this.done(this.state[0]!, this.finished() ? undefined : new Error('deflate did not finish the block'));
    }, undefined);
    return h;
  }

  private writing = false;

  /** Readies the handle for a block of `n` bytes (a new one after a longer block). */
  private prepare(n: number): void {
    if (n < this.longest) {
      this.h.close();
      this.h = this.open();
      this.longest = 0;
    }
    this.longest = Math.max(this.longest, n);
    this.failure = undefined;
    this.h.reset();
  }

  private finished(): boolean {
    return this.state[1] === 0 && this.state[0] !== 0;
  }

  /** Deflates `src` into `out[0, room)` now; returns the room left. */
  run(src: Uint8Array, out: Uint8Array, room: number): number {
    this.prepare(src.length);
    this.h.writeSync(constants.Z_FINISH, src, 0, src.length, out, 0, room);
    if (this.failure !== undefined) throw new Error(this.failure);
    if (!this.finished()) throw new Error('deflate did not finish the block');
    return this.state[0]!;
  }

  /** Starts deflating `src` into `out[0, room)` on libuv's pool; `done` is called when it is finished. */
  start(src: Uint8Array, out: Uint8Array, room: number): void {
    this.prepare(src.length);
    this.writing = true;
    // The pool's thread reads and writes these buffers: they (and this handle) stay reachable until it is done,
    // even when the caller has given up on the result (a failed pack).
    this.buffers = [src, out];
    busy.add(this);
    this.h.write(constants.Z_FINISH, src, 0, src.length, out, 0, room);
  }

  /** What the write on the pool uses (held, not read). */
  buffers: [Uint8Array, Uint8Array] | undefined;

  /** The write on the pool is over. */
  private settled(): void {
    this.writing = false;
    this.buffers = undefined;
    busy.delete(this);
  }
}

/**
 * Deflate at `level` through one handle per thread and level (see DeflateHandle), into a reused output buffer:
 * deflateSync sets up a stream (~270 KiB of state at level 6) per call and returns a buffer that was copied again,
 * which for the small files of a mod folder (a block each) cost more than compressing them. Returns a fresh array of
 * the stream, the same bytes deflateSync makes. Undefined where node:zlib's handle is missing.
 */
function reusableDeflate(level: number): ((src: Uint8Array) => Uint8Array) | undefined {
  const make = nativeDeflate();
  if (!make) return undefined;
  const handle = new DeflateHandle(make, level);
  let out = new Uint8Array(0);
  return (src) => {
    const room = deflateRoom(src.length);
    if (out.length < room) out = new Uint8Array(room);
    return out.slice(0, room - handle.run(src, out, room));
  };
}

/** A deflate of a whole block on libuv's thread pool (see backgroundDeflater): the stream's length in `out`. */
export type BackgroundDeflate = (src: Uint8Array, out: Uint8Array) => Promise<number>;

/** Output room for deflating `n` bytes in one call: zlib's bound for incompressible input, with room to spare. */
export function deflateRoom(n: number): number {
  return n + (n >> 3) + (n >> 6) + 64;
}

/**
 * A deflate at `level` that compresses whole blocks on libuv's thread pool, one block at a time, into the caller's
 * buffer (of at least deflateRoom(src.length) bytes): the bytes deflateSync makes. Several of these compress on every
 * core without a worker thread (a V8 isolate each, ~20 MB of a pack's peak RSS) and without zlib.deflate's stream
 * set-up per block (~250 us of the calling thread's time, 12% more CPU in all). Undefined where node:zlib's handle
 * is missing (other runtimes).
 */
export function backgroundDeflater(level: number): BackgroundDeflate | undefined {
  const make = nativeDeflate();
  if (!make) return undefined;
  let settle: { resolve: (n: number) => void; reject: (e: unknown) => void; room: number } | undefined;
  const handle = new DeflateHandle(make, level, (left, error) => {
    const s = settle;
    settle = undefined;
    if (!s) return;
    if (error) s.reject(error);
    else s.resolve(s.room - left);
  });
  return (src, out) =>
    new Promise<number>((resolve, reject) => {
      if (settle) throw new Error('a background deflater compresses one block at a time');
      const room = deflateRoom(src.length);
      if (out.length < room) throw new Error(`deflate output room ${out.length} < ${room}`);
      settle = { resolve, reject, room };
      handle.start(src, out, room);
    });
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
export const ZLIB_DEFAULT_LEVEL = DEFAULT_LEVEL;

export const zlibNode = nodeCodec('Zlib', inflateSync, (s) => deflateBlock(s, DEFAULT_LEVEL), true);
export const gzipNode = nodeCodec('Gzip', gunzipSync, (s) => new Uint8Array(gzipSync(s)), false);

/** Zlib or Gzip encoding at `level` (1-9; the codecs above use node:zlib's default, 6). */
export function zlibAtLevel(base: Codec, level: number): Codec {
  const gzip = base.name === 'Gzip';
  return { ...base, compress: (s) => (gzip ? new Uint8Array(gzipSync(s, { level })) : deflateBlock(s, level)) };
}
