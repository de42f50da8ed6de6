import { corrupt } from './errors';
import { reverseBytes } from './huffman';

/**
 * Kraken and Leviathan offsets and long lengths, as src/codecs/oodle/offsets.ts: one entropy-coded byte per value
 * (a bucket) plus raw bits, which alternate between a bit stream read forward from the start of the chunk's tail
 * and one read backward from its end; the two must meet exactly.
 */

const MAX_LONG_LENGTHS: i32 = 512;
const LONG_LENS: usize = memory.data(MAX_LONG_LENGTHS * 4, 16);
const MAX_DISTANCE: i64 = 0x7fffffff;

/**
 * Expands `offCount` packed offsets into negative distances at `offs` (i32 each) and `lenCount` packed lengths into
 * `lens` (i32 each, plus 3).
 */
export function unpackOffsets(
  pos: usize,
  end: usize,
  packedOffs: usize,
  lowParts: usize,
  offCount: i32,
  scale: i32,
  packedLens: usize,
  lenCount: i32,
  offs: usize,
  lens: usize,
): void {
  if (<i32>(end - pos) > 0x20000) corrupt('offset bits run past the chunk', pos);
  reverseBytes(REVERSED, end, <u32>(end - pos));
  // Bits taken so far from the front (forward) and from the back (backward) of [pos, end).
  let fb: u32 = 0;
  let bb: u32 = 0;

  let top = backWindow(pos, end, bb);
  if (<u32>(top >>> 32) < 0x2000) corrupt('bad long-length count', end);
  let lz = <i32>clz<u64>(top);
  bb += <u32>lz;
  top = backWindow(pos, end, bb);
  const longCount = <i32>bitsOf(top, lz + 1) - 1;
  bb += <u32>(lz + 1);
  if (longCount > MAX_LONG_LENGTHS) corrupt('too many long lengths', end);

  if (scale == 0) {
    let i = 0;
    for (; i + 2 <= offCount; i += 2) {
      let c = <i32>load<u8>(packedOffs + i);
      let w = frontWindow(pos, end, fb);
      let d: i32;
      if (c < 0xf0) {
        const n = (c >>> 4) + 4;
        d = nearDistance(c, <u32>bitsOf(w, n));
        fb += <u32>n;
      } else {
        const n = c - 0xec;
        const hi = <u32>bitsOf(w, n);
        const lo = <u32>bitsOf(w << <u64>n, 12);
        fb += <u32>(n + 12);
        d = farDistance(c, hi, lo, pos);
      }
      store<i32>(offs + (<usize>i << 2), -d);
      c = <i32>load<u8>(packedOffs + i + 1);
      w = backWindow(pos, end, bb);
      if (c < 0xf0) {
        const n = (c >>> 4) + 4;
        d = nearDistance(c, <u32>bitsOf(w, n));
        bb += <u32>n;
      } else {
        const n = c - 0xec;
        const hi = <u32>bitsOf(w, n);
        const lo = <u32>bitsOf(w << <u64>n, 12);
        bb += <u32>(n + 12);
        d = farDistance(c, hi, lo, pos);
      }
      store<i32>(offs + (<usize>(i + 1) << 2), -d);
    }
    if (i < offCount) {
      const c = <i32>load<u8>(packedOffs + i);
      const w = frontWindow(pos, end, fb);
      let d: i32;
      if (c < 0xf0) {
        const n = (c >>> 4) + 4;
        d = nearDistance(c, <u32>bitsOf(w, n));
        fb += <u32>n;
      } else {
        const n = c - 0xec;
        const hi = <u32>bitsOf(w, n);
        const lo = <u32>bitsOf(w << <u64>n, 12);
        fb += <u32>(n + 12);
        d = farDistance(c, hi, lo, pos);
      }
      store<i32>(offs + (<usize>i << 2), -d);
    }
  } else {
    for (let i = 0; i < offCount; i++) {
      const c = <i32>load<u8>(packedOffs + i);
      const n = bucketWidth(c, pos);
      const forward = (i & 1) == 0;
      const w = forward ? frontWindow(pos, end, fb) : backWindow(pos, end, bb);
      const raw = <u32>bitsOf(w, n);
      if (forward) fb += <u32>n;
      else bb += <u32>n;
      store<i32>(offs + (<usize>i << 2), -scaledDistance(c, raw, scale, <i32>load<u8>(lowParts + i), pos));
    }
  }

  for (let i = 0; i < longCount; i++) {
    const forward = (i & 1) == 0;
    const w = forward ? frontWindow(pos, end, fb) : backWindow(pos, end, bb);
    const z = <i32>clz<u64>(w);
    if (z > 12) corrupt('long length too long', forward ? pos + ((fb + 7) >>> 3) : end - ((bb + 7) >>> 3));
    const v = <i32>bitsOf(w << <u64>z, z + 7) - 64;
    if (forward) fb += <u32>(2 * z + 7);
    else bb += <u32>(2 * z + 7);
    store<i32>(LONG_LENS + (<usize>i << 2), v);
  }

  // Each side's position is the byte just past its last bit taken; the two must meet.
  if (pos + ((fb + 7) >>> 3) != end - ((bb + 7) >>> 3)) corrupt('offset bit streams do not meet', pos);

  let next = 0;
  for (let k = 0; k < lenCount; k++) {
    let v = <i32>load<u8>(packedLens + k);
    if (v == 255) {
      if (next >= longCount) corrupt('more long lengths used than sent', pos);
      v = load<i32>(LONG_LENS + (<usize>(next++) << 2)) + 255;
    }
    store<i32>(lens + (<usize>k << 2), v + 3);
  }
  if (next != longCount) corrupt('long lengths left unused', pos);
}

