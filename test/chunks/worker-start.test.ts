import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../tmp.js';
import { unpackWithPreload } from './preload-unpack.js';

const root = resolve(__dirname, '../..');

/**
 * A line per event, written as it happens: the calling thread's first use of process.stdout or process.stderr, the
 * worker it creates (and whether node:fs/promises had loaded by then), and the worker's first write of a chunk (the
 * same question).
 */
const PRELOAD = `
const fs = require('node:fs');
const wt = require('node:worker_threads');
const say = (event) => fs.writeSync(2, JSON.stringify({ main: wt.isMainThread, event }) + '\\n');
const promises = () => process.moduleLoadList.includes('NativeModule fs/promises');
if (wt.isMainThread) {
  for (const name of ['stdout', 'stderr']) {
    const d = Object.getOwnPropertyDescriptor(process, name);
    Object.defineProperty(process, name, { configurable: true, enumerable: true, get() { say('process.' + name); return d.get.call(process); } });
  }
  const Worker = wt.Worker;
  wt.Worker = class extends Worker { constructor(...a) { super(...a); say('worker, fs/promises ' + promises()); } };
} else {
  const writeSync = fs.writeSync;
  let first = true;
  fs.writeSync = function (fd, ...rest) {
    if (first && fd > 2) {
      first = false;
      say('first write, fs/promises ' + promises());
    }
    return writeSync.call(this, fd, ...rest);
  };
}
`;

describe("a short unpack's loop worker", () => {
  it('is created without making this thread stdout and stderr streams, and neither thread loads node:fs/promises', async () => {
    if (availableParallelism() < 2) return;
    // Enough chunks for a worker started ahead (WRITE_FILES_MIN).
    // Its chunks written through node:fs (IOSTORE_NODE_FS=1), whose writeSync the preload sees: the loader's own
    // calls go to Node's fs binding (test/chunks/loop-binding-fs.test.ts).
    const { events } = await unpackWithPreload(1800, 512, PRELOAD, { IOSTORE_NODE_FS: '1' });
    // Main's build: Node's Worker made process.stdout and process.stderr (pipes here: net's and the streams' modules)
    // to pipe the worker's into, and the output bundle loaded node:fs/promises on both threads.
    expect(events.filter((e) => e.main).map((e) => e.event)).toEqual(['worker, fs/promises false']);
    // The worker's first chunk, if it got one: under load the calling thread may have written them all first.
    expect(events.filter((e) => !e.main).map((e) => e.event)).toEqual(events.some((e) => !e.main) ? ['first write, fs/promises false'] : []);
  }, 90_000);

  it("writes what a worker prints (Node's warnings) to the process's stdout and stderr", () => {
    const tmp = tempDir();
    // A worker entry point as the bundled CLI starts one (src/util/worker-pool.ts newWorker, through bin/bundle-loader.js).
    const script = join(tmp, 'talk-worker.cjs');
    writeFileSync(script, "process.stdout.write('out 1\\n'); console.log('out 2'); console.error('err 1'); process.emitWarning('careful');\n");
    const run = `
      globalThis.__iostoreWorkerLoader = ${JSON.stringify(join(root, 'bin', 'bundle-loader.js'))};
      const { newWorker } = await import(${JSON.stringify(pathToFileURL(join(root, 'dist', 'util', 'worker-pool.js')).href)});
      const w = newWorker(new URL(${JSON.stringify(pathToFileURL(script).href)}), {});
      w.on('exit', (code) => process.exitCode = code);
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', run], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('out 1\nout 2\n');
    expect(r.stderr).toMatch(/^err 1\n.*Warning: careful/s);
  });
});
