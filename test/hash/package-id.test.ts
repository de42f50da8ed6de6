import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageIdFromName, packageNameCandidates, readToc } from '../../src/index.js';
import { corpusPath } from '../corpus.js';

// The big game .utoc files carry thousands of engine-computed package ids (CityHash64 of the lower-cased UTF-16
// package name): each ExportBundleData chunk id must equal the hash of a package name its path maps to.
describe('package ids from directory-index paths', () => {
  it.each([
    // [container, packages, of which resolved by the first (folder-name) candidate]
    ['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 2969, 2867],
    ['ue5.1-templeofgiants/Colliderproject-Windows.utoc', 892, 892],
    ['ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc', 97, 97],
    ['ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.utoc', 3, 3],
  ])('%s', (rel, packages, firstCandidate) => {
    const toc = readToc(new Uint8Array(readFileSync(corpusPath(rel))));
    let matched = 0;
    let matchedFirst = 0;
    const mismatches: string[] = [];
    for (let i = 0; i < toc.chunkCount; i++) {
      if (toc.chunkTypeName(i) !== 'ExportBundleData') continue;
      const names = packageNameCandidates(toc.chunkPath(i)!);
      const hit = names.findIndex((n) => packageIdFromName(n) === toc.chunkId(i).id);
      if (hit < 0) mismatches.push(`${toc.chunkPath(i)} -> ${names.join(' | ')}`);
      else {
        matched++;
        if (hit === 0) matchedFirst++;
      }
    }
    expect(mismatches).toEqual([]);
    expect(matched).toBe(packages);
    expect(matchedFirst).toBe(firstCandidate);
  });
});
