// @ts-expect-error lz4js ships no type declarations
import * as lz4js from 'lz4js';
import type { Codec } from './codec.js';
import { codecError } from './errors.js';
import { IoStoreError } from '../errors.js';

const lz4 = lz4js as {
  decompressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, dIndex: number): number;
  compressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, hashTable: Uint32Array): number;
  compressBound(n: number): number;
};

/** LZ4 raw block format (no frame), as IoStore stores it. */
export const lz4Codec: Codec = {
  name: 'LZ4',
  decompress(src, size) {
    // lz4js does not bound its writes; typed arrays drop out-of-range stores, so an oversized result shows as a
    // length mismatch instead of corrupting memory.
    const out = new Uint8Array(size);
    let n: number;
    try {
      n = lz4.decompressBlock(src, out, 0, src.length, 0);
    } catch (e) {
      throw codecError('LZ4', e);
    }
    if (n !== size) throw new IoStoreError('CODEC', `LZ4: block decoded to ${n} bytes, expected ${size}`);
    return out;
  },
  compress(src) {
    const dst = new Uint8Array(lz4.compressBound(src.length));
    const n = lz4.compressBlock(src, dst, 0, src.length, new Uint32Array(1 << 16));
    // lz4js reports incompressible input as 0: hand back the input so the block is stored raw.
    return n > 0 ? dst.subarray(0, n) : src;
  },
};
