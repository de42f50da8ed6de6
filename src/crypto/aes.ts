import { createDecipheriv, createCipheriv } from 'node:crypto';
import { IoStoreError } from '../errors.js';
import { fromHex } from '../util/bytes.js';

export const AES_BLOCK = 16;

/** A 32-byte AES-256 key from hex (64 digits, optional 0x) or base64 text. */
export function parseAesKey(text: string): Uint8Array {
  const t = text.trim();
  const hex = t.replace(/^0x/i, '');
  if (/^[0-9a-fA-F]{64}$/.test(hex)) return fromHex(hex);
  if (/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(t)) {
    // atob rather than Buffer, so that the browser build parses keys the same way.
    const bin = atob(t.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, ''));
    if (bin.length === 32) return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  }
  throw new IoStoreError('BAD_KEY', 'AES key must be 32 bytes given as 64 hex digits (optionally 0x-prefixed) or base64');
}

/** AES-256-ECB over whole 16-byte blocks, no padding: how UE encrypts blocks and the directory index. */
export function aesEcbDecrypt(key: Uint8Array, data: Uint8Array): Uint8Array {
  return cipherRun(createDecipheriv('aes-256-ecb', key, null), data);
}

export function aesEcbEncrypt(key: Uint8Array, data: Uint8Array): Uint8Array {
  return cipherRun(createCipheriv('aes-256-ecb', key, null), data);
}

/**
 * AES-256-CTR with a 12-byte nonce followed by a big-endian 32-bit counter starting at `firstBlock` (0 for a whole
 * unit, TOC v10; a later block when a pak entry is read in slices).
 */
export function aesCtrCrypt(key: Uint8Array, nonce12: Uint8Array, data: Uint8Array, firstBlock = 0): Uint8Array {
  const iv = new Uint8Array(16);
  iv.set(nonce12.subarray(0, 12), 0);
  new DataView(iv.buffer).setUint32(12, firstBlock, false);
  return cipherRun(createDecipheriv('aes-256-ctr', key, iv), data);
}

function cipherRun(c: ReturnType<typeof createDecipheriv>, data: Uint8Array): Uint8Array {
  c.setAutoPadding(false);
  const a = c.update(data);
  const b = c.final();
  if (b.length === 0) return new Uint8Array(a.buffer, a.byteOffset, a.length);
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
