import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { oodleDecompress, oodleDecompressInto } from '../../../src/codecs/oodle/index.js';
import { IoStoreError } from '../../../src/errors.js';
import { readToc } from '../../../src/toc/index.js';
import { corpusPath, hasCorpus } from '../../corpus.js';

describe.skipIf(!hasCorpus)('oodleDecompressInto', () => {
  const base = corpusPath('ue5.8-cue4parse', 'oodle', 'CUE4ParseFixtures-Minimal-Oodle-Windows');
  const toc = readToc(new Uint8Array(readFileSync(`${base}.utoc`)));
  const ucas = new Uint8Array(readFileSync(`${base}.ucas`));
  const blocks: [Uint8Array, number][] = [];
  for (let b = 0; b < toc.blockCount; b++) {
    if (toc.compressionMethods[toc.blocks.method(b)]?.toLowerCase() !== 'oodle') continue;
    const off = toc.blocks.offset(b);
    blocks.push([ucas.subarray(off, off + toc.blocks.compressedSize(b)), toc.blocks.uncompressedSize(b)]);
  }

  it('decodes every Oodle block of a container into one shared buffer, byte for byte as oodleDecompress, touching nothing else', () => {
    expect(blocks.length).toBeGreaterThan(50);
    const total = blocks.reduce((a, [, u]) => a + u, 0);
    // A guard byte between blocks catches a write past a block's end (the fast copies may over-write within a block).
    const buf = new Uint8Array(total + blocks.length).fill(0xa5);
    let at = 0;
    for (const [c, u] of blocks) {
      oodleDecompressInto(c, buf.subarray(at, at + u));
      expect(buf[at + u]).toBe(0xa5);
      expect(Buffer.compare(buf.subarray(at, at + u), oodleDecompress(c, u))).toBe(0);
      at += u + 1;
    }
  });

  it('a damaged block is a CODEC error and leaves the bytes around its slice alone', () => {
    const [c, u] = blocks.find(([, size]) => size === 65536)!;
    const bad = c.slice();
    for (let i = 40; i < bad.length; i += 97) bad[i] ^= 0x5a;
    const buf = new Uint8Array(u + 32).fill(0x3c);
    expect(() => oodleDecompressInto(bad, buf.subarray(16, 16 + u))).toThrow(IoStoreError);
    expect(buf.subarray(0, 16).every((x) => x === 0x3c)).toBe(true);
    expect(buf.subarray(16 + u).every((x) => x === 0x3c)).toBe(true);
  });
});
