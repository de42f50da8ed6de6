// A worker writing segments of a stored pak's files out (see pak-stored-out.ts), beside the calling thread.
import { workerData } from 'node:worker_threads';
import { IoStoreError } from '../errors.js';
import { serveTasks } from '../util/worker-pool.js';
import { setKeptV8Flags } from '../util/v8-flags.js';
import { PakOutThread, writePakSegment, type PakOutResult, type PakOutSegment } from './pak-stored-out.js';

/** What a pak-out worker starts with: a flag set to stop it between files (an interrupt), and V8's kept flags. */
export interface PakOutWorkerSetup {
  stop: Int32Array;
  v8Flags: string[];
}

const setup = workerData as PakOutWorkerSetup;
// As copy-worker.ts: V8's flags set again once this bundle is loaded (the young generation kept small).
setKeptV8Flags(setup.v8Flags);
const thread = new PakOutThread();
const stopped = () => {
  if (Atomics.load(setup.stop, 0) !== 0) throw new IoStoreError('IO', 'interrupted');
};

serveTasks<PakOutSegment, PakOutResult>(async (segment) => {
  const r = writePakSegment(segment, thread, stopped);
  return { result: r, transfer: [r.written.buffer as ArrayBuffer] };
});
