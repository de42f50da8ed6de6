// A stored-copy worker (see stored-copy.ts): reads, hashes and writes segments of stored chunks to the .ucas.
import { workerData } from 'node:worker_threads';
import { IoStoreError } from '../errors.js';
import { createChunkHasher, type ChunkHasher } from '../hash/chunk-hash.js';
import { serveTasks } from '../util/worker-pool.js';
import { setKeptV8Flags } from '../util/v8-flags.js';
import { copySegment, SegmentBuffer } from './stored-segment.js';
import type { CopyTask, CopyWorkerSetup } from './stored-copy.js';

const setup = workerData as CopyWorkerSetup;
// This thread's start put V8's flags back to their defaults (see src/util/v8-flags.ts): set again now its bundle is
// loaded, or both threads' young generations grow (~15 MB of peak RSS).
setKeptV8Flags(setup.v8Flags);
const buffer = new SegmentBuffer();
let hasher: Promise<ChunkHasher> | undefined;
/** Checked between files: an interrupt stops the segment before it writes. */
const stopped = () => {
  if (Atomics.load(setup.stop, 0) !== 0) throw new IoStoreError('IO', 'interrupted');
};

serveTasks<CopyTask, Uint8Array>(async (task) => {
  const h = await (hasher ??= createChunkHasher(task.algorithm));
  const hashes = copySegment(task.segment, buffer, h, stopped);
  return { result: hashes, transfer: [hashes.buffer as ArrayBuffer] };
});
