import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bytesSource, ContainerReader, IoStoreError, readToc } from '../../src/index.js';
import { corpusPath } from '../corpus.js';

// The .utoc drives every read of the .ucas: corrupt block entries and chunk offsets must end in IoStoreErrors
// (or correct reads), never another exception, a hang, or an allocation the 24-bit size fields do not bound.
describe.each([
  ['ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows', 'Zlib'],
  ['ue6.0-cue4parse/oodle/CUE4ParseFixtures-Minimal-Oodle-Windows', 'Oodle'],
])('%s', (base, codec) => {
  it(`reads through thousands of corrupted ${codec} block tables without crashing`, async () => {
    const utoc = new Uint8Array(readFileSync(corpusPath(`${base}.utoc`)));
    const ucas = new Uint8Array(readFileSync(corpusPath(`${base}.ucas`)));
    const toc0 = readToc(utoc);
    const blocksAt = toc0.sections.find((s) => s.name === 'compression blocks')!;
    const offsAt = toc0.sections.find((s) => s.name === 'chunk offsets and lengths')!;
    let seed = 99;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    let errors = 0;
    let reads = 0;
    const t0 = performance.now();
    for (let iter = 0; iter < 400; iter++) {
      const b = utoc.slice();
      for (let k = 0; k < 1 + rand(6); k++) {
        const region = rand(3) === 0 ? offsAt : blocksAt;
        b[region.offset + rand(region.size)] = rand(256);
      }
      let toc;
      try {
        toc = readToc(b);
      } catch (e) {
        // Refused whole (a block larger than the block size is found when the TOC is read).
        expect(e).toBeInstanceOf(IoStoreError);
        errors++;
        continue;
      }
      const reader = new ContainerReader(toc, [bytesSource(ucas, 'x.ucas')], { cacheBlocks: 2 });
      for (let i = 0; i < toc.chunkCount; i += 1 + rand(8)) {
        try {
          const data = await reader.readChunk(i);
          // expect only when it fails: one per read had been a sixth of the test's time.
          if (data.length !== toc.chunkSize(i)) expect(data.length, `iteration ${iter}, chunk ${i}`).toBe(toc.chunkSize(i));
          reads++;
        } catch (e) {
          if (!(e instanceof IoStoreError)) throw new Error(`iteration ${iter}, chunk ${i}: ${String(e)}`);
          errors++;
        }
      }
    }
    expect(errors).toBeGreaterThan(50);
    expect(reads).toBeGreaterThan(50);
    expect(performance.now() - t0).toBeLessThan(40_000);
  });
});
