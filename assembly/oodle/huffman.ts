import { ForwardBits, TW } from './bits';
import { corrupt } from './errors';
import { MAX_ARRAY_SIZE } from './scratch';
import { appendRawBits, RANGE_COUNT, RANGE_START, readRangeValueCount, readSymbolRanges, readUnaryValues } from './table-header';

/**
 * Huffman-coded byte arrays (entropy types 2 and 4), as src/codecs/oodle/huffman.ts: canonical codes of at most 11
 * bits sent least significant bit first, so one 2048-entry table indexed by the next 11 bits gives symbol and length.
 * Three bit streams decoded round-robin (A forward from the start, B backward from the end, C forward from a split),
 * twice over for type 4.
 */

const MAX_CODE_LEN: i32 = 11;
const TABLE_SIZE: i32 = 1 << MAX_CODE_LEN;

/** i with its 11 bits in reverse order (u16). */
const REV11: usize = memory.data(TABLE_SIZE * 2, 16);
for (let i = 0; i < TABLE_SIZE; i++) {
  let r = 0;
  for (let b = 0; b < MAX_CODE_LEN; b++) if (i & (1 << b)) r |= 1 << (MAX_CODE_LEN - 1 - b);
  store<u16>(REV11 + (<usize>i << 1), <u16>r);
}

const SYMBOLS: usize = memory.data(256, 16);
const LENGTHS: usize = memory.data(256, 16);
/** i32 each. */
const VALUES: usize = memory.data(512 * 4, 16);
/** Entry (u16) = code length << 8 | symbol. */
const TABLE: usize = memory.data(TABLE_SIZE * 2, 16);
const BY_LENGTH: usize = memory.data(256 * 2, 16);
const NEXT_SLOT: usize = memory.data(16 * 4, 16);
const LENGTH_COUNT: usize = memory.data(16 * 4, 16);

export function decodeHuffman(pos: usize, end: usize, out: usize, n: i32, halves: bool): void {
  const br = TW.init(pos, end);
  let count: i32 = 0;
  if (br.read(1) == 0) count = readLengthsGamma(br);
  else if (br.read(1) == 0) count = readLengthsRice(br);
  else corrupt('unknown Huffman table format', pos);

  let p = br.bytePos();
  if (p > end) corrupt('Huffman table runs past its array', end);

  if (count == 1) {
    if (p != end) corrupt('data after a single-symbol Huffman table', p);
    memory.fill(out, load<u8>(SYMBOLS), n);
    return;
  }
  buildTable(count, pos);

  if (!halves) {
    if (<i32>(end - p) < 3) corrupt('Huffman array too short for its split', p);
    const split = <i32>load<u16>(p);
    p += 2;
    if (split > <i32>(end - p)) corrupt('Huffman stream split beyond the array', p);
    decodeStreams(p, p + split, end, out, out + n);
    return;
  }

  if (<i32>(end - p) < 6) corrupt('Huffman array too short for its splits', p);
  const midSplit = <i32>load<u16>(p) | (<i32>load<u8>(p + 2) << 16);
  p += 3;
  if (midSplit > <i32>(end - p)) corrupt('Huffman half split beyond the array', p);
  const mid = p + midSplit;
  const leftSplit = <i32>load<u16>(p);
  p += 2;
  if (<i32>(mid - p) < leftSplit + 2 || <i32>(end - mid) < 3) corrupt('bad Huffman stream split', p);
  const rightSplit = <i32>load<u16>(mid);
  if (<i32>(end - (mid + 2)) < rightSplit + 2) corrupt('bad Huffman stream split', mid);
  const half = (n + 1) >> 1;
  decodeStreams(p, p + leftSplit, mid, out, out + half);
  decodeStreams(mid + 2, mid + 2 + rightSplit, end, out + half, out + n);
}

