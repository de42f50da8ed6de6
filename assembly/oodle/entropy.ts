import { BW, FW } from './bits';
import { corrupt, corruptWith } from './errors';
import { decodeHuffman } from './huffman';
import { ARENA, ARENA_SIZE, arenaFree, arenaTake, arenaTop, INTERVALS, MAX_ARRAY_SIZE, resetArenaTo } from './scratch';
import { decodeTans } from './tans';

/**
 * Entropy arrays, as src/codecs/oodle/entropy.ts: every byte stream inside an LZ chunk is one. Type 0 stored,
 * 1 tANS, 2 Huffman (three streams), 3 run-length, 4 Huffman (two halves), 5 several arrays or a multi-array.
 * Buffers are addresses with a limit (`dstLimit`): a declared size past the limit is rejected, as the TypeScript
 * decoder rejects one past its typed array's length.
 */

/** The read position in the source, advanced by each decodeBytes (every call leaves it just past its array). */
export let cur: usize = 0;

export function setCur(p: usize): void {
  cur = p;
}

const MAX_DEPTH: i32 = 12;

/**
 * Decodes the entropy array at `cur` into `dst`, declaring at most `capacity` bytes (and never past `dstLimit`),
 * moves `cur` past it, and returns the decoded size.
 */
export function decodeBytes(end: usize, dst: usize, dstLimit: usize, capacity: i32, depth: i32): i32 {
  const pos = cur;
  if (<i32>(end - pos) < 2) corrupt('entropy array header truncated', pos);
  if (capacity > <i32>(dstLimit - dst)) capacity = <i32>(dstLimit - dst);
  const b0 = <i32>load<u8>(pos);
  const type = (b0 >>> 4) & 7;

  if (type == 0) {
    let size: i32;
    let data: usize;
    if (b0 >= 0x80) {
      size = ((b0 << 8) | <i32>load<u8>(pos + 1)) & 0xfff;
      data = pos + 2;
    } else {
      if (<i32>(end - pos) < 3) corrupt('entropy array header truncated', pos);
      size = (b0 << 16) | (<i32>load<u8>(pos + 1) << 8) | <i32>load<u8>(pos + 2);
      if (size > 0x3ffff) corrupt('reserved bits set in stored array size', pos);
      data = pos + 3;
    }
    if (size > capacity) corrupt('stored array larger than its destination', pos);
    if (size > <i32>(end - data)) corrupt('stored array runs past its source', pos);
    memory.copy(dst, data, size);
    cur = data + size;
    return size;
  }

  let srcSize: i32;
  let dstSize: i32;
  let data: usize;
  if (b0 >= 0x80) {
    if (<i32>(end - pos) < 3) corrupt('entropy array header truncated', pos);
    const bits = (b0 << 16) | (<i32>load<u8>(pos + 1) << 8) | <i32>load<u8>(pos + 2);
    srcSize = bits & 0x3ff;
    dstSize = srcSize + ((bits >>> 10) & 0x3ff) + 1;
    data = pos + 3;
  } else {
    if (<i32>(end - pos) < 5) corrupt('entropy array header truncated', pos);
    const bits = bswap<u32>(load<u32>(pos + 1));
    srcSize = <i32>(bits & 0x3ffff);
    dstSize = <i32>((((bits >>> 18) | (<u32>b0 << 14)) & 0x3ffff) + 1);
    if (srcSize >= dstSize) corrupt('entropy array not smaller than its output', pos);
    data = pos + 5;
  }
  if (srcSize > <i32>(end - data)) corrupt('entropy array runs past its source', pos);
  if (dstSize > capacity) corrupt('entropy array larger than its destination', pos);
  if (depth > MAX_DEPTH) corrupt('entropy arrays nested too deeply', pos);

  const dataEnd = data + srcSize;
  switch (type) {
    case 1:
      decodeTans(data, dataEnd, dst, dstSize);
      break;
    case 2:
      decodeHuffman(data, dataEnd, dst, dstSize, false);
      break;
    case 4:
      decodeHuffman(data, dataEnd, dst, dstSize, true);
      break;
    case 3:
      decodeRle(data, dataEnd, dst, dstSize, depth);
      break;
    case 5:
      decodeComposite(data, dataEnd, dst, dstSize, depth);
      break;
    default:
      corruptWith('unknown entropy array type', type, pos);
  }
  cur = dataEnd;
  return dstSize;
}

