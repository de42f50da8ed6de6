import { describe, expect, it } from 'vitest';
import { defaultCodecs, gzipFflate, gzipNode, IoStoreError, lz4Codec, zlibFflate, zlibNode, type Codec } from '../../src/index.js';

const text = new TextEncoder().encode('The quick brown fox jumps over the lazy dog. '.repeat(2000));
let x = 1;
const noise = new Uint8Array(70_000).map(() => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24));

describe('codecs', () => {
  it.each([zlibNode, zlibFflate, gzipNode, gzipFflate, lz4Codec] as Codec[])('$name round-trips compressible and incompressible data', (codec) => {
    for (const data of [text, noise, new Uint8Array(0).fill(0), new Uint8Array(1)]) {
      const packed = codec.compress!(data);
      if (packed.length < data.length && packed.length > 0) expect(Buffer.from(codec.decompress(packed, data.length)).equals(Buffer.from(data))).toBe(true);
    }
    expect(codec.compress!(text).length).toBeLessThan(text.length / 10);
  });

  it('node:zlib and fflate decode each other\'s streams', () => {
    expect(Buffer.from(zlibFflate.decompress(zlibNode.compress!(text), text.length)).equals(Buffer.from(text))).toBe(true);
    expect(Buffer.from(zlibNode.decompress(zlibFflate.compress!(text), text.length)).equals(Buffer.from(text))).toBe(true);
  });

  it.each([zlibFflate, gzipFflate, lz4Codec] as Codec[])('$name decodes where there is no Buffer (the page)', (codec) => {
    const packed = codec.compress!(text);
    const g = globalThis as { Buffer?: unknown };
    const saved = g.Buffer;
    delete g.Buffer;
    let out: Uint8Array;
    try {
      out = codec.decompress(packed, text.length);
    } finally {
      g.Buffer = saved;
    }
    expect(Buffer.from(out).equals(Buffer.from(text))).toBe(true);
    expect(zlibNode.decompress(zlibNode.compress!(text), text.length).constructor).toBe(Uint8Array);
  });

  it.each([zlibNode, zlibFflate, gzipNode, gzipFflate, lz4Codec] as Codec[])('$name: corrupt or mis-sized input is a CODEC error, never another exception', (codec) => {
    const good = codec.compress!(text);
    let seed = 7;
    const rand = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % k);
    for (let i = 0; i < 300; i++) {
      const bad = good.slice(0, rand(good.length) + 1);
      for (let f = 0; f < 4; f++) bad[rand(bad.length)] ^= 1 << rand(8);
      try {
        const out = codec.decompress(bad, text.length);
        expect(out.length).toBe(text.length);
      } catch (e) {
        expect(e).toBeInstanceOf(IoStoreError);
        expect((e as IoStoreError).code).toBe('CODEC');
      }
    }
    // Declared size smaller than the real output.
    expect(() => codec.decompress(good, 100)).toThrow(IoStoreError);
  });

  it('the registry names a missing codec and how to provide one', () => {
    const r = defaultCodecs();
    expect(r.get('ZLIB')).toBe(zlibNode);
    expect(() => r.require('Zstd')).toThrow(/no decoder for compression method "Zstd".*register/);
    r.register({ name: 'Zstd', decompress: (s) => s });
    expect(r.require('zstd').name).toBe('Zstd');
  });
});