/**
 * The next 57 or more bits of the forward stream at bit `bit` of [start, end), most significant first (bytes at
 * or past `end` read as zero). One 8-byte load away from the end.
 */
@inline
function frontWindow(start: usize, end: usize, bit: u32): u64 {
  const p = start + (bit >>> 3);
  // The forward stream's bytes reversed (see unpackOffsets) read as one little-endian load, without a byte swap.
  if (p + 8 <= end) return load<u64>(REVERSED + (end - p) - 8) << <u64>(bit & 7);
  return frontEdge(p, end) << <u64>(bit & 7);
}

/** The chunk's offset and length bits in reverse order: REVERSED + k holds the byte k + 1 below the end. */
const REVERSED: usize = memory.data(0x20000 + 64, 16);

function frontEdge(p: usize, end: usize): u64 {
  let w: u64 = 0;
  for (let k: usize = 0; k < 8; k++) w = (w << 8) | (p + k < end ? <u64>load<u8>(p + k) : 0);
  return w;
}

/** The same for the backward stream, `bit` bits below `end` (bytes below `start` read as zero). */
@inline
function backWindow(start: usize, end: usize, bit: u32): u64 {
  const p = end - (bit >>> 3);
  if (p >= start + 8) return load<u64>(p - 8) << <u64>(bit & 7);
  return backEdge(start, p) << <u64>(bit & 7);
}

function backEdge(start: usize, p: usize): u64 {
  let w: u64 = 0;
  for (let k: usize = 1; k <= 8; k++) w = (w << 8) | (p >= start + k ? <u64>load<u8>(p - k) : 0);
  return w;
}

/** The top `n` (0-32) bits of a window. */
@inline
function bitsOf(w: u64, n: i32): u64 {
  return (w >>> 1) >>> <u64>(63 - n);
}

@inline function nearDistance(c: i32, raw: u32): i32 {
  return ((((1 << ((c >>> 4) + 4)) | <i32>raw) << 4) + (c & 15)) - 248;
}

function farDistance(c: i32, hi: u32, lo: u32, where: usize): i32 {
  const d = <i64>8322816 + (<i64>((<u32>1 << (c - 0xec)) | hi)) * 4096 + <i64>lo;
  if (d > MAX_DISTANCE) corrupt('offset out of range', where);
  return <i32>d;
}

function scaledDistance(c: i32, raw: u32, scale: i32, low: i32, where: usize): i32 {
  let d = <i64>(((8 + (c & 7)) << (c >>> 3)) + <i32>raw - 8);
  if (scale != 1) d = <i64>scale * d + <i64>low;
  if (d > MAX_DISTANCE) corrupt('offset out of range', where);
  return <i32>d;
}

@inline function bucketWidth(c: i32, where: usize): i32 {
  const width = c >>> 3;
  if (width > 26) corrupt('offset bucket out of range', where);
  return width;
}