/** The decoded size the entropy array at `pos` declares, without decoding it. */
function peekDecodedSize(pos: usize, end: usize, capacity: i32): i32 {
  if (<i32>(end - pos) < 2) corrupt('entropy array header truncated', pos);
  const b0 = <i32>load<u8>(pos);
  const type = (b0 >>> 4) & 7;
  let size: i32;
  if (type == 0) {
    if (b0 >= 0x80) size = ((b0 << 8) | <i32>load<u8>(pos + 1)) & 0xfff;
    else {
      if (<i32>(end - pos) < 3) corrupt('entropy array header truncated', pos);
      size = (b0 << 16) | (<i32>load<u8>(pos + 1) << 8) | <i32>load<u8>(pos + 2);
      if (size > 0x3ffff) corrupt('reserved bits set in stored array size', pos);
    }
  } else if (b0 >= 0x80) {
    if (<i32>(end - pos) < 3) corrupt('entropy array header truncated', pos);
    const bits = (b0 << 16) | (<i32>load<u8>(pos + 1) << 8) | <i32>load<u8>(pos + 2);
    size = (bits & 0x3ff) + ((bits >>> 10) & 0x3ff) + 1;
  } else {
    if (<i32>(end - pos) < 5) corrupt('entropy array header truncated', pos);
    const bits = bswap<u32>(load<u32>(pos + 1));
    size = <i32>((((bits >>> 18) | (<u32>b0 << 14)) & 0x3ffff) + 1);
  }
  if (size > capacity) corrupt('entropy array larger than its destination', pos);
  return size;
}

/** Decodes the array at `cur` into fresh arena space; returns where it starts (its size is arenaTop - start). */
function decodeIntoArena(end: usize, depth: i32): usize {
  const size = peekDecodedSize(cur, end, arenaFree());
  const at = arenaTake(size, cur);
  decodeBytes(end, at, ARENA + ARENA_SIZE, size, depth + 1);
  return at;
}

function decodeRle(pos: usize, end: usize, dst: usize, n: i32, depth: i32): void {
  if (<i32>(end - pos) <= 1) {
    if (<i32>(end - pos) != 1) corrupt('empty run-length array', pos);
    memory.fill(dst, load<u8>(pos), n);
    return;
  }
  const mark = arenaTop;
  let lit = pos + 1;
  let cmd = end;
  if (load<u8>(pos) != 0) {
    cur = pos;
    const at = decodeIntoArena(end, depth);
    const rest = <i32>(end - cur);
    const tail = arenaTake(rest, cur);
    memory.copy(tail, cur, rest);
    lit = at;
    cmd = tail + rest;
  }

  let o = dst;
  const oEnd = dst + n;
  let fill: u8 = 0;
  while (lit < cmd) {
    const c = <i32>load<u8>(cmd - 1);
    let copy = 0;
    let repeat = 0;
    if (c == 0 || c >= 0x30) {
      copy = ~c & 0xf;
      repeat = c >>> 4;
      cmd -= 1;
    } else if (c == 1) {
      cmd -= 1;
      if (lit >= cmd) corrupt('run-length fill byte missing', pos);
      fill = load<u8>(lit++);
      continue;
    } else {
      if (cmd - 2 < lit) corrupt('run-length command truncated', pos);
      const v = <i32>load<u8>(cmd - 2) | (c << 8);
      cmd -= 2;
      if (c >= 0x10) {
        copy = (v - 0x1000) & 0x3f;
        repeat = (v - 0x1000) >>> 6;
      } else if (c >= 9) {
        repeat = (v - 0x8ff) * 128;
      } else {
        copy = (v - 0x1ff) * 64;
      }
    }
    if (copy > <i32>(cmd - lit)) corrupt('run-length literals run out', pos);
    if (copy + repeat > <i32>(oEnd - o)) corrupt('run-length output overflows', pos);
    memory.copy(o, lit, copy);
    o += copy;
    lit += copy;
    if (repeat > 0) {
      memory.fill(o, fill, repeat);
      o += repeat;
    }
  }
  if (lit != cmd || o != oEnd) corrupt('run-length array does not fill its output', pos);
  resetArenaTo(mark);
}

