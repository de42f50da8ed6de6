import type { MsbWriter } from './bit-writer.js';

/**
 * Writes the code lengths of a Huffman array in the cheapest of the three forms the decoders read (huffman.ts,
 * table-header.ts):
 *  - sparse: each present symbol and its length, in fixed widths;
 *  - runs: present symbols as gamma-coded runs and gaps, each length Rice coded as a difference from a running
 *    average;
 *  - ranges: the lengths first (Rice coded as differences from a running sum), then the present symbols as ranges.
 * Symbols always go out in ascending order, so the canonical code (by length, then by symbol) is the one
 * canonicalEntries builds. Sizes are worked out arithmetically; only the chosen form is written.
 */

const SPARSE = 0;
const RUNS = 1;
const RANGES = 2;

/** Present symbols in ascending order, and their count. */
const syms = new Int32Array(256);
let count = 0;
/** Zigzagged length differences of the runs form and of the ranges form, per present symbol. */
const runValues = new Int32Array(256);
const rangeValues = new Int32Array(512);
/** Range-length and gap values of the ranges form: unary part, raw bits and their width. */
const rawBits = new Int32Array(512);
const rawWidth = new Int32Array(512);
let extra = 0;
/** The Rice parameter each Rice form is cheapest with. */
let runsForced = 0;
let rangesForced = 0;

function zigzag(d: number): number {
  return d >= 0 ? 2 * d : -2 * d - 1;
}

function bitLength(v: number): number {
  return 32 - Math.clz32(v);
}

/** Bits of the gamma code of g >= 1 (see writeGamma). */
function gammaBits(g: number): number {
  return 2 * bitLength(g + 1) - 2;
}

/**
 * The cheapest form for `lens` (the m symbols present, at least two, ascending in `present`) and its size in bits;
 * the choice is kept for writing.
 */
export function chooseHuffmanTable(lens: Uint8Array, present: Int32Array, m: number): { form: number; bits: number } {
  count = m;
  let longest = 0;
  for (let i = 0; i < m; i++) {
    const s = present[i]!;
    syms[i] = s;
    longest = Math.max(longest, lens[s]!);
  }
  let form = -1;
  let best = Infinity;
  if (count <= 255) {
    best = 2 + 8 + 3 + count * (8 + bitLength(longest - 1));
    form = SPARSE;
  }
  const runs = runsBits(lens);
  if (runs < best) {
    best = runs;
    form = RUNS;
  }
  const ranges = rangesBits(lens);
  if (ranges < best) {
    best = ranges;
    form = RANGES;
  }
  return { form, bits: best };
}

function runsBits(lens: Uint8Array): number {
  // Each length's code under each of the four Rice parameters f, summed in the same pass.
  let avg4 = 32;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  let most = 0;
  for (let i = 0; i < count; i++) {
    const len = lens[syms[i]!]!;
    const v = zigzag(len - ((avg4 + 2) >> 2));
    runValues[i] = v;
    avg4 = len + ((3 * avg4 + 2) >> 2);
    b0 += v + 1;
    b1 += (v >>> 1) + 2;
    b2 += (v >>> 2) + 3;
    b3 += (v >>> 3) + 4;
    if (v > most) most = v;
  }
  // Gaps and runs, gamma coded (no gap before a present symbol 0).
  let bits = 5;
  let prev = -1;
  for (let i = 0; i < count; ) {
    const s = syms[i]!;
    const gap = s - prev - 1;
    if (gap > 0) bits += gammaBits(gap);
    let j = i + 1;
    while (j < count && syms[j] === syms[j - 1]! + 1) j++;
    bits += gammaBits(j - i);
    prev = syms[j - 1]!;
    i = j;
  }
  if (prev < 255) bits += gammaBits(255 - prev);
  // Each length code is read in one step, which caps its zero prefix at 20 >> f.
  let best = Infinity;
  const sums = [b0, b1, b2, b3];
  for (let f = 0; f < 4; f++) {
    if (most >>> f > 20 >> f || sums[f]! >= best) continue;
    best = sums[f]!;
    runsForced = f;
  }
  return bits + best;
}

