import { ForwardBits } from './bit-reader.js';
import { corrupt } from './corrupt.js';
import { rangeCount, rangeStart, readRangeValueCount, readSymbolRanges, readUnaryValues } from './table-header.js';

/**
 * tANS-coded byte arrays (entropy type 1): five interleaved decoder states fed by one bit stream read forward from
 * the start and one read backward from the end. The table (2^8 .. 2^11 slots) is sent as symbol weights.
 */

const values = new Int32Array(512);
/** Symbols of weight one, which take one slot each at the top of the table. */
const singles = new Uint8Array(256);
/** Symbols of weight two or more, as symbol << 16 | weight. */
const weighted = new Int32Array(256);
const seen = new Uint8Array(256);
/** Entry = symbol | bit count << 8 | base of the next state << 12. */
const table = new Int32Array(1 << 11);
const quarterFill = new Int32Array(4);

let singleCount = 0;
let weightedCount = 0;

export function decodeTans(src: Uint8Array, pos: number, end: number, out: Uint8Array, o: number, n: number): void {
  if (end - pos < 8 || n < 5) corrupt('tANS array too small', pos);
  const br = new ForwardBits(src, pos, end);
  if (br.read(1) !== 0) corrupt('reserved tANS bit set', pos);
  const logSize = br.read(2) + 8;
  readWeights(br, logSize);
  const p = br.bytePos();
  if (p >= end) corrupt('tANS table runs past its array', end);
  buildTable(logSize);
  runStates(src, p, end, out, o, n, logSize);
}

function readWeights(br: ForwardBits, logSize: number): void {
  const size = 1 << logSize;
  singleCount = 0;
  weightedCount = 0;
  if (br.read(1) === 1) {
    // Weights of every present symbol, Rice coded around a running average.
    const q = br.read(3);
    const n = br.read(8) + 1;
    if (n < 2) corrupt('tANS table with one symbol', br.bytePos());
    const extra = readRangeValueCount(br, n);
    readUnaryValues(br, values, n + extra);
    const ranges = readSymbolRanges(br, n, extra, values, n);
    let average = 6;
    let total = 0;
    let k = 0;
    for (let r = 0; r < ranges; r++) {
      for (let sym = rangeStart[r], e = sym + rangeCount[r]; sym < e; sym++) {
        const bits = q + values[k++];
        if (bits > 15) corrupt('tANS weight code too long', br.bytePos());
        let v = br.read(bits) + (1 << bits) - (1 << q);
        const quarter = average >> 2;
        let limit = 2 * quarter;
        if (v <= limit) v = quarter + (-(v & 1) ^ (v >>> 1));
        if (limit > v) limit = v;
        v += 1;
        average += limit - quarter;
        if (v === 1) singles[singleCount++] = sym;
        else weighted[weightedCount++] = (sym << 16) | v;
        total += v;
        if (total > size) corrupt('tANS weights exceed the table', br.bytePos());
      }
    }
    if (total !== size) corrupt('tANS weights do not fill the table', br.bytePos());
    return;
  }

  // A few symbols with weights sent as increasing deltas; the last symbol takes what is left.
  seen.fill(0);
  let count = br.read(3) + 1;
  const deltaBits = br.read(32 - Math.clz32(logSize));
  if (deltaBits === 0 || deltaBits > logSize) corrupt('bad tANS weight width', br.bytePos());
  let weight = 0;
  let total = 0;
  for (; count > 0; count--) {
    const sym = br.read(8);
    if (seen[sym]) corrupt('symbol repeated in tANS table', br.bytePos());
    weight += br.read(deltaBits);
    if (weight === 0) corrupt('zero tANS weight', br.bytePos());
    seen[sym] = 1;
    if (weight === 1) singles[singleCount++] = sym;
    else weighted[weightedCount++] = (sym << 16) | weight;
    total += weight;
  }
  const last = br.read(8);
  if (seen[last]) corrupt('symbol repeated in tANS table', br.bytePos());
  const rest = size - total;
  if (rest < weight || rest <= 1) corrupt('tANS weights leave too little for the last symbol', br.bytePos());
  weighted[weightedCount++] = (last << 16) | rest;
  singles.subarray(0, singleCount).sort();
  weighted.subarray(0, weightedCount).sort();
}

/**
 * Spreads the symbols over the table. Weight-one symbols take the last slots; the others are dealt round-robin into
 * four interleaved quarters, each slot recording how many bits to read and the base of the next state.
 */
