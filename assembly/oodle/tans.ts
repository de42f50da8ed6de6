import { ForwardBits, TW } from './bits';
import { corrupt } from './errors';
import { RANGE_COUNT, RANGE_START, readRangeValueCount, readSymbolRanges, readUnaryValues } from './table-header';

/**
 * tANS-coded byte arrays (entropy type 1), as src/codecs/oodle/tans.ts: five interleaved states fed by one bit
 * stream read forward from the start and one read backward from the end; the table (2^8 .. 2^11 slots) is sent as
 * symbol weights.
 */

const VALUES: usize = memory.data(512 * 4, 16);
const SINGLES: usize = memory.data(256, 16);
/** i32: symbol << 16 | weight. */
const WEIGHTED: usize = memory.data(256 * 4, 16);
const SEEN: usize = memory.data(256, 16);
/** i32 entry = symbol | bit count << 8 | base of the next state << 12. */
const TABLE: usize = memory.data((1 << 11) * 4, 16);
const QUARTER_FILL: usize = memory.data(4 * 4, 16);

let singleCount: i32 = 0;
let weightedCount: i32 = 0;

export function decodeTans(pos: usize, end: usize, out: usize, n: i32): void {
  if (<i32>(end - pos) < 8 || n < 5) corrupt('tANS array too small', pos);
  const br = TW.init(pos, end);
  if (br.read(1) != 0) corrupt('reserved tANS bit set', pos);
  const logSize = <i32>br.read(2) + 8;
  readWeights(br, logSize);
  const p = br.bytePos();
  if (p >= end) corrupt('tANS table runs past its array', end);
  buildTable(logSize);
  runStates(p, end, out, n, logSize);
}

function readWeights(br: ForwardBits, logSize: i32): void {
  const size = 1 << logSize;
  singleCount = 0;
  weightedCount = 0;
  if (br.read(1) == 1) {
    const q = <i32>br.read(3);
    const n = <i32>br.read(8) + 1;
    if (n < 2) corrupt('tANS table with one symbol', br.bytePos());
    const extra = readRangeValueCount(br, n);
    readUnaryValues(br, VALUES, n + extra);
    const ranges = readSymbolRanges(br, n, extra, VALUES, n);
    let average = 6;
    let total = 0;
    let k = 0;
    for (let r = 0; r < ranges; r++) {
      const s0 = load<i32>(RANGE_START + (<usize>r << 2));
      const e = s0 + load<i32>(RANGE_COUNT + (<usize>r << 2));
      for (let sym = s0; sym < e; sym++) {
        const bits = q + load<i32>(VALUES + (<usize>(k++) << 2));
        if (bits > 15) corrupt('tANS weight code too long', br.bytePos());
        let v = <i32>br.read(bits) + (1 << bits) - (1 << q);
        const quarter = average >> 2;
        let limit = 2 * quarter;
        if (v <= limit) v = quarter + (-(v & 1) ^ (v >>> 1));
        if (limit > v) limit = v;
        v += 1;
        average += limit - quarter;
        if (v == 1) store<u8>(SINGLES + singleCount++, <u8>sym);
        else store<i32>(WEIGHTED + (<usize>(weightedCount++) << 2), (sym << 16) | v);
        total += v;
        if (total > size) corrupt('tANS weights exceed the table', br.bytePos());
      }
    }
    if (total != size) corrupt('tANS weights do not fill the table', br.bytePos());
    return;
  }

  memory.fill(SEEN, 0, 256);
  let count = <i32>br.read(3) + 1;
  const deltaBits = <i32>br.read(32 - clz<i32>(logSize));
  if (deltaBits == 0 || deltaBits > logSize) corrupt('bad tANS weight width', br.bytePos());
  let weight = 0;
  let total = 0;
  for (; count > 0; count--) {
    const sym = <i32>br.read(8);
    if (load<u8>(SEEN + sym)) corrupt('symbol repeated in tANS table', br.bytePos());
    weight += <i32>br.read(deltaBits);
    if (weight == 0) corrupt('zero tANS weight', br.bytePos());
    store<u8>(SEEN + sym, 1);
    if (weight == 1) store<u8>(SINGLES + singleCount++, <u8>sym);
    else store<i32>(WEIGHTED + (<usize>(weightedCount++) << 2), (sym << 16) | weight);
    total += weight;
  }
  const last = <i32>br.read(8);
  if (load<u8>(SEEN + last)) corrupt('symbol repeated in tANS table', br.bytePos());
  const rest = size - total;
  if (rest < weight || rest <= 1) corrupt('tANS weights leave too little for the last symbol', br.bytePos());
  store<i32>(WEIGHTED + (<usize>(weightedCount++) << 2), (last << 16) | rest);
  sortBytes(SINGLES, singleCount);
  sortInts(WEIGHTED, weightedCount);
}

