import type { Codec } from '../codecs/codec.js';
import type { ChunkHasher } from '../hash/chunk-hash.js';

/** One block as it will be stored, before padding and encryption. */
export interface EncodedBlock {
  /** The codec's form when it is shorter than the raw bytes, else the raw bytes. */
  payload: Uint8Array;
  rawSize: number;
  compressed: boolean;
}

/** A whole chunk encoded ahead of the writer (on a worker thread): its blocks and chunk-meta hash. */
export interface EncodedChunk {
  blocks: EncodedBlock[];
  hash: Uint8Array;
  length: number;
}

/** Compresses a block when that pays. The engine never compresses memory-mapped chunks: they are read in place. */
export function encodeBlock(raw: Uint8Array, codec: Pick<Codec, 'compress'> | undefined, memoryMapped: boolean): EncodedBlock {
  const packed = codec && !memoryMapped ? codec.compress?.(raw) : undefined;
  if (packed && packed.length > 0 && packed.length < raw.length) return { payload: packed, rawSize: raw.length, compressed: true };
  return { payload: raw, rawSize: raw.length, compressed: false };
}

/** Cuts a chunk held whole into blocks of `blockSize`, hashes it and encodes every block. */
export function encodeChunk(bytes: Uint8Array, blockSize: number, codec: Pick<Codec, 'compress'> | undefined, memoryMapped: boolean, hasher: ChunkHasher, beforeBlock?: () => void): EncodedChunk {
  hasher.reset();
  hasher.update(bytes);
  const blocks: EncodedBlock[] = [];
  for (let o = 0; o < bytes.length; o += blockSize) {
    beforeBlock?.();
    blocks.push(encodeBlock(bytes.subarray(o, o + blockSize), codec, memoryMapped));
  }
  return { blocks, hash: hasher.digest(), length: bytes.length };
}
