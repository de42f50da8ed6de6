import { decodeStream } from '../quantum.js';
import { wasmDecodesTo } from '../wasm.js';
import { encodeOodleStream, type OodleEncodeOptions } from './stream-encode.js';

export type { OodleEncodeOptions, OodleEncoderName } from './stream-encode.js';
export { DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL } from './levels.js';

/**
 * Oodle encoding in plain TypeScript: Kraken, Mermaid and Selkie streams that the engine's Oodle and this toolkit's
 * decoders read. Every stream is decoded back before it is returned; should it not give the input back (a bug, never
 * seen on the corpus), the input is returned stored (a valid stream of stored blocks) and `encoderFallbacks` counts it.
 */

let fallbacks = 0;

/** How many streams were stored because their encoding did not decode back to the input (0 unless a bug). */
export function encoderFallbacks(): number {
  return fallbacks;
}

const check = { buf: new Uint8Array(0) };

/** Encodes `src` as a raw Oodle stream (no size prefix: IoStore and pak blocks keep the size in their tables). */
export function oodleCompress(src: Uint8Array, o: OodleEncodeOptions = {}): Uint8Array {
  const stream = encodeOodleStream(src, o);
  if (verifies(stream, src)) return stream;
  fallbacks++;
  return storedStream(src, o);
}

/** Whether `stream` decodes to exactly `src`. */
function verifies(stream: Uint8Array, src: Uint8Array): boolean {
  // The decoder unpack and verify use: the WebAssembly build where it runs (compared in its memory), else the
  // TypeScript one.
  const same = wasmDecodesTo(stream, src);
  if (same !== undefined) return same;
  if (check.buf.length < src.length) check.buf = new Uint8Array(Math.max(src.length, 2 * check.buf.length));
  const out = check.buf.subarray(0, src.length);
  try {
    decodeStream(stream, src.length, out);
  } catch {
    return false;
  }
  return sameBytes(out, src);
}

/** Byte equality (no Buffer: the page runs this too), eight bytes a step. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length;
  const va = new DataView(a.buffer, a.byteOffset, n);
  const vb = new DataView(b.buffer, b.byteOffset, n);
  let i = 0;
  for (; i + 8 <= n; i += 8) if (va.getUint32(i) !== vb.getUint32(i) || va.getUint32(i + 4) !== vb.getUint32(i + 4)) return false;
  for (; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A stream of stored blocks: the input as it is, behind two-byte block headers. */
export function storedStream(src: Uint8Array, o: OodleEncodeOptions = {}): Uint8Array {
  const type = o.codec === 'mermaid' || o.codec === 'selkie' ? 10 : o.codec === 'leviathan' ? 12 : 6;
  const blocks = Math.ceil(src.length / 0x40000);
  const out = new Uint8Array(src.length + 2 * blocks);
  let op = 0;
  for (let bp = 0; bp < src.length; bp += 0x40000) {
    out[op++] = bp === 0 ? 0xcc : 0x4c;
    out[op++] = type;
    const n = Math.min(0x40000, src.length - bp);
    out.set(src.subarray(bp, bp + n), op);
    op += n;
  }
  return out;
}

/** The encoder without the check, for tests that look for the bugs the check would hide. */
export { encodeOodleStream } from './stream-encode.js';