/** Ascending insertion sorts of a few (at most 8) values. */
function sortBytes(a: usize, n: i32): void {
  for (let i = 1; i < n; i++) {
    const v = load<u8>(a + i);
    let j = i - 1;
    while (j >= 0 && load<u8>(a + j) > v) {
      store<u8>(a + j + 1, load<u8>(a + j));
      j--;
    }
    store<u8>(a + j + 1, v);
  }
}

function sortInts(a: usize, n: i32): void {
  for (let i = 1; i < n; i++) {
    const v = load<i32>(a + (<usize>i << 2));
    let j = i - 1;
    while (j >= 0 && load<i32>(a + (<usize>j << 2)) > v) {
      store<i32>(a + (<usize>(j + 1) << 2), load<i32>(a + (<usize>j << 2)));
      j--;
    }
    store<i32>(a + (<usize>(j + 1) << 2), v);
  }
}

@inline function put(slot: i32, v: i32): void {
  store<i32>(TABLE + (<usize>slot << 2), v);
}

function buildTable(logSize: i32): void {
  const size = 1 << logSize;
  const spread = size - singleCount;
  const q = spread >> 2;
  const r = spread & 3;
  const f1 = q + (r > 0 ? 1 : 0);
  const f2 = f1 + q + (r > 1 ? 1 : 0);
  const f3 = f2 + q + (r > 2 ? 1 : 0);
  store<i32>(QUARTER_FILL, 0);
  store<i32>(QUARTER_FILL, f1, 4);
  store<i32>(QUARTER_FILL, f2, 8);
  store<i32>(QUARTER_FILL, f3, 12);

  const singleEntry = logSize << 8;
  for (let i = 0; i < singleCount; i++) put(spread + i, singleEntry | <i32>load<u8>(SINGLES + i));

  let dealt = 0;
  for (let i = 0; i < weightedCount; i++) {
    const wv = load<i32>(WEIGHTED + (<usize>i << 2));
    const weight = wv & 0xffff;
    const sym = wv >>> 16;
    if (weight > 4) {
      const topBit = 31 - clz<i32>(weight);
      let bits = logSize - topBit;
      let base = (size - 1) & (weight << bits);
      let step = 1 << bits;
      let room = (1 << (topBit + 1)) - weight;
      for (let j = 0; j < 4; j++) {
        let slot = load<i32>(QUARTER_FILL + (<usize>j << 2));
        const take = (weight + ((dealt - j - 1) & 3)) >> 2;
        if (room >= take) {
          for (let k = 0; k < take; k++, base += step) put(slot++, sym | (bits << 8) | (base << 12));
          room -= take;
        } else {
          for (let k = 0; k < room; k++, base += step) put(slot++, sym | (bits << 8) | (base << 12));
          bits--;
          step >>= 1;
          base = 0;
          for (let k = room; k < take; k++, base += step) put(slot++, sym | (bits << 8) | (base << 12));
          room = weight;
        }
        store<i32>(QUARTER_FILL + (<usize>j << 2), slot);
      }
    } else {
      let quarters = ((1 << weight) - 1) << (dealt & 3);
      quarters |= quarters >>> 4;
      for (let k = 0, w = weight; k < weight; k++, w++) {
        const j = 31 - clz<i32>(quarters & -quarters);
        quarters &= quarters - 1;
        const bits = logSize - (31 - clz<i32>(w));
        const fa = QUARTER_FILL + (<usize>j << 2);
        const slot = load<i32>(fa);
        store<i32>(fa, slot + 1);
        put(slot, sym | (bits << 8) | (((size - 1) & (w << bits)) << 12));
      }
    }
    dealt += weight;
  }
}

/** Four little-endian bytes at `p`; bytes outside [lo, hi) read as zero. */
@inline function le32(p: usize, lo: usize, hi: usize): u32 {
  if (p >= lo && p + 4 <= hi) return load<u32>(p);
  return le32Edge(p, lo, hi);
}

