import { describe, expect, it } from 'vitest';
import { blake3Backend, createChunkHasher } from '../../src/index.js';

describe('BLAKE3 backends', () => {
  it('uses the native addon where it is installed (Linux x64 here)', async () => {
    if (process.platform === 'linux' && process.arch === 'x64') expect(await blake3Backend()).toBe('native');
  });

  it('native and WebAssembly give the same 20-byte hashes, whole or streamed in uneven pieces', async () => {
    if ((await blake3Backend()) !== 'native') return;
    const native = await createChunkHasher('blake3', 'native');
    const wasm = await createChunkHasher('blake3', 'wasm');
    // Filled in a loop: TypedArray map's callback took ~0.3-0.9 s over 3 MiB.
    const data = new Uint8Array(3 << 20);
    for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
    // Sizes around BLAKE3's 1 KiB chunks and 64 KiB blocks, and the empty input.
    for (const size of [0, 1, 1023, 1024, 1025, 65535, 65536, 65537, 3 << 20]) {
      for (const piece of [size || 1, 1000, 65536]) {
        native.reset();
        wasm.reset();
        for (let o = 0; o < size; o += piece) {
          native.update(data.subarray(o, Math.min(size, o + piece)));
          wasm.update(data.subarray(o, Math.min(size, o + piece)));
        }
        const [a, b] = [native.digest(), wasm.digest()];
        expect(a).toHaveLength(20);
        expect(Buffer.from(a).toString('hex'), `${size}/${piece}`).toBe(Buffer.from(b).toString('hex'));
      }
    }
    // The empty input's BLAKE3 (published test vector), truncated to 20 bytes.
    native.reset();
    expect(Buffer.from(native.digest()).toString('hex')).toBe('af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9');
  });
});

describe('ChunkHasher.matches', () => {
  it('compares the 20-byte hash with a meta hash for every backend, and digest() still gives the hash after', async () => {
    const data = new Uint8Array(70000).map((_, i) => (i * 40503) >>> 8);
    const kinds: Array<[string, Parameters<typeof createChunkHasher>]> = [['sha1', ['sha1']], ['wasm', ['blake3', 'wasm']]];
    if ((await blake3Backend()) === 'native') kinds.push(['native', ['blake3', 'native']]);
    for (const [name, args] of kinds) {
      const h = await createChunkHasher(...args);
      h.update(data);
      const hash = h.digest();
      // A meta hash: 20 bytes of hash, 12 of padding.
      const meta = new Uint8Array(32);
      meta.set(hash);
      for (let round = 0; round < 2; round++) {
        h.reset();
        h.update(data.subarray(0, 5));
        h.update(data.subarray(5));
        expect(h.matches(meta), name).toBe(true);
        expect(Buffer.from(h.digest()).toString('hex'), name).toBe(Buffer.from(hash).toString('hex'));
      }
      // One bit off in the first byte, in a high nibble, in the last byte: each is a mismatch.
      for (const [at, bit] of [[0, 1], [7, 0x80], [19, 1]] as const) {
        const wrong = meta.slice();
        wrong[at] ^= bit;
        h.reset();
        h.update(data);
        expect(h.matches(wrong), `${name} byte ${at}`).toBe(false);
        expect(Buffer.from(h.digest()).toString('hex'), name).toBe(Buffer.from(hash).toString('hex'));
      }
      // The padding is not compared.
      const padded = meta.slice();
      padded[25] = 9;
      h.reset();
      h.update(data);
      expect(h.matches(padded), name).toBe(true);
    }
  });
});

describe('ChunkHasher.digestInto', () => {
  it('writes the 20-byte hash digest() gives at the offset asked, for every backend, leaving the bytes around it', async () => {
    const kinds: Array<[string, Parameters<typeof createChunkHasher>]> = [['sha1', ['sha1']], ['wasm', ['blake3', 'wasm']]];
    if ((await blake3Backend()) === 'native') kinds.push(['native', ['blake3', 'native']]);
    for (const [name, args] of kinds) {
      const h = await createChunkHasher(...args);
      // Lengths whose hashes hold every nibble value between them (a hex digit read wrong shows).
      for (const size of [0, 1, 1000, 70001]) {
        const data = new Uint8Array(size).map((_, i) => (i * 2654435761) >>> 24);
        h.reset();
        h.update(data);
        const out = new Uint8Array(64).fill(0xee);
        h.digestInto(out, 7);
        h.reset();
        h.update(data);
        const hash = h.digest();
        expect(Buffer.from(out.subarray(7, 27)).toString('hex'), `${name} ${size}`).toBe(Buffer.from(hash).toString('hex'));
        expect([...out.subarray(0, 7), ...out.subarray(27)].every((b) => b === 0xee), name).toBe(true);
      }
    }
  });
});
