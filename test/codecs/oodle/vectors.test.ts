import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { oodleDecompress } from '../../../src/codecs/oodle/index.js';
import { IoStoreError } from '../../../src/errors.js';
import { corpusPath, hasCorpus } from '../../corpus.js';

/** Each vector is a little-endian size prefix (8 bytes for Leviathan, 4 for the others) and the raw Oodle stream. */
function vector(name: string): { stream: Uint8Array; size: number } {
  const bytes = new Uint8Array(readFileSync(corpusPath('oodle-vectors', `xml.${name}`)));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const prefix = name === 'leviathan' ? 8 : 4;
  const size = prefix === 8 ? Number(view.getBigUint64(0, true)) : view.getUint32(0, true);
  return { stream: bytes.subarray(prefix), size };
}

const TEXT_SIZE = 5_345_280;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe.skipIf(!hasCorpus)('Oodle test vectors', () => {
  const digests = new Map<string, string>();

  const SUPPORTED = ['kraken', 'mermaid', 'selkie', 'leviathan', 'bitknit'];
  for (const name of SUPPORTED) {
    it(`decodes xml.${name}`, () => {
      const { stream, size } = vector(name);
      expect(size).toBe(TEXT_SIZE);
      const out = oodleDecompress(stream, size);
      expect(out.length).toBe(TEXT_SIZE);
      // The text is a tar of XML files: spot-check its shape before comparing codecs with one another.
      expect(Buffer.from(out.subarray(257, 262)).toString('latin1')).toBe('ustar');
      expect(Buffer.from(out.subarray(512, 517)).toString('latin1')).toBe('<?xml');
      digests.set(name, sha256(out));
    });
  }

  it('all codecs agree', () => {
    expect(digests.size).toBe(SUPPORTED.length);
    expect(new Set(digests.values()).size).toBe(1);
  });

  it('decodes whole leading blocks of a stream when asked for fewer bytes', () => {
    const { stream } = vector('kraken');
    const full = oodleDecompress(stream, TEXT_SIZE);
    const part = oodleDecompress(stream, 2 * 0x40000);
    expect(Buffer.compare(part, full.subarray(0, 2 * 0x40000))).toBe(0);
  });

  it('reports xml.lzna as unsupported with a CODEC error', () => {
    const { stream, size } = vector('lzna');
    try {
      oodleDecompress(stream, size);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(IoStoreError);
      expect((e as IoStoreError).code).toBe('CODEC');
      expect((e as IoStoreError).message).toMatch(/unsupported Oodle decoder type 5/);
    }
  });
});

describe('Oodle framing', () => {
  it('decodes a stored block and a one-byte-fill quantum', () => {
    // Block header 0xCC 0x06: Kraken, stored; then the bytes themselves.
    expect([...oodleDecompress(new Uint8Array([0x4c, 0x06, 1, 2, 3]), 3)]).toEqual([1, 2, 3]);
    // Block header 0x8C 0x06 then quantum header 0x07FFFF (fill) with the byte 0x41.
    expect([...oodleDecompress(new Uint8Array([0x8c, 0x06, 0x07, 0xff, 0xff, 0x41]), 5)]).toEqual([65, 65, 65, 65, 65]);
  });

  it('decodes 16 KiB quanta: stored, one-byte fill and repeat of earlier output', () => {
    const q = 0x4000;
    const first = new Uint8Array(q).map((_, i) => (i * 7) & 0xff);
    const distance = q - 5;
    const stream = Buffer.concat([
      Buffer.from([0x8c, 0x0b]), // block header: BitKnit, reset state
      Buffer.from([0xbf, 0xff]), // stored quantum
      first,
      Buffer.from([0x3f, 0xff, 0x80 | ((distance - 1) >> 8), (distance - 1) & 0xff]), // repeat from `distance` back
      Buffer.from([0x7f, 0xff, 0x5a]), // fill with 0x5a
    ]);
    const out = oodleDecompress(stream, 3 * q);
    expect(Buffer.compare(out.subarray(0, q), first)).toBe(0);
    const repeated = new Uint8Array(q);
    for (let i = 0; i < q; i++) repeated[i] = i < distance ? out[q - distance + i]! : repeated[i - distance]!;
    expect(Buffer.compare(out.subarray(q, 2 * q), repeated)).toBe(0);
    expect(out.subarray(2 * q).every((b) => b === 0x5a)).toBe(true);
  });

  it('returns an empty array for size 0 and rejects impossible sizes up front', () => {
    expect(oodleDecompress(new Uint8Array(0), 0).length).toBe(0);
    expect(() => oodleDecompress(new Uint8Array(10), 1 << 30)).toThrow(IoStoreError);
    expect(() => oodleDecompress(new Uint8Array(10), -1)).toThrow(IoStoreError);
    expect(() => oodleDecompress(new Uint8Array(10), 1.5)).toThrow(IoStoreError);
  });
});
