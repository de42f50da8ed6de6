import { createHash } from 'node:crypto';

/** The chunk-meta hash algorithms: BLAKE3 truncated to 20 bytes (UE5), SHA-1 (UE 4.26/4.27). */
export type ChunkHashAlgorithm = 'blake3' | 'sha1';

export interface ChunkHasher {
  update(data: Uint8Array): void;
  /** The 20-byte hash; the hasher can be reused after `reset()`. */
  digest(): Uint8Array;
  reset(): void;
}

/** A streaming chunk hasher (BLAKE3 from hash-wasm, SHA-1 from node:crypto: the fastest measured on Node). */
export async function createChunkHasher(algorithm: ChunkHashAlgorithm): Promise<ChunkHasher> {
  if (algorithm === 'sha1') {
    let h = createHash('sha1');
    return {
      update: (d) => void h.update(d),
      digest: () => new Uint8Array(h.digest()),
      reset: () => void (h = createHash('sha1')),
    };
  }
  // Loaded on first use: hash-wasm takes ~40 ms to load, which every worker thread would pay.
  const { createBLAKE3 } = await import('hash-wasm');
  const h = await createBLAKE3(256);
  h.init();
  return {
    update: (d) => void h.update(d),
    digest: () => (h.digest('binary') as Uint8Array).slice(0, 20),
    reset: () => void h.init(),
  };
}

/** One-shot hash of a whole buffer. */
export async function chunkHash(algorithm: ChunkHashAlgorithm, data: Uint8Array): Promise<Uint8Array> {
  const h = await createChunkHasher(algorithm);
  h.update(data);
  return h.digest();
}
