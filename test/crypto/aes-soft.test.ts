import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { softAesCtr, softAesEcbDecrypt, softAesEcbEncrypt } from '../../src/crypto/aes-soft.js';
import { expectSameBytes } from '../fast-expect.js';

const run = (c: ReturnType<typeof createCipheriv>, d: Uint8Array) => {
  c.setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(d), c.final()]));
};

describe('pure-TS AES-256 (the browser path) agrees with node:crypto', () => {
  it('FIPS-197 C.3 vector', () => {
    const key = Uint8Array.from(Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex'));
    const pt = Uint8Array.from(Buffer.from('00112233445566778899aabbccddeeff', 'hex'));
    const ct = softAesEcbEncrypt(key, pt);
    expect(Buffer.from(ct).toString('hex')).toBe('8ea2b7ca516745bfeafc49904b496089');
    expect(Buffer.from(softAesEcbDecrypt(key, ct)).toString('hex')).toBe('00112233445566778899aabbccddeeff');
  });

  it('ECB and CTR on random keys and data', () => {
    for (let t = 0; t < 20; t++) {
      const key = randomBytes(32);
      const data = randomBytes(16 * (1 + t * 7));
      // Byte equality without vitest's element-by-element walk (most of this test's time).
      expectSameBytes(softAesEcbEncrypt(key, data), run(createCipheriv('aes-256-ecb', key, null), data), `ECB encrypt, ${data.length} bytes`);
      expectSameBytes(softAesEcbDecrypt(key, data), run(createDecipheriv('aes-256-ecb', key, null), data), `ECB decrypt, ${data.length} bytes`);
      const iv = randomBytes(16);
      iv.fill(0xff, 12); // the counter carries into the nonce part after one block
      const odd = data.subarray(0, data.length - 5);
      expectSameBytes(softAesCtr(key, iv, odd), run(createDecipheriv('aes-256-ctr', key, iv), odd), `CTR, ${odd.length} bytes`);
    }
  });

  it('rejects partial blocks and wrong key sizes', () => {
    expect(() => softAesEcbDecrypt(new Uint8Array(32), new Uint8Array(15))).toThrow(/16-byte/);
    expect(() => softAesEcbDecrypt(new Uint8Array(16), new Uint8Array(16))).toThrow(/32-byte key/);
  });
});
