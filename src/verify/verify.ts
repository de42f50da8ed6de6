import { createHash } from 'node:crypto';
import type { ContainerReader } from '../cas/container-reader.js';
import { IoStoreError } from '../errors.js';
import { createChunkHasher, type ChunkHashAlgorithm } from '../hash/chunk-hash.js';
import { bytesEqual, toHex } from '../util/bytes.js';
import pLimit from 'p-limit';
import { ChunkPool, defaultThreads } from '../unpack/chunk-pool.js';
import { metaHashAlgorithm } from '../unpack/write-chunk.js';

export interface VerifyOptions {
  /** Chunk hash algorithm; default by engine generation (BLAKE3 for UE5, SHA-1 for UE4). */
  algorithm?: ChunkHashAlgorithm;
  onProgress?: (p: { chunksDone: number; chunksTotal: number; bytesDone: number; bytesTotal: number }) => void;
  /**
   * Worker threads hashing whole chunks (0: all on this thread). Default: one per core (at most 8) for 32 MiB or
   * more of chunk data, when the reader was opened from files and its codecs can be rebuilt in a worker.
   */
  threads?: number;
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
  const hasher = await createChunkHasher(algorithm);
  const r: VerifyResult = {
    file: toc.source, algorithm, chunks: toc.chunkCount, verified: 0, bytes: 0, mismatches: [], errors: [],
    blockSignatureMismatches: [], signed: toc.signatures !== null, ok: false,
  };
  const progress = { chunksDone: 0, chunksTotal: toc.chunkCount, bytesDone: 0, bytesTotal: toc.totals().rawSize };
  const threads = o.threads ?? defaultThreads(progress.bytesTotal);
  const setup = threads > 0 ? ChunkPool.setupFor([reader], reader.codecs) : undefined;
  const pool = setup ? new ChunkPool(threads, setup) : undefined;
  const digestOf = async (i: number): Promise<Uint8Array> => {
    if (pool) {
      return (await pool.run({ kind: 'hash', container: 0, index: i, algorithm })).digest!;
    }
    hasher.reset();
    for await (const piece of reader.chunkBlocks(i)) hasher.update(piece);
    return hasher.digest();
  };
  const limit = pLimit(pool ? pool.size * 4 : 1);
  try {
    await Promise.all(
      Array.from({ length: toc.chunkCount }, (_, i) =>
        limit(async () => {
          const path = toc.chunkPath(i) ?? '';
          try {
            const actual = await digestOf(i);
            const expected = toc.chunkHash(i).subarray(0, 20);
            if (!bytesEqual(actual, expected)) {
              r.mismatches.push({ index: i, id: toc.chunkIdHex(i), type: toc.chunkTypeName(i), path, expected: toHex(expected), actual: toHex(actual) });
            } else {
              r.verified++;
            }
            r.bytes += toc.chunkSize(i);
          } catch (e) {
            if (!(e instanceof IoStoreError)) throw e;
            r.errors.push({ index: i, id: toc.chunkIdHex(i), path, code: e.code, message: e.message });
          }
          progress.chunksDone++;
          progress.bytesDone += toc.chunkSize(i);
          o.onProgress?.({ ...progress });
        }),
      ),
    );
  } finally {
    await pool?.close();
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
