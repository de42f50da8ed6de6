import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/util/worker-pool.js';
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
