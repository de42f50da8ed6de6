import { ForwardBits } from './bit-reader.js';
import { corrupt } from './corrupt.js';
import { MAX_ARRAY_SIZE } from './scratch.js';
import { appendRawBits, rangeCount, rangeStart, readRangeValueCount, readSymbolRanges, readUnaryValues } from './table-header.js';

/**
 * Huffman-coded byte arrays (entropy types 2 and 4). Codes are at most 11 bits, canonical, and stored least
 * significant bit first, so one 2048-entry table indexed by the next 11 bits gives both symbol and length.
 *
 * The payload is split into three bit streams decoded round-robin to break the dependency chain between symbols:
 * stream A runs forward from the start, stream B backward from the end and stream C forward from a middle split;
 * B and C share the bytes after the split. Type 4 does this twice, once per half of the output.
 */

const MAX_CODE_LEN = 11;
const TABLE_SIZE = 1 << MAX_CODE_LEN;

/** REV11[i] is i with its 11 bits in reverse order. */
const REV11 = new Uint16Array(TABLE_SIZE);
for (let i = 0; i < TABLE_SIZE; i++) {
  let r = 0;
  for (let b = 0; b < MAX_CODE_LEN; b++) if (i & (1 << b)) r |= 1 << (MAX_CODE_LEN - 1 - b);
  REV11[i] = r;
}

/** Symbols in transmission order and their code lengths. */
const symbols = new Uint8Array(256);
const lengths = new Uint8Array(256);
const values = new Int32Array(512);
/** Entry = code length << 8 | symbol, indexed by the next bits of the stream (least significant first). */
const table = new Uint16Array(TABLE_SIZE);
/** Table entries grouped by code length, and where the next entry of each length goes. */
const byLength = new Uint16Array(256);
const nextSlot = new Int32Array(MAX_CODE_LEN + 1);
const lengthCount = new Int32Array(MAX_CODE_LEN + 1);

/**
 * Decodes a Huffman array whose payload is `src[pos, end)` into `out[o, o + n)`. `halves` selects type 4, whose two
 * halves of the output each have their own three streams.
 */
export function decodeHuffman(src: Uint8Array, pos: number, end: number, out: Uint8Array, o: number, n: number, halves: boolean): void {
  const br = new ForwardBits(src, pos, end);
  let count: number;
  if (br.read(1) === 0) count = readLengthsGamma(br);
  else if (br.read(1) === 0) count = readLengthsRice(br);
  else corrupt('unknown Huffman table format', pos);

  let p = br.bytePos();
  if (p > end) corrupt('Huffman table runs past its array', end);

  if (count === 1) {
    // Only one symbol: nothing else may follow.
    if (p !== end) corrupt('data after a single-symbol Huffman table', p);
    out.fill(symbols[0], o, o + n);
    return;
  }
  buildTable(count, pos);

  if (!halves) {
    if (end - p < 3) corrupt('Huffman array too short for its split', p);
    const split = src[p] | (src[p + 1] << 8);
    p += 2;
    if (split > end - p) corrupt('Huffman stream split beyond the array', p);
    decodeStreams(src, p, p + split, end, out, o, o + n);
    return;
  }

  if (end - p < 6) corrupt('Huffman array too short for its splits', p);
  const midSplit = src[p] | (src[p + 1] << 8) | (src[p + 2] << 16);
  p += 3;
  if (midSplit > end - p) corrupt('Huffman half split beyond the array', p);
  const mid = p + midSplit;
  const leftSplit = src[p] | (src[p + 1] << 8);
  p += 2;
  if (mid - p < leftSplit + 2 || end - mid < 3) corrupt('bad Huffman stream split', p);
  const rightSplit = src[mid] | (src[mid + 1] << 8);
  if (end - (mid + 2) < rightSplit + 2) corrupt('bad Huffman stream split', mid);
  const half = (n + 1) >> 1;
  decodeStreams(src, p, p + leftSplit, mid, out, o, o + half);
  decodeStreams(src, mid + 2, mid + 2 + rightSplit, end, out, o + half, o + n);
}

/**
 * Older table format: either a sparse list of (symbol, length) pairs, or for every symbol a gamma-coded run
 * structure with lengths sent as deltas from a running average.
 */
