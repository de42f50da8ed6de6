import { cityHash64 } from './cityhash.js';

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
  return cityHash64(lowerUtf16leScratch(packageName));
}

/** FIoContainerId: CityHash64 of the lower-cased container base name (`pakchunk0-Windows`) as UTF-16LE. */
export function containerIdFromName(containerName: string): bigint {
  return cityHash64(lowerUtf16leScratch(containerName));
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
