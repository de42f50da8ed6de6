import { corrupt } from './corrupt.js';
import { OODLE_WASM_BASE64 } from './wasm-bytes.generated.js';
import { embeddedWasm, wasmApi, type WasmMemory } from '../../util/wasm.js';

/**
 * The WebAssembly build of this decoder (assembly/oodle, AssemblyScript with SIMD; built by scripts/build-wasm.mjs):
 * Kraken, Mermaid/Selkie and Leviathan at 2-3x the TypeScript decoder's speed. The TypeScript decoder stays the
 * reference and the fallback: for BitKnit and LZNA blocks, outputs too large to place in the module's memory, and
 * runtimes without WebAssembly SIMD. Both give the same output on every stream and reject the same corrupt ones.
 */

interface OodleWasm {
  memory: WasmMemory;
  ioBase(): number;
  slack(): number;
  begin(src: number, srcLen: number, out: number, size: number): void;
  decodeUntil(limit: number): number;
  sameBytes(a: number, b: number, n: number): number;
  errorMessage: { value: number };
  errorValue: { value: number };
  errorAt: { value: number };
  errorInOutput: { value: number };
}

const newOodleWasm = embeddedWasm<OodleWasm>(OODLE_WASM_BASE64);

/**
 * Streams whose bytes and output together pass this are left to the TypeScript decoder: the module's memory grows
 * to hold both and never shrinks, so this bounds what a process keeps (IoStore blocks are 64 KiB).
 */
const MAX_IO = 64 << 20;

/** Output decoded per call (a multiple of Oodle's 256 KiB blocks): small enough to be in the cache when copied out. */
const COPY_PIECE = 0x40000;

let module: OodleWasm | null | undefined;

/** The instance, made on first use; null where WebAssembly (or its SIMD) is not available, or turned off. */
function instance(): OodleWasm | null {
  if (module !== undefined) return module;
  module = null;
  if (wasmApi === undefined || disabledByEnvironment()) return module;
  try {
    module = newOodleWasm();
  } catch {
    module = null;
  }
  return module;
}

/** `IOSTORE_OODLE_WASM=0` keeps every stream on the TypeScript decoder (for comparisons, or a runtime that misbehaves). */
function disabledByEnvironment(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.IOSTORE_OODLE_WASM === '0';
}

/** Whether the WebAssembly decoder is in use in this process. */
export function oodleWasmAvailable(): boolean {
  return instance() !== null;
}

/**
 * Decodes `src` into `out` (its length is the uncompressed size) with the WebAssembly decoder. Returns false when
 * the stream is one for the TypeScript decoder (which then writes all of `out`); throws the TypeScript decoder's CODEC error
 * for a corrupt stream. An `out` inside the module's output area (wasmOutputArea) is decoded in place, with no copy.
 */
export function wasmDecodeInto(src: Uint8Array, out: Uint8Array): boolean {
  const x = instance();
  const size = out.length;
  if (x === null || src.length + size > MAX_IO) return false;
  if (area !== undefined && out.buffer === x.memory.buffer && out.byteOffset >= area.at && out.byteOffset + size <= area.at + area.size) {
    return decodeInArea(x, src, out.byteOffset, size);
  }
  const outAt = placeStream(x, src, size, 0);
  const mem = x.memory;
  x.begin(streamBase(x), src.length, outAt, size);
  // A piece at a time, each copied out while it is still in the cache (a large output copied at the end is not).
  for (let done = 0; done < size; ) {
    const next = Math.min(size, done + COPY_PIECE);
    if (!decodeUntil(x, next)) return false;
    out.set(new Uint8Array(mem.buffer, outAt + done, next - done), done);
    done = next;
  }
  return true;
}

/**
 * Decodes `src` (`size` bytes of output) into the module's memory and returns a view of the output there, valid until
 * the next decode on this thread (no copy out: the caller hashes, writes or compares from it); undefined when the
 * stream is one for the TypeScript decoder. Throws the TypeScript decoder's CODEC error for a corrupt stream.
 */
export function wasmDecodeView(src: Uint8Array, size: number): Uint8Array | undefined {
  const x = instance();
  if (x === null || src.length + size > MAX_IO) return undefined;
  const outAt = placeStream(x, src, size, 0);
  x.begin(streamBase(x), src.length, outAt, size);
  if (!decodeUntil(x, size)) return undefined;
  return new Uint8Array(x.memory.buffer, outAt, size);
}

/**
 * The module's output area: a buffer of at least `bytes` bytes in its memory, at a fixed place below where streams
 * go, into which wasmDecodeInto decodes in place (a reader decodes a span's blocks there one after another and hands
 * out views of it). The view stays valid until the module's memory grows (a later decode outside the area may grow
 * it; decodes inside it never do), so a caller asks again before each use; undefined where the WebAssembly decoder
 * is not in use or `bytes` is too large for it.
 */
