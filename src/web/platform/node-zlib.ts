/** The browser build's stand-in for node:zlib: fflate behind the synchronous calls the library makes. */
import { decompress as brotliDecompress } from 'brotli/decompress';
import { gunzipSync as fGunzip, gzipSync as fGzip, unzlibSync, zlibSync } from 'fflate';

type Options = { maxOutputLength?: number };
const out = (o?: Options) => (o?.maxOutputLength ? { out: new Uint8Array(o.maxOutputLength) } : {});

export const inflateSync = (src: Uint8Array, o?: Options) => unzlibSync(src, out(o));
export const gunzipSync = (src: Uint8Array, o?: Options) => fGunzip(src, out(o));
export const deflateSync = (src: Uint8Array) => zlibSync(src);
/** Brotli (usmap files) through the `brotli` package's pure-JS decoder: browsers have no synchronous one. */
export const brotliDecompressSync = (src: Uint8Array, o?: Options) => brotliDecompress(src, o?.maxOutputLength ? o.maxOutputLength - 1 : null);
export const gzipSync = (src: Uint8Array) => fGzip(src);
/** No native stream here: the Zlib codec sees no handle and decodes with inflateSync (then copies) instead. */
export const createInflate = () => ({});
export const constants = { Z_FINISH: 4 };
