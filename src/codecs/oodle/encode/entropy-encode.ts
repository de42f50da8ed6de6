import { codeLengthsOf } from './huffman-lengths.js';
import { writeHuffmanPayload } from './huffman-encode.js';
import { chooseHuffmanTable } from './huffman-table.js';
import { writeRlePayload } from './rle-encode.js';

/**
 * Entropy arrays (see entropy.ts for the layout): each byte stream of a chunk is written stored, Huffman coded (one
 * or two sets of three streams), or run-length coded, whichever is smallest.
 */

/** What an array may be coded as. */
export interface ArrayOptions {
  /** Huffman and run-length coding (off: always stored, as Selkie does). */
  entropy: boolean;
  /**
   * The header's first byte must be below 0x80: Kraken reads a set top bit before its literal and offset arrays as a
   * flag, so those two arrays take the long header forms.
   */
  longHeader: boolean;
  /**
   * Run-length coding allowed: not inside a run-length array's own literals (which share its buffers), nor for an
   * LZ chunk's literals, whose runs the parse has taken as matches (trying it there cost a scan of every literal
   * and saved 0.03% at levels 4 and 7, 0.15% at level 1, on the corpus containers).
   */
  rle?: boolean;
  /**
   * Bytes the order-0 entropy (a bound Huffman never beats) must promise beyond the saving coding must make before
   * a code is built (default BUILD_MARGIN): codes come out above the bound, by more the shorter the array, and
   * building one costs as much as coding a few kilobytes. The fastest level asks for more (levels.ts).
   */
  margin?: number;
}

/** Arrays this long and up are Huffman coded in two halves of three streams each, as the engine does. */
const HALVES_FROM = 1024;
/** Below this, entropy coding cannot pay for its table and headers. */
const ENTROPY_FROM = 32;
/**
 * Arrays shorter than this count their Huffman table at three bits a symbol or more before building a code: their
 * tables take 4 to 14 bits a symbol (on the corpus blocks), and without this some 300 arrays a pass built a code
 * that did not pay.
 */
const SHORT_ARRAY = 128;
/**
 * What Huffman or run-length coding must save over storing an array to be used: a share of the stored size and a
 * few bytes more. Decoding a stored array is a copy; a Huffman one builds a table and runs several times slower. The
 * engine's Oodle weighs decode time the same way (on the corpus containers it stores most offset, command and length
 * arrays, and literal arrays that Huffman would shrink by a few per cent), and with these two figures our streams
 * decode at least as fast as the engine's (ours 1.08x, ooz about the same), for 0.3% more bytes than 2% would give.
 */
const MIN_GAIN = 0.06;
const MIN_SAVED = 16;
/** The default margin (ArrayOptions.margin): on the corpus blocks a quarter fewer codes built, 0.01-0.02% more bytes. */
export const BUILD_MARGIN = 32;

const hist = new Uint32Array(256);
const lens = new Uint8Array(256);
/** The byte values present in the array being written, ascending. */
const present = new Int32Array(256);

/**
 * Writes `src[start, start + n)` as an entropy array at `out[at]` (room: 2n + 64 bytes); returns the end. `counts`,
 * when given, is the array's histogram (callers that needed it anyway save a pass).
 */
export function writeArray(src: Uint8Array, start: number, n: number, out: Uint8Array, at: number, o: ArrayOptions, counts?: Uint32Array): number {
  if (!o.entropy || n < ENTROPY_FROM) return writeStored(src, start, n, out, at, o.longHeader);
  if (counts) hist.set(counts);
  else histogram(src, start, n, hist);
  const stored = storedSize(n, o.longHeader);
  let top = 0;
  let m = 0;
  for (let s = 0; s < 256; s++) {
    const c = hist[s]!;
    // Without a branch, as in codeLengths.
    present[m] = s;
    m += -c >>> 31;
    top = Math.max(top, c);
  }
  if (top === n) return writeEntropyHeader(out, at, 3, n, o.longHeader, (p) => ((out[p] = src[start]!), p + 1));
  // Run-length coding can only pay when one byte value is common.
  const rle = o.rle === false || top < n / 8 ? Infinity : rleEstimate(src, start, n, stored);
  // The order-0 entropy (and, for short arrays, a floor on the table) bounds what Huffman can do: arrays that cannot
  // gain what coding must are stored without building a code.
  const tableFloor = n < SHORT_ARRAY ? (3 * m) / 8 : 0;
  if (rle === Infinity && shannonBytes(hist, n) + tableFloor > stored * (1 - MIN_GAIN) - MIN_SAVED - (o.margin ?? BUILD_MARGIN)) return writeStored(src, start, n, out, at, o.longHeader);

  codeLengthsOf(hist, present, m, lens);
  // Coding has to earn its decode time: it must save a share of the stored size, as the engine's encoder demands.
  let best = Math.floor(stored * (1 - MIN_GAIN) - MIN_SAVED);
  let kind = 0;
  // Huffman, judged by its exact bit count before anything is written.
  const table = chooseHuffmanTable(lens, present, m);
  let bits = table.bits;
  for (let i = 0; i < m; i++) bits += hist[present[i]!]! * lens[present[i]!]!;
  const huffman = 5 + ((bits + 7) >> 3) + (n >= HALVES_FROM ? 11 : 5);
  if (huffman < best) {
    best = huffman;
    kind = 2;
  }
  if (rle < best) kind = 3;
  if (kind === 0) return writeStored(src, start, n, out, at, o.longHeader);
  const end =
    kind === 2
      ? writeEntropyHeader(out, at, n >= HALVES_FROM ? 4 : 2, n, o.longHeader, (p) => writeHuffmanPayload(src, start, n, lens, present, m, table.form, out, p, n >= HALVES_FROM))
      : writeEntropyHeader(out, at, 3, n, o.longHeader, (p) => writeRlePayload(src, start, n, out, p, o.entropy));
  if (end < 0 || end - at >= stored) return writeStored(src, start, n, out, at, o.longHeader);
  return end;
}

