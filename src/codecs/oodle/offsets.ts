import { BackwardBits, ForwardBits } from './bit-reader.js';
import { corrupt } from './corrupt.js';

/**
 * Kraken and Leviathan send match offsets and long lengths in two parts: one entropy-coded byte per value (a
 * "bucket") and the value's remaining raw bits. The raw bits of consecutive values alternate between a bit stream
 * read forward from the start of the chunk's tail and one read backward from its end; the two must meet exactly.
 */

/** Long lengths are rare: at most one per 256 bytes of a 128 KiB chunk. */
const MAX_LONG_LENGTHS = 512;
const longLens = new Int32Array(MAX_LONG_LENGTHS);

/** Offsets this far back cannot exist in any output a Uint8Array can hold. */
const MAX_DISTANCE = 0x7fffffff;

/**
 * Expands `offCount` packed offsets into negative distances in `offs` and `lenCount` packed lengths into `lens`.
 * `scale` 0 selects the classic offset buckets; otherwise each offset is a bucket with 0-26 raw bits, multiplied by
 * `scale` less a low part taken from `lowParts` (when scale is not 1).
 */
export function unpackOffsets(
  src: Uint8Array,
  pos: number,
  end: number,
  packedOffs: Uint8Array,
  lowParts: Uint8Array,
  offCount: number,
  scale: number,
  packedLens: Uint8Array,
  lenCount: number,
  offs: Int32Array,
  lens: Int32Array,
): void {
  const fw = new ForwardBits(src, pos, end);
  const bw = new BackwardBits(src, end, pos);

  // Number of lengths too long for their byte, gamma coded at the back.
  if (bw.peek32() < 0x2000) corrupt('bad long-length count', end);
  const lz = bw.leadingZeros();
  bw.skip(lz);
  const longCount = bw.read(lz + 1) - 1;
  if (longCount > MAX_LONG_LENGTHS) corrupt('too many long lengths', end);

  if (scale === 0) {
    let i = 0;
    // Each reader is called at its own sites (one class each), which keeps the calls inlined.
    for (; i + 2 <= offCount; i += 2) {
      let c = packedOffs[i];
      offs[i] = c < 0xf0 ? -nearDistance(c, fw.read((c >>> 4) + 4)) : -farDistance(c, fw.read(c - 0xec), fw.read(12), pos);
      c = packedOffs[i + 1];
      offs[i + 1] = c < 0xf0 ? -nearDistance(c, bw.read((c >>> 4) + 4)) : -farDistance(c, bw.read(c - 0xec), bw.read(12), pos);
    }
    if (i < offCount) {
      const c = packedOffs[i];
      offs[i] = c < 0xf0 ? -nearDistance(c, fw.read((c >>> 4) + 4)) : -farDistance(c, fw.read(c - 0xec), fw.read(12), pos);
    }
  } else {
    let i = 0;
    for (; i + 2 <= offCount; i += 2) {
      let c = packedOffs[i];
      offs[i] = -scaledDistance(c, fw.readLong(bucketWidth(c, pos)), scale, lowParts[i], pos);
      c = packedOffs[i + 1];
      offs[i + 1] = -scaledDistance(c, bw.readLong(bucketWidth(c, pos)), scale, lowParts[i + 1], pos);
    }
    if (i < offCount) offs[i] = -scaledDistance(packedOffs[i], fw.readLong(bucketWidth(packedOffs[i], pos)), scale, lowParts[i], pos);
  }

  let i = 0;
  for (; i + 2 <= longCount; i += 2) {
    longLens[i] = readLongLength(fw);
    longLens[i + 1] = readLongLength(bw);
  }
  if (i < longCount) longLens[i] = readLongLength(fw);

  if (fw.bytePos() !== bw.bytePos()) corrupt('offset bit streams do not meet', pos);

  let next = 0;
  for (let k = 0; k < lenCount; k++) {
    let v = packedLens[k];
    if (v === 255) {
      if (next >= longCount) corrupt('more long lengths used than sent', pos);
      v = longLens[next++] + 255;
    }
    lens[k] = v + 3;
  }
  if (next !== longCount) corrupt('long lengths left unused', pos);
}

/**
 * Classic offset bucket c below 0xF0: 4 + (c >> 4) raw bits `raw` and the low nibble. The same for both bit streams
 * (read forward from the front, backward from the end).
 */
function nearDistance(c: number, raw: number): number {
  return (((1 << ((c >>> 4) + 4)) | raw) << 4) + (c & 15) - 248;
}

/** Classic offset bucket c of 0xF0 and up: a large offset from c - 0xEC raw bits `hi` and 12 more bits `lo`. */
function farDistance(c: number, hi: number, lo: number, where: number): number {
  const d = 8322816 + ((1 << (c - 0xec)) | hi) * 4096 + lo;
  if (d > MAX_DISTANCE) corrupt('offset out of range', where);
  return d;
}

/**
 * Scaled offset bucket: (8 + low 3 bits) << width, plus `width` raw bits `raw` (0-26), less 8; then times `scale` plus a
 * low part when the scale is not 1. Shifts rather than powers of two: the largest value, 15 << 26 plus 26 bits, still
 * fits an int32, and a power with a variable exponent is a call into the maths library in optimised code.
 */
function scaledDistance(c: number, raw: number, scale: number, low: number, where: number): number {
  let d = ((8 + (c & 7)) << (c >>> 3)) + raw - 8;
  if (scale !== 1) d = scale * d + low;
  if (d > MAX_DISTANCE) corrupt('offset out of range', where);
  return d;
}

/** Number of raw bits (0-26) of a scaled offset bucket. */
function bucketWidth(c: number, where: number): number {
  const width = c >>> 3;
  if (width > 26) corrupt('offset bucket out of range', where);
  return width;
}

/** A length beyond 254 + 3: a zero prefix of up to 12 bits, then that many plus 7 bits, less 64. */
function readLongLength(br: ForwardBits | BackwardBits): number {
  const lz = br.leadingZeros();
  if (lz > 12) corrupt('long length too long', br.bytePos());
  br.skip(lz);
  return br.read(lz + 7) - 64;
}
