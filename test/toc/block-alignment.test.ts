import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alignedChunkStart, inferBlockAlignment } from '../../src/toc/block-alignment.js';
import { readToc, type IoStoreToc } from '../../src/toc/toc.js';
import { align } from '../../src/util/bytes.js';
import { blockAlignmentMask } from '../../src/toc/toc-scan.js';
import { corpusFiles, corpusPath, hasCorpus } from '../corpus.js';

function* corpusTocs(): Generator<{ rel: string; toc: IoStoreToc }> {
  for (const rel of corpusFiles('.utoc')) {
    try {
      yield { rel, toc: readToc(new Uint8Array(readFileSync(corpusPath(rel))), { source: rel }) };
    } catch {
      // encrypted, or a test vector that is not a TOC
    }
  }
}

/** The .ucas order by its definition: first block offset (0 without blocks), ties in TOC order. */
function sortedOrder(toc: IoStoreToc): number[] {
  const at = (i: number) => (toc.chunkSize(i) === 0 ? 0 : toc.blocks.offset(toc.chunkFirstBlock(i)));
  return Array.from({ length: toc.chunkCount }, (_, i) => i).sort((a, b) => at(a) - at(b) || a - b);
}

/** inferBlockAlignment as first written: one replay of every chunk per candidate (now all candidates in one pass). */
function alignmentByReplay(toc: IoStoreToc): number | undefined {
  return [0, 2048, 4096, 16384, 65536].find((a) => replayOne(toc, a));
}

describe.skipIf(!hasCorpus)('the .ucas order of chunks and the block alignment replayed over it', () => {
  it('are those of their definitions on every corpus container (perfect-hash TOC orders included)', () => {
    let unsorted = 0;
    let aligned = 0;
    for (const { rel, toc } of corpusTocs()) {
      const expected = sortedOrder(toc);
      if (expected.some((v, k) => v !== k)) unsorted++;
      expect(Array.from(toc.chunksInUcasOrder()), rel).toEqual(expected);
      const a = alignmentByReplay(toc);
      if (a !== undefined && a > 0) aligned++;
      expect(inferBlockAlignment(toc), rel).toBe(a);
    }
    // Containers whose TOC order is not their .ucas order, and ones with an alignment above 0, were met.
    expect(unsorted).toBeGreaterThan(5);
    expect(aligned).toBeGreaterThan(0);
  });
});

describe.skipIf(!hasCorpus)('the block alignment replayed by the TOC loops\' module (issue 28ax)', () => {
  it('keeps the candidates the definition keeps, each alone, on every corpus container', () => {
    const candidates = [0, 2048, 4096, 16384, 65536];
    let containers = 0;
    for (const { rel, toc } of corpusTocs()) {
      const order = toc.chunksInUcasOrder();
      const mask = blockAlignmentMask(order, toc.chunkOffsets, toc.chunkLengths, toc.blocks.bytes, toc.blockSize, toc.blockCount, toc.partitionSize, candidates);
      expect(mask, rel).toBeDefined();
      // Each candidate replayed alone by the module and by the definition (a mask of one bit each).
      candidates.forEach((a, c) => {
        const alone = blockAlignmentMask(order, toc.chunkOffsets, toc.chunkLengths, toc.blocks.bytes, toc.blockSize, toc.blockCount, toc.partitionSize, [a]);
        expect(alone, `${rel}, ${a}`).toBe(replayOne(toc, a) ? 1 : 0);
        expect((mask! >> c) & 1, `${rel}, ${a}`).toBe(alone);
      });
      containers++;
    }
    expect(containers).toBeGreaterThanOrEqual(15);
  });
});

/** Whether alignment `a` reproduces every chunk's start (the definition, one candidate). */
function replayOne(toc: IoStoreToc, a: number): boolean {
  let pos = 0;
  let partition = 0;
  for (const i of sortedOrder(toc).filter((i) => toc.chunkBlockCount(i) > 0)) {
    const first = toc.chunkFirstBlock(i);
    let size = 0;
    for (let b = first; b < first + toc.chunkBlockCount(i); b++) size += align(toc.blocks.compressedSize(b), 16);
    const off = toc.blocks.offset(first);
    const p = Number.isFinite(toc.partitionSize) ? Math.floor(off / toc.partitionSize) : 0;
    const local = Number.isFinite(toc.partitionSize) ? off % toc.partitionSize : off;
    if (p !== partition) {
      partition = p;
      pos = 0;
    }
    if (alignedChunkStart(pos, size, a) !== local) return false;
    pos = local + size;
  }
  return true;
}