function readLengthsGamma(br: ForwardBits): number {
  if (br.read(1) === 0) {
    const n = br.read(8);
    if (n === 0) corrupt('empty Huffman table', br.bytePos());
    if (n === 1) {
      symbols[0] = br.read(8);
      return 1;
    }
    const lenBits = br.read(3);
    if (lenBits > 4) corrupt('bad Huffman length width', br.bytePos());
    for (let i = 0; i < n; i++) {
      symbols[i] = br.read(8);
      const len = br.read(lenBits) + 1;
      if (len > MAX_CODE_LEN) corrupt('Huffman code too long', br.bytePos());
      lengths[i] = len;
    }
    return n;
  }

  const forced = br.read(2);
  // Caps the gamma prefix so that a code never needs more bits than the reader holds.
  const minPeek = 2 ** (31 - (20 >>> forced));
  let avg4 = 32;
  let sym = 0;
  let count = 0;
  let skipGap = br.read(1) === 1;
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
      const v = br.read(lz + forced + 1) + ((lz - 1) << forced);
      const len = (-(v & 1) ^ (v >>> 1)) + ((avg4 + 2) >> 2);
      if (len < 1 || len > MAX_CODE_LEN) corrupt('bad Huffman code length', br.bytePos());
      avg4 = len + ((3 * avg4 + 2) >> 2);
      symbols[count] = sym++;
      lengths[count++] = len;
    }
    if (sym === 256) break;
  }
  if (sym !== 256 || count < 2) corrupt('bad Huffman symbol runs', br.bytePos());
  return count;
}

/** Gamma code (prefix of zeros, then that many plus two bits) of a value >= 1. */
function readGamma(br: ForwardBits): number {
  if (br.peek32() < 0x1000000) corrupt('Huffman run length too long', br.bytePos());
  const lz = br.leadingZeros();
  return br.read(2 * (lz + 1)) - 1;
}

/** Newer table format: present symbols as ranges, lengths as Rice-coded deltas from a running average. */
function readLengthsRice(br: ForwardBits): number {
  const forced = br.read(2);
  const n = br.read(8) + 1;
  const extra = readRangeValueCount(br, n);
  readUnaryValues(br, values, n + extra);
  appendRawBits(br, values, n, forced);

  let running = 0x1e;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const delta = -(v & 1) ^ (v >>> 1);
    const len = delta + (running >> 2) + 1;
    if (len < 1 || len > MAX_CODE_LEN) corrupt('bad Huffman code length', br.bytePos());
    lengths[i] = len;
    running += delta;
  }

  const ranges = readSymbolRanges(br, n, extra, values, n);
  let k = 0;
  for (let r = 0; r < ranges; r++) {
    for (let s = rangeStart[r], e = s + rangeCount[r]; s < e; s++) symbols[k++] = s;
  }
  return n;
}

/**
 * Fills `table` with the canonical code; the lengths must describe a complete prefix code. The table always has all
 * 2^11 entries, so that the decode loops index it with a constant mask (the compiler then drops the bounds checks and
 * keeps a register free); it is built at the width of the longest code and doubled up to full size.
 */
function buildTable(count: number, where: number): void {
  for (let len = 0; len <= MAX_CODE_LEN; len++) lengthCount[len] = 0;
  let kraft = 0;
  let width = 1;
  for (let i = 0; i < count; i++) {
    const len = lengths[i];
    lengthCount[len]++;
    kraft += TABLE_SIZE >> len;
    if (len > width) width = len;
  }
  if (kraft !== TABLE_SIZE) corrupt('Huffman code lengths do not form a complete code', where);

  // Entries sorted by code length, keeping transmission order within a length: the order canonical codes go in.
  let at = 0;
  for (let len = 1; len <= width; len++) {
    nextSlot[len] = at;
    at += lengthCount[len];
  }
  for (let i = 0; i < count; i++) {
    const len = lengths[i];
    byLength[nextSlot[len]++] = (len << 8) | symbols[i];
  }

  // Codes are sent least significant bit first, so a code of length `len` owns its bit-reversal plus every index
  // that extends it with higher bits. Placing the codes shortest first in a table 2^len wide and doubling the table
  // before the next length fills all of those slots with one write per code.
  let code = 0;
  let k = 0;
  for (let len = 1; len <= width; len++) {
    if (len > 1) doubleTable(1 << (len - 1));
    for (let j = lengthCount[len]; j > 0; j--) table[REV11[code++ << (MAX_CODE_LEN - len)]] = byLength[k++];
    code <<= 1;
  }
  for (let len = width; len < MAX_CODE_LEN; len++) doubleTable(1 << len);
}

/** Copies the table's first `n` entries to the next `n`; small copies in a loop, as a native call costs more than they do. */
function doubleTable(n: number): void {
  if (n >= 128) table.copyWithin(n, 0, n);
  else for (let i = 0; i < n; i++) table[n + i] = table[i];
}

/**
 * Decodes `out[o, oEnd)` from stream A in `src[aStart, mid)` and streams B and C sharing `src[mid, end)`. Each
 * stream must end exactly where the format says, which is how corrupt data is caught; bytes a stream peeks at past
 * its own end never influence a valid decode.
 */
function decodeStreams(src: Uint8Array, aStart: number, mid: number, end: number, out: Uint8Array, o: number, oEnd: number): void {
  const size = end - aStart;
  const n = oEnd - o;
  if (size > IN.length - 8 || n > OUT.length) corrupt('Huffman array too large', aStart);
  if (size <= 32) for (let i = 0; i < size; i++) IN[i] = src[aStart + i];
  else IN.set(src.subarray(aStart, end));
  decodeScratchStreams(mid - aStart, size, n, aStart);
  if (n <= 32) for (let i = 0; i < n; i++) out[o + i] = OUT[i];
  else out.set(OUT.subarray(0, n), o);
}

