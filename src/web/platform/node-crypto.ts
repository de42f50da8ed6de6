/**
 * The browser build's stand-in for node:crypto: the few calls the library makes (AES-256 ECB/CTR ciphers, SHA-1),
 * served by the pure-TypeScript implementations. Anything else fails loudly.
 */
import { Aes256, softAesCtr, softAesEcbDecrypt, softAesEcbEncrypt } from '../../crypto/aes-soft.js';
import { sha1 } from './sha1.js';

// Key expansion costs about as much as a few blocks: keep one per key (the page uses one or two keys).
const expanded = new Map<string, Aes256>();
function aesFor(key: Uint8Array): Aes256 {
  const id = Array.from(key, (b) => b.toString(16).padStart(2, '0')).join('');
  let a = expanded.get(id);
  if (!a) {
    if (expanded.size > 8) expanded.clear();
    expanded.set(id, (a = new Aes256(key)));
  }
  return a;
}

interface CipherLike {
  setAutoPadding(on?: boolean): CipherLike;
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
}

function cipher(algorithm: string, key: Uint8Array, iv: Uint8Array | null, decrypt: boolean): CipherLike {
  const aes = aesFor(key);
  const run = (data: Uint8Array): Uint8Array => {
    if (algorithm === 'aes-256-ecb') return decrypt ? softAesEcbDecrypt(aes, data) : softAesEcbEncrypt(aes, data);
    if (algorithm === 'aes-256-ctr' && iv) return softAesCtr(aes, iv, data);
    throw new Error(`${algorithm} is not available in the browser build`);
  };
  const c: CipherLike = { setAutoPadding: () => c, update: run, final: () => new Uint8Array(0) };
  return c;
}

export const createDecipheriv = (algorithm: string, key: Uint8Array, iv: Uint8Array | null) => cipher(algorithm, key, iv, true);
export const createCipheriv = (algorithm: string, key: Uint8Array, iv: Uint8Array | null) => cipher(algorithm, key, iv, false);

export function createHash(algorithm: string) {
  if (algorithm !== 'sha1') throw new Error(`hash ${algorithm} is not available in the browser build`);
  const parts: Uint8Array[] = [];
  const h = {
    update(d: Uint8Array) {
      parts.push(d);
      return h;
    },
    digest(): Uint8Array {
      if (parts.length === 1) return sha1(parts[0]!);
      const all = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
      let o = 0;
      for (const p of parts) all.set(p, (o += p.length) - p.length);
      return sha1(all);
    },
  };
  return h;
}

export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}
