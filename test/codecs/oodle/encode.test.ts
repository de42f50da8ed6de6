import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodeOodleStream, encoderFallbacks, oodleCompress, storedStream, type OodleEncoderName } from '../../../src/codecs/oodle/encode/index.js';
import { oodleCodec, oodleDecompress } from '../../../src/codecs/oodle/index.js';
import { encoderFor, encoderSettings } from '../../../src/codecs/registry.js';
import { codeLengths } from '../../../src/codecs/oodle/encode/huffman-lengths.js';
import { writeArray } from '../../../src/codecs/oodle/encode/entropy-encode.js';
import { readToc } from '../../../src/toc/index.js';
import { corpusPath, hasCorpus } from '../../corpus.js';
import { hasOoz, oozDecode } from './ooz.js';

/** xorshift32: the same data on every run. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

const xml = (() => {
  if (!hasCorpus) return new Uint8Array(0);
  const f = new Uint8Array(readFileSync(corpusPath('oodle-vectors', 'xml.kraken')));
  return oodleDecompress(f.subarray(4), f[0]! | (f[1]! << 8) | (f[2]! << 16) | (f[3]! << 24));
})();

/** Bytes 0-19 with counts growing as the Fibonacci numbers, shuffled. */
function fibonacciBytes(r: () => number): Uint8Array {
  const out: number[] = [];
  let a = 1;
  let b = 1;
  for (let sym = 0; sym < 20; sym++) {
    for (let k = 0; k < a; k++) out.push(sym * 7);
    [a, b] = [b, a + b];
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = (r() * (i + 1)) | 0;
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return Uint8Array.from(out);
}

/** Synthetic inputs: runs, noise, text, structures repeating at short and long distances, sizes at every boundary. */
function synthetic(): Array<[string, Uint8Array]> {
  const r = prng(29);
  const random = (n: number) => Uint8Array.from({ length: n }, () => (r() * 256) | 0);
  const records = (n: number) => {
    // 24-byte records whose fields drift: what delta literals and recent offsets are for.
    const a = new Uint8Array(n);
    const v = new DataView(a.buffer);
    for (let i = 0; i + 24 <= n; i += 24) {
      v.setUint32(i, i / 24, true);
      v.setFloat32(i + 4, Math.sin(i / 240), true);
      v.setFloat32(i + 8, (i % 4800) / 7, true);
      v.setUint32(i + 12, 0xdeadbeef, true);
      v.setUint32(i + 16, (r() * 16) | 0, true);
    }
    return a;
  };
  const mixed = (n: number) => {
    const a = new Uint8Array(n);
    for (let i = 0; i < n; ) {
      const len = Math.min(n - i, 1 + ((r() ** 3 * 6000) | 0));
      const kind = (r() * 4) | 0;
      if (kind === 0) for (let k = 0; k < len; k++) a[i + k] = (r() * 256) | 0;
      else if (kind === 1) a.fill((r() * 256) | 0, i, i + len);
      else if (kind === 2 && i > 0) {
        const d = 1 + ((r() * Math.min(i, 200000)) | 0);
        for (let k = 0; k < len; k++) a[i + k] = a[i + k - d]!;
      } else {
        const at = (r() * Math.max(1, xml.length - len)) | 0;
        if (xml.length >= len) a.set(xml.subarray(at, at + len), i);
      }
      i += len;
    }
    return a;
  };
  const out: Array<[string, Uint8Array]> = [
    ['empty', new Uint8Array(0)],
    ['one byte', new Uint8Array([7])],
    ['zeros 300 KB', new Uint8Array(300000)],
    ['random 200 KB', random(200000)],
    ['records 100 KB', records(100000)],
    ['a period of 3', Uint8Array.from({ length: 70000 }, (_, i) => (i % 3) * 50)],
    ['one odd byte in zeros', (() => { const a = new Uint8Array(65536); a[40000] = 1; return a; })()],
    // Byte counts in a Fibonacci series: an unlimited Huffman code would need 20-bit codes, the format allows 11.
    ['skewed counts', fibonacciBytes(r)],
  ];
  for (const n of [5, 8, 9, 13, 17, 100, 4095, 4097, 65535, 65536, 65537, 131071, 131073, 262145]) out.push([`mixed ${n}`, mixed(n)]);
  if (xml.length > 0) out.push(['text 300 KB', xml.subarray(0, 300000)]);
  return out;
}

const CASES = synthetic();
const CODECS: OodleEncoderName[] = ['kraken', 'mermaid', 'selkie', 'leviathan'];

/** Encodes each case with `codec` at `level`, checks our decoder gives it back, and returns the streams for ooz. */
function roundTrip(codec: OodleEncoderName, level: number, cases: Array<[string, Uint8Array]>): Array<readonly [Uint8Array, number, Uint8Array]> {
  const out: Array<readonly [Uint8Array, number, Uint8Array]> = [];
  for (const [name, data] of cases) {
    const stream = encodeOodleStream(data, { codec, level });
    const back = oodleDecompress(stream, data.length);
    expect(Buffer.compare(Buffer.from(back), Buffer.from(data)), `${codec} level ${level}: ${name}`).toBe(0);
    out.push([stream, data.length, data]);
  }
  return out;
}

describe('Oodle encoder', () => {
  it('Kraken, Mermaid, Selkie and Leviathan streams of synthetic data decode back with our decoder and with ooz', () => {
    const streams: Array<readonly [Uint8Array, number, Uint8Array]> = [];
    // Every codec at its fastest and default levels; the other levels, and the optimal parses, on a few cases.
    for (const codec of CODECS) for (const level of [1, 4]) streams.push(...roundTrip(codec, level, CASES));
    const few = CASES.filter(([n]) => /mixed (100|65537)$|period|odd/.test(n));
    for (const codec of CODECS) streams.push(...roundTrip(codec, 6, few));
    for (const level of [2, 3, 5, 7, 8, 9]) streams.push(...roundTrip(CODECS[level % 4]!, level, few.slice(1, 3)));
    expect(encoderFallbacks()).toBe(0);
    if (!hasOoz) return;
    const decoded = oozDecode(streams.filter(([, n]) => n > 0).map(([s, n]) => [s, n] as const));
    streams.filter(([, n]) => n > 0).forEach(([, , data], k) => expect(Buffer.compare(Buffer.from(decoded[k]!), Buffer.from(data)), `ooz: case ${k}`).toBe(0));
  });

  it('compresses what compresses: zeros to a few bytes per block, text well, noise not at all', () => {
    expect(oodleCompress(new Uint8Array(1 << 20)).length).toBeLessThan(30);
    const r = prng(5);
    const noise = Uint8Array.from({ length: 100000 }, () => (r() * 256) | 0);
    // Stored blocks: the input plus two bytes of block header per 256 KiB.
    expect(oodleCompress(noise).length).toBe(noise.length + 2);
    if (xml.length === 0) return;
    const text = xml.subarray(0, 300000);
    const k1 = oodleCompress(text, { level: 1 }).length;
    const k4 = oodleCompress(text, { level: 4 }).length;
    const m4 = oodleCompress(text, { codec: 'mermaid', level: 4 }).length;
    const s4 = oodleCompress(text, { codec: 'selkie', level: 4 }).length;
    expect(k4).toBeLessThan(k1);
    expect(k4).toBeLessThan(m4);
    expect(m4).toBeLessThan(s4);
    expect(k4).toBeLessThan(text.length / 6);
  });

  it('code lengths stay within 11 bits and fill the code space exactly, however skewed the counts', () => {
    const hist = new Uint32Array(256);
    let a = 1;
    let b = 1;
    for (let s = 0; s < 30; s++) {
      hist[s * 5] = a;
      [a, b] = [b, a + b];
    }
    const lens = new Uint8Array(256);
    expect(codeLengths(hist, lens)).toBe(30);
    expect(Math.max(...lens)).toBe(11);
    expect(Array.from(lens).reduce((sum, l) => sum + (l ? 2 ** (11 - l) : 0), 0)).toBe(2048);
    // Unlimited, the same counts need far longer codes.
    expect(codeLengths(hist, lens, 32)).toBe(30);
    expect(Math.max(...lens)).toBe(29);
  });

  it('builds a Huffman code only when the array\'s entropy promises the margin: 32 bytes by default, 128 at level 1', () => {
    // 75 byte values, 8 of each: 467 bytes of entropy against 602 stored, which a code must bring under 550.
    const data = Uint8Array.from({ length: 600 }, (_, i) => (i * 7) % 75);
    const out = new Uint8Array(2048);
    const typeOf = (margin: number | undefined) => {
      const end = writeArray(data, 0, data.length, out, 0, { entropy: true, longHeader: false, margin });
      return [(out[0]! >> 4) & 7, end] as const;
    };
    const [coded, codedEnd] = typeOf(undefined);
    expect(coded).toBe(2);
    expect(codedEnd).toBeLessThan(550);
    expect(typeOf(32)[0]).toBe(2);
    expect(typeOf(128)).toEqual([0, 602]);
  });

  it('stored streams decode; the check behind oodleCompress returns the input as such a stream when needed', () => {
    const data = Uint8Array.from({ length: 300000 }, (_, i) => i * 7);
    for (const codec of CODECS) expect(Buffer.from(oodleDecompress(storedStream(data, { codec }), data.length)).equals(Buffer.from(data))).toBe(true);
  });

  it('the codec registry encodes Oodle: the built-in at the default level, encoderFor with a codec and level', () => {
    const data = xml.length > 0 ? xml.subarray(0, 65536) : new Uint8Array(65536).fill(1);
    const plain = oodleCodec.compress!(data);
    expect(plain[1]).toBe(6); // Kraken
    const m = encoderFor('oodle', { oodleCodec: 'mermaid', level: 2 });
    const packed = m.compress!(data);
    expect(packed[1]).toBe(10); // Mermaid
    expect(Buffer.from(m.decompress(packed, data.length)).equals(Buffer.from(data))).toBe(true);
    expect(encoderSettings(m)).toEqual({ name: 'Oodle', settings: { oodleCodec: 'mermaid', level: 2 } });
    expect(encoderSettings(oodleCodec)).toBeUndefined();
    expect(() => encoderFor('oodle', { level: 10 })).toThrow(/from 1 to 9/);
    expect(() => encoderFor('zlib', { oodleCodec: 'kraken' })).toThrow(/compression is Zlib/);
    expect(() => encoderFor('lz4', { level: 3 })).toThrow(/LZ4 has no compression levels/);
    const z = encoderFor('zlib', { level: 1 });
    expect(z.decompress(z.compress!(data), data.length).length).toBe(data.length);
  });
});

describe.skipIf(!hasCorpus)('Oodle encoder on corpus chunks', () => {
  it('a sample of the ue5.8 uncompressed container\'s chunks round-trips at levels 1, 4 and 7 (ours and ooz), near the engine\'s size', () => {
    const open = (dir: string, name: string) => {
      const base = corpusPath('ue5.8-cue4parse', dir, name);
      return { toc: readToc(new Uint8Array(readFileSync(`${base}.utoc`))), ucas: new Uint8Array(readFileSync(`${base}.ucas`)) };
    };
    const plain = open('uncompressed', 'CUE4ParseFixtures-Minimal-Uncompressed-Windows');
    const engine = open('oodle', 'CUE4ParseFixtures-Minimal-Oodle-Windows');
    const engineChunk = new Map<string, number>();
    for (let i = 0; i < engine.toc.chunkCount; i++) engineChunk.set(engine.toc.chunkIdHex(i), i);
    // Every seventh chunk, block by block (the engine compresses each 64 KiB block on its own).
    const sample: Array<[string, Uint8Array]> = [];
    let theirs = 0;
    for (let i = 0; i < plain.toc.chunkCount; i += 7) {
      const { toc, ucas } = plain;
      for (let b = toc.chunkFirstBlock(i), e = b + toc.chunkBlockCount(i); b < e; b++) sample.push([`chunk ${i} block ${b}`, ucas.subarray(toc.blocks.offset(b), toc.blocks.offset(b) + toc.blocks.uncompressedSize(b))]);
      const j = engineChunk.get(toc.chunkIdHex(i))!;
      for (let b = engine.toc.chunkFirstBlock(j), e = b + engine.toc.chunkBlockCount(j); b < e; b++) theirs += engine.toc.blocks.compressedSize(b);
    }
    expect(sample.length).toBeGreaterThan(15);
    const at7 = roundTrip('kraken', 7, sample);
    const streams = [...roundTrip('kraken', 1, sample), ...roundTrip('mermaid', 4, sample), ...roundTrip('leviathan', 4, sample), ...at7];
    if (hasOoz) {
      const decoded = oozDecode(streams.map(([s, n]) => [s, n] as const));
      streams.forEach(([, , data], k) => expect(Buffer.compare(Buffer.from(decoded[k]!), Buffer.from(data))).toBe(0));
    }
    // A block that does not shrink is stored as it is, as in a container.
    const ours = at7.reduce((a, [s, n]) => a + Math.min(s.length, n), 0);
    expect(ours).toBeLessThan(theirs * 1.1);
  });
});
