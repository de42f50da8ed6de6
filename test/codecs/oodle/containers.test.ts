import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oodleCodec, oodleDecompress } from '../../../src/codecs/oodle/index.js';
import { readToc, type IoStoreToc } from '../../../src/toc/index.js';
import { corpusPath, hasCorpus } from '../../corpus.js';

interface Container {
  toc: IoStoreToc;
  ucas: Uint8Array;
}

function load(dir: string, name: string): Container {
  const base = corpusPath(dir, name);
  return { toc: readToc(new Uint8Array(readFileSync(`${base}.utoc`)), { source: name }), ucas: new Uint8Array(readFileSync(`${base}.ucas`)) };
}

/** A chunk's bytes, decoding each block with the codec its method names. */
function chunkBytes(c: Container, i: number): Uint8Array {
  const { toc, ucas } = c;
  const first = toc.chunkFirstBlock(i);
  const count = toc.chunkBlockCount(i);
  const parts: Uint8Array[] = [];
  for (let b = first; b < first + count; b++) {
    const off = toc.blocks.offset(b);
    const stored = ucas.subarray(off, off + toc.blocks.compressedSize(b));
    const size = toc.blocks.uncompressedSize(b);
    const method = toc.compressionMethods[toc.blocks.method(b)];
    if (method === 'None') parts.push(stored.subarray(0, size));
    else if (method?.toLowerCase() === 'oodle') {
      const out = oodleDecompress(stored, size);
      expect(out.length).toBe(size);
      parts.push(out);
    } else throw new Error(`unexpected method ${method}`);
  }
  return Buffer.concat(parts);
}

const PROJECTS = ['ue5.8-cue4parse', 'ue6.0-cue4parse'];

describe.skipIf(!hasCorpus)('Oodle blocks of real containers', () => {
  for (const project of PROJECTS) {
    it(`${project}: every Oodle chunk equals the uncompressed variant`, () => {
      const oodle = load(join(project, 'oodle'), 'CUE4ParseFixtures-Minimal-Oodle-Windows');
      const plain = load(join(project, 'uncompressed'), 'CUE4ParseFixtures-Minimal-Uncompressed-Windows');
      const plainIndex = new Map<string, number>();
      for (let i = 0; i < plain.toc.chunkCount; i++) plainIndex.set(plain.toc.chunkIdHex(i), i);

      let oodleBlocks = 0;
      for (let b = 0; b < oodle.toc.blockCount; b++) if (oodle.toc.compressionMethods[oodle.toc.blocks.method(b)] !== 'None') oodleBlocks++;
      expect(oodleBlocks).toBeGreaterThan(0);

      let compared = 0;
      let headerDiffers = 0;
      for (let i = 0; i < oodle.toc.chunkCount; i++) {
        const got = chunkBytes(oodle, i);
        expect(got.length).toBe(oodle.toc.chunkSize(i));
        const j = plainIndex.get(oodle.toc.chunkIdHex(i));
        if (j === undefined) continue;
        const want = chunkBytes(plain, j);
        if (oodle.toc.chunkType(i) === 6 && Buffer.compare(got, want) !== 0) {
          headerDiffers++;
          continue;
        }
        expect(Buffer.compare(got, want), `chunk ${oodle.toc.chunkIdHex(i)}`).toBe(0);
        compared++;
      }
      expect(compared).toBeGreaterThan(oodle.toc.chunkCount - 2);
      expect(headerDiffers).toBeLessThanOrEqual(1);
    });
  }

  const patchDirs = hasCorpus ? readdirSync(corpusPath('ue5.1-patchtest')).sort() : [];
  for (const dir of patchDirs) {
    const name = readdirSync(corpusPath('ue5.1-patchtest', dir)).find((f) => f.endsWith('.ucas'))?.replace(/\.ucas$/, '');
    if (name === undefined) continue;
    it(`ue5.1-patchtest/${dir}: every Oodle block decodes to its declared size`, () => {
      const { toc, ucas } = load(join('ue5.1-patchtest', dir), name);
      let n = 0;
      for (let b = 0; b < toc.blockCount; b++) {
        if (toc.compressionMethods[toc.blocks.method(b)]?.toLowerCase() !== 'oodle') continue;
        const off = toc.blocks.offset(b);
        const out = oodleCodec.decompress(ucas.subarray(off, off + toc.blocks.compressedSize(b)), toc.blocks.uncompressedSize(b));
        expect(out.length).toBe(toc.blocks.uncompressedSize(b));
        n++;
      }
      expect(n).toBeGreaterThan(0);
    });
  }
});
