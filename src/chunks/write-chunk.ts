import type { ContainerReader } from '../cas/container-reader.js';
import { IoStoreError } from '../errors.js';
import type { ChunkHashAlgorithm, ChunkHasher } from '../hash/chunk-hash.js';
import type { IoStoreToc } from '../toc/toc.js';
import { bytesEqual, toHex } from '../util/bytes.js';
import { writeFileAtomic, type AtomicWriteOptions } from '../layout/output.js';

/** The chunk-meta hash of a container's generation: SHA-1 for UE4, BLAKE3-160 for UE5. */
export function metaHashAlgorithm(toc: IoStoreToc): ChunkHashAlgorithm {
  return toc.generation === 'UE4' ? 'sha1' : 'blake3';
}

/**
 * Writes chunk i of a container to `target` atomically (on the main thread or a worker). With a hasher, the chunk
 * is hashed as it is written and gets its final name only if the hash equals its chunk meta (else HASH_MISMATCH,
 * and no file).
 */
export async function writeChunkFile(reader: ContainerReader, i: number, target: string, hasher?: ChunkHasher, how: AtomicWriteOptions = {}): Promise<number> {
  if (!hasher) return writeFileAtomic(target, reader.chunkSpans(i), undefined, how);
  const toc = reader.toc;
  hasher.reset();
  async function* hashed() {
    for await (const span of reader.chunkSpans(i)) {
      for (const piece of span) hasher!.update(piece);
      yield span;
    }
  }
  return writeFileAtomic(target, hashed(), () => {
    const actual = hasher.digest();
    const expected = toc.chunkHash(i).subarray(0, 20);
    if (!bytesEqual(actual, expected)) {
      throw new IoStoreError('HASH_MISMATCH', `chunk ${toc.chunkIdHex(i)} hashes to ${toHex(actual)}, its meta says ${toHex(expected)}`, { file: toc.source });
    }
  }, how);
}
