import * as zlib from 'node:zlib';
import type { Codec } from './codec.js';
import { checkedOutput, codecError } from './errors.js';

type ZstdSync = (src: Uint8Array, o?: { maxOutputLength?: number }) => Buffer;
const z = zlib as unknown as { zstdDecompressSync?: ZstdSync; zstdCompressSync?: ZstdSync };

/**
 * Zstd through node:zlib, which has it from Node.js 22.15 / 23.8; undefined on older runtimes (a pak naming Zstd
 * then fails with a CODEC error saying so). No npm dependency: the maintained packages are native or WASM builds.
 */
export const zstdNode: Codec | undefined =
  z.zstdDecompressSync && z.zstdCompressSync
    ? {
        name: 'Zstd',
        decompress(src, size) {
          let out: Uint8Array;
          try {
            out = z.zstdDecompressSync!(src, { maxOutputLength: size + 1 });
          } catch (e) {
            throw codecError('Zstd', e);
          }
          return checkedOutput('Zstd', out, size);
        },
        compress: (src) => new Uint8Array(z.zstdCompressSync!(src)),
      }
    : undefined;