function decodeComposite(pos: usize, end: usize, dst: usize, n: i32, depth: i32): void {
  if (<i32>(end - pos) < 6) corrupt('composite array too short', pos);
  let parts = <i32>load<u8>(pos) & 0x7f;
  if (parts < 2) corrupt('composite array with fewer than two parts', pos);
  let o = dst;
  const oEnd = dst + n;
  if ((load<u8>(pos) & 0x80) == 0) {
    cur = pos + 1;
    for (; parts > 0; parts--) o += decodeBytes(end, o, oEnd, <i32>(oEnd - o), depth + 1);
  } else {
    cur = pos;
    o += decodeMultiArray(end, o, oEnd, <i32>(oEnd - o), 1, COMPOSITE_PART, COMPOSITE_PART + 4, depth);
  }
  if (o != oEnd) corrupt('composite array does not fill its output', pos);
  if (cur != end) corrupt('composite array does not use its whole payload', cur);
}

const COMPOSITE_PART: usize = memory.data(16, 16);
/** A multi-array's sources: where each starts and how much of it is left (i32 each, at most 63). */
const SRC_START: usize = memory.data(64 * 4 * 13, 16);
const SRC_LEFT: usize = memory.data(64 * 4 * 13, 16);

/**
 * A multi-array: `count` output arrays written one after the other at `dst`, gathered as intervals from separately
 * coded source arrays. Fills `starts`/`lens` (i32 each, as offsets from `dst`... see below) and returns the total
 * size. `starts` receive addresses relative to `base` so that callers can keep indexes into their buffer.
 */
