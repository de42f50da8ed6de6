import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHORT_RUN_TOC_BYTES, isShortRun } from '../../src/cli/short-run.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin', 'iostore.js');

/** Runs the CLI with V8's --trace-opt and a preload that prints the built-in modules the run loaded. */
function traced(args: string[], env: Record<string, string> = {}) {
  const dir = tempDir('iostore-short-run-');
  const preload = join(dir, 'modules.cjs');
  writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, 'MODULES ' + process.moduleLoadList.join(',') + '\\n'));\n");
  const r = spawnSync(process.execPath, ['--trace-opt', '-r', preload, bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ...env } });
  expect(r.status, r.stderr).toBe(0);
  const modules = r.stderr.match(/MODULES (.*)/)![1]!.split(',');
  return { optimized: r.stdout.split('\n').filter((l) => l.startsWith('[compiling method') && l.includes('TURBOFAN')).length, modules, stderr: r.stderr.replace(/MODULES .*\n/, '') };
}

describe('short runs of list and info', () => {
  const small = 'ue5.1-templeofgiants/Colliderproject-Windows.utoc';

  it.skipIf(!hasCorpus)('run a small container without the optimizing compiler, and without loading node:zlib or node:v8', () => {
    expect(statSync(corpusPath(small)).size).toBeLessThan(SHORT_RUN_TOC_BYTES);
    for (const command of ['list', 'info']) {
      const short = traced([command, corpusPath(small), ...(command === 'list' ? ['--sort', 'path'] : [])]);
      expect(short.optimized, command).toBe(0);
      expect(short.modules, command).not.toContain('NativeModule zlib');
      // The flags are set through Node's binding (src/util/v8-set-flags.ts): node:v8 would load the stream modules.
      expect(short.modules, command).toContain('Internal Binding v8');
      expect(short.modules, command).not.toContain('NativeModule v8');
      // ...and the binding's deprecation warning is not printed.
      expect(short.stderr, command).toBe('');
    }
    // IOSTORE_V8_OPT=1 keeps the compiler: the same run then optimizes the sort's comparisons. (A listing in TOC order
    // has no JavaScript loop per chunk or folder left to optimize: its cells are the WebAssembly's.)
    expect(traced(['list', corpusPath(small), '--sort', 'path'], { IOSTORE_V8_OPT: '1' }).optimized).toBeGreaterThan(0);
  });

  it.skipIf(!hasCorpus)('keep the optimizing compiler for a container whose .utoc is 1 MiB or more', () => {
    const big = 'ue5-wayoftheninja/WayOfTheNinja-Windows.utoc';
    expect(statSync(corpusPath(big)).size).toBeGreaterThanOrEqual(SHORT_RUN_TOC_BYTES);
    expect(traced(['list', corpusPath(big), '--sort', 'path']).optimized).toBeGreaterThan(0);
  });

  it.skipIf(!hasCorpus)('are told by the size of the .utoc', () => {
    expect(isShortRun(corpusPath('ue5.1-templeofgiants/Colliderproject-Windows.utoc'))).toBe(true);
    expect(isShortRun(corpusPath('ue5-wayoftheninja/WayOfTheNinja-Windows.utoc'))).toBe(false);
    expect(isShortRun('/nonexistent/x.utoc')).toBe(false);
  });
});

describe('short runs of verify and unpack', () => {
  const utoc = join(root, 'samples', 'demo', 'DemoMod-Windows.utoc');
  const iostore = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [bin, ...args, '--threads', '1', '--quiet'], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1', ...env } });
    expect(r.status, r.stderr).toBe(0);
    return r.stderr;
  };

  it('turn the optimizing compiler off once their worker has loaded its code, which keeps its cache', () => {
    const out = tempDir('iostore-short-run-unpack-');
    for (const args of [['verify', utoc], ['unpack', utoc, join(out, 'a')]]) {
      const report = iostore(args);
      expect(report, args[0]).toMatch(/^v8 flags set: (.* )?--no-opt\n/m);
      // Set before the worker's bundle loaded, the flag would have made V8 refuse that bundle's cache.
      expect(report, args[0]).toMatch(/code cache \(worker\): chunk-loop-worker\.cjs used\n/);
    }
    // IOSTORE_V8_OPT=1 keeps the compiler.
    expect(iostore(['verify', utoc], { IOSTORE_V8_OPT: '1' })).not.toMatch(/--no-opt/);
  });

  it('keep the optimizing compiler when several inputs are given (a long run may follow the short one)', () => {
    const out = tempDir('iostore-short-run-unpack-');
    expect(iostore(['verify', utoc, utoc])).not.toMatch(/--no-opt/);
    expect(iostore(['unpack', join(root, 'samples', 'demo'), join(out, 'c')])).not.toMatch(/--no-opt/);
  });
});
