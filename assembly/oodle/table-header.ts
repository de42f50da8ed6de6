import { ForwardBits } from './bits';
import { corrupt } from './errors';

/**
 * Pieces shared by the Huffman and tANS table headers (as src/codecs/oodle/table-header.ts): present symbols as
 * alternating runs of present and absent symbols ("ranges"), per-symbol numbers as unary prefixes then raw bits.
 */

/** Extra range-length values that follow the symbol values: [0, 2*min(n, 257-n)) in truncated binary. */
export function readRangeValueCount(br: ForwardBits, symbolCount: i32): i32 {
  if (symbolCount >= 256) return 0;
  const limit = 2 * min(257 - symbolCount, symbolCount);
  const width = 32 - clz<u32>(<u32>(limit - 1));
  const v = <i32>(br.peek32() >>> (32 - width));
  const shortCodes = (1 << width) - limit;
  if (v >>> 1 >= shortCodes) {
    br.skip(width);
    return v - shortCodes;
  }
  br.skip(width - 1);
  return v >>> 1;
}

/** The 32 bits from bit `bit` of `buf` on, most significant first; bytes at or past `end` read as zero. */
@inline
function window32(buf: usize, bit: i32, end: usize): u32 {
  const b = buf + <usize>(bit >>> 3);
  let w: u32;
  if (b + 4 <= end) w = bswap<u32>(load<u32>(b));
  else {
    w = 0;
    for (let k = 0; k < 4 && b + k < end; k++) w |= (<u32>load<u8>(b + k)) << (24 - 8 * k);
  }
  return w << (bit & 7);
}

/** `count` unary numbers (zeros closed by a one) into `out` (i32 each); these may not run past the array's end. */
export function readUnaryValues(br: ForwardBits, out: usize, count: i32): void {
  const buf = br.buf;
  const end = br.end;
  const endBit = <i32>(end - buf) * 8;
  let bit = br.bitPos();
  for (let i = 0; i < count; i++) {
    let zeros = 0;
    for (;;) {
      if (bit >= endBit) corrupt('table header runs past its array', end);
      const w = window32(buf, bit, end);
      if (w != 0) {
        const lz = <i32>clz<u32>(w);
        zeros += lz;
        bit += lz + 1;
        break;
      }
      const k = 32 - (bit & 7);
      zeros += k;
      bit += k;
      if (zeros > 255) corrupt('unary value too long in table header', buf + (bit >>> 3));
    }
    if (zeros > 255) corrupt('unary value too long in table header', buf + (bit >>> 3));
    store<i32>(out + (<usize>i << 2), zeros);
  }
  br.seekBit(bit);
}

/** Appends `width` (at most 24) raw bits below each of the first `count` values (i32 each). */
export function appendRawBits(br: ForwardBits, vals: usize, count: i32, width: i32): void {
  if (width == 0) return;
  let bit = br.bitPos();
  const buf = br.buf;
  const end = br.end;
  if (bit + count * width > <i32>(end - buf) * 8) corrupt('table header runs past its array', end);
  const drop = 32 - width;
  for (let i = 0; i < count; i++, bit += width) {
    const a = vals + (<usize>i << 2);
    store<i32>(a, (load<i32>(a) << width) | <i32>(window32(buf, bit, end) >>> drop));
  }
  br.seekBit(bit);
}

/** Symbol ranges (i32 each): `RANGE_START[i]` is the first symbol of range i and `RANGE_COUNT[i]` how many follow. */
export const RANGE_START: usize = memory.data(160 * 4, 16);
export const RANGE_COUNT: usize = memory.data(160 * 4, 16);

/** Turns range-length values `vals[first ..]` plus their raw bits into symbol ranges; returns their number. */
export function readSymbolRanges(br: ForwardBits, symbolCount: i32, valueCount: i32, vals: usize, first: i32): i32 {
  const pairs = valueCount >> 1;
  let k = first;
  let sym = 0;
  if (valueCount & 1) {
    const v = load<i32>(vals + (<usize>(k++) << 2));
    if (v >= 8) corrupt('bad leading gap in symbol ranges', br.bytePos());
    sym = <i32>br.read(v + 1) + (1 << (v + 1)) - 1;
  }
  let used = 0;
  for (let i = 0; i < pairs; i++) {
    const lenBits = load<i32>(vals + (<usize>(k++) << 2));
    if (lenBits >= 9) corrupt('bad range length in symbol ranges', br.bytePos());
    const num = <i32>br.read(lenBits) + (1 << lenBits);
    const gapBits = load<i32>(vals + (<usize>(k++) << 2));
    if (gapBits >= 8) corrupt('bad gap in symbol ranges', br.bytePos());
    const gap = <i32>br.read(gapBits + 1) + (1 << (gapBits + 1)) - 1;
    store<i32>(RANGE_START + (<usize>i << 2), sym);
    store<i32>(RANGE_COUNT + (<usize>i << 2), num);
    used += num;
    sym += num + gap;
  }
  if (sym >= 256 || used >= symbolCount || sym + symbolCount - used > 256) {
    corrupt('symbol ranges do not fit the alphabet', br.bytePos());
  }
  store<i32>(RANGE_START + (<usize>pairs << 2), sym);
  store<i32>(RANGE_COUNT + (<usize>pairs << 2), symbolCount - used);
  return pairs + 1;
}