function readLengthsGamma(br: ForwardBits): i32 {
  if (br.read(1) == 0) {
    const n = <i32>br.read(8);
    if (n == 0) corrupt('empty Huffman table', br.bytePos());
    if (n == 1) {
      store<u8>(SYMBOLS, <u8>br.read(8));
      return 1;
    }
    const lenBits = <i32>br.read(3);
    if (lenBits > 4) corrupt('bad Huffman length width', br.bytePos());
    for (let i = 0; i < n; i++) {
      store<u8>(SYMBOLS + i, <u8>br.read(8));
      const len = <i32>br.read(lenBits) + 1;
      if (len > MAX_CODE_LEN) corrupt('Huffman code too long', br.bytePos());
      store<u8>(LENGTHS + i, <u8>len);
    }
    return n;
  }

  const forced = <i32>br.read(2);
  const minPeek: u32 = 1 << (31 - (20 >>> forced));
  let avg4 = 32;
  let sym = 0;
  let count = 0;
  let skipGap = br.read(1) == 1;
  for (;;) {
    if (!skipGap) {
      sym += readGamma(br);
      if (sym >= 256) break;
    }
    skipGap = false;
    let run = readGamma(br);
    if (sym + run > 256) corrupt('Huffman symbol run past 255', br.bytePos());
    for (; run > 0; run--) {
      if (br.peek32() < minPeek) corrupt('Huffman length code too long', br.bytePos());
      const lz = br.leadingZeros();
      const v = <i32>br.read(lz + forced + 1) + ((lz - 1) << forced);
      const len = (-(v & 1) ^ (v >>> 1)) + ((avg4 + 2) >> 2);
      if (len < 1 || len > MAX_CODE_LEN) corrupt('bad Huffman code length', br.bytePos());
      avg4 = len + ((3 * avg4 + 2) >> 2);
      store<u8>(SYMBOLS + count, <u8>sym);
      store<u8>(LENGTHS + count, <u8>len);
      sym++;
      count++;
    }
    if (sym == 256) break;
  }
  if (sym != 256 || count < 2) corrupt('bad Huffman symbol runs', br.bytePos());
  return count;
}

function readGamma(br: ForwardBits): i32 {
  if (br.peek32() < 0x1000000) corrupt('Huffman run length too long', br.bytePos());
  const lz = br.leadingZeros();
  return <i32>br.read(2 * (lz + 1)) - 1;
}

function readLengthsRice(br: ForwardBits): i32 {
  const forced = <i32>br.read(2);
  const n = <i32>br.read(8) + 1;
  const extra = readRangeValueCount(br, n);
  readUnaryValues(br, VALUES, n + extra);
  appendRawBits(br, VALUES, n, forced);

  let running = 0x1e;
  for (let i = 0; i < n; i++) {
    const v = load<i32>(VALUES + (<usize>i << 2));
    const delta = -(v & 1) ^ (v >>> 1);
    const len = delta + (running >> 2) + 1;
    if (len < 1 || len > MAX_CODE_LEN) corrupt('bad Huffman code length', br.bytePos());
    store<u8>(LENGTHS + i, <u8>len);
    running += delta;
  }

  const ranges = readSymbolRanges(br, n, extra, VALUES, n);
  let k = 0;
  for (let r = 0; r < ranges; r++) {
    const s0 = load<i32>(RANGE_START + (<usize>r << 2));
    const e = s0 + load<i32>(RANGE_COUNT + (<usize>r << 2));
    for (let s = s0; s < e; s++, k++) store<u8>(SYMBOLS + k, <u8>s);
  }
  return n;
}

@inline function slot32(base: usize, i: i32): usize {
  return base + (<usize>i << 2);
}

function buildTable(count: i32, where: usize): void {
  for (let len = 0; len <= MAX_CODE_LEN; len++) store<i32>(slot32(LENGTH_COUNT, len), 0);
  let kraft = 0;
  let width = 1;
  for (let i = 0; i < count; i++) {
    const len = <i32>load<u8>(LENGTHS + i);
    store<i32>(slot32(LENGTH_COUNT, len), load<i32>(slot32(LENGTH_COUNT, len)) + 1);
    kraft += TABLE_SIZE >> len;
    if (len > width) width = len;
  }
  if (kraft != TABLE_SIZE) corrupt('Huffman code lengths do not form a complete code', where);

  let at = 0;
  for (let len = 1; len <= width; len++) {
    store<i32>(slot32(NEXT_SLOT, len), at);
    at += load<i32>(slot32(LENGTH_COUNT, len));
  }
  for (let i = 0; i < count; i++) {
    const len = <i32>load<u8>(LENGTHS + i);
    const s = load<i32>(slot32(NEXT_SLOT, len));
    store<i32>(slot32(NEXT_SLOT, len), s + 1);
    store<u16>(BY_LENGTH + (<usize>s << 1), <u16>((len << 8) | <i32>load<u8>(SYMBOLS + i)));
  }

  let code = 0;
  let k = 0;
  for (let len = 1; len <= width; len++) {
    if (len > 1) doubleTable(1 << (len - 1));
    for (let j = load<i32>(slot32(LENGTH_COUNT, len)); j > 0; j--) {
      const slot = <i32>load<u16>(REV11 + (<usize>(code++ << (MAX_CODE_LEN - len)) << 1));
      store<u16>(TABLE + (<usize>slot << 1), load<u16>(BY_LENGTH + (<usize>(k++) << 1)));
    }
    code <<= 1;
  }
  for (let len = width; len < MAX_CODE_LEN; len++) doubleTable(1 << len);
}

