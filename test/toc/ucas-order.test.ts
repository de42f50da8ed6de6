import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readToc } from '../../src/index.js';
import { chunkHexColumns, listChunks, selectChunks } from '../../src/toc/listing.js';
import { corpusPath, hasCorpus } from '../corpus.js';

const load = (rel: string) => readToc(new Uint8Array(readFileSync(corpusPath(rel))), { source: rel });

describe.skipIf(!hasCorpus)('chunk orders and columns made in bulk', () => {
  // Both list chunks out of .ucas order (a perfect hash orders them by id).
  const files = ['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'ue5.1-templeofgiants/Colliderproject-Windows.utoc'];

  it('chunksInUcasOrder: by first block offset, ties by TOC index (one native sort of keys)', () => {
    for (const f of files) {
      const toc = load(f);
      const at = (i: number) => (toc.chunkLengths[i] === 0 ? 0 : toc.blocks.offset(toc.chunkFirstBlock(i)));
      const expected = Array.from({ length: toc.chunkCount }, (_, i) => i).sort((a, b) => at(a) - at(b) || a - b);
      const got = [...toc.chunksInUcasOrder()];
      expect(got, f).toEqual(expected);
      expect(expected.some((x, k) => x !== k), f).toBe(true);
    }
  });

  it('chunkHexColumns and listChunks give the per-chunk hex of ids and hashes (index order, filtered, sorted)', () => {
    for (const f of files) {
      const toc = load(f);
      for (const q of [{}, { filter: '**/*.ubulk' }, { sort: 'size' as const }]) {
        const order = selectChunks(toc, q);
        const hex = chunkHexColumns(toc, order);
        const ids = order.map((i) => toc.chunkIdHex(i));
        const hashes = order.map((i) => toc.chunkHashHex(i));
        expect(order.map((i) => hex.id(i))).toEqual(ids);
        expect(order.map((i) => hex.hash(i))).toEqual(hashes);
        const rows = listChunks(toc, q);
        expect(rows.map((r) => r.id)).toEqual(ids);
        expect(rows.map((r) => r.hash)).toEqual(hashes);
      }
    }
  });
});