function buildTable(logSize: number): void {
  const size = 1 << logSize;
  const spread = size - singleCount;
  const q = spread >> 2;
  const r = spread & 3;
  quarterFill[0] = 0;
  quarterFill[1] = q + (r > 0 ? 1 : 0);
  quarterFill[2] = quarterFill[1] + q + (r > 1 ? 1 : 0);
  quarterFill[3] = quarterFill[2] + q + (r > 2 ? 1 : 0);

  const singleEntry = logSize << 8;
  for (let i = 0; i < singleCount; i++) table[spread + i] = singleEntry | singles[i];

  let dealt = 0;
  for (let i = 0; i < weightedCount; i++) {
    const weight = weighted[i] & 0xffff;
    const sym = weighted[i] >>> 16;
    if (weight > 4) {
      const topBit = 31 - Math.clz32(weight);
      let bits = logSize - topBit;
      let base = (size - 1) & (weight << bits);
      let step = 1 << bits;
      // The first `room` slots of this symbol read `bits` bits; the rest read one bit fewer.
      let room = (1 << (topBit + 1)) - weight;
      for (let j = 0; j < 4; j++) {
        let slot = quarterFill[j];
        const take = (weight + ((dealt - j - 1) & 3)) >> 2;
        if (room >= take) {
          for (let k = 0; k < take; k++, base += step) table[slot++] = sym | (bits << 8) | (base << 12);
          room -= take;
        } else {
          for (let k = 0; k < room; k++, base += step) table[slot++] = sym | (bits << 8) | (base << 12);
          bits--;
          step >>= 1;
          base = 0;
          for (let k = room; k < take; k++, base += step) table[slot++] = sym | (bits << 8) | (base << 12);
          room = weight;
        }
        quarterFill[j] = slot;
      }
    } else {
      let quarters = ((1 << weight) - 1) << (dealt & 3);
      quarters |= quarters >>> 4;
      for (let k = 0, w = weight; k < weight; k++, w++) {
        const j = 31 - Math.clz32(quarters & -quarters);
        quarters &= quarters - 1;
        const bits = logSize - (31 - Math.clz32(w));
        table[quarterFill[j]++] = sym | (bits << 8) | (((size - 1) & (w << bits)) << 12);
      }
    }
    dealt += weight;
  }
}

/** Reads four little-endian bytes at `p`, treating bytes outside [lo, hi) as zero. */
function le32(src: Uint8Array, p: number, lo: number, hi: number): number {
  if (p >= lo && p + 4 <= hi) return src[p] | (src[p + 1] << 8) | (src[p + 2] << 16) | (src[p + 3] << 24);
  let v = 0;
  for (let k = 0; k < 4; k++) if (p + k >= lo && p + k < hi) v |= src[p + k] << (8 * k);
  return v;
}

/** Reads the four bytes below `p` with the byte at p - 1 least significant, treating bytes outside [lo, hi) as zero. */
function be32Below(src: Uint8Array, p: number, lo: number, hi: number): number {
  if (p - 4 >= lo && p <= hi) return src[p - 1] | (src[p - 2] << 8) | (src[p - 3] << 16) | (src[p - 4] << 24);
  let v = 0;
  for (let k = 0; k < 4; k++) if (p - 1 - k >= lo && p - 1 - k < hi) v |= src[p - 1 - k] << (8 * k);
  return v;
}

function runStates(src: Uint8Array, start: number, end: number, out: Uint8Array, o: number, n: number, logSize: number): void {
  const lut = table;
  const mask = (1 << logSize) - 1;
  const oEnd = o + n - 5;

  let fBits = le32(src, start, start, end);
  let fp = start + 4;
  let bBits = be32Below(src, end, start, end);
  let bp = end - 4;
  let fN = 32;
  let bN = 32;

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
  fBits |= le32(src, fp, start, end) << fN;
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

  let e = 0;
  let k = 0;
  if (o < oEnd) {
    for (;;) {
      fBits |= le32(src, fp, start, end) << fN;
      fp += (31 - fN) >> 3;
      fN |= 24;
      e = lut[s0]; out[o++] = e; k = (e >>> 8) & 15; s0 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;
      e = lut[s1]; out[o++] = e; k = (e >>> 8) & 15; s1 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;
      fBits |= le32(src, fp, start, end) << fN;
      fp += (31 - fN) >> 3;
      fN |= 24;
      e = lut[s2]; out[o++] = e; k = (e >>> 8) & 15; s2 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;
      e = lut[s3]; out[o++] = e; k = (e >>> 8) & 15; s3 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;
      fBits |= le32(src, fp, start, end) << fN;
      fp += (31 - fN) >> 3;
      fN |= 24;
      e = lut[s4]; out[o++] = e; k = (e >>> 8) & 15; s4 = (fBits & ((1 << k) - 1)) + (e >>> 12); fBits >>>= k; fN -= k;
      if (o >= oEnd) break;

      bBits |= be32Below(src, bp, start, end) << bN;
      bp -= (31 - bN) >> 3;
      bN |= 24;
      e = lut[s0]; out[o++] = e; k = (e >>> 8) & 15; s0 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
      e = lut[s1]; out[o++] = e; k = (e >>> 8) & 15; s1 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
      bBits |= be32Below(src, bp, start, end) << bN;
      bp -= (31 - bN) >> 3;
      bN |= 24;
      e = lut[s2]; out[o++] = e; k = (e >>> 8) & 15; s2 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
      e = lut[s3]; out[o++] = e; k = (e >>> 8) & 15; s3 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
      bBits |= be32Below(src, bp, start, end) << bN;
      bp -= (31 - bN) >> 3;
      bN |= 24;
      e = lut[s4]; out[o++] = e; k = (e >>> 8) & 15; s4 = (bBits & ((1 << k) - 1)) + (e >>> 12); bBits >>>= k; bN -= k;
      if (o >= oEnd) break;
    }
  }

  if (bp - fp + (fN >> 3) + (bN >> 3) !== 0) corrupt('tANS streams do not meet', start);
  if ((s0 | s1 | s2 | s3 | s4) & ~0xff) corrupt('tANS final states are not bytes', start);
  // The five final states are the last five symbols themselves.
  out[oEnd] = s0;
  out[oEnd + 1] = s1;
  out[oEnd + 2] = s2;
  out[oEnd + 3] = s3;
  out[oEnd + 4] = s4;
}
