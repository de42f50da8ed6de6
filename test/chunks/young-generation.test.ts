import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, hasCorpus } from '../corpus.js';

const root = resolve(__dirname, '../..');
const dist = (p: string) => JSON.stringify(join(root, 'dist', p));

/**
 * The young generation a kept `--semi-space-growth-factor=1` holds small, after a loop worker started: starting a
 * worker thread puts V8's flags back through their implications (a growth factor of at least 2), and both threads'
 * young generations then grew to 16 MiB semi-spaces over a long loop. The loop worker sets the kept flags again.
 */
describe.skipIf(!hasCorpus)('young generation after a loop worker started', () => {
  it('stays at its starting size in the calling thread when the flag is kept', () => {
    const script = `
      const { keepV8Flag, ownProcessFlags } = await import(${dist('util/v8-flags.js')});
      ownProcessFlags();
      const { ContainerReader } = await import(${dist('cas/container-reader.js')});
      const { defaultCodecs } = await import(${dist('codecs/registry.js')});
      const { startLoopWorkers } = await import(${dist('chunks/loop-pool.js')});
      const { LoopCounters, LoopTasks } = await import(${dist('chunks/chunk-loop.js')});
      const v8 = await import('node:v8');
      keepV8Flag('--semi-space-growth-factor=1');
      const reader = await ContainerReader.open(${JSON.stringify(corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'))});
      const pool = startLoopWorkers([reader], defaultCodecs(), 1);
      // An empty run: the worker has loaded its code (and set the flags) once it replies.
      await Promise.all(pool.dispatch(LoopTasks.of([]), [undefined], new LoopCounters(LoopCounters.create(0, 2))));
      await pool.terminate();
      await reader.close();
      // A long loop leaving a little alive at each collection, as a chunk loop does.
      const keep = [];
      for (let i = 0; i < 3e6; i++) {
        const o = { a: 'x' + i, b: [i] };
        if (i % 10 === 0) keep.push(o);
        if (keep.length > 20000) keep.length = 0;
      }
      const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      console.log(space.space_size);
    `;
    const size = Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop());
    // Two 1 MiB semi-spaces (allowing one growth); 32 MiB when the flag was lost.
    expect(size).toBeLessThanOrEqual(4 << 20);
  });
});
