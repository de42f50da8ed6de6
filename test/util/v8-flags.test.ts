import { execFileSync, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const dist = (p: string) => JSON.stringify(join(root, 'dist', p));

/**
 * A flag kept for workers (unpack's --optimize-for-size) is not set until a worker has loaded its code: V8 counts it in
 * its flag hash, so set at once it made every code cache loaded after it (the loop workers') refused.
 */
describe('V8 flags kept for later', () => {
  it('leave code caches usable until setKeptV8Flags sets them', () => {
    const script = `
      const { keepV8FlagForWorkers, keptV8Flags, ownProcessFlags, setKeptV8Flags } = await import(${dist('util/v8-flags.js')});
      ownProcessFlags();
      const vm = await import('node:vm');
      const src = 'function f(a) { return a + 1; } f(1);';
      const cachedData = new vm.Script(src, { filename: 'made.js' }).createCachedData();
      // Another name each time: a script compiled before is taken from V8's compilation cache, the data unread.
      let n = 0;
      const rejected = () => new vm.Script(src, { filename: \`read\${n++}.js\`, cachedData }).cachedDataRejected;
      keepV8FlagForWorkers('--optimize-for-size');
      const before = rejected();
      setKeptV8Flags();
      console.log(JSON.stringify({ before, after: rejected(), kept: keptV8Flags() }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop()!);
    expect(out).toEqual({ before: false, after: true, kept: ['--optimize-for-size'] });
  });
});

describe.skipIf(!hasCorpus)('commands run in-process (a test runner, a program embedding the CLI)', () => {
  it('leave V8 alone: after list and unpack of a small container, TurboFan still optimizes and no flag is kept', () => {
    const utoc = corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
    const script = `
      const { run } = await import(${dist('cli/main.js')});
      const { keptV8Flags } = await import(${dist('util/v8-flags.js')});
      const io = { out() {}, err() {}, isTTY: false };
      const codes = [await run(['list', ${JSON.stringify(utoc)}], io), await run(['unpack', ${JSON.stringify(utoc)}, ${JSON.stringify(join(tempDir(), 'out'))}, '--threads', '1'], io)];
      function f(a) { return a * 2 + 1; }
      %PrepareFunctionForOptimization(f);
      f(1); f(2);
      %OptimizeFunctionOnNextCall(f);
      f(3);
      // Bit 4 (16): optimized. Under --no-opt (what a short run of list sets in its own process) it stays unset.
      console.log(JSON.stringify({ codes, turbofan: (%GetOptimizationStatus(f) & 16) !== 0, kept: keptV8Flags() }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop()!);
    expect(out).toEqual({ codes: [0, 0], turbofan: true, kept: [] });
  });
});

describe.skipIf(!hasCorpus)('unpack with a worker', () => {
  it('keeps V8 old generations small (--optimize-for-size) only from 100,000 chunks: a small run leaves it unset', () => {
    const utoc = corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
    const r = spawnSync(process.execPath, [join(root, 'bin', 'iostore.js'), 'unpack', utoc, join(tempDir(), 'out'), '--threads', '1'], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1' } });
    expect(r.status, r.stderr).toBe(0);
    // The worker did set the flags kept for every run (so the report line is there), not this one.
    expect(r.stderr).toMatch(/v8 flags set: --semi-space-growth-factor=1/);
    expect(r.stderr).not.toMatch(/--optimize-for-size/);
  });

  it('gives workers a flag kept with minChunks only for a run of that many chunks', () => {
    const script = `
      const { keepOldGenerationSmall, OLD_GENERATION_SMALL_MIN_CHUNKS } = await import(${dist('cli/young-generation.js')});
      const { keptV8Flags, ownProcessFlags } = await import(${dist('util/v8-flags.js')});
      ownProcessFlags();
      keepOldGenerationSmall();
      console.log(JSON.stringify({ min: OLD_GENERATION_SMALL_MIN_CHUNKS, below: keptV8Flags(OLD_GENERATION_SMALL_MIN_CHUNKS - 1), at: keptV8Flags(OLD_GENERATION_SMALL_MIN_CHUNKS), any: keptV8Flags() }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop()!);
    expect(out).toEqual({ min: 100000, below: [], at: ['--optimize-for-size'], any: ['--optimize-for-size'] });
  });
});
