import { decompress } from 'fzstd';
import { checkedOutput, codecError } from './errors.js';

/**
 * One Zstandard frame of a known decoded size, decoded in JavaScript (fzstd): Node 20 has no Zstd in node:zlib and
 * the browser none at all, so this one decoder serves both (usmap files of dumpers are mostly Zstd-compressed).
 */
export function zstdDecompress(src: Uint8Array, size: number): Uint8Array {
  let out: Uint8Array;
  try {
    out = decompress(src, new Uint8Array(size));
  } catch (e) {
    throw codecError('Zstd', e);
  }
  return checkedOutput('Zstd', out, size);
}
