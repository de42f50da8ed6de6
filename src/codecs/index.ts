/** Block codecs behind one registry; containers name the method per block. */
export type { Codec } from './codec.js';
export { CodecRegistry, defaultCodecs, noneCodec } from './registry.js';
export { zlibNode, zlibFflate, gzipNode, gzipFflate } from './zlib.js';
export { lz4Codec } from './lz4.js';
export { oodleCodec, oodleDecompress } from './oodle/index.js';
export { loadNativeOodle, codecsWithNativeOodle } from './native.js';
