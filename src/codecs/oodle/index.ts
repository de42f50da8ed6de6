import type { Codec } from '../codec.js';
import { corrupt } from './corrupt.js';
import { oodleCompress, type OodleEncodeOptions } from './encode/index.js';
import { allocateOutput, BLOCK_SIZE, decodeStream } from './quantum.js';
import { wasmDecodeInto, wasmDecodeView, wasmOutputArea } from './wasm.js';

export { oodleCompress, DEFAULT_LEVEL as OODLE_DEFAULT_LEVEL, MAX_LEVEL as OODLE_MAX_LEVEL, MIN_LEVEL as OODLE_MIN_LEVEL } from './encode/index.js';
export type { OodleEncodeOptions, OodleEncoderName } from './encode/index.js';

/**
 * Oodle LZ decoding: Kraken, Mermaid, Selkie and Leviathan (the codecs Unreal Engine uses for IoStore blocks), and
 * BitKnit. Streams go to the WebAssembly build of the decoder (wasm.ts) where it runs, else to the TypeScript one
 * (quantum.ts and the modules it calls), which is the reference. Every read and write is bounds-checked; a corrupt
 * stream throws an IoStoreError with code 'CODEC'. Encoding (Kraken, Mermaid, Selkie, Leviathan) is in encode/.
 */

/** The least a 256 KiB block can take in a valid stream: a two-byte header and a one-byte-fill quantum. */
const MIN_BLOCK_COST = 5;

/** Decodes a raw Oodle stream (as stored in an IoStore block) into exactly `uncompressedSize` bytes. */
export function oodleDecompress(src: Uint8Array, uncompressedSize: number): Uint8Array {
  if (!Number.isSafeInteger(uncompressedSize) || uncompressedSize < 0) {
    corrupt(`bad uncompressed size ${uncompressedSize}`, 'the call');
  }
  if (uncompressedSize === 0) return new Uint8Array(0);
  // Checked before the output is allocated, so that a tiny stream cannot make us reserve gigabytes.
  if (src.length < MIN_BLOCK_COST * Math.floor(uncompressedSize / BLOCK_SIZE) + 3) {
    corrupt(`${src.length}-byte stream too short for ${uncompressedSize} bytes of output`, 0);
  }
  const out = allocateOutput(uncompressedSize);
  if (!wasmDecodeInto(src, out)) decodeStream(src, uncompressedSize, out);
  return out;
}


/**
 * Decodes a raw Oodle stream into `out`, whose length is the uncompressed size: a caller that assembles blocks into
 * a larger buffer passes `buffer.subarray(at, at + size)` and saves an allocation, its zeroing and a copy per block.
 * On a corrupt stream it throws (IoStoreError, code 'CODEC') with `out` partly written; nothing outside `out` is
 * ever written.
 */
export function oodleDecompressInto(src: Uint8Array, out: Uint8Array): void {
  const size = out.length;
  if (size === 0) return;
  if (src.length < MIN_BLOCK_COST * Math.floor(size / BLOCK_SIZE) + 3) {
    corrupt(`${src.length}-byte stream too short for ${size} bytes of output`, 0);
  }
  if (!wasmDecodeInto(src, out)) decodeStream(src, size, out);
}

/**
 * Decodes a raw Oodle stream and returns a view of the output where the decoder left it: in the WebAssembly module's
 * memory, valid only until the next Oodle decode on this thread, with no copy out (hash, write or compare it, then
 * let it go; a caller that keeps the bytes uses oodleDecompress). Where the TypeScript decoder takes the stream the
 * view is of a fresh array. A corrupt stream throws as oodleDecompress does.
 */
export function oodleDecompressView(src: Uint8Array, uncompressedSize: number): Uint8Array {
  if (!Number.isSafeInteger(uncompressedSize) || uncompressedSize < 0) {
    corrupt(`bad uncompressed size ${uncompressedSize}`, 'the call');
  }
  if (uncompressedSize === 0) return new Uint8Array(0);
  if (src.length < MIN_BLOCK_COST * Math.floor(uncompressedSize / BLOCK_SIZE) + 3) {
    corrupt(`${src.length}-byte stream too short for ${uncompressedSize} bytes of output`, 0);
  }
  const view = wasmDecodeView(src, uncompressedSize);
  if (view) return view;
  // The TypeScript decoder's output goes to a reused buffer under the same rule (valid until the next decode).
  if (uncompressedSize > MAX_REUSED_VIEW) return decodeStream(src, uncompressedSize);
  if (viewBuffer.length < uncompressedSize) viewBuffer = allocateOutput(uncompressedSize);
  return decodeStream(src, uncompressedSize, viewBuffer.subarray(0, uncompressedSize));
}

/** Largest output oodleDecompressView's TypeScript path keeps a buffer for between calls. */
const MAX_REUSED_VIEW = 16 << 20;
let viewBuffer: Uint8Array = new Uint8Array(0);

/** The TypeScript decoder alone, whatever the runtime offers: the reference that the WebAssembly build is checked against. */
export function oodleDecompressReference(src: Uint8Array, uncompressedSize: number): Uint8Array {
  if (uncompressedSize === 0) return new Uint8Array(0);
  if (src.length < MIN_BLOCK_COST * Math.floor(uncompressedSize / BLOCK_SIZE) + 3) {
    corrupt(`${src.length}-byte stream too short for ${uncompressedSize} bytes of output`, 0);
  }
  return decodeStream(src, uncompressedSize);
}

export const oodleCodec: Codec = {
  name: 'Oodle',
  decompress: oodleDecompress,
  // Straight into the reader's buffer: no fresh 64 KiB block (zeroed, then copied) per block.
  decompressInto: (src, size, out) => oodleDecompressInto(src, out.subarray(0, size)),
  // The WebAssembly module's own memory: blocks decoded into it stay there (no copy out per block).
  outputArea: wasmOutputArea,
  // Kraken at the default level; oodleEncoder picks another codec or level.
  compress: (src) => oodleCompress(src),
};

/** The Oodle codec writing blocks with `o` (codec, level); it decodes every Oodle block as oodleCodec does. */
export function oodleEncoder(o: OodleEncodeOptions): Codec {
  return { ...oodleCodec, compress: (src) => oodleCompress(src, o) };
}
