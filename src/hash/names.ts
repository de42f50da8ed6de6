import { cityHash64 } from './cityhash.js';
import { CITYHASH_WASM_BASE64 } from './cityhash-wasm.generated.js';
import { embeddedWasm, type WasmMemory } from '../util/wasm.js';

/** UTF-16LE bytes of a string, as Unreal hashes TCHAR strings. */
export function utf16leBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length * 2);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out[i * 2] = c & 0xff;
    out[i * 2 + 1] = c >> 8;
  }
  return out;
}

/** Unreal's ToLower for hashing ids: only A-Z are folded. */
export function lowerAscii(s: string): string {
  // toLowerCase folds non-ASCII letters too, which the engine's hashes do not: only for all-ASCII strings.
  return NON_ASCII.test(s) ? s.replace(/[A-Z]+/g, lowerRun) : s.toLowerCase();
}

/** UTF-16LE bytes of a string with A-Z folded (lowerAscii then utf16leBytes, in one pass). */
export function lowerUtf16leBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length * 2);
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    out[i * 2] = c & 0xff;
    out[i * 2 + 1] = c >> 8;
  }
  return out;
}

const NON_ASCII = /[^\x00-\x7f]/;
const lowerRun = (run: string): string => run.toLowerCase();

/** FPackageId: CityHash64 of the lower-cased long package name (`/Game/Foo/Bar`) as UTF-16LE. */
export function packageIdFromName(packageName: string): bigint {
  return lowerNameHash(packageName);
}

/** FIoContainerId: CityHash64 of the lower-cased container base name (`pakchunk0-Windows`) as UTF-16LE. */
export function containerIdFromName(containerName: string): bigint {
  return lowerNameHash(containerName);
}

/** Where names are hashed: WebAssembly (assembly/cityhash) where the runtime has it, else src/hash/cityhash.ts. */
export function nameHashBackend(): 'wasm' | 'js' {
  return wasmNameHasher() ? 'wasm' : 'js';
}

/** CityHash64 of a name lower-cased (A-Z) as UTF-16LE. */
function lowerNameHash(s: string): bigint {
  const h = wasmNameHasher();
  if (!h || s.length > h.units.length - INPUT_UNITS) return cityHash64(lowerUtf16leScratch(s));
  const units = h.units;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    units[INPUT_UNITS + i] = c >= 65 && c <= 90 ? c + 32 : c;
  }
  h.hash(s.length * 2);
  return h.result[0]!;
}

/** The module's input (assembly/cityhash INPUT), in 16-bit units; its result is the first 8 bytes. */
const INPUT_UNITS = 8;

interface CityHashModule {
  memory: WasmMemory;
  hash(len: number): void;
}

/**
 * The WebAssembly hasher, made on first use (a pack hashes a package name per file of a mod before its copy starts:
 * the JavaScript CityHash64 ran interpreted for most of a 30,000-file plan's names, ~90 ms, where the module takes a
 * few), or null where there is no WebAssembly or the platform is big-endian (the views below are the platform's).
 */
let nameHasher: { units: Uint16Array; result: BigUint64Array; hash(len: number): void } | null | undefined;
function wasmNameHasher() {
  if (nameHasher !== undefined) return nameHasher;
  nameHasher = null;
  if (new Uint8Array(Uint16Array.of(1).buffer)[0] !== 1) return nameHasher;
  try {
    const m = embeddedWasm<CityHashModule>(CITYHASH_WASM_BASE64)();
    const buffer = m.memory.buffer as ArrayBuffer;
    nameHasher = { units: new Uint16Array(buffer), result: new BigUint64Array(buffer, 0, 1), hash: m.hash };
  } catch {
    // no WebAssembly here: the JavaScript hash
  }
  return nameHasher;
}

/**
 * lowerUtf16leBytes into one buffer reused from call to call (a view of it, valid until the next call): a pack of
 * 150,000 files hashes a package name per file, and an array per name (off V8's heap past 64 bytes) was garbage the
 * allocator kept.
 */
function lowerUtf16leScratch(s: string): Uint8Array {
  if (scratch.length < s.length * 2) scratch = new Uint8Array(Math.max(s.length * 2, scratch.length * 2));
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    scratch[i * 2] = c & 0xff;
    scratch[i * 2 + 1] = c >> 8;
  }
  return scratch.subarray(0, s.length * 2);
}
let scratch = new Uint8Array(512);