/*
 * The streams are decoded from and into buffers of this module: the compiler then knows their addresses and sizes,
 * and the main loop loses a type check and three loads per byte written (the copies in and out cost far less).
 */
const IN = new Uint8Array(MAX_ARRAY_SIZE + 8);
const IN_VIEW = new DataView(IN.buffer);
const OUT = new Uint8Array(MAX_ARRAY_SIZE);

function decodeScratchStreams(mid: number, end: number, oEnd: number, where: number): void {
  const lut = table;
  const mask = TABLE_SIZE - 1;
  const src = IN;
  const view = IN_VIEW;
  const out = OUT;
  const aStart = 0;
  let o = 0;
  let e = 0;
  let n = 0;

  // Main loop. Each stream is only a bit position (B's counts bits taken from the end): every symbol reads the 32 bits
  // at its position afresh, which keeps few enough values live for all of them to stay in registers. Each turn
  // moves a stream at most 22 bits (three bytes) on, so with a <= mid, c + 12 <= b every read stays in [aStart, end).
  // Positions are in bits from each stream's start, so that they stay small whatever the size of `src`.
  let aBit = 0;
  let bTaken = 0;
  let cBit = 0;
  const aLen = mid - aStart;
  const bcLen = end - mid;
  while (oEnd - o >= 6 && aBit >>> 3 <= aLen && (cBit >>> 3) + (bTaken >>> 3) + 12 <= bcLen) {
    e = lut[(view.getUint32(aStart + (aBit >>> 3), true) >>> (aBit & 7)) & mask];
    out[o] = e;
    aBit += e >>> 8;
    // Stream B runs backward: its next byte is the one below, so it is the low byte of a big-endian word.
    e = lut[(view.getUint32(end - (bTaken >>> 3) - 4, false) >>> (bTaken & 7)) & mask];
    out[o + 1] = e;
    bTaken += e >>> 8;
    e = lut[(view.getUint32(mid + (cBit >>> 3), true) >>> (cBit & 7)) & mask];
    out[o + 2] = e;
    cBit += e >>> 8;
    e = lut[(view.getUint32(aStart + (aBit >>> 3), true) >>> (aBit & 7)) & mask];
    out[o + 3] = e;
    aBit += e >>> 8;
    e = lut[(view.getUint32(end - (bTaken >>> 3) - 4, false) >>> (bTaken & 7)) & mask];
    out[o + 4] = e;
    bTaken += e >>> 8;
    e = lut[(view.getUint32(mid + (cBit >>> 3), true) >>> (cBit & 7)) & mask];
    out[o + 5] = e;
    cBit += e >>> 8;
    o += 6;
  }

  // The byte-at-a-time readers of the tail start from there: a partly used byte becomes their first few bits.
  let ap = aStart + (aBit >>> 3);
  let aN = 0;
  let aBits = 0;
  if (aBit & 7) {
    aN = 8 - (aBit & 7);
    aBits = src[ap++] >>> (aBit & 7);
  }
  let bp = end - (bTaken >>> 3);
  let bN = 0;
  let bBits = 0;
  if (bTaken & 7) {
    bN = 8 - (bTaken & 7);
    bBits = src[--bp] >>> (bTaken & 7);
  }
  let cp = mid + (cBit >>> 3);
  let cN = 0;
  let cBits = 0;
  if (cBit & 7) {
    cN = 8 - (cBit & 7);
    cBits = src[cp++] >>> (cBit & 7);
  }

  while (o < oEnd) {
    while (aN <= 24) {
      aBits |= (ap < mid ? src[ap] : 0) << aN;
      ap++;
      aN += 8;
    }
    e = lut[aBits & mask];
    out[o++] = e;
    n = e >>> 8;
    aBits >>>= n;
    aN -= n;
    if (o >= oEnd) break;

    while (bN <= 24) {
      bBits |= (bp > mid ? src[bp - 1] : 0) << bN;
      bp--;
      bN += 8;
    }
    e = lut[bBits & mask];
    out[o++] = e;
    n = e >>> 8;
    bBits >>>= n;
    bN -= n;
    if (o >= oEnd) break;

    while (cN <= 24) {
      cBits |= (cp < end ? src[cp] : 0) << cN;
      cp++;
      cN += 8;
    }
    e = lut[cBits & mask];
    out[o++] = e;
    n = e >>> 8;
    cBits >>>= n;
    cN -= n;
  }

  if (ap - (aN >> 3) !== mid || bp + (bN >> 3) !== cp - (cN >> 3)) {
    corrupt('Huffman streams do not end where their split says', where);
  }
}
