import { describe, expect, it } from 'vitest';
import { unpackWithPreload } from './preload-unpack.js';

/**
 * Counts, on the calling thread, the reads of a BigInt64Array through Atomics.load (LoopCounters.bytesDone: the run's
 * progress) and the adds to one through Atomics.add (LoopCounters.finished: one per chunk this thread did), and
 * writes both once the process exits. Nothing else of an unpack uses a BigInt64Array. Each of this thread's chunks
 * then waits 1 ms, so that the worker (~50-300 ms to load, with the machine's load) takes chunks before this
 * thread has done them all, as it does in a run of larger chunks.
 */
const PRELOAD = `
const wt = require('node:worker_threads');
if (wt.isMainThread) {
  const n = { reads: 0, chunks: 0 };
  const load = Atomics.load;
  const add = Atomics.add;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  Atomics.load = function (a, i) {
    if (a instanceof BigInt64Array) n.reads++;
    return load(a, i);
  };
  Atomics.add = function (a, i, v) {
    if (a instanceof BigInt64Array) {
      n.chunks++;
      Atomics.wait(pause, 0, 0, 1);
    }
    return add(a, i, v);
  };
  process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify({ main: true, event: n.reads + ' ' + n.chunks }) + '\\n'));
}
`;

describe('a quiet unpack with a loop worker (src/chunks/loop-pool.ts runChunkTasks, src/unpack/unpack.ts)', () => {
  it("reads the run's progress only until its manifest has started, not after each of the calling thread's chunks", async () => {
    // 3,000 chunks: enough files for one worker (WRITE_FILES_MIN), which takes a share of them once it has loaded.
    const { events } = await unpackWithPreload(3000, 4096, PRELOAD);
    const main = events.filter((e) => e.main);
    expect(main).toHaveLength(1);
    const [reads, chunks] = main[0]!.event.split(' ').map(Number) as [number, number];
    expect(chunks).toBeGreaterThan(0);
    expect(chunks).toBeLessThan(3000);
    // Main's build: a read after each of this thread's chunks and once more at the end (reads > chunks), only to
    // learn when the worker had done a chunk (the manifest's start); the counts went nowhere. Now the reads stop
    // there, and this thread's chunks after it read nothing.
    expect(reads).toBeLessThan(chunks);
  }, 90_000);
});
