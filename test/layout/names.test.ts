import { describe, expect, it } from 'vitest';
import { OutputNames, ignoresCase, renamedWarning, withSuffix } from '../../src/layout/names.js';
import { tempDir } from '../tmp.js';

describe('OutputNames: no output file silently replaces another (issue #24 items 11 and 12)', () => {
  it('the same path twice: the second gets a suffix', () => {
    const n = new OutputNames(false);
    expect(n.claim('Game/a.txt')).toBe('Game/a.txt');
    expect(n.claim('Game/a.txt')).toBe('Game/a (2).txt');
    expect(n.claim('Game/a.txt')).toBe('Game/a (3).txt');
    expect(n.renamed.map((r) => [r.written, r.why])).toEqual([['Game/a (2).txt', 'same path'], ['Game/a (3).txt', 'same path']]);
  });

  it('paths that differ only in case collide where the file system ignores case, not where it does not', () => {
    const folded = new OutputNames(true);
    expect(['Foo.txt', 'foo.txt', 'FOO.TXT'].map((p) => folded.claim(p))).toEqual(['Foo.txt', 'foo (2).txt', 'FOO (3).TXT']);
    expect(renamedWarning(folded.renamed[0]!)).toBe('"foo.txt": it would be the same file as "Foo.txt" (this file system ignores case): written as "foo (2).txt"');
    const exact = new OutputNames(false);
    expect(['Foo.txt', 'foo.txt', 'FOO.TXT'].map((p) => exact.claim(p))).toEqual(['Foo.txt', 'foo.txt', 'FOO.TXT']);
    expect(exact.renamed).toEqual([]);
    // Unicode forms too where case is folded (macOS): é as one code point and as e + combining accent.
    expect(folded.claim('caf\u00e9.txt')).toBe('caf\u00e9.txt');
    expect(folded.claim('cafe\u0301.txt')).toBe('cafe\u0301 (2).txt');
  });

  it('the manifest\'s name is reserved, as a file and as a folder', () => {
    const n = new OutputNames(false);
    expect(n.claim('iostore-manifest.json')).toBe('iostore-manifest (2).json');
    expect(n.claim('iostore-manifest.json/inner.txt')).toBe('iostore-manifest (3).json/inner.txt');
    expect(n.claim('iostore-manifest.json/other.txt')).toBe('iostore-manifest (3).json/other.txt');
    expect(n.renamed[1]).toMatchObject({ why: 'file and folder', clash: 'iostore-manifest.json' });
  });

  it('a file where a folder is, and a folder where a file is', () => {
    const n = new OutputNames(false);
    expect(n.claim('Game/a/b.txt')).toBe('Game/a/b.txt');
    expect(n.claim('Game/a')).toBe('Game/a (2)');
    expect(n.claim('Game/x')).toBe('Game/x');
    expect(n.claim('Game/x/y.txt')).toBe('Game/x (2)/y.txt');
    expect(n.claim('Game/x/z.txt')).toBe('Game/x (2)/z.txt');
  });

  it('a group keeps one stem: X.umap beside X.uasset takes X (2).umap and X (2).uexp', () => {
    const n = new OutputNames(false);
    expect(n.claimGroup(['M/X.uasset', 'M/X.uexp'])).toEqual(['M/X.uasset', 'M/X.uexp']);
    expect(n.claimGroup(['M/X.umap', 'M/X.uexp'])).toEqual(['M/X (2).umap', 'M/X (2).uexp']);
    expect(n.claim('M/X.uexp')).toBe('M/X (3).uexp');
  });

  it('5,000 copies of one path: each suffix is found at once, not by trying every earlier one', () => {
    const n = new OutputNames(true);
    const t0 = performance.now();
    for (let i = 0; i < 5000; i++) n.claim('Game/same.bin');
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(n.claim('Game/same.bin')).toBe('Game/same (5001).bin');
  });

  it('suffixes go before the first dot of the name', () => {
    expect(withSuffix('a/T.m.ubulk', 2)).toBe('a/T (2).m.ubulk');
    expect(withSuffix('a/README', 3)).toBe('a/README (3)');
    expect(withSuffix('.hidden', 2)).toBe('.hidden (2)');
  });

  it('ignoresCase probes the folder, and leaves nothing behind', async () => {
    const dir = tempDir();
    const { readdirSync } = await import('node:fs');
    expect(typeof ignoresCase(dir)).toBe('boolean');
    if (process.platform === 'linux') expect(ignoresCase(dir)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('OutputNames.claim with references (the plan of an unpack) names every file as a claim without one', () => {
  it('same paths, case, a file where a folder is, a renamed folder, the manifest name: the same names and warnings', () => {
    const paths = ['Game/A/x.txt', 'Game/A/y.txt', 'Game/a/x.txt', 'game/a/z.txt', 'Game/A/x.txt', 'Game/B', 'Game/B/c.txt', 'Game/B/d.txt', 'iostore-manifest.json', 'Game/A', 'Game/A/w.txt', 'top.txt', 'top.txt'];
    for (const folded of [false, true]) {
      const plain = new OutputNames(folded);
      const withRefs = new OutputNames(folded, undefined, (k) => paths[k]!);
      const a = paths.map((p) => plain.claim(p));
      const b = paths.map((p, k) => withRefs.claim(p, k));
      expect(b).toEqual(a);
      expect(withRefs.renamed).toEqual(plain.renamed);
      expect(a.filter((p, k) => p !== paths[k]).length).toBeGreaterThanOrEqual(folded ? 5 : 4);
      // A folder asked for in another case is the folder first written (it had thrown a TypeError): no rename.
      expect(a[3]).toBe(folded ? 'Game/A/z.txt' : 'game/a/z.txt');
      expect(plain.renamed.some((r) => r.path === 'game/a/z.txt')).toBe(false);
    }
  });
});