/** Copies the table's first `n` entries to the next `n`. */
@inline function doubleTable(n: i32): void {
  memory.copy(TABLE + (<usize>n << 1), TABLE, <usize>n << 1);
}

/** Stream B's bytes in reverse order, so that it reads forward like the others (with slack for 8-byte loads). */
const REVERSED: usize = memory.data(MAX_ARRAY_SIZE + 64, 16);

/** The next 57 or more bits of a stream at bit `bit` from `base`, least significant first. */
@inline function window(base: usize, bit: u32): u64 {
  return load<u64>(base + (bit >>> 3)) >>> <u64>(bit & 7);
}

/**
 * Decodes `[o, oEnd)` from stream A in `[aStart, mid)` and streams B and C sharing `[mid, end)`; each stream must end
 * exactly where the format says. Stream B runs backward from `end`: its bytes are reversed into a buffer first, so
 * that all three read the same way, five symbols (at most 55 bits) from each 8-byte load. A stream is only a count of
 * the bits it has taken, and where it ends is where that count says, whatever bytes its last loads saw past it: a
 * code that fits before a stream's end decodes the same whatever follows it, and one that does not takes the stream
 * past its end, which the final test rejects (as the TypeScript decoder, which reads zeros there, does).
 */
function decodeStreams(aStart: usize, mid: usize, end: usize, o: usize, oEnd: usize): void {
  const size = <i32>(end - aStart);
  const n = <i32>(oEnd - o);
  if (size > MAX_ARRAY_SIZE || n > MAX_ARRAY_SIZE) corrupt('Huffman array too large', aStart);
  const lut = TABLE;
  const mask: u64 = <u64>TABLE_SIZE - 1;
  const bcLen = <u32>(end - mid);
  const aLen = <u32>(mid - aStart);
  reverseBytes(REVERSED, end, bcLen);
  const bStart = REVERSED;
  let aBit: u32 = 0;
  let bBit: u32 = 0;
  let cBit: u32 = 0;
  let e: u32 = 0;

  // Five rounds of A, B, C per loads; the loads stay near each stream's bytes (positions checked per five rounds).
  while (<i32>(oEnd - o) >= 15 && aBit >>> 3 <= aLen && (bBit >>> 3) + (cBit >>> 3) <= bcLen) {
    let wa = window(aStart, aBit);
    let wb = window(bStart, bBit);
    let wc = window(mid, cBit);
    for (let k = 0; k < 5; k++) {
      e = <u32>load<u16>(lut + <usize>((wa & mask) << 1));
      store<u8>(o, <u8>e);
      wa >>>= <u64>(e >>> 8);
      aBit += e >>> 8;
      e = <u32>load<u16>(lut + <usize>((wb & mask) << 1));
      store<u8>(o, <u8>e, 1);
      wb >>>= <u64>(e >>> 8);
      bBit += e >>> 8;
      e = <u32>load<u16>(lut + <usize>((wc & mask) << 1));
      store<u8>(o, <u8>e, 2);
      wc >>>= <u64>(e >>> 8);
      cBit += e >>> 8;
      o += 3;
    }
  }
  // The last symbols one at a time, in the same order.
  while (o < oEnd) {
    e = <u32>load<u16>(lut + <usize>((window(aStart, aBit) & mask) << 1));
    store<u8>(o++, <u8>e);
    aBit += e >>> 8;
    if (o >= oEnd) break;
    e = <u32>load<u16>(lut + <usize>((window(bStart, bBit) & mask) << 1));
    store<u8>(o++, <u8>e);
    bBit += e >>> 8;
    if (o >= oEnd) break;
    e = <u32>load<u16>(lut + <usize>((window(mid, cBit) & mask) << 1));
    store<u8>(o++, <u8>e);
    cBit += e >>> 8;
  }

  if (aStart + ((aBit + 7) >>> 3) != mid || end - ((bBit + 7) >>> 3) != mid + ((cBit + 7) >>> 3)) {
    corrupt('Huffman streams do not end where their split says', aStart);
  }
}

/** Writes the `n` bytes below `end` to `to` in reverse order (the byte at end - 1 first), 16 at a time. */
export function reverseBytes(to: usize, end: usize, n: u32): void {
  let i: u32 = 0;
  for (; i + 16 <= n; i += 16) {
    const v = v128.load(end - i - 16);
    v128.store(to + i, i8x16.shuffle(v, v, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  }
  for (; i < n; i++) store<u8>(to + i, load<u8>(end - 1 - i));
  // Loads past the stream's last byte see zeros, not the previous array's.
  store<u64>(to + n, 0);
  store<u64>(to + n, 0, 8);
}
