import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { manifestChunk, manifestChunkJson } from '../../src/layout/manifest.js';
import { chunkOutputPath } from '../../src/layout/unnamed.js';
import { readToc } from '../../src/toc/toc.js';
import { corpusPath, hasCorpus } from '../corpus.js';

// Containers with named and unnamed chunks, stored, Zlib and Oodle chunks, and compressed chunks with raw blocks.
const CONTAINERS = [
  'ue5-wayoftheninja/WayOfTheNinja-Windows.utoc',
  'ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc',
  'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc',
  'ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.utoc',
];

describe.skipIf(!hasCorpus)('manifestChunkJson: a manifest entry written without its object', () => {
  it('is the text JSON.stringify makes of manifestChunk, at any indent, with and without overriddenBy', () => {
    let rawBlocks = 0;
    for (const file of CONTAINERS) {
      const toc = readToc(new Uint8Array(readFileSync(corpusPath(file))));
      for (let i = 0; i < toc.chunkCount; i++) {
        const path = i % 7 === 3 ? `renamed "${i}" ✓/x (2).bin` : chunkOutputPath(toc, i);
        const entry = manifestChunk(toc, i, path);
        if (entry.rawBlocks) rawBlocks++;
        const by = i % 5 === 0 ? `Patch_${i}_P` : undefined;
        if (by !== undefined) entry.overriddenBy = by;
        for (const indent of ['', '   ']) {
          expect(manifestChunkJson(toc, i, path, by, indent)).toBe(JSON.stringify(entry, null, 1).replace(/\n/g, `\n${indent}`));
          // No path given: the chunk's own (named and unnamed chunks alike).
          if (i % 7 !== 3) expect(manifestChunkJson(toc, i, undefined, by, indent)).toBe(JSON.stringify(entry, null, 1).replace(/\n/g, `\n${indent}`));
        }
      }
    }
    // The case the array of raw blocks is for was met.
    expect(rawBlocks).toBeGreaterThan(50);
  });
});
