import { describe, expect, it } from 'vitest';
import { indexedCorpusTocs } from './indexed-tocs.js';

describe('a chunk found by its path (IoStoreToc.findPath)', () => {
  it('finds every named chunk of every unencrypted corpus .utoc by its path, in any case, with or without the mount point', () => {
    let found = 0;
    for (const { rel, toc, prefix } of indexedCorpusTocs()) {
      const last = new Map<string, number>();
      for (const f of toc.files()) last.set(f.path, f.tocIndex);
      for (const path of last.keys()) {
        // A path the index lists twice names two chunks: either is a right answer.
        const hit = toc.findPath(prefix + path);
        expect(toc.files().some((f) => f.path === path && f.tocIndex === hit), `${rel} ${path}`).toBe(true);
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