export function decodeMultiArray(end: usize, dst: usize, dstLimit: usize, capacity: i32, count: i32, starts: usize, lens: usize, depth: i32): i32 {
  const mark = arenaTop;
  const pos0 = cur;
  if (<i32>(end - pos0) < 4) corrupt('multi-array header truncated', pos0);
  if (depth > MAX_DEPTH) corrupt('entropy arrays nested too deeply', pos0);
  const head = <i32>load<u8>(pos0);
  if ((head & 0x80) == 0) corrupt('bad multi-array header', pos0);
  const sources = head & 0x3f;
  cur = pos0 + 1;
  if (capacity > <i32>(dstLimit - dst)) capacity = <i32>(dstLimit - dst);

  if (sources == 0) {
    let o = dst;
    for (let i = 0; i < count; i++) {
      const size = decodeBytes(end, o, dstLimit, <i32>(dst + capacity - o), depth + 1);
      store<i32>(starts + (<usize>i << 2), <i32>(o - dst));
      store<i32>(lens + (<usize>i << 2), size);
      o += size;
    }
    return <i32>(o - dst);
  }

  // Per nesting depth, so that a nested multi-array does not overwrite its parent's table.
  const srcStart = SRC_START + <usize>depth * 256;
  const srcLeft = SRC_LEFT + <usize>depth * 256;
  let total = 0;
  for (let i = 0; i < sources; i++) {
    const p = decodeIntoArena(end, depth);
    store<i32>(srcStart + (<usize>i << 2), <i32>p);
    store<i32>(srcLeft + (<usize>i << 2), <i32>(arenaTop - p));
    total += <i32>(arenaTop - p);
  }

  let pos = cur;
  if (<i32>(end - pos) < 3) corrupt('multi-array interval header truncated', pos);
  const q = <i32>load<u16>(pos);
  pos += 2;
  const indexCount = peekDecodedSize(pos, end, total);
  let lenCount = indexCount - count;
  if (lenCount < 1) corrupt('multi-array with too few intervals', pos);

  const indexes = arenaTake(indexCount, pos);
  const lenBits = arenaTake(indexCount, pos);
  cur = pos;
  const packed = (q & 0x8000) != 0;
  if (packed) {
    if (decodeBytes(end, indexes, ARENA + ARENA_SIZE, indexCount, depth + 1) != indexCount) corrupt('multi-array index count mismatch', pos);
    for (let i = 0; i < indexCount; i++) {
      const t = load<u8>(indexes + i);
      store<u8>(lenBits + i, t >>> 4);
      store<u8>(indexes + i, t & 0xf);
    }
    lenCount = indexCount;
  } else {
    if (decodeBytes(end, indexes, ARENA + ARENA_SIZE, indexCount, depth + 1) != indexCount) corrupt('multi-array index count mismatch', pos);
    if (decodeBytes(end, lenBits, ARENA + ARENA_SIZE, lenCount, depth + 1) != lenCount) corrupt('multi-array length count mismatch', pos);
    for (let i = 0; i < lenCount; i++) if (load<u8>(lenBits + i) > 16) corrupt('multi-array interval width too large', cur);
  }

  pos = cur;
  const bitBytes = q & 0x3fff;
  if (bitBytes > <i32>(end - pos)) corrupt('multi-array interval bits run past the source', pos);
  const bitsEnd = pos + bitBytes;

  const intervals = INTERVALS;
  const fw = FW.init(pos, bitsEnd);
  const bw = BW.init(bitsEnd, pos);
  let i = 0;
  for (; i + 2 <= lenCount; i += 2) {
    let w = <i32>load<u8>(lenBits + i);
    store<u32>(intervals + (<usize>i << 2), (<u32>1 << w) | fw.read(w));
    w = <i32>load<u8>(lenBits + i + 1);
    store<u32>(intervals + (<usize>(i + 1) << 2), (<u32>1 << w) | bw.read(w));
  }
  if (i < lenCount) {
    const w = <i32>load<u8>(lenBits + i);
    store<u32>(intervals + (<usize>i << 2), (<u32>1 << w) | fw.read(w));
  }

  if (load<u8>(indexes + indexCount - 1) != 0) corrupt('multi-array index stream does not end an array', pos);

  const limit = dst + capacity;
  let o = dst;
  let ii = 0;
  let li = 0;
  for (let a = 0; a < count; a++) {
    const start = o;
    store<i32>(starts + (<usize>a << 2), <i32>(o - dst));
    if (ii >= indexCount) corrupt('multi-array index stream ends early', pos);
    for (;;) {
      const from = <i32>load<u8>(indexes + ii++);
      if (from == 0) break;
      if (from > sources) corrupt('multi-array interval names a missing source', pos);
      if (li >= lenCount) corrupt('multi-array runs out of interval lengths', pos);
      const len = <i32>load<u32>(intervals + (<usize>(li++) << 2));
      const ks = srcStart + (<usize>(from - 1) << 2);
      const kl = srcLeft + (<usize>(from - 1) << 2);
      const left = load<i32>(kl);
      if (len > left || len > <i32>(limit - o)) corrupt('multi-array interval overruns', pos);
      const s = <usize>load<i32>(ks);
      memory.copy(o, s, len);
      store<i32>(ks, <i32>(s + len));
      store<i32>(kl, left - len);
      o += len;
    }
    if (packed) li++;
    store<i32>(lens + (<usize>a << 2), <i32>(o - start));
  }
  if (ii != indexCount || li != lenCount) corrupt('multi-array streams not fully used', pos);
  for (let k = 0; k < sources; k++) if (load<i32>(srcLeft + (<usize>k << 2)) != 0) corrupt('multi-array source not fully used', pos);

  resetArenaTo(mark);
  cur = bitsEnd;
  return <i32>(o - dst);
}

export const MAX_ARRAY: i32 = MAX_ARRAY_SIZE;