function le32Edge(p: usize, lo: usize, hi: usize): u32 {
  let v: u32 = 0;
  for (let k: usize = 0; k < 4; k++) if (p + k >= lo && p + k < hi) v |= (<u32>load<u8>(p + k)) << (8 * <u32>k);
  return v;
}

/** The four bytes below `p`, the byte at p - 1 least significant; bytes outside [lo, hi) read as zero. */
@inline function be32Below(p: usize, lo: usize, hi: usize): u32 {
  if (p >= lo + 4 && p <= hi) return bswap<u32>(load<u32>(p - 4));
  return be32BelowEdge(p, lo, hi);
}

function be32BelowEdge(p: usize, lo: usize, hi: usize): u32 {
  let v: u32 = 0;
  for (let k: usize = 0; k < 4; k++) if (p - 1 - k >= lo && p - 1 - k < hi) v |= (<u32>load<u8>(p - 1 - k)) << (8 * <u32>k);
  return v;
}

function runStates(start: usize, end: usize, out: usize, n: i32, logSize: i32): void {
  const lut = TABLE;
  const mask: u32 = (1 << logSize) - 1;
  let o = out;
  const oEnd = out + n - 5;

  let fBits: u32 = le32(start, start, end);
  let fp = start + 4;
  let bBits: u32 = be32Below(end, start, end);
  let bp = end - 4;
  let fN: i32 = 32;
  let bN: i32 = 32;

  let s0 = fBits & mask;
  let s1 = bBits & mask;
  fBits >>>= logSize;
  fN -= logSize;
  bBits >>>= logSize;
  bN -= logSize;
  let s2 = fBits & mask;
  let s3 = bBits & mask;
  fBits >>>= logSize;
  fN -= logSize;
  bBits >>>= logSize;
  bN -= logSize;
  fBits |= le32(fp, start, end) << fN;
  fp += (31 - fN) >> 3;
  fN |= 24;
  let s4 = fBits & mask;
  fBits >>>= logSize;
  fN -= logSize;

  fp -= fN >> 3;
  fN &= 7;
  fBits &= (1 << fN) - 1;
  bp += bN >> 3;
  bN &= 7;
  bBits &= (1 << bN) - 1;

  let e: u32 = 0;
  let k: u32 = 0;
  if (o < oEnd) {
    for (;;) {
      fBits |= le32(fp, start, end) << fN;
      fp += (31 - fN) >> 3;
      fN |= 24;
      e = load<u32>(lut + (s0 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s0 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;
      e = load<u32>(lut + (s1 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s1 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;
      fBits |= le32(fp, start, end) << fN;
      fp += (31 - fN) >> 3;
      fN |= 24;
      e = load<u32>(lut + (s2 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s2 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;
      e = load<u32>(lut + (s3 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s3 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;
      fBits |= le32(fp, start, end) << fN;
      fp += (31 - fN) >> 3;
      fN |= 24;
      e = load<u32>(lut + (s4 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s4 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;

      bBits |= be32Below(bp, start, end) << bN;
      bp -= (31 - bN) >> 3;
      bN |= 24;
      e = load<u32>(lut + (s0 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s0 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
      e = load<u32>(lut + (s1 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s1 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
      bBits |= be32Below(bp, start, end) << bN;
      bp -= (31 - bN) >> 3;
      bN |= 24;
      e = load<u32>(lut + (s2 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s2 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
      e = load<u32>(lut + (s3 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s3 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
      bBits |= be32Below(bp, start, end) << bN;
      bp -= (31 - bN) >> 3;
      bN |= 24;
      e = load<u32>(lut + (s4 << 2)); store<u8>(o++, <u8>e); k = (e >>> 8) & 15; s4 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
    }
  }

  if (<i32>(bp - fp) + (fN >> 3) + (bN >> 3) != 0) corrupt('tANS streams do not meet', start);
  if ((s0 | s1 | s2 | s3 | s4) & ~0xff) corrupt('tANS final states are not bytes', start);
  store<u8>(oEnd, <u8>s0);
  store<u8>(oEnd, <u8>s1, 1);
  store<u8>(oEnd, <u8>s2, 2);
  store<u8>(oEnd, <u8>s3, 3);
  store<u8>(oEnd, <u8>s4, 4);
}