/** The order-0 entropy of a histogram of n bytes, in bytes. */
export function shannonBytes(counts: Uint32Array, n: number): number {
  let bits = n * Math.log2(n);
  for (let s = 0; s < 256; s++) {
    const c = counts[s]!;
    if (c > 1) bits -= c < C_LOG_C.length ? C_LOG_C[c]! : c * Math.log2(c);
  }
  return bits / 8;
}

/** c log2 c for the counts of short arrays, which would otherwise spend more time in the logarithm than counting. */
const C_LOG_C = Float64Array.from({ length: 1024 }, (_, c) => (c > 1 ? c * Math.log2(c) : 0));

/** Bytes a stored array of n takes. */
export function storedSize(n: number, longHeader: boolean): number {
  return n + (n <= 0xfff && !longHeader ? 2 : 3);
}

export function writeStored(src: Uint8Array, start: number, n: number, out: Uint8Array, at: number, longHeader: boolean): number {
  if (n <= 0xfff && !longHeader) {
    out[at] = 0x80 | (n >>> 8);
    out[at + 1] = n;
    at += 2;
  } else {
    out[at] = n >>> 16;
    out[at + 1] = n >>> 8;
    out[at + 2] = n;
    at += 3;
  }
  if (n <= 32) for (let i = 0; i < n; i++) out[at + i] = src[start + i]!;
  else out.set(src.subarray(start, start + n), at);
  return at + n;
}

/**
 * Writes an entropy array of `type` whose payload `payload(p)` writes at p (returning its end, or -1 to give up),
 * then puts the short (3-byte) or long (5-byte) header in front.
 */
function writeEntropyHeader(out: Uint8Array, at: number, type: number, n: number, longHeader: boolean, payload: (p: number) => number): number {
  // Written after a 5-byte gap and moved down when the short header turns out to fit.
  const end = payload(at + 5);
  if (end < 0) return -1;
  const size = end - at - 5;
  if (size >= n) return -1;
  if (!longHeader && size < 0x400 && n - size - 1 < 0x400) {
    const bits = 0x800000 | (type << 20) | ((n - size - 1) << 10) | size;
    out[at] = bits >>> 16;
    out[at + 1] = bits >>> 8;
    out[at + 2] = bits;
    out.copyWithin(at + 3, at + 5, end);
    return end - 2;
  }
  const d = n - 1;
  out[at] = (type << 4) | (d >>> 14);
  const low = ((d & 0x3fff) * 0x40000 + size) >>> 0;
  out[at + 1] = low >>> 24;
  out[at + 2] = low >>> 16;
  out[at + 3] = low >>> 8;
  out[at + 4] = low;
  return end;
}

/** A quick upper bound of the run-length form's size, or Infinity when it is clearly no match for `beat`. */
function rleEstimate(src: Uint8Array, start: number, n: number, beat: number): number {
  // Bytes in runs of 4 or more of one value: each run costs about two command bytes.
  let inRuns = 0;
  let runs = 0;
  let i = start;
  const e = start + n;
  while (i < e) {
    const v = src[i]!;
    let j = i + 1;
    while (j < e && src[j] === v) j++;
    if (j - i >= 4) {
      inRuns += j - i;
      runs++;
    }
    i = j;
  }
  if (inRuns < n / 8) return Infinity;
  const rest = n - inRuns;
  const estimate = 6 + rest + 2 * runs + Math.ceil(rest / 60);
  return estimate < beat ? estimate : Infinity;
}

/** Four partial counts, 256 apart, so that repeated bytes do not wait on each other's increments. */
const parts = new Uint32Array(1024);

/** Byte counts of src[start, start + n) into `into` (short arrays in one table: clearing four costs more there). */
export function histogram(src: Uint8Array, start: number, n: number, into: Uint32Array): void {
  into.fill(0);
  let i = start;
  const end = start + n;
  if (n < 1024) {
    for (; i < end; i++) into[src[i]!]!++;
    return;
  }
  parts.fill(0);
  for (; i + 4 <= end; i += 4) {
    into[src[i]!]!++;
    parts[256 + src[i + 1]!]!++;
    parts[512 + src[i + 2]!]!++;
    parts[768 + src[i + 3]!]!++;
  }
  for (; i < end; i++) into[src[i]!]!++;
  for (let s = 0; s < 256; s++) into[s] = into[s]! + parts[256 + s]! + parts[512 + s]! + parts[768 + s]!;
}
