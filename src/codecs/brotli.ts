import { brotliDecompressSync } from 'node:zlib';
import { checkedOutput, codecError } from './errors.js';

/**
 * One Brotli stream of a known decoded size. Node decodes natively; the browser build maps node:zlib to its seam
 * (src/web/platform/node-zlib.ts), which decodes with the `brotli` package's pure-JS decoder.
 */
export function brotliDecompress(src: Uint8Array, size: number): Uint8Array {
  let out: Uint8Array;
  try {
    out = brotliDecompressSync(src, { maxOutputLength: Math.max(1, size + 1) });
  } catch (e) {
    throw codecError('Brotli', e);
  }
  return checkedOutput('Brotli', new Uint8Array(out.buffer, out.byteOffset, out.byteLength), size);
}
