import type { ForwardBits } from './bit-reader.js';
import { corrupt } from './corrupt.js';

/**
 * Pieces shared by the Huffman and tANS table headers: which symbols are present is sent as alternating runs of
 * present and absent symbols ("ranges"), and per-symbol numbers as unary prefixes followed by a few raw bits.
 */

/**
 * Reads the number of extra range-length values that follow the symbol values: a value in [0, 2*min(n, 257-n))
 * in truncated binary.
 */
export function readRangeValueCount(br: ForwardBits, symbolCount: number): number {
  if (symbolCount >= 256) return 0;
  const limit = 2 * Math.min(257 - symbolCount, symbolCount);
  const width = 32 - Math.clz32(limit - 1);
  const v = br.peek32() >>> (32 - width);
  const shortCodes = (1 << width) - limit;
  if (v >>> 1 >= shortCodes) {
    br.skip(width);
    return v - shortCodes;
  }
  br.skip(width - 1);
  return v >>> 1;
}

/**
 * Reads `count` unary numbers (a run of zeros closed by a one) starting at the reader's bit position, stores them in
 * `out`, and leaves the reader just past the last one. Unlike the rest of a table, these may not run past the
 * array's end.
 */
export function readUnaryValues(br: ForwardBits, out: Int32Array, count: number): void {
  const buf = br.buf;
  const end = br.end;
  const endBit = end * 8;
  let bit = br.bitPos();
  for (let i = 0; i < count; i++) {
    let zeros = 0;
    for (;;) {
      if (bit >= endBit) corrupt('table header runs past its array', end);
      // The next 25 to 32 bits; bytes past the end read as zero, so a one found is always inside.
      const w = window32(buf, bit, end);
      if (w !== 0) {
        const lz = Math.clz32(w);
        zeros += lz;
        bit += lz + 1;
        break;
      }
      const k = 32 - (bit & 7);
      zeros += k;
      bit += k;
      // Real tables never come close: the largest value any caller accepts is far below this.
      if (zeros > 255) corrupt('unary value too long in table header', bit >>> 3);
    }
    if (zeros > 255) corrupt('unary value too long in table header', bit >>> 3);
    out[i] = zeros;
  }
  br.seekBit(bit);
}

/** The 32 bits from bit `bit` on, most significant first (the last `bit & 7` are zero); bytes at or past `end` read as zero. */
function window32(buf: Uint8Array, bit: number, end: number): number {
  const b = bit >>> 3;
  let w: number;
  if (b + 4 <= end) w = (buf[b] << 24) | (buf[b + 1] << 16) | (buf[b + 2] << 8) | buf[b + 3];
  else {
    w = 0;
    for (let k = 0; k < 4 && b + k < end; k++) w |= buf[b + k] << (24 - 8 * k);
  }
  return w << (bit & 7);
}

/** Appends `width` (at most 24) raw bits (most significant first) below each of the first `count` values. */
export function appendRawBits(br: ForwardBits, vals: Int32Array, count: number, width: number): void {
  if (width === 0) return;
  let bit = br.bitPos();
  const end = br.end;
  if (bit + count * width > end * 8) corrupt('table header runs past its array', end);
  const buf = br.buf;
  const drop = 32 - width;
  for (let i = 0; i < count; i++, bit += width) vals[i] = (vals[i] << width) | (window32(buf, bit, end) >>> drop);
  br.seekBit(bit);
}

/** Symbol ranges: `rangeStart[i]` is the first symbol of range i and `rangeCount[i]` how many follow. */
export const rangeStart = new Int32Array(160);
export const rangeCount = new Int32Array(160);

/**
 * Turns the range-length values `vals[first .. first + valueCount)` plus their raw bits into symbol ranges, the last
 * of which takes the symbols left over. Returns the number of ranges.
 */
export function readSymbolRanges(
  br: ForwardBits,
  symbolCount: number,
  valueCount: number,
  vals: Int32Array,
  first: number,
): number {
  const pairs = valueCount >> 1;
  let k = first;
  let sym = 0;
  if (valueCount & 1) {
    const v = vals[k++];
    if (v >= 8) corrupt('bad leading gap in symbol ranges', br.bytePos());
    sym = br.read(v + 1) + (1 << (v + 1)) - 1;
  }
  let used = 0;
  for (let i = 0; i < pairs; i++) {
    const lenBits = vals[k++];
    if (lenBits >= 9) corrupt('bad range length in symbol ranges', br.bytePos());
    const num = br.read(lenBits) + (1 << lenBits);
    const gapBits = vals[k++];
    if (gapBits >= 8) corrupt('bad gap in symbol ranges', br.bytePos());
    const gap = br.read(gapBits + 1) + (1 << (gapBits + 1)) - 1;
    rangeStart[i] = sym;
    rangeCount[i] = num;
    used += num;
    sym += num + gap;
  }
  if (sym >= 256 || used >= symbolCount || sym + symbolCount - used > 256) {
    corrupt('symbol ranges do not fit the alphabet', br.bytePos());
  }
  rangeStart[pairs] = sym;
  rangeCount[pairs] = symbolCount - used;
  return pairs + 1;
}
