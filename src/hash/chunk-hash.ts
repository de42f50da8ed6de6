import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { IoStoreError } from '../errors.js';
import { bytesEqual } from '../util/bytes.js';

/** The chunk-meta hash algorithms: BLAKE3 truncated to 20 bytes (UE5), SHA-1 (UE 4.26/4.27). */
export type ChunkHashAlgorithm = 'blake3' | 'sha1';

export interface ChunkHasher {
  update(data: Uint8Array): void;
  /** The 20-byte hash; the hasher can be reused after `reset()`. */
  digest(): Uint8Array;
  /** The 20-byte hash written into `out` at `at` (no array made for it). */
  digestInto(out: Uint8Array, at: number): void;
  /** Whether the 20-byte hash equals the first 20 bytes of `expected` (a chunk meta's hash); `digest()` still gives it after. */
  matches(expected: Uint8Array): boolean;
  reset(): void;
}

/** Where BLAKE3 comes from: a native addon (an optional dependency) or WebAssembly (everywhere). */
export type Blake3Backend = 'native' | 'wasm';

/**
 * A streaming chunk hasher: SHA-1 from node:crypto; BLAKE3 from the native addon of @napi-rs/blake-hash when one is
 * installed (2.9 GB/s measured on 64 KiB pieces), else hash-wasm (275 MB/s), which also runs in browsers.
 */
export async function createChunkHasher(algorithm: ChunkHashAlgorithm, blake3?: Blake3Backend): Promise<ChunkHasher> {
  if (algorithm === 'sha1') {
    let h = createHash('sha1');
    return finishedOnce({
      update: (d) => void h.update(d),
      digest: () => new Uint8Array(h.digest()),
      reset: () => void (h = createHash('sha1')),
    });
  }
  const native = blake3 === 'wasm' ? undefined : await nativeBlake3();
  if (native) {
    const h = new native();
    return {
      update: (d) => void h.update(d),
      digest: () => new Uint8Array(h.digestBuffer().subarray(0, 20)),
      // From the hex text too: a pack of 30,000 files takes a hash per file, and the addon's Buffer was ~5 us of it.
      digestInto: (out, at) => hexInto(h.digest('hex'), out, at),
      // As hex: the addon makes a string in 0.5 us and a Buffer in 2.5 (150,000 chunks: 0.3 s of a 2.8 s verify).
      matches: (e) => hexStartsWith(h.digest('hex'), e),
      // Reset in place: a new hasher per chunk cost a verify of 3,000 chunks ~15 ms.
      reset: () => void h.reset(),
    };
  }
  if (blake3 === 'native') throw new IoStoreError('UNSUPPORTED', 'the native BLAKE3 addon (@napi-rs/blake-hash) is not installed for this platform');
  // Loaded on first use: hash-wasm takes ~40 ms to load, which every worker thread would pay.
  const { createBLAKE3 } = await import('hash-wasm');
  const h = await createBLAKE3(256);
  h.init();
  return finishedOnce({
    update: (d) => void h.update(d),
    digest: () => (h.digest('binary') as Uint8Array).slice(0, 20),
    reset: () => void h.init(),
  });
}

/** A hasher whose digest ends its state (node:crypto, hash-wasm), with `matches`: the digest is kept until reset. */
function finishedOnce(h: Omit<ChunkHasher, 'matches' | 'digestInto'>): ChunkHasher {
  let done: Uint8Array | undefined;
  const digest = () => (done ??= h.digest());
  return {
    update: (d) => h.update(d),
    digest,
    digestInto: (out, at) => out.set(digest().subarray(0, 20), at),
    matches: (e) => bytesEqual(digest(), e.subarray(0, 20)),
    reset: () => {
      done = undefined;
      h.reset();
    },
  };
}

/** The BLAKE3 backend `createChunkHasher` uses by default here. */
export async function blake3Backend(): Promise<Blake3Backend> {
  return (await nativeBlake3()) ? 'native' : 'wasm';
}

interface NativeBlake3 {
  new (): { update(data: Uint8Array): unknown; digestBuffer(): Buffer; digest(format: 'hex'): string; reset(): void };
}

const HEX_CODES = [...'0123456789abcdef'].map((c) => c.charCodeAt(0));

/** Whether lower-case hex text starts with the first 20 bytes of `e`. */
function hexStartsWith(hex: string, e: Uint8Array): boolean {
  if (hex.length < 40 || e.length < 20) return false;
  for (let k = 0; k < 20; k++) {
    const b = e[k]!;
    if (hex.charCodeAt(2 * k) !== HEX_CODES[b >> 4] || hex.charCodeAt(2 * k + 1) !== HEX_CODES[b & 15]) return false;
  }
  return true;
}

/** The first 20 bytes of lower-case hex text into `out` at `at`. */
function hexInto(hex: string, out: Uint8Array, at: number): void {
  for (let k = 0; k < 20; k++) out[at + k] = (hexValue(hex.charCodeAt(2 * k)) << 4) | hexValue(hex.charCodeAt(2 * k + 1));
}

function hexValue(c: number): number {
  // '0'-'9' are 48-57, 'a'-'f' 97-102.
  return c <= 57 ? c - 48 : c - 87;
}

let nativeLoad: Promise<NativeBlake3 | undefined> | undefined;

/**
 * Where the addon comes from: @napi-rs/blake-hash picks the binding for any platform when a user installs it; this
 * package itself depends (optionally) on the Linux x64 binding only, the one its registry mirror carries.
 */
const NATIVE_BLAKE3_PACKAGES = ['@napi-rs/blake-hash', '@napi-rs/blake-hash-linux-x64-gnu'];

/** The addon's hasher class, or undefined when no binding is installed or none will load. */
function nativeBlake3(): Promise<NativeBlake3 | undefined> {
  nativeLoad ??= (async () => {
    const require = createRequire(import.meta.url);
    for (const name of NATIVE_BLAKE3_PACKAGES) {
      try {
        const m = require(name) as { Blake3Hasher?: NativeBlake3 };
        if (m.Blake3Hasher) return m.Blake3Hasher;
      } catch {
        // not installed, or built for another platform: try the next, then WebAssembly
      }
    }
    return undefined;
  })();
  return nativeLoad;
}

/** One-shot hash of a whole buffer. */
export async function chunkHash(algorithm: ChunkHashAlgorithm, data: Uint8Array): Promise<Uint8Array> {
  const h = await createChunkHasher(algorithm);
  h.update(data);
  return h.digest();
}
