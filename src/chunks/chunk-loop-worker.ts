// A worker of the whole-chunk loop (see chunk-loop.ts): opens the containers with blocking, buffer-reusing reads
// as soon as it starts, then waits for its tasks (one message: the caller plans meanwhile) and runs the same loop as
// the calling thread, taking chunks through the shared counters. It replies once, at the end.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { ContainerReader, TRANSIENT_SPAN } from '../cas/container-reader.js';
import { fileSourceSync } from '../cas/source.js';
import { codecsFromRecipes } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import { createChunkHasher } from '../hash/chunk-hash.js';
import { ioError } from '../toc/read-file.js';
import { readToc } from '../toc/toc.js';
import { adoptTocLoops } from '../toc/toc-scan.js';
import { setKeptV8Flags } from '../util/v8-flags.js';
import { LoopCounters, LoopTasks, runChunkLoop } from './chunk-loop.js';
import type { LoopWorkerAhead, LoopWorkerSetup, LoopWorkerTasks } from './loop-pool.js';

async function open(setup: LoopWorkerSetup): Promise<ContainerReader[]> {
  const codecs = await codecsFromRecipes(setup.recipes);
  const readers = setup.containers.map((o) => {
    let bytes: Uint8Array;
    try {
      bytes = o.tocBytes ?? new Uint8Array(readFileSync(o.utoc));
    } catch (e) {
      throw ioError(e, o.utoc);
    }
    const toc = readToc(bytes, { source: o.utoc, ...(o.aesKey ? { aesKey: o.aesKey } : {}), ...(o.engine ? { engine: o.engine } : {}), ...(o.parsedChunks && o.tocBytes ? { parsedChunks: o.parsedChunks } : {}), ...(o.parsedIndex && o.tocBytes ? { parsedIndex: o.parsedIndex } : {}) });
    // Made now, while the caller plans, not at the first chunk (see LoopWorkerSetup.paths), unless the caller's
    // index is shared: its path tables then come with the tasks. A broken index fails here as it would there: at the
    // chunk, as that chunk's failure or the run's.
    if (setup.paths && !(o.parsedIndex && o.tocBytes)) {
      try {
        void toc.chunkPaths;
      } catch {
        // made (and thrown) again when a task asks for it
      }
    }
    return new ContainerReader(toc, o.partitions.map((p) => fileSourceSync(p, { reuseBuffer: true, readAhead: TRANSIENT_SPAN })), { maxReadSpan: TRANSIENT_SPAN, ...(o.aesKey ? { aesKey: o.aesKey } : {}), codecs, cacheBlocks: 0, origin: o });
  });
  return readers;
}

async function main(opened: Promise<ContainerReader[]>, work: LoopWorkerTasks, counters: LoopCounters) {
  const readers = await opened;
  work.paths?.forEach((p, c) => p && readers[c]!.toc.adoptChunkPaths(p));
  const hashers = await Promise.all(work.hash.map((a) => (a ? createChunkHasher(a) : undefined)));
  try {
    return await runChunkLoop({ readers, tasks: LoopTasks.from(work.tasks), counters, hashers, finalNames: work.finalNames });
  } finally {
    await Promise.all(readers.map((r) => r.close()));
  }
}

/** Opens the containers of `setup` at once, and runs the tasks of the next message once they come. */
function begin(setup: LoopWorkerSetup): void {
  if (setup.tocLoops) adoptTocLoops(setup.tocLoops);
  // Opened while the caller plans; a failure is reported once the work arrives (the caller listens from then on).
  const opened = open(setup);
  opened.catch(() => {});
  parentPort!.once('message', (work: LoopWorkerTasks) => {
    const counters = new LoopCounters(work.counters, work.self);
    main(opened, work, counters).then(
      (outcome) => parentPort!.postMessage({ outcome }),
      (e) => {
        counters.stop();
        // An unreadable container is a failure of the run, reported like the calling thread's own; anything else is a bug.
        if (e instanceof IoStoreError) parentPort!.postMessage({ error: { code: e.code, message: e.message } });
        else parentPort!.postMessage({ fatal: (e as Error)?.stack ?? String(e) });
      },
    );
  });
}

// This thread's start put V8's flags back to their defaults (see src/util/v8-flags.ts): set again as soon as its
// bundle is loaded, since until then the calling thread's young generation can grow too. Started ahead of its
// containers (loop-pool.ts WorkersAhead), it sets those kept for any run now, and those kept for larger runs
// (`--optimize-for-size`) once it is adopted.
const data = workerData as LoopWorkerSetup | LoopWorkerAhead;
setKeptV8Flags(data.v8Flags);
if (data.tocLoops) adoptTocLoops(data.tocLoops);
if ('ahead' in data) {
  parentPort!.once('message', (setup: LoopWorkerSetup) => {
    setKeptV8Flags(setup.v8Flags.filter((f) => !data.v8Flags.includes(f)));
    begin(setup);
  });
} else {
  begin(data);
}
