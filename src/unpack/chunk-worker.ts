// A chunk worker (see chunk-pool.ts): opens the containers it is asked about and does whole-chunk tasks one at a
// time with blocking file calls. It never holds more than one read span and one write batch.
import { readFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { ContainerReader } from '../cas/container-reader.js';
import { fileSourceSync } from '../cas/source.js';
import { codecsFromRecipes, type CodecRegistry } from '../codecs/registry.js';
import { createChunkHasher, type ChunkHashAlgorithm, type ChunkHasher } from '../hash/chunk-hash.js';
import { readToc } from '../toc/toc.js';
import { ioError } from '../toc/read-file.js';
import type { ChunkOutcome, ChunkTask, WorkerSetup } from './chunk-pool.js';
import { serveTasks } from '../util/worker-pool.js';
import { metaHashAlgorithm, writeChunkFile } from './write-chunk.js';

const setup = workerData as WorkerSetup;
let codecs: Promise<CodecRegistry> | undefined;
const readers = new Map<number, Promise<ContainerReader>>();
const hashers = new Map<ChunkHashAlgorithm, Promise<ChunkHasher>>();

function reader(c: number): Promise<ContainerReader> {
  let r = readers.get(c);
  if (!r) {
    const o = setup.containers[c]!;
    codecs ??= codecsFromRecipes(setup.recipes);
    r = codecs.then((registry) => {
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(readFileSync(o.utoc));
      } catch (e) {
        throw ioError(e, o.utoc);
      }
      const toc = readToc(bytes, { source: o.utoc, ...(o.aesKey ? { aesKey: o.aesKey } : {}), ...(o.engine ? { engine: o.engine } : {}) });
      // No block cache: a worker reads each chunk once, front to back.
      return new ContainerReader(toc, o.partitions.map((p) => fileSourceSync(p, { reuseBuffer: true })), { ...(o.aesKey ? { aesKey: o.aesKey } : {}), codecs: registry, cacheBlocks: 0, origin: o });
    });
    readers.set(c, r);
  }
  return r;
}

function hasher(algorithm: ChunkHashAlgorithm): Promise<ChunkHasher> {
  let h = hashers.get(algorithm);
  if (!h) hashers.set(algorithm, (h = createChunkHasher(algorithm)));
  return h;
}

async function hashed(r: ContainerReader, i: number, h: ChunkHasher): Promise<{ bytes: number; digest: Uint8Array }> {
  h.reset();
  let bytes = 0;
  for await (const span of r.chunkSpans(i)) {
    for (const piece of span) {
      h.update(piece);
      bytes += piece.length;
    }
  }
  return { bytes, digest: h.digest() };
}

async function perform(task: ChunkTask): Promise<ChunkOutcome> {
  const r = await reader(task.container);
  if (task.kind === 'hash') {
    const { bytes, digest } = await hashed(r, task.index, await hasher(task.algorithm));
    return { bytes, digest };
  }
  // One reused read buffer (transient spans): each is written before the next is read.
  const h = task.verify ? await hasher(metaHashAlgorithm(r.toc)) : undefined;
  return { bytes: await writeChunkFile(r, task.index, task.target, h, { sync: true, transient: true, tempPath: task.tmp }) };
}

serveTasks<ChunkTask, ChunkOutcome>(async (task) => ({ result: await perform(task) }));
