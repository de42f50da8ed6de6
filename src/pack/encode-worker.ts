// An encode worker (see encode-pool.ts): reads a chunk's file, hashes it and compresses its blocks.
import { closeSync, fstatSync, openSync } from 'node:fs';
import { IoStoreError } from '../errors.js';
import { defaultCodecs, encoderFor } from '../codecs/registry.js';
import type { Codec } from '../codecs/codec.js';
import { createChunkHasher, type ChunkHashAlgorithm, type ChunkHasher } from '../hash/chunk-hash.js';
import { ioError, withIoError } from '../toc/read-file.js';
import { serveTasks } from '../util/worker-pool.js';
import { encodeChunk } from './block-encoder.js';
import { workerData } from 'node:worker_threads';
import { MAX_WORKER_CHUNK, type EncodeReply, type EncodeTask, type EncodeWorkerSetup } from './encode-pool.js';
import { ByteList } from '../util/int-list.js';
import { readFullSync } from '../util/read-full.js';

// Every chunk is read into this one buffer: its blocks are copied out before the next read. Fresh buffers per chunk
// left tens of megabytes of garbage per worker between collections.
let scratch = new Uint8Array(0);

/** A chunk file, whole, in the scratch buffer; one that grew past what a worker holds since pack looked at it is refused. */
function readSmallFile(file: string): Uint8Array {
  const fd = withIoError(file, () => openSync(file, 'r'));
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_WORKER_CHUNK) throw new IoStoreError('IO', `grew to ${size} bytes while being packed`, { file });
    if (scratch.length < size) scratch = new Uint8Array(Math.max(size, 2 * scratch.length));
    const out = scratch.subarray(0, size);
    const done = readFullSync(fd, out, 0, size, 0);
    if (done < size) throw new IoStoreError('IO', `shrank to ${done} bytes while being packed`, { file });
    return out;
  } catch (e) {
    throw e instanceof IoStoreError ? e : ioError(e, file);
  } finally {
    closeSync(fd);
  }
}

const codecs = defaultCodecs();
/** Codecs with settings, built once per worker. */
const configured = new Map<string, Codec>();

function codecOf(task: EncodeTask): Codec | undefined {
  if (task.codec === null) return undefined;
  if (!task.settings) return codecs.require(task.codec);
  const key = `${task.codec}:${JSON.stringify(task.settings)}`;
  let c = configured.get(key);
  if (!c) configured.set(key, (c = encoderFor(task.codec, task.settings)));
  return c;
}
const hashers = new Map<ChunkHashAlgorithm, Promise<ChunkHasher>>();
const stopFlag = (workerData as EncodeWorkerSetup | null)?.stop;
/** Checked between blocks: an interrupt gives the chunk up (see EncodePool). */
const stopped = () => {
  if (stopFlag && Atomics.load(stopFlag, 0) !== 0) throw new IoStoreError('IO', 'interrupted');
};

/** The payloads of a task's chunks, reused from task to task. */
const out = new ByteList(1 << 20);

serveTasks<EncodeTask, EncodeReply>(async (task) => {
  let hasher = hashers.get(task.algorithm);
  if (!hasher) hashers.set(task.algorithm, (hasher = createChunkHasher(task.algorithm)));
  const h = await hasher;
  const codec = codecOf(task);
  // Every chunk's payloads gathered in one buffer (each before the next file is read into the scratch buffer its
  // stored blocks point into), then handed over in one array of their size.
  out.clear();
  const chunks: EncodeReply['chunks'] = [];
  for (const f of task.files) {
    stopped();
    const chunk = encodeChunk(readSmallFile(f.file), task.blockSize, codec, f.memoryMapped, h, stopped);
    for (const b of chunk.blocks) out.append(b.payload);
    chunks.push({
      payloadSizes: chunk.blocks.map((b) => b.payload.length),
      rawSizes: chunk.blocks.map((b) => b.rawSize),
      compressed: chunk.blocks.map((b) => b.compressed),
      hash: chunk.hash,
      length: chunk.length,
    });
  }
  const data = out.view().slice().buffer;
  return { result: { data, chunks }, transfer: [data] };
});
