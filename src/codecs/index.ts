/** Block codecs behind one registry; containers name the method per block. */
export type { Codec, CodecRecipe } from './codec.js';
export { CodecRegistry, codecsFromRecipes, defaultCodecs, noneCodec } from './registry.js';
export { zlibNode, gzipNode } from './zlib.js';
export { zlibFflate, gzipFflate } from './zlib-fflate.js';
export { lz4Codec } from './lz4.js';
export { oodleCodec, oodleDecompress, oodleDecompressInto, oodleDecompressReference, oodleDecompressView } from './oodle/index.js';
export { loadNativeOodle, codecsWithNativeOodle } from './native.js';
