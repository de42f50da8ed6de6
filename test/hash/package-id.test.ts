import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageIdFromName, packageNameCandidates, readToc } from '../../src/index.js';
import { cityHash64 } from '../../src/hash/cityhash.js';
import { containerIdFromName, lowerUtf16leBytes, nameHashBackend } from '../../src/hash/names.js';
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

describe('package and container ids in WebAssembly (assembly/cityhash)', () => {
  it('are hashed by the module here, as the JavaScript CityHash64 hashes them, for names of every length and kind', () => {
    // main's build hashed names in JavaScript only (~90 ms cold for a 30,000-file pack's names).
    expect(nameHashBackend()).toBe('wasm');
    let seed = 5;
    const next = (k: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % k;
    };
    const differ: string[] = [];
    // Every length to 300 units (600 bytes: each of CityHash64's paths, and several 64-byte rounds), ASCII with upper
    // case, and any UTF-16 unit (non-ASCII letters are not folded, as the engine does not fold them).
    for (let len = 0; len <= 300; len++) {
      for (let r = 0; r < 6; r++) {
        let s = '';
        for (let i = 0; i < len; i++) s += String.fromCharCode(r % 3 === 0 ? next(0x10000) : 32 + next(95));
        const want = cityHash64(lowerUtf16leBytes(s));
        if (packageIdFromName(s) !== want || containerIdFromName(s) !== want) differ.push(JSON.stringify(s));
      }
    }
    // Longer than the module's page holds: the JavaScript hash.
    const long = 'A/b'.repeat(20000);
    if (packageIdFromName(long) !== cityHash64(lowerUtf16leBytes(long))) differ.push('60,000 units');
    expect(differ).toEqual([]);
    expect(packageIdFromName('/Game/Maps/Start')).toBe(packageIdFromName('/game/maps/start'));
  });
});
