import { BackwardBits, BW, ForwardBits, FW } from './bits';
import { corrupt } from './errors';

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
  const fw = FW.init(pos, end);
  const bw = BW.init(end, pos);

  if (bw.peek32() < 0x2000) corrupt('bad long-length count', end);
  const lz = bw.leadingZeros();
  bw.skip(lz);
  const longCount = <i32>bw.read(lz + 1) - 1;
  if (longCount > MAX_LONG_LENGTHS) corrupt('too many long lengths', end);

  if (scale == 0) {
    let i = 0;
    for (; i + 2 <= offCount; i += 2) {
      let c = <i32>load<u8>(packedOffs + i);
      store<i32>(offs + (<usize>i << 2), c < 0xf0 ? -nearDistance(c, fw.read((c >>> 4) + 4)) : -farDistance(c, fw.read(c - 0xec), fw.read(12), pos));
      c = <i32>load<u8>(packedOffs + i + 1);
      store<i32>(offs + (<usize>(i + 1) << 2), c < 0xf0 ? -nearDistance(c, bw.read((c >>> 4) + 4)) : -farDistance(c, bw.read(c - 0xec), bw.read(12), pos));
    }
    if (i < offCount) {
      const c = <i32>load<u8>(packedOffs + i);
      store<i32>(offs + (<usize>i << 2), c < 0xf0 ? -nearDistance(c, fw.read((c >>> 4) + 4)) : -farDistance(c, fw.read(c - 0xec), fw.read(12), pos));
    }
  } else {
    let i = 0;
    for (; i + 2 <= offCount; i += 2) {
      let c = <i32>load<u8>(packedOffs + i);
      store<i32>(offs + (<usize>i << 2), -scaledDistance(c, fw.readLong(bucketWidth(c, pos)), scale, <i32>load<u8>(lowParts + i), pos));
      c = <i32>load<u8>(packedOffs + i + 1);
      store<i32>(offs + (<usize>(i + 1) << 2), -scaledDistance(c, bw.readLong(bucketWidth(c, pos)), scale, <i32>load<u8>(lowParts + i + 1), pos));
    }
    if (i < offCount) {
      const c = <i32>load<u8>(packedOffs + i);
      store<i32>(offs + (<usize>i << 2), -scaledDistance(c, fw.readLong(bucketWidth(c, pos)), scale, <i32>load<u8>(lowParts + i), pos));
    }
  }

  let i = 0;
  for (; i + 2 <= longCount; i += 2) {
    store<i32>(LONG_LENS + (<usize>i << 2), readLongLengthF(fw));
    store<i32>(LONG_LENS + (<usize>(i + 1) << 2), readLongLengthB(bw));
  }
  if (i < longCount) store<i32>(LONG_LENS + (<usize>i << 2), readLongLengthF(fw));

  if (fw.bytePos() != bw.bytePos()) corrupt('offset bit streams do not meet', pos);

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

function readLongLengthF(br: ForwardBits): i32 {
  const lz = br.leadingZeros();
  if (lz > 12) corrupt('long length too long', br.bytePos());
  br.skip(lz);
  return <i32>br.read(lz + 7) - 64;
}

function readLongLengthB(br: BackwardBits): i32 {
  const lz = br.leadingZeros();
  if (lz > 12) corrupt('long length too long', br.bytePos());
  br.skip(lz);
  return <i32>br.read(lz + 7) - 64;
}
