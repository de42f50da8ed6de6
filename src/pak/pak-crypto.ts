import { createHash } from 'node:crypto';
import { aesCtrCrypt, aesEcbDecrypt } from '../crypto/aes.js';
import { IoStoreError } from '../errors.js';
import { PakEncryptionMethod, type PakFooter } from './footer.js';

export type IndexPart = 'primary' | 'pathHash' | 'fullDirectory';

const PART_NAMES: Record<IndexPart, string> = {
  primary: 'primary index',
  pathHash: 'path-hash index',
  fullDirectory: 'full directory index',
};

export function sha1(data: Uint8Array): Uint8Array {
  const d = createHash('sha1').update(data).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.length);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function checkAesKey(key: Uint8Array, source: string, offset: number): void {
  if (!(key instanceof Uint8Array) || key.length !== 32) {
    throw new IoStoreError('BAD_KEY', `AES key must be 32 bytes, got ${key instanceof Uint8Array ? key.length : typeof key}`, { file: source, offset });
  }
}

/**
 * Decrypts one part of the index when the footer says the index is encrypted, then checks it against the SHA-1
 * the engine stored for it (computed over the decrypted bytes, AES padding included). With an encrypted index a
 * mismatch almost always means the wrong key, so it is reported as BAD_KEY.
 */
export function openIndexPart(
  stored: Uint8Array,
  footer: PakFooter,
  part: IndexPart,
  expectedHash: Uint8Array,
  opts: { source: string; offset: number; aesKey?: Uint8Array; verify: boolean },
): Uint8Array {
  const what = PART_NAMES[part];
  let plain = stored;
  if (footer.encryptedIndex) {
    if (!opts.aesKey) {
      throw new IoStoreError('NEEDS_KEY', `the pak index is encrypted; an AES key is needed to read its ${what}`, { file: opts.source, offset: opts.offset });
    }
    checkAesKey(opts.aesKey, opts.source, opts.offset);
    const method = footer.encryptionMethod ?? PakEncryptionMethod.AesEcb;
    if (method === PakEncryptionMethod.AesCtr) {
      const iv = footer.indexIvs![part];
      plain = aesCtrCrypt(opts.aesKey, iv, stored);
    } else if (method === PakEncryptionMethod.AesEcb) {
      if (stored.length % 16 !== 0) {
        throw new IoStoreError('BAD_VALUE', `encrypted ${what} is ${stored.length} bytes, not a multiple of the AES block size`, { file: opts.source, offset: opts.offset });
      }
      plain = aesEcbDecrypt(opts.aesKey, stored);
    } else {
      throw new IoStoreError('UNSUPPORTED', `pak encryption method ${method} is not supported (1 = AES-ECB, 2 = AES-CTR)`, { file: opts.source, offset: footer.offset });
    }
    if (!sameBytes(sha1(plain), expectedHash)) {
      throw new IoStoreError('BAD_KEY', `the AES key does not decrypt the ${what} (its SHA-1 does not match)`, { file: opts.source, offset: opts.offset });
    }
    return plain;
  }
  if (opts.verify && !sameBytes(sha1(plain), expectedHash)) {
    throw new IoStoreError('HASH_MISMATCH', `${what} does not match its stored SHA-1`, { file: opts.source, offset: opts.offset });
  }
  return plain;
}