function rangesBits(lens: Uint8Array): number {
  // Each length's code under each of the four Rice parameters, summed in the same pass.
  let running = 0x1e;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  for (let i = 0; i < count; i++) {
    const len = lens[syms[i]!]!;
    const delta = len - 1 - (running >> 2);
    const v = zigzag(delta);
    rangeValues[i] = v;
    running += delta;
    b0 += v + 1;
    b1 += (v >>> 1) + 2;
    b2 += (v >>> 2) + 3;
    b3 += (v >>> 3) + 4;
  }
  // Ranges: an optional leading gap, then (range length, gap) pairs; the last range is implied by the count.
  extra = 0;
  if (syms[0]! > 0) {
    const w = bitLength(syms[0]! + 1) - 1;
    putRangeValue(w - 1, syms[0]! + 1 - (1 << w), w);
  }
  for (let i = 0; ; ) {
    let j = i + 1;
    while (j < count && syms[j] === syms[j - 1]! + 1) j++;
    if (j === count) break;
    const run = j - i;
    const gap = syms[j]! - syms[j - 1]! - 1;
    const lw = bitLength(run) - 1;
    putRangeValue(lw, run - (1 << lw), lw);
    const gw = bitLength(gap + 1) - 1;
    putRangeValue(gw - 1, gap + 1 - (1 << gw), gw);
    i = j;
  }
  let bits = 2 + 2 + 8;
  if (count < 256) {
    const limit = 2 * Math.min(count, 257 - count);
    const width = bitLength(limit - 1);
    bits += extra < (1 << width) - limit ? width - 1 : width;
  }
  for (let i = count; i < count + extra; i++) bits += rangeValues[i]! + 1 + rawWidth[i]!;
  let best = Infinity;
  const sums = [b0, b1, b2, b3];
  for (let f = 0; f < 4; f++) {
    if (sums[f]! >= best) continue;
    best = sums[f]!;
    rangesForced = f;
  }
  return bits + best;
}

/** Appends a range-length or gap value of the ranges form: its unary part, raw bits and their width. */
function putRangeValue(unary: number, raw: number, width: number): void {
  rangeValues[count + extra] = unary;
  rawBits[count + extra] = raw;
  rawWidth[count + extra] = width;
  extra++;
}

/** Writes the table chooseHuffmanTable priced for the same `lens` (it must be the last one priced). */
export function writeHuffmanTable(w: MsbWriter, lens: Uint8Array, form: number): void {
  if (form === SPARSE) writeSparse(w, lens);
  else if (form === RUNS) writeRuns(w);
  else writeRanges(w);
}

function writeSparse(w: MsbWriter, lens: Uint8Array): void {
  let longest = 0;
  for (let i = 0; i < count; i++) if (lens[syms[i]!]! > longest) longest = lens[syms[i]!]!;
  const width = bitLength(longest - 1);
  w.write(0, 2);
  w.write(count, 8);
  w.write(width, 3);
  for (let i = 0; i < count; i++) {
    w.write(syms[i]!, 8);
    w.write(lens[syms[i]!]! - 1, width);
  }
}

/** A gamma code of g >= 1 as the runs form reads it: zeros, then g + 1 in as many bits plus two. */
function writeGamma(w: MsbWriter, g: number): void {
  const x = g + 1;
  const nb = bitLength(x);
  w.write(0, nb - 2);
  w.write(x, nb);
}

function writeRuns(w: MsbWriter): void {
  const f = runsForced;
  w.write(1, 2);
  w.write(f, 2);
  w.write(syms[0] === 0 ? 1 : 0, 1);
  let prev = -1;
  for (let i = 0; i < count; ) {
    const gap = syms[i]! - prev - 1;
    if (gap > 0) writeGamma(w, gap);
    let j = i + 1;
    while (j < count && syms[j] === syms[j - 1]! + 1) j++;
    writeGamma(w, j - i);
    for (let k = i; k < j; k++) {
      const v = runValues[k]!;
      w.write(0, v >>> f);
      w.write((1 << f) | (v & ((1 << f) - 1)), f + 1);
    }
    prev = syms[j - 1]!;
    i = j;
  }
  if (prev < 255) writeGamma(w, 255 - prev);
}

function writeRanges(w: MsbWriter): void {
  const f = rangesForced;
  w.write(2, 2);
  w.write(f, 2);
  w.write(count - 1, 8);
  if (count < 256) writeTruncated(w, extra, 2 * Math.min(count, 257 - count));
  for (let i = 0; i < count + extra; i++) writeUnary(w, i < count ? rangeValues[i]! >>> f : rangeValues[i]!);
  if (f > 0) for (let i = 0; i < count; i++) w.write(rangeValues[i]! & ((1 << f) - 1), f);
  for (let i = count; i < count + extra; i++) w.write(rawBits[i]!, rawWidth[i]!);
}

function writeUnary(w: MsbWriter, zeros: number): void {
  for (; zeros > 23; zeros -= 24) w.write(0, 24);
  w.write(1, zeros + 1);
}

/** `v` in [0, limit) in truncated binary, as readRangeValueCount reads it. */
function writeTruncated(w: MsbWriter, v: number, limit: number): void {
  const width = bitLength(limit - 1);
  const short = (1 << width) - limit;
  if (v < short) w.write(v, width - 1);
  else w.write(v + short, width);
}
