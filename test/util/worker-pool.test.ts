import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/util/worker-pool.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const served = pathToFileURL(resolve(__dirname, '../../dist/util/worker-pool.js')).href;

describe('WorkerPool.close', () => {
  it('lets the task under way finish and skips the queued ones: a worker is never cut off inside a task', async () => {
    const dir = tempDir();
    const script = join(dir, 'slow-worker.mjs');
    // Each task waits, then leaves a file named after it.
    writeFileSync(
      script,
      `import { writeFileSync } from 'node:fs';
import { serveTasks } from ${JSON.stringify(served)};
serveTasks(async (name) => {
  await new Promise((r) => setTimeout(r, 300));
  writeFileSync(${JSON.stringify(dir)} + '/' + name, 'done');
  return { result: name };
});
`,
    );
    const pool = new WorkerPool<string, string>(pathToFileURL(script), 1, null);
    // Settled whatever happens, so a rejection is never unhandled while close runs.
    const first = pool.run('first').catch((e: Error) => e);
    const second = pool.run('second').catch((e: Error) => e);
    // The first task is under way (the worker has started and taken it) when the pool is closed.
    await new Promise((r) => setTimeout(r, 150));
    const started = Date.now();
    await pool.close();
    expect(String(await first)).toMatch(/stopped/);
    expect(String(await second)).toMatch(/stopped/);
    expect(existsSync(join(dir, 'first'))).toBe(true);
    expect(existsSync(join(dir, 'second'))).toBe(false);
    expect(Date.now() - started).toBeLessThan(4000);
  });
});

describe.skipIf(!hasCorpus)('worker threads of a process started with V8 flags', () => {
  it('start without them (node --max-old-space-size=256: unpack of a corpus Oodle container, pack of it again, --threads 1): no internal error', () => {
    const dir = tempDir();
    const utoc = corpusPath('ue5.8-cue4parse/oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.utoc');
    const bin = resolve(__dirname, '../../bin/iostore.js');
    const run = (...args: string[]) => spawnSync(process.execPath, ['--max-old-space-size=256', bin, ...args, '--threads', '1', '--quiet'], { encoding: 'utf8' });
    // Oodle blocks decode on the chunk loop's worker; pack encodes them again on the encode pool's.
    const unpacked = run('unpack', utoc, join(dir, 'game'));
    expect(unpacked.stderr).not.toMatch(/error/);
    expect(unpacked.status).toBe(0);
    const packed = run('pack', join(dir, 'game'), join(dir, 'out', 'Again.utoc'), '--compression', 'oodle');
    expect(packed.stderr).not.toMatch(/error/);
    expect(packed.status).toBe(0);
    const verified = spawnSync(process.execPath, [bin, 'verify', join(dir, 'out', 'Again.utoc'), '--json'], { encoding: 'utf8' });
    expect(verified.status, verified.stderr).toBe(0);
    expect(existsSync(join(dir, 'out', 'Again.ucas'))).toBe(true);
  });
});
