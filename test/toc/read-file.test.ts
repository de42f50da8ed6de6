import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTocBytes } from '../../src/toc/read-file.js';
import { readToc } from '../../src/toc/toc.js';
import { corpusFiles, corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

/** readTocBytes reads a .utoc whole, sized by the fs binding's fstat (no Stats object): the bytes must be the file's. */
describe.skipIf(!hasCorpus)('readTocBytes reads a .utoc whole without asking its size', () => {
  it('gives every corpus .utoc byte for byte', async () => {
    for (const rel of corpusFiles('.utoc')) {
      const file = readFileSync(corpusPath(rel));
      expect(Buffer.from(await readTocBytes(corpusPath(rel))).equals(file), rel).toBe(true);
    }
  });

  it('gives a file longer or shorter than its header says whole, for readToc to say so', async () => {
    const rel = corpusFiles('.utoc')[0]!;
    const file = new Uint8Array(readFileSync(corpusPath(rel)));
    const dir = tempDir();
    for (const [name, bytes] of [
      ['long.utoc', new Uint8Array([...file, ...new Uint8Array(70_000).fill(7)])],
      ['5-more.utoc', new Uint8Array([...file, 1, 2, 3, 4, 5])],
      ['cut.utoc', file.subarray(0, file.length - 100)],
      ['header.utoc', file.subarray(0, 144)],
      ['part-header.utoc', file.subarray(0, 100)],
    ] as const) {
      writeFileSync(join(dir, name), bytes);
      const got = await readTocBytes(join(dir, name));
      expect(Buffer.from(got).equals(Buffer.from(bytes)), name).toBe(true);
      expect(() => readToc(got, { source: name }), name).toThrow();
    }
  });
});