export function wasmOutputArea(bytes: number): Uint8Array | undefined {
  const x = instance();
  if (x === null || bytes > MAX_AREA) return undefined;
  if (area === undefined || area.size < bytes) {
    // The area grows in 64 KiB steps; a stream then fits behind it if it is no larger than the area (a span's
    // blocks each are), and a larger one is left to the TypeScript decoder rather than grow the memory mid-span.
    const size = Math.max(AREA_STEP, Math.ceil(bytes / AREA_STEP) * AREA_STEP);
    area = { at: x.ioBase(), size, view: undefined };
    ensureMemory(x, streamBase(x) + 2 * size + 2 * x.slack() + 16);
  }
  if (area.view === undefined || area.view.buffer !== x.memory.buffer) area.view = new Uint8Array(x.memory.buffer, area.at, area.size);
  return area.view.subarray(0, bytes);
}

/** Largest output area: a reader's span (TRANSIENT_SPAN) is 512 KiB. */
const MAX_AREA = 16 << 20;
const AREA_STEP = 0x10000;

/** The output area at the bottom of the I/O region, if one was asked for; its view is remade after the memory grows. */
let area: { at: number; size: number; view: Uint8Array | undefined } | undefined;

/** Where streams (and outputs decoded outside the area) are placed: past the output area and its slack. */
function streamBase(x: OodleWasm): number {
  return area === undefined ? x.ioBase() : (area.at + area.size + x.slack() + 15) & ~15;
}

/** Decodes a stream whose output lies in the area at `outAt`, without growing the memory: false leaves it to the TypeScript decoder. */
function decodeInArea(x: OodleWasm, src: Uint8Array, outAt: number, size: number): boolean {
  const at = streamBase(x);
  const end = at + src.length + x.slack();
  if (x.memory.buffer.byteLength < end) return false;
  const bytes = new Uint8Array(x.memory.buffer);
  bytes.set(src, at);
  bytes.fill(0, at + src.length, end);
  x.begin(at, src.length, outAt, size);
  return decodeUntil(x, size);
}

/** Runs decodeUntil: false for a stream (or a trap) the TypeScript decoder is to take; throws for a corrupt stream. */
function decodeUntil(x: OodleWasm, limit: number): boolean {
  let status: number;
  try {
    status = x.decodeUntil(limit);
  } catch (e) {
    const message = x.errorMessage.value;
    // A trap the decoder did not ask for (it never should) leaves the stream to the TypeScript decoder.
    if (!(e instanceof wasmApi!.RuntimeError) || message === 0) return false;
    const value = x.errorValue.value;
    const where = x.errorAt.value;
    corrupt(readString(x.memory, message) + (value >= 0 ? ` ${value}` : ''), x.errorInOutput.value ? `output byte ${where}` : where);
  }
  // The TypeScript decoder does the whole stream again: any pieces copied so far are the same bytes.
  return status === 0;
}

/**
 * Whether `src` decodes to exactly `expected` with the WebAssembly decoder, compared in the module's memory rather
 * than copied out: the encoder's decode-back check. A corrupt stream gives false; undefined means the stream is one
 * for the TypeScript decoder (as wasmDecodeInto's false).
 */
export function wasmDecodesTo(src: Uint8Array, expected: Uint8Array): boolean | undefined {
  const x = instance();
  const size = expected.length;
  if (x === null || src.length + 2 * size > MAX_IO) return undefined;
  const outAt = placeStream(x, src, size, size);
  // The expected bytes behind the output's slack, which the decoder may write.
  const expectedAt = (outAt + size + x.slack() + 15) & ~15;
  new Uint8Array(x.memory.buffer).set(expected, expectedAt);
  x.begin(streamBase(x), src.length, outAt, size);
  let status: number;
  try {
    status = x.decodeUntil(size);
  } catch (e) {
    if (!(e instanceof wasmApi!.RuntimeError) || x.errorMessage.value === 0) return undefined;
    return false;
  }
  if (status !== 0) return undefined;
  return x.sameBytes(outAt, expectedAt, size) !== 0;
}

/**
 * Copies `src` to the module's I/O area, the bytes past it zero as the TypeScript decoder reads them, and makes room
 * behind it for `size` bytes of output (and `extra` more after the output's slack); returns where the output goes.
 */
function placeStream(x: OodleWasm, src: Uint8Array, size: number, extra: number): number {
  const slack = x.slack();
  const at = streamBase(x);
  const outAt = (at + src.length + slack + 15) & ~15;
  ensureMemory(x, outAt + size + slack + (extra > 0 ? 16 + extra : 0));
  const bytes = new Uint8Array(x.memory.buffer);
  bytes.set(src, at);
  bytes.fill(0, at + src.length, outAt);
  return outAt;
}

function ensureMemory(x: OodleWasm, need: number): void {
  const mem = x.memory;
  if (mem.buffer.byteLength < need) mem.grow(Math.ceil((need - mem.buffer.byteLength) / 65536));
}

/** An AssemblyScript string constant: UTF-16 code units, their byte length in the four bytes before them. */
function readString(mem: WasmMemory, at: number): string {
  const view = new DataView(mem.buffer);
  const units = new Uint16Array(mem.buffer.slice(at, at + view.getUint32(at - 4, true)));
  return String.fromCharCode(...units);
}
