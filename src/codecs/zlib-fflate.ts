import { gunzipSync as fflateGunzip, gzipSync as fflateGzip, unzlibSync, zlibSync } from 'fflate';
import type { Codec } from './codec.js';
import { checkedOutput, codecError } from './errors.js';

// The pure-JS Zlib and Gzip codecs, for hosts without node:zlib (browsers). A module of their own so that Node
// processes, and every worker thread, do not load fflate for nothing.

function fflateCodec(name: string, decode: (src: Uint8Array, o: { out: Uint8Array }) => Uint8Array, encode: (src: Uint8Array) => Uint8Array): Codec {
  return {
    name,
    decompress(src, size) {
      try {
        return checkedOutput(name, decode(src, { out: new Uint8Array(size + 1) }), size);
      } catch (e) {
        throw codecError(name, e);
      }
    },
    compress: encode,
  };
}

export const zlibFflate = fflateCodec('Zlib', unzlibSync, (s) => zlibSync(s));
export const gzipFflate = fflateCodec('Gzip', fflateGunzip, (s) => fflateGzip(s));
