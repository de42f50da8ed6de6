import { ForwardBits, BackwardBits } from './bit-reader.js';
import { corrupt } from './corrupt.js';
import { decodeHuffman } from './huffman.js';
import { scratch } from './scratch.js';
import { decodeTans } from './tans.js';

/**
 * "Entropy arrays": every byte stream inside an LZ chunk (literals, commands, packed offsets and lengths) is one of
 * these. A 2-5 byte header gives the type, the payload size and the decoded size:
 *
 *   type 0  stored bytes
 *   type 1  tANS
 *   type 2  Huffman, three streams
 *   type 3  run-length commands (optionally themselves entropy coded)
 *   type 4  Huffman, two halves of three streams each
 *   type 5  several arrays back to back, or a "multi-array" interleaving pieces of several arrays
 */

/** Position in a source buffer, advanced by each read. */
export interface Cursor {
  pos: number;
}

/** Deep nesting is not something an encoder produces; the cap keeps a hostile stream from exhausting the stack. */
const MAX_DEPTH = 12;

/**
 * Decodes the entropy array at `src[cur.pos]` into `dst[at, ...)`, declaring at most `capacity` bytes, advances the
 * cursor past it, and returns the decoded size.
 */
export function decodeBytes(src: Uint8Array, cur: Cursor, end: number, dst: Uint8Array, at: number, capacity: number, depth: number): number {
  const pos = cur.pos;
  if (end - pos < 2) corrupt('entropy array header truncated', pos);
  if (capacity > dst.length - at) capacity = dst.length - at;
  const b0 = src[pos];
  const type = (b0 >>> 4) & 7;

  if (type === 0) {
    let size: number;
    let data: number;
    if (b0 >= 0x80) {
      size = ((b0 << 8) | src[pos + 1]) & 0xfff;
      data = pos + 2;
    } else {
      if (end - pos < 3) corrupt('entropy array header truncated', pos);
      size = (b0 << 16) | (src[pos + 1] << 8) | src[pos + 2];
      if (size > 0x3ffff) corrupt('reserved bits set in stored array size', pos);
      data = pos + 3;
    }
    if (size > capacity) corrupt('stored array larger than its destination', pos);
    if (size > end - data) corrupt('stored array runs past its source', pos);
    dst.set(src.subarray(data, data + size), at);
    cur.pos = data + size;
    return size;
  }

  let srcSize: number;
  let dstSize: number;
  let data: number;
  if (b0 >= 0x80) {
    if (end - pos < 3) corrupt('entropy array header truncated', pos);
    const bits = (b0 << 16) | (src[pos + 1] << 8) | src[pos + 2];
    srcSize = bits & 0x3ff;
    dstSize = srcSize + ((bits >>> 10) & 0x3ff) + 1;
    data = pos + 3;
  } else {
    if (end - pos < 5) corrupt('entropy array header truncated', pos);
    const bits = ((src[pos + 1] << 24) | (src[pos + 2] << 16) | (src[pos + 3] << 8) | src[pos + 4]) >>> 0;
    srcSize = bits & 0x3ffff;
    dstSize = (((bits >>> 18) | (b0 << 14)) & 0x3ffff) + 1;
    if (srcSize >= dstSize) corrupt('entropy array not smaller than its output', pos);
    data = pos + 5;
  }
  if (srcSize > end - data) corrupt('entropy array runs past its source', pos);
  if (dstSize > capacity) corrupt('entropy array larger than its destination', pos);
  if (depth > MAX_DEPTH) corrupt('entropy arrays nested too deeply', pos);

  const dataEnd = data + srcSize;
  switch (type) {
    case 1:
      decodeTans(src, data, dataEnd, dst, at, dstSize);
      break;
    case 2:
      decodeHuffman(src, data, dataEnd, dst, at, dstSize, false);
      break;
    case 4:
      decodeHuffman(src, data, dataEnd, dst, at, dstSize, true);
      break;
    case 3:
      decodeRle(src, data, dataEnd, dst, at, dstSize, depth);
      break;
    case 5:
      decodeComposite(src, data, dataEnd, dst, at, dstSize, depth);
      break;
    default:
      corrupt(`unknown entropy array type ${type}`, pos);
  }
  cur.pos = dataEnd;
  return dstSize;
}

/** The decoded size the entropy array at `pos` declares, without decoding it. */
function peekDecodedSize(src: Uint8Array, pos: number, end: number, capacity: number): number {
  if (end - pos < 2) corrupt('entropy array header truncated', pos);
  const b0 = src[pos];
  const type = (b0 >>> 4) & 7;
  let size: number;
  if (type === 0) {
    if (b0 >= 0x80) size = ((b0 << 8) | src[pos + 1]) & 0xfff;
    else {
      if (end - pos < 3) corrupt('entropy array header truncated', pos);
      size = (b0 << 16) | (src[pos + 1] << 8) | src[pos + 2];
      if (size > 0x3ffff) corrupt('reserved bits set in stored array size', pos);
    }
  } else if (b0 >= 0x80) {
    if (end - pos < 3) corrupt('entropy array header truncated', pos);
    const bits = (b0 << 16) | (src[pos + 1] << 8) | src[pos + 2];
    size = (bits & 0x3ff) + ((bits >>> 10) & 0x3ff) + 1;
  } else {
    if (end - pos < 5) corrupt('entropy array header truncated', pos);
    const bits = ((src[pos + 1] << 24) | (src[pos + 2] << 16) | (src[pos + 3] << 8) | src[pos + 4]) >>> 0;
    size = (((bits >>> 18) | (b0 << 14)) & 0x3ffff) + 1;
  }
  if (size > capacity) corrupt('entropy array larger than its destination', pos);
  return size;
}

