import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readToc } from '../../src/index.js';
import { inBlockOrder } from '../../src/toc/toc.js';
import { ucasOrderOf } from '../../src/toc/toc-scan.js';
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

describe('chunks in .ucas order without a sort (inBlockOrder)', () => {
  /** The definition: indices by (at, index). */
  const bySort = (at: number[]) => at.map((_, i) => i).sort((a, b) => at[a]! - at[b]! || a - b);
  // Chunks of block size 16: offsets (in the uncompressed space) give the first block, `blockAt` each block's .ucas offset.
  const run = (offsets: number[], lengths: number[], blockAt: number[]) => {
    const at = offsets.map((o, i) => (lengths[i] === 0 ? 0 : blockAt[Math.floor(o / 16)]!));
    const got = inBlockOrder(Float64Array.from(at), Float64Array.from(offsets), Float64Array.from(lengths), 16, blockAt.length);
    return { got: got && [...got], want: bySort(at) };
  };

  it('gives the (offset, index) order where the block table is in .ucas order', () => {
    // Chunks listed out of order (as a perfect hash lists them), an empty one among them.
    const r = run([32, 0, 48, 0, 16], [5, 16, 20, 0, 3], [100, 200, 300, 400, 500]);
    expect(r.got).toEqual(r.want);
    expect(r.got).toEqual([3, 1, 4, 0, 2]);
  });

  it('declines (the caller sorts) where blocks are not in .ucas order, share a chunk start, or an empty chunk ties', () => {
    // Block 1 lies before block 0 in the .ucas.
    expect(run([0, 16], [4, 4], [500, 100]).got).toBeUndefined();
    // Two chunks start in one block.
    expect(run([0, 4], [2, 2], [0]).got).toBeUndefined();
    // A chunk at .ucas offset 0 listed before an empty chunk: (0, 0) comes before the empty chunk's (0, 1).
    const r = run([0, 0], [8, 0], [0]);
    expect(r.got).toBeUndefined();
    expect(r.want).toEqual([0, 1]);
  });
});

describe('chunks in .ucas order by WebAssembly (ucasOrderOf)', () => {
  const bySort = (at: number[]) => at.map((_, i) => i).sort((a, b) => at[a]! - at[b]! || a - b);
  // As above: block size 16, `blockAt` each block's .ucas offset (a 5-byte little-endian field of its 12-byte entry).
  const run = (offsets: number[], lengths: number[], blockAt: number[]) => {
    const table = new Uint8Array(12 * blockAt.length);
    blockAt.forEach((o, b) => {
      new DataView(table.buffer).setUint32(12 * b, o % 2 ** 32, true);
      table[12 * b + 4] = Math.floor(o / 2 ** 32);
    });
    const at = offsets.map((o, i) => (lengths[i] === 0 ? 0 : blockAt[Math.floor(o / 16)]!));
    const got = ucasOrderOf(Float64Array.from(offsets), Float64Array.from(lengths), table, 16, blockAt.length);
    return { got: got === 'toc' ? at.map((_, i) => i) : got && [...got], toc: got === 'toc', want: bySort(at) };
  };

  it('gives the order where the TOC order or the block table gives it, and declines where a sort is needed', () => {
    const listed = run([32, 0, 48, 0, 16], [5, 16, 20, 0, 3], [100, 200, 300, 400, 2 ** 33 + 5]);
    expect(listed.got).toEqual(listed.want);
    expect(listed.got).toEqual([3, 1, 4, 0, 2]);
    // Already in order (two chunks starting in one block, an empty chunk at 0 after a chunk at 0): the TOC order.
    for (const r of [run([0, 4], [2, 2], [0]), run([0, 0], [8, 0], [0]), run([], [], [])]) {
      expect(r.toc).toBe(true);
      expect(r.got).toEqual(r.want);
    }
    // Block 1 lies before block 0 in the .ucas; two chunks start in block 0 out of order.
    expect(run([0, 16], [4, 4], [500, 100]).got).toBeUndefined();
    expect(run([16, 0, 4], [4, 2, 2], [0, 50]).got).toBeUndefined();
  });
});
