import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');

/**
 * What a run keeps per chunk, measured as V8 sees it after a full collection (JS heap + array buffers) halfway
 * through its loop, where the whole plan is held: the difference between a run of SMALL and one of LARGE chunks, per
 * chunk. A game has 500,000+ chunks, and each 100 bytes per chunk is 50 MB: the bounds are what the structures take
 * now plus room for the measurement's noise, so a per-chunk object, string or array coming back fails here.
 * The noise is what is alive only now and then (a read-ahead window or write batch of up to 1 MiB, code and feedback
 * V8 made meanwhile): with 3,000 chunks it swung single runs by +-300 bytes per chunk (pack measured 574 once against
 * its usual 340-450, unpack and verify below zero), so LARGE is 9,000, each base is the least of three and each run
 * keeps the least of several samples around its middle (`settled`, `sampler`).
 */
const SMALL = 600;
const LARGE = 9000;
/** Thrown at the measuring point: the rest of the run would only cost the test time. */
const STOP = `class Measured extends Error {}`;

/** Builds a container of `n` tiny named chunks in `dir` (`x.utoc`), and a mod folder of `n` tiny files. */
const setup = (dir: string) => `
  const { buildContainer, encodeChunkId } = await import(${JSON.stringify(join(root, 'dist/index.js'))});
  const { writeFileSync, mkdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  async function container(n, name) {
    const chunks = Array.from({ length: n }, (_, i) => ({
      id: encodeChunkId({ id: BigInt(i + 1) * 0x9e3779b97f4a7c15n & 0xffffffffffffffffn, index: 0, pad: 0, type: 2 }, 'UE5'),
      data: new Uint8Array([i & 255, i >> 8, 7, 9]),
      path: 'Game/Content/Maps/D' + String(Math.floor(i / 300)).padStart(3, '0') + '/Some_Asset_Name_' + i + '.ubulk',
    }));
    const { utoc, ucas } = await buildContainer(chunks, { name });
    const base = join(${JSON.stringify(dir)}, name);
    writeFileSync(base + '.utoc', utoc);
    writeFileSync(base + '.ucas', ucas);
    return base + '.utoc';
  }
`;

/**
 * Retained bytes (JS heap + array buffers) after a full collection; `settled()`, the least of three (a base: what V8
 * compiles or sweeps in the background moved one by up to 0.5 MB); and `sampler()`, for a progress callback: takes
 * `retained()` as the run passes 45, 48, 51, 54 and 57% of its chunks (at most once a call), and returns the least
 * of them once past the last (else undefined).
 */
const retained = `const retained = () => { globalThis.gc(); globalThis.gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
  const settled = () => Math.min(retained(), retained(), retained());
  const sampler = () => { const marks = [0.45, 0.48, 0.51, 0.54, 0.57]; let next = 0; let least = Infinity;
    return (p) => { if (next < marks.length && p.chunksDone >= p.chunksTotal * marks[next]) { least = Math.min(least, retained()); while (next < marks.length && p.chunksDone >= p.chunksTotal * marks[next]) next++; }
      return next === marks.length ? least : undefined; }; };`;

/**
 * Runs `scenario` (a script printing `{ name: retained bytes mid-run }`) for SMALL and LARGE chunks, each in a
 * process of its own, and returns the difference per chunk.
 */
function perChunk(scenario: (n: number) => string): Record<string, number> {
  const run = (n: number) => {
    const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', scenario(n)], { encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
  };
  const small = run(SMALL);
  const large = run(LARGE);
  return Object.fromEntries(Object.keys(large).map((k) => [k, (large[k]! - small[k]!) / (LARGE - SMALL)]));
}

describe('memory per chunk', () => {
  it('unpack (TOC, plan, names, tasks, mid-run) and verify keep no object or string per chunk', () => {
    const dir = tempDir();
    const res = perChunk((n) => `
      ${setup(dir)}
      ${retained}
      ${STOP}
      const { unpack, verifyContainer, ContainerReader } = await import(${JSON.stringify(join(root, 'dist/index.js'))});
      const utoc = await container(${n}, 'C${n}');
      const at = {};
      // The middle of each loop: the TOC, the plan, output names, tasks and the manifest's state are all held.
      let base = settled();
      const reader = await ContainerReader.open(utoc);
      const verifySample = sampler();
      await verifyContainer(reader, { threads: 0, onProgress: (p) => { const least = at.verify === undefined ? verifySample(p) : undefined; if (least !== undefined) at.verify = least - base; } });
      await reader.close();
      base = settled();
      const unpackSample = sampler();
      await unpack([utoc], join(${JSON.stringify(dir)}, 'out${n}'), { threads: 0, onProgress: (p) => { const least = unpackSample(p); if (least !== undefined) { at.unpack = least - base; throw new Measured(); } } }).catch((e) => { if (!(e instanceof Measured)) throw e; });
      console.log(JSON.stringify(at));
    `);
    // Measured 83-91 bytes per chunk for unpack (the plan, output names and tasks, the reader's parse; the TOC as
    // stored is in WebAssembly memory, which this does not see) and 58-63 for verify (its .ucas order, the task list),
    // six runs in a row (2026-11-28); a string or an object per chunk is 100-200 more.
    expect(res.unpack).toBeLessThan(180);
    expect(res.verify).toBeLessThan(150);
  });

  it('pack (the plan of a folder, the writer mid-run) keeps a few hundred bytes per file', () => {
    const dir = tempDir();
    for (const n of [SMALL, LARGE]) {
      for (let d = 0; d * 300 < n; d++) {
        const folder = join(dir, `mod${n}`, 'Game', 'Content', `D${d}`);
        mkdirSync(folder, { recursive: true });
        for (let i = d * 300; i < Math.min(n, (d + 1) * 300); i++) writeFileSync(join(folder, `Some_Asset_Name_${i}.ubulk`), String(i));
      }
    }
    const res = perChunk((n) => `
      ${retained}
      ${STOP}
      const { packFolder } = await import(${JSON.stringify(join(root, 'dist/index.js'))});
      const { join } = await import('node:path');
      const at = {};
      const base = settled();
      const sample = sampler();
      await packFolder(join(${JSON.stringify(dir)}, 'mod${n}'), join(${JSON.stringify(dir)}, 'out${n}', 'M-Windows.utoc'), { engine: 'UE5_4', compression: 'none', threads: 0, onProgress: (p) => { const least = sample(p); if (least !== undefined) { at.pack = least - base; throw new Measured(); } } }).catch((e) => { if (!(e instanceof Measured)) throw e; });
        console.log(JSON.stringify(at));
    `);
    // Measured 381-402 bytes per file (six runs in a row, 2026-11-28): its path and size, the chunk to write, the
    // writer's records of those written (their ids, hashes, offsets and paths), the arrays' spare room.
    expect(res.pack).toBeLessThan(480);
  });
});
