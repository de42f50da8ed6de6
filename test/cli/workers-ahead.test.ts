import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WRITE_FILES_MIN } from '../../src/chunks/workers-ahead.js';
import { hasCorpus } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin', 'iostore.js');

/**
 * Prints, in order, each worker thread's creation and the load of the unpack or verify command's bundle (what
 * bin/iostore.js requires, and the bundles require, goes through Module.prototype.require).
 */
const PRELOAD = `
const { writeSync } = require('node:fs');
const wt = require('node:worker_threads');
const Module = require('node:module');
const Worker = wt.Worker;
wt.Worker = class extends Worker {
  constructor(...a) { writeSync(2, 'event: worker\\n'); super(...a); }
};
const req = Module.prototype.require;
Module.prototype.require = function (id) {
  const m = /(unpack|verify)\\.bundle\\.cjs$/.exec(id);
  if (m) writeSync(2, 'event: ' + m[1] + ' bundle\\n');
  return req.apply(this, arguments);
};`;

/**
 * A container of more than WRITE_FILES_MIN chunks (small Zlib blocks of the corpus), so that its run takes a worker,
 * whose .utoc (~60 bytes a chunk here) is large enough for unpack to start one ahead (aheadThreads).
 */
async function manyChunks(): Promise<string> {
  const dir = tempDir('iostore-early-');
  const { writeSyntheticContainer } = await import('../../scripts/synth.mjs');
  await writeSyntheticContainer(dir, 'Early-Windows', { chunks: 1800, blocksPerChunk: 1, method: 'zlib', rawSize: 4096 });
  expect(statSync(join(dir, 'Early-Windows.utoc')).size).toBeGreaterThanOrEqual(WRITE_FILES_MIN * 96);
  writeFileSync(join(dir, 'preload.cjs'), PRELOAD);
  return join(dir, 'Early-Windows');
}

function iostore(base: string, args: string[]) {
  const r = spawnSync(process.execPath, ['-r', join(base, '..', 'preload.cjs'), bin, ...args], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1' } });
  expect(r.status, r.stderr).toBe(0);
  return { events: r.stderr.split('\n').filter((l) => l.startsWith('event: ')).map((l) => l.slice(7)), stderr: r.stderr, stdout: r.stdout };
}

// The synthetic container repeats a corpus block.
describe.skipIf(!hasCorpus || availableParallelism() < 2)('loop workers started before the command loads (startWorkersEarly)', () => {
  it('unpack: its worker is created before its bundle loads, loads with its code cache and gets the kept flags', async () => {
    const base = await manyChunks();
    const out = join(base, '..', 'out');
    const r = iostore(base, ['unpack', `${base}.utoc`, out, '--quiet']);
    expect(r.events).toEqual(['worker', 'unpack bundle']);
    // The flag the command kept while the worker loaded was held for it (set then, it would refuse its cache).
    expect(r.stderr).toMatch(/code cache \(worker\): chunk-loop-worker\.cjs used\n/);
    expect(r.stderr).toMatch(/^v8 flags set: (.* )?--semi-space-growth-factor=1( |$)/m);
    // The same files as the calling thread alone writes.
    const alone = join(base, '..', 'alone');
    expect(iostore(base, ['unpack', `${base}.utoc`, alone, '--quiet', '--threads', '0']).events).toEqual(['unpack bundle']);
    const files = listFiles(out);
    expect(files).toEqual(listFiles(alone));
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) expect(readFileSync(join(out, f)).equals(readFileSync(join(alone, f))), f).toBe(true);
  });

  it('a guess the command does not take (--dry-run) terminates the worker and the run ends as usual', async () => {
    const base = await manyChunks();
    const t0 = Date.now();
    const r = iostore(base, ['unpack', `${base}.utoc`, join(base, '..', 'out'), '--dry-run']);
    expect(r.events).toEqual(['worker', 'unpack bundle']);
    expect(r.stdout).toMatch(/would be written to/);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
