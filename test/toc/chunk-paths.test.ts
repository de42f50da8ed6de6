import { describe, expect, it } from 'vitest';
import { indexedCorpusTocs } from './indexed-tocs.js';

describe('chunk paths kept packed (ChunkPaths)', () => {
  it('give every chunk of every unencrypted corpus .utoc the path of its directory-index entry', () => {
    let named = 0;
    for (const { rel, toc, prefix } of indexedCorpusTocs()) {
      const byChunk = new Map<number, string>();
      for (const f of toc.files()) byChunk.set(f.tocIndex, prefix + f.path);
      for (let i = 0; i < toc.chunkCount; i++) expect(toc.chunkPath(i), `${rel} chunk ${i}`).toBe(byChunk.get(i));
      named += byChunk.size;
    }
    // WayOfTheNinja alone names over 5,000 chunks.
    expect(named).toBeGreaterThan(5000);
  });
});
