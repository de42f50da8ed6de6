import { describe, expect, it } from 'vitest';
import { indexedCorpusTocs } from './indexed-tocs.js';

describe('a chunk found by its path (IoStoreToc.findPath)', () => {
  it('finds every named chunk of every unencrypted corpus .utoc by its path, in any case, with or without the mount point', () => {
    let found = 0;
    for (const { rel, toc, prefix } of indexedCorpusTocs()) {
      // Every chunk each path names (a lookup per path: scanning files() for each was quadratic, ~29M comparisons).
      const chunks = new Map<string, number[]>();
      for (const f of toc.files()) chunks.set(f.path, [...(chunks.get(f.path) ?? []), f.tocIndex]);
      for (const [path, named] of chunks) {
        // A path the index lists twice names two chunks: either is a right answer.
        const hit = toc.findPath(prefix + path);
        expect(named.includes(hit), `${rel} ${path}`).toBe(true);
        expect(toc.findPath(path.toUpperCase()), `${rel} ${path} upper case, below the mount point`).toBe(hit);
        expect(toc.findPath(`/${prefix}${path}`.replace(/\//g, '\\'))).toBe(hit);
        found++;
      }
      expect(toc.findPath(`${prefix}no/such/file.uasset`)).toBe(-1);
      expect(toc.findPath('')).toBe(-1);
    }
    expect(found).toBeGreaterThan(5000);
  });
});
