import { IoStoreError } from '../errors.js';

/** The parts of the WebAssembly API the project uses (its TypeScript libraries declare none of it). */
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
  RuntimeError: new () => Error;
}

/** A module's linear memory: it grows by 64 KiB pages and never shrinks. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}

/** The runtime's WebAssembly, where it has one. */
export const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/**
 * A module the build embeds as base64 (scripts/build-wasm.mjs), compiled on first use, once per thread; each call
 * makes a new instance of it, with a memory of its own that goes when the instance does. Throws where the runtime
 * has no WebAssembly or refuses the module. A module built to import its memory (`env.memory`) is given `memory`,
 * or a new one of a page. `module` compiles it now and returns it (a WebAssembly.Module, which a worker thread can be
 * sent); `adopt` takes one compiled by another thread instead of compiling it again.
 */
export function embeddedWasm<Exports>(base64: string, o: { importsMemory?: boolean } = {}): EmbeddedWasm<Exports> {
  let compiled: object | undefined;
  const module = (): object => {
    if (wasmApi === undefined) throw new IoStoreError('UNSUPPORTED', 'this JavaScript runtime has no WebAssembly');
    return (compiled ??= new wasmApi.Module(base64Bytes(base64)));
  };
  const instance = (memory?: WasmMemory) => {
    const m = module();
    const imports = o.importsMemory ? { env: { memory: memory ?? new wasmApi!.Memory({ initial: 1 }) } } : {};
    return new wasmApi!.Instance(m, imports).exports as Exports;
  };
  return Object.assign(instance, { module, adopt: (m: object) => void (compiled ??= m) });
}

/** A new instance of an embedded module at each call (embeddedWasm), and its compiled module. */
export type EmbeddedWasm<Exports> = ((memory?: WasmMemory) => Exports) & { module(): object; adopt(module: object): void };

interface NodeBufferType {
  from(s: string, encoding: 'base64'): Uint8Array;
  allocUnsafe(size: number): Uint8Array & { base64Write?: (s: string) => number };
}

function base64Bytes(base64: string): Uint8Array {
  // Node's decoder where there is one: atob's string and a call per byte cost a short command ~1 ms per 100 KB. Its
  // base64Write, the native call Buffer.from makes: Buffer.from with an encoding name first compiles Node's
  // getEncodingOps (~1.8 KB of source: ~0.3M instructions of a short run).
  const buffer = (globalThis as { Buffer?: NodeBufferType }).Buffer;
  if (!buffer) return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const bytes = buffer.allocUnsafe((base64.length >>> 2) * 3);
  return bytes.base64Write ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.base64Write(base64)) : buffer.from(base64, 'base64');
}

/** Where bytes placed in a shared module memory start: past a module's own first page (its static data). */
const SHARED_BASE = 1 << 16;
/** Shared module memories made by `sharedModuleBytes`, by their buffer; and the end of the bytes placed in each. */
const sharedMemories = new WeakMap<object, { memory: WasmMemory; end: number }>();

/**
 * A zeroed view of `size` bytes in a new shared WebAssembly memory (its buffer a SharedArrayBuffer, sent to worker
 * threads as one), with `room` bytes of address space past them that a module reading the bytes in place may use
 * (`sharedModuleMemory`); undefined where shared memories are not to be had. The memory never grows (views stay
 * valid); its pages cost memory only once written.
 */
export function sharedModuleBytes(size: number, room: number): Uint8Array | undefined {
  if (!wasmApi || typeof SharedArrayBuffer === 'undefined') return undefined;
  try {
    const pages = Math.ceil((SHARED_BASE + size + room) / 65536);
    if (pages > 65536) return undefined;
    const memory = new wasmApi.Memory({ initial: pages, maximum: pages, shared: true });
    sharedMemories.set(memory.buffer, { memory, end: SHARED_BASE + size });
    return new Uint8Array(memory.buffer, SHARED_BASE, size);
  } catch {
    return undefined;
  }
}

/** The shared module memory `view` lies in (made by `sharedModuleBytes`), with the end of the bytes placed in it. */
export function sharedModuleMemory(view: ArrayBufferView): { memory: WasmMemory; end: number } | undefined {
  return sharedMemories.get(view.buffer);
}