/** Decodes an entropy array into freshly reserved arena space; returns where it starts (its size is arena.top - start). */
function decodeIntoArena(src: Uint8Array, cur: Cursor, end: number, depth: number): number {
  const arena = scratch().arena;
  const size = peekDecodedSize(src, cur.pos, end, arena.free());
  const at = arena.take(size, cur.pos);
  decodeBytes(src, cur, end, arena.buf, at, size, depth + 1);
  return at;
}

/**
 * Run-length coding: literal bytes are taken from the front of the command buffer while the commands themselves
 * are read from its back, each saying how many literals to copy and how many repeats of the current fill byte follow.
 */
function decodeRle(src: Uint8Array, pos: number, end: number, dst: Uint8Array, o: number, n: number, depth: number): void {
  if (end - pos <= 1) {
    if (end - pos !== 1) corrupt('empty run-length array', pos);
    dst.fill(src[pos], o, o + n);
    return;
  }
  const arena = scratch().arena;
  const mark = arena.top;
  let buf = src;
  let lit = pos + 1;
  let cmd = end;
  if (src[pos] !== 0) {
    // The front of the command buffer is itself entropy coded; the rest is stored after it.
    const cur: Cursor = { pos };
    const at = decodeIntoArena(src, cur, end, depth);
    const rest = end - cur.pos;
    const tail = arena.take(rest, cur.pos);
    arena.buf.set(src.subarray(cur.pos, end), tail);
    buf = arena.buf;
    lit = at;
    cmd = tail + rest;
  }

  const oEnd = o + n;
  let fill = 0;
  while (lit < cmd) {
    const c = buf[cmd - 1];
    let copy = 0;
    let repeat = 0;
    if (c === 0 || c >= 0x30) {
      copy = ~c & 0xf;
      repeat = c >>> 4;
      cmd -= 1;
    } else if (c === 1) {
      cmd -= 1;
      if (lit >= cmd) corrupt('run-length fill byte missing', pos);
      fill = buf[lit++];
      continue;
    } else {
      if (cmd - 2 < lit) corrupt('run-length command truncated', pos);
      const v = buf[cmd - 2] | (c << 8);
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
    if (copy > cmd - lit) corrupt('run-length literals run out', pos);
    if (copy + repeat > oEnd - o) corrupt('run-length output overflows', pos);
    if (copy > 32) dst.set(buf.subarray(lit, lit + copy), o);
    else for (let i = 0; i < copy; i++) dst[o + i] = buf[lit + i];
    o += copy;
    lit += copy;
    if (repeat > 0) {
      dst.fill(fill, o, o + repeat);
      o += repeat;
    }
  }
  if (lit !== cmd || o !== oEnd) corrupt('run-length array does not fill its output', pos);
  arena.top = mark;
}

/** Type 5: a count of plain arrays concatenated, or (top bit set) one multi-array. */
function decodeComposite(src: Uint8Array, pos: number, end: number, dst: Uint8Array, o: number, n: number, depth: number): void {
  if (end - pos < 6) corrupt('composite array too short', pos);
  let parts = src[pos] & 0x7f;
  if (parts < 2) corrupt('composite array with fewer than two parts', pos);
  const cur: Cursor = { pos };
  const oEnd = o + n;
  if ((src[pos] & 0x80) === 0) {
    cur.pos = pos + 1;
    for (; parts > 0; parts--) o += decodeBytes(src, cur, end, dst, o, oEnd - o, depth + 1);
  } else {
    const where = new Int32Array(2);
    o += decodeMultiArray(src, cur, end, dst, o, oEnd - o, 1, where, where.subarray(1), depth);
  }
  if (o !== oEnd) corrupt('composite array does not fill its output', pos);
  if (cur.pos !== end) corrupt('composite array does not use its whole payload', cur.pos);
}

/**
 * A multi-array builds `count` output arrays (written one after the other at `dst[at, ...)`) by gathering
 * intervals from a set of separately entropy-coded source arrays: an index stream says which source each interval
 * comes from (0 ends the current output array) and a bit stream gives each interval's length. Leviathan uses it for
 * its parallel literal and command streams. Fills `starts`/`lens` with where each output array went and returns the
 * total size.
 */
export function decodeMultiArray(
  src: Uint8Array,
  cur: Cursor,
  end: number,
  dst: Uint8Array,
  at: number,
  capacity: number,
  count: number,
  starts: Int32Array,
  lens: Int32Array,
  depth: number,
): number {
  const s = scratch();
  const arena = s.arena;
  const mark = arena.top;
  const pos0 = cur.pos;
  if (end - pos0 < 4) corrupt('multi-array header truncated', pos0);
  if (depth > MAX_DEPTH) corrupt('entropy arrays nested too deeply', pos0);
  const head = src[pos0];
  if ((head & 0x80) === 0) corrupt('bad multi-array header', pos0);
  const sources = head & 0x3f;
  cur.pos = pos0 + 1;
  if (capacity > dst.length - at) capacity = dst.length - at;

  if (sources === 0) {
    let o = at;
    for (let i = 0; i < count; i++) {
      const size = decodeBytes(src, cur, end, dst, o, at + capacity - o, depth + 1);
      starts[i] = o;
      lens[i] = size;
      o += size;
    }
    return o - at;
  }

  // The source arrays, each into its own arena slice; srcStart/srcLeft track how much of each is still unused.
  const srcStart = new Int32Array(sources);
  const srcLeft = new Int32Array(sources);
  let total = 0;
  for (let i = 0; i < sources; i++) {
    const p = decodeIntoArena(src, cur, end, depth);
    srcStart[i] = p;
    srcLeft[i] = arena.top - p;
    total += arena.top - p;
  }

  let pos = cur.pos;
  if (end - pos < 3) corrupt('multi-array interval header truncated', pos);
  const q = src[pos] | (src[pos + 1] << 8);
  pos += 2;
  const indexCount = peekDecodedSize(src, pos, end, total);
  let lenCount = indexCount - count;
  if (lenCount < 1) corrupt('multi-array with too few intervals', pos);

  const indexes = arena.take(indexCount, pos);
  const lenBits = arena.take(indexCount, pos);
  const abuf = arena.buf;
  cur.pos = pos;
  const packed = (q & 0x8000) !== 0;
  if (packed) {
    // One byte per interval: high nibble = length width, low nibble = source.
    if (decodeBytes(src, cur, end, abuf, indexes, indexCount, depth + 1) !== indexCount) corrupt('multi-array index count mismatch', pos);
    for (let i = 0; i < indexCount; i++) {
      const t = abuf[indexes + i];
      abuf[lenBits + i] = t >>> 4;
      abuf[indexes + i] = t & 0xf;
    }
    lenCount = indexCount;
  } else {
    if (decodeBytes(src, cur, end, abuf, indexes, indexCount, depth + 1) !== indexCount) corrupt('multi-array index count mismatch', pos);
    if (decodeBytes(src, cur, end, abuf, lenBits, lenCount, depth + 1) !== lenCount) corrupt('multi-array length count mismatch', pos);
    for (let i = 0; i < lenCount; i++) if (abuf[lenBits + i] > 16) corrupt('multi-array interval width too large', cur.pos);
  }

  pos = cur.pos;
  const bitBytes = q & 0x3fff;
  if (bitBytes > end - pos) corrupt('multi-array interval bits run past the source', pos);
  const bitsEnd = pos + bitBytes;

  // Interval lengths alternate between a forward and a backward bit stream; each is 1 << w | w raw bits.
  const intervals = s.intervals;
  const fw = new ForwardBits(src, pos, bitsEnd);
  const bw = new BackwardBits(src, bitsEnd, pos);
  let i = 0;
  for (; i + 2 <= lenCount; i += 2) {
    let w = abuf[lenBits + i];
    intervals[i] = (1 << w) | fw.read(w);
    w = abuf[lenBits + i + 1];
    intervals[i + 1] = (1 << w) | bw.read(w);
  }
  if (i < lenCount) {
    const w = abuf[lenBits + i];
    intervals[i] = (1 << w) | fw.read(w);
  }

  if (abuf[indexes + indexCount - 1] !== 0) corrupt('multi-array index stream does not end an array', pos);

  const limit = at + capacity;
  let o = at;
  let ii = 0;
  let li = 0;
  for (let a = 0; a < count; a++) {
    starts[a] = o;
    if (ii >= indexCount) corrupt('multi-array index stream ends early', pos);
    for (;;) {
      const from = abuf[indexes + ii++];
      if (from === 0) break;
      if (from > sources) corrupt('multi-array interval names a missing source', pos);
      if (li >= lenCount) corrupt('multi-array runs out of interval lengths', pos);
      const len = intervals[li++];
      const k = from - 1;
      if (len > srcLeft[k] || len > limit - o) corrupt('multi-array interval overruns', pos);
      dst.set(abuf.subarray(srcStart[k], srcStart[k] + len), o);
      srcStart[k] += len;
      srcLeft[k] -= len;
      o += len;
    }
    if (packed) li++;
    lens[a] = o - starts[a];
  }
  if (ii !== indexCount || li !== lenCount) corrupt('multi-array streams not fully used', pos);
  for (let k = 0; k < sources; k++) if (srcLeft[k] !== 0) corrupt('multi-array source not fully used', pos);

  arena.top = mark;
  cur.pos = bitsEnd;
  return o - at;
}
