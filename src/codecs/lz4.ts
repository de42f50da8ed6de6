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

/**
 * A valid LZ4 block that holds `src` as literals only: for formats with one method per file (pak), where a block
 * that does not compress cannot be marked raw as IoStore blocks can.
 */
export function lz4LiteralBlock(src: Uint8Array): Uint8Array {
  const n = src.length;
  const extra = n >= 15 ? Math.floor((n - 15) / 255) + 1 : 0;
  const out = new Uint8Array(1 + extra + n);
  out[0] = Math.min(n, 15) << 4;
  let p = 1;
  if (n >= 15) {
    let rest = n - 15;
    while (rest >= 255) {
      out[p++] = 255;
      rest -= 255;
    }
    out[p++] = rest;
  }
  out.set(src, p);
  return out;
}
