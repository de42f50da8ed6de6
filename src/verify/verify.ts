import { createHash } from 'node:crypto';
import type { ContainerReader } from '../cas/container-reader.js';
import { IoStoreError, type IoStoreErrorCode } from '../errors.js';
import { createChunkHasher, type ChunkHashAlgorithm } from '../hash/chunk-hash.js';
import { bytesEqual, toHex } from '../util/bytes.js';
import { LoopTaskBuilder } from '../chunks/chunk-loop.js';
import { defaultHashThreads, runChunkTasks, startLoopWorkers, type WorkersAhead } from '../chunks/loop-pool.js';
import { metaHashAlgorithm } from '../chunks/write-chunk.js';

export interface VerifyOptions {
  /** Chunk hash algorithm; default by engine generation (BLAKE3 for UE5, SHA-1 for UE4). */
  algorithm?: ChunkHashAlgorithm;
  onProgress?: (p: { chunksDone: number; chunksTotal: number; bytesDone: number; bytesTotal: number }) => void;
  /**
   * Worker threads hashing whole chunks beside this thread (0: this thread alone). Default: one per other core (at
   * most 7) when 16 MiB or more of blocks need decoding, the reader was opened from files and its codecs can be
   * rebuilt in a worker; for stored blocks one when there are 128 MiB or more of chunks, else none.
   */
  threads?: number;
  /**
   * Workers started before the container was opened (`new WorkersAhead(aheadThreads('hash', ...))`): used as the
   * first of those `threads` asks for, the others terminated. The caller still discards them once the run is over.
   */
  workersAhead?: WorkersAhead;
}

export interface ChunkMismatch {
  index: number;
  id: string;
  type: string;
  path: string;
  expected: string;
  actual: string;
}

export interface VerifyProblem {
  index: number;
  id: string;
  path: string;
  code: string;
  message: string;
}

export interface VerifyResult {
  file: string;
  algorithm: ChunkHashAlgorithm;
  chunks: number;
  verified: number;
  bytes: number;
  mismatches: ChunkMismatch[];
  /** Chunks that could not be read or decoded (the decode error names the block). */
  errors: VerifyProblem[];
  /** Signed containers: blocks whose SHA-1 over the stored bytes differs from the signature table. */
  blockSignatureMismatches: number[];
  signed: boolean;
  ok: boolean;
}

/**
 * Re-hashes every chunk of a container against its chunk meta, and for Signed containers every stored block against
 * the per-block SHA-1 table. (The RSA signatures over those tables need the game's public key and are not checked.)
 */
export async function verifyContainer(reader: ContainerReader, o: VerifyOptions = {}): Promise<VerifyResult> {
  const toc = reader.toc;
  const algorithm = o.algorithm ?? metaHashAlgorithm(toc);
  const r: VerifyResult = {
    file: toc.source, algorithm, chunks: toc.chunkCount, verified: 0, bytes: 0, mismatches: [], errors: [],
    blockSignatureMismatches: [], signed: toc.signatures !== null, ok: false,
  };
  const progress = { chunksDone: 0, chunksTotal: toc.chunkCount, bytesDone: 0, bytesTotal: toc.totals().rawSize };
  // A chunk's path is made only for a problem to report: one string per chunk was garbage the collector copied.
  const record = (i: number, actual: Uint8Array | undefined, e?: IoStoreError) => {
    if (e) {
      r.errors.push({ index: i, id: toc.chunkIdHex(i), path: toc.chunkPath(i) ?? '', code: e.code, message: e.message });
      return;
    }
    if (actual) {
      const expected = toc.chunkHash(i).subarray(0, 20);
      r.mismatches.push({ index: i, id: toc.chunkIdHex(i), type: toc.chunkTypeName(i), path: toc.chunkPath(i) ?? '', expected: toHex(expected), actual: toHex(actual) });
    } else {
      r.verified++;
    }
    r.bytes += toc.chunkSize(i);
  };
  if (reader.origin || reader.readsSync) {
    // Chunks in .ucas order, so the reads go front to back; hashed with blocking reads on this thread, and on
    // workers when the blocks need decoding, started first so they open the container while the order is made.
    const workers = startLoopWorkers([reader], reader.codecs, o.threads ?? defaultHashThreads([reader]), o.workersAhead ? { ahead: o.workersAhead } : {});
    const build = new LoopTaskBuilder();
    // In one call: a loop adding 150,000 tasks one by one was ~40 ms of this thread before any chunk was hashed.
    build.addAll(0, toc.chunksInUcasOrder());
    const tasks = build.finish();
    const run = await runChunkTasks([reader], tasks, {
      ...(workers ? { workers } : { threads: 0 }),
      codecs: reader.codecs,
      hash: [algorithm],
      onProgress: (chunks, bytes) => o.onProgress?.({ ...progress, chunksDone: chunks, bytesDone: bytes }),
    });
    // Counts for the chunks that matched; an entry only for those that did not, or failed.
    r.verified = run.done[0]! - run.mismatches.length;
    r.bytes = run.bytes;
    for (const m of run.mismatches) {
      const i = tasks.index(m.task);
      r.mismatches.push({ index: i, id: toc.chunkIdHex(i), type: toc.chunkTypeName(i), path: toc.chunkPath(i) ?? '', expected: toHex(toc.chunkHash(i).subarray(0, 20)), actual: toHex(m.actual) });
    }
    for (const f of run.failures) record(tasks.index(f.task), undefined, new IoStoreError(f.code as IoStoreErrorCode, f.message));
  } else {
    // Sources with only asynchronous reads (a browser's Blob): one chunk after another on this thread.
    void o.workersAhead?.discard();
    const hasher = await createChunkHasher(algorithm);
    for (let i = 0; i < toc.chunkCount; i++) {
      try {
        hasher.reset();
        for await (const piece of reader.chunkBlocks(i)) hasher.update(piece);
        const actual = hasher.digest();
        record(i, bytesEqual(actual, toc.chunkHash(i).subarray(0, 20)) ? undefined : actual);
      } catch (e) {
        if (!(e instanceof IoStoreError)) throw e;
        record(i, undefined, e);
      }
      progress.chunksDone++;
      progress.bytesDone += toc.chunkSize(i);
      o.onProgress?.({ ...progress });
    }
  }
  // Chunks finish out of order on several threads; reports list them in TOC order.
  r.mismatches.sort((x, y) => x.index - y.index);
  r.errors.sort((x, y) => x.index - y.index);
  if (toc.signatures) {
    const table = toc.signatures.blockHashes;
    for (let b = 0; b < toc.blockCount; b++) {
      // The signature covers the block as stored: padded to 16 bytes and encrypted when the container is.
      const { partition, offset } = reader.locate(b);
      const stored = await reader.partitions[partition]!.read(offset, (toc.blocks.compressedSize(b) + 15) & ~15);
      const sha = createHash('sha1').update(stored).digest();
      if (!bytesEqual(sha, table.subarray(b * 20, b * 20 + 20))) r.blockSignatureMismatches.push(b);
    }
  }
  r.ok = r.mismatches.length === 0 && r.errors.length === 0 && r.blockSignatureMismatches.length === 0;
  return r;
}
