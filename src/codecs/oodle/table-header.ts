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
  const endBit = br.end * 8;
  let bit = br.bitPos();
  for (let i = 0; i < count; i++) {
    let zeros = 0;
    for (;;) {
      if (bit >= endBit) corrupt('table header runs past its array', br.end);
      const rest = (buf[bit >>> 3] << (bit & 7)) & 0xff;
      if (rest === 0) {
        const k = 8 - (bit & 7);
        zeros += k;
        bit += k;
        // Real tables never come close: the largest value any caller accepts is far below this.
        if (zeros > 255) corrupt('unary value too long in table header', bit >>> 3);
        continue;
      }
      const lz = Math.clz32(rest) - 24;
      zeros += lz;
      bit += lz + 1;
      break;
    }
    if (zeros > 255) corrupt('unary value too long in table header', bit >>> 3);
    out[i] = zeros;
  }
  br.seekBit(bit);
}

/** Appends `width` raw bits (most significant first) below each of the first `count` values. */
export function appendRawBits(br: ForwardBits, vals: Int32Array, count: number, width: number): void {
  if (width === 0) return;
  let bit = br.bitPos();
  if (bit + count * width > br.end * 8) corrupt('table header runs past its array', br.end);
  const buf = br.buf;
  for (let i = 0; i < count; i++) {
    let v = vals[i];
    for (let k = 0; k < width; k++, bit++) v = (v << 1) | ((buf[bit >>> 3] >>> (7 - (bit & 7))) & 1);
    vals[i] = v;
  }
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
