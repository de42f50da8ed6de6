// A stored-copy worker (see stored-copy.ts): claims segments of stored chunks from the shared feed, reads, hashes and
// writes them to the .ucas.
import { workerData } from 'node:worker_threads';
import { createChunkHasher, type ChunkHasher } from '../hash/chunk-hash.js';
import { serveTasks } from '../util/worker-pool.js';
import { setKeptV8Flags } from '../util/v8-flags.js';
import { copyFromFeed } from './segment-feed.js';
import { copySegment, SegmentBuffer } from './stored-segment.js';
import type { CopyTask, CopyWorkerSetup } from './stored-copy.js';

const setup = workerData as CopyWorkerSetup;
// This thread's start put V8's flags back to their defaults (see src/util/v8-flags.ts): set again now its bundle is
// loaded, or both threads' young generations grow (~15 MB of peak RSS).
setKeptV8Flags(setup.v8Flags);
const buffer = new SegmentBuffer();
let hasher: Promise<ChunkHasher> | undefined;

serveTasks<CopyTask, number>(async (task) => {
  const h = await (hasher ??= createChunkHasher(task.algorithm));
  try {
    const copied = await copyFromFeed(task.feed, task.port, task.target, (segment, hashes, stopped) => void copySegment(segment, buffer, h, stopped, hashes));
    return { result: copied };
  } finally {
    task.port.close();
  }
});
