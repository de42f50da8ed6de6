// An encode worker (see encode-pool.ts): reads a chunk's file, hashes it and compresses its blocks.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { IoStoreError } from '../errors.js';
import { defaultCodecs, encoderFor } from '../codecs/registry.js';
import type { Codec } from '../codecs/codec.js';
import { createChunkHasher, type ChunkHashAlgorithm, type ChunkHasher } from '../hash/chunk-hash.js';
import { ioError } from '../toc/read-file.js';
import { serveTasks } from '../util/worker-pool.js';
import { encodeChunk } from './block-encoder.js';
import { workerData } from 'node:worker_threads';
import { MAX_WORKER_CHUNK, type EncodeReply, type EncodeTask, type EncodeWorkerSetup } from './encode-pool.js';

// Every chunk is read into this one buffer: its blocks are copied out before the next read. Fresh buffers per chunk
// left tens of megabytes of garbage per worker between collections.
let scratch = new Uint8Array(0);

/** A chunk file, whole, in the scratch buffer; one that grew past what a worker holds since pack looked at it is refused. */
function readSmallFile(file: string): Uint8Array {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw ioError(e, file);
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_WORKER_CHUNK) throw new IoStoreError('IO', `grew to ${size} bytes while being packed`, { file });
    if (scratch.length < size) scratch = new Uint8Array(Math.max(size, 2 * scratch.length));
    const out = scratch.subarray(0, size);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, out, done, size - done, done);
      if (n === 0) throw new IoStoreError('IO', `shrank to ${done} bytes while being packed`, { file });
      done += n;
    }
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

serveTasks<EncodeTask, EncodeReply>(async (task) => {
  const bytes = readSmallFile(task.file);
  let hasher = hashers.get(task.algorithm);
  if (!hasher) hashers.set(task.algorithm, (hasher = createChunkHasher(task.algorithm)));
  const codec = codecOf(task);
  const chunk = encodeChunk(bytes, task.blockSize, codec, task.memoryMapped, await hasher, stopped);
  // One buffer for all payloads, handed over rather than copied.
  const total = chunk.blocks.reduce((a, b) => a + b.payload.length, 0);
  const data = new Uint8Array(total);
  let at = 0;
  for (const b of chunk.blocks) {
    data.set(b.payload, at);
    at += b.payload.length;
  }
  const result: EncodeReply = {
    data: data.buffer,
    payloadSizes: chunk.blocks.map((b) => b.payload.length),
    rawSizes: chunk.blocks.map((b) => b.rawSize),
    compressed: chunk.blocks.map((b) => b.compressed),
    hash: chunk.hash,
    length: chunk.length,
  };
  return { result, transfer: [data.buffer] };
});
