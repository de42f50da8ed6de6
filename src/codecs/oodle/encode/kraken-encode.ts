import { CHUNK_SIZE, type Commands } from './commands.js';
import { histogram, shannonBytes, writeArray } from './entropy-encode.js';
import { closeChunk, LONG, OFFS, packOffset } from './offset-streams.js';

/**
 * Writes a Kraken LZ chunk from a parse (the layout kraken.ts and offsets.ts read): literals (as they are, or as
 * differences from the byte at the last offset, whichever codes smaller), command bytes, packed offsets, packed
 * lengths, then the raw offset and long-length bits in two streams meeting in the middle.
 */

const LITS = new Uint8Array(CHUNK_SIZE + 16);
const DELTA_LITS = new Uint8Array(CHUNK_SIZE + 16);
const CMDS = new Uint8Array(CHUNK_SIZE);
const LENS = new Uint8Array(CHUNK_SIZE);

export interface KrakenChunkOptions {
  /** Entropy-code the arrays (off: all stored). */
  entropy: boolean;
  /** Consider coding literals as differences from the byte at the last offset (mode 0). */
  delta: boolean;
  /** ArrayOptions.margin of every array. */
  margin: number;
}

/** Each literal run: where it starts in the input, its length, and the last offset before it. */
const RUN_AT = new Int32Array(CHUNK_SIZE / 2 + 16);
const RUN_LEN = new Int32Array(CHUNK_SIZE / 2 + 16);
const RUN_BACK = new Int32Array(CHUNK_SIZE / 2 + 16);
const litHist = new Uint32Array(256);
const deltaHist = new Uint32Array(256);
/** Four partial counts of each, 256 apart (see copyLiterals). */
const litParts = new Uint32Array(1024);
const deltaParts = new Uint32Array(1024);

/** Sizes of the streams buildStreams filled. */
const built = { nl: 0, nc: 0, no: 0, nlen: 0, nlong: 0, runs: 0 };

/**
 * Fills the module's stream arrays (literals, commands, packed offsets and lengths, raw bits) from a parse, and
 * counts the literals into litHist as they are copied (and, with `delta`, their differences from the byte at the
 * last offset into deltaHist), which saves a pass over them.
 */
function buildStreams(src: Uint8Array, start: number, end: number, cmds: Commands, delta: boolean): typeof built {
  litParts.fill(0);
  if (delta) deltaParts.fill(0);
  let p = start === 0 ? 8 : start;
  let nl = 0;
  let nc = 0;
  let no = 0;
  let nlen = 0;
  let nlong = 0;
  let runs = 0;
  let r0 = 8;
  let r1 = 8;
  let r2 = 8;
  for (let k = 0; k < cmds.count; k++) {
    const lit = cmds.litLen[k]!;
    if (lit > 0) {
      RUN_AT[runs] = p;
      RUN_LEN[runs] = lit;
      RUN_BACK[runs++] = r0;
      copyLiterals(src, p, lit, nl, delta ? r0 : 0);
      nl += lit;
      p += lit;
    }
    const d = cmds.dist[k]!;
    let idx: number;
    if (d === r0) idx = 0;
    else if (d === r1) {
      idx = 1;
      r1 = r0;
      r0 = d;
    } else if (d === r2) {
      idx = 2;
      r2 = r1;
      r1 = r0;
      r0 = d;
    } else {
      idx = 3;
      r2 = r1;
      r1 = r0;
      r0 = d;
      packOffset(d, no++);
    }
    const len = cmds.matchLen[k]!;
    CMDS[nc++] = (idx << 6) | ((len >= 17 ? 15 : len - 2) << 2) | (lit >= 3 ? 3 : lit);
    if (lit >= 3) {
      const v = lit - 3;
      if (v < 255) LENS[nlen++] = v;
      else {
        LENS[nlen++] = 255;
        LONG[nlong++] = v - 255;
      }
    }
    if (len >= 17) {
      const v = len - 17;
      if (v < 255) LENS[nlen++] = v;
      else {
        LENS[nlen++] = 255;
        LONG[nlong++] = v - 255;
      }
    }
    p += len;
  }
  if (p < end) {
    RUN_AT[runs] = p;
    RUN_LEN[runs] = end - p;
    RUN_BACK[runs++] = r0;
    copyLiterals(src, p, end - p, nl, delta ? r0 : 0);
    nl += end - p;
  }
  for (let s = 0; s < 256; s++) litHist[s] = litParts[s]! + litParts[256 + s]! + litParts[512 + s]! + litParts[768 + s]!;
  if (delta) for (let s = 0; s < 256; s++) deltaHist[s] = deltaParts[s]! + deltaParts[256 + s]! + deltaParts[512 + s]! + deltaParts[768 + s]!;
  built.nl = nl;
  built.nc = nc;
  built.no = no;
  built.nlen = nlen;
  built.nlong = nlong;
  built.runs = runs;
  return built;
}

/**
 * Copies n literals from src[p] to LITS[at], counting each into one of four partial tables by its position (so that
 * repeated bytes do not wait on each other's increments, as in histogram), and, when `back` is not 0, its
 * difference from the byte `back` before it into four more.
 */
function copyLiterals(src: Uint8Array, p: number, n: number, at: number, back: number): void {
  if (n >= 64) {
    // Long runs: copied natively, then counted four at a time.
    LITS.set(src.subarray(p, p + n), at);
    let i = at;
    const e = at + n;
    for (; i + 4 <= e; i += 4) {
      litParts[LITS[i]!]!++;
      litParts[256 | LITS[i + 1]!]!++;
      litParts[512 | LITS[i + 2]!]!++;
      litParts[768 | LITS[i + 3]!]!++;
    }
    for (; i < e; i++) litParts[LITS[i]!]!++;
  } else {
    for (let i = 0; i < n; i++) {
      const b = src[p + i]!;
      LITS[at + i] = b;
      litParts[((at + i) & 3) << 8 | b]!++;
    }
  }
  if (back !== 0) for (let i = 0; i < n; i++) deltaParts[((at + i) & 3) << 8 | ((src[p + i]! - src[p + i - back]!) & 255)]!++;
}

/** Histograms of a parse's streams, for the optimal parse's cost model. */
export interface KrakenStats {
  lits: Uint32Array;
  deltaLits: Uint32Array;
  cmds: Uint32Array;
  offs: Uint32Array;
  lens: Uint32Array;
  nl: number;
}

/** Counts the streams a parse gives (the literals both ways). */
export function krakenStats(src: Uint8Array, start: number, end: number, cmds: Commands, into: KrakenStats): void {
  const b = buildStreams(src, start, end, cmds, true);
  into.lits.set(litHist);
  into.deltaLits.set(deltaHist);
  histogram(CMDS, 0, b.nc, into.cmds);
  histogram(OFFS, 0, b.no, into.offs);
  histogram(LENS, 0, b.nlen, into.lens);
  into.nl = b.nl;
}

/**
 * Writes the chunk header and LZ payload for `src[start, end)` with commands `cmds` at `out[at]` and returns the end,
 * or -1 when the payload would not be smaller than the chunk (the caller then stores it another way).
 */
export function writeKrakenChunk(src: Uint8Array, start: number, end: number, cmds: Commands, out: Uint8Array, at: number, o: KrakenChunkOptions): number {
  const count = end - start;
  const { nl, nc, no, nlen, nlong, runs } = buildStreams(src, start, end, cmds, o.entropy && o.delta);
  if (!fitsDecoderScratch(count, nl, nc, no, nlen)) return -1;
  const head = at;
  let q = at + 3;
  if (start === 0) {
    out.set(src.subarray(0, 8), q);
    q += 8;
  }
  // Mode 0 codes literals as differences from the byte at the last offset, mode 1 as they are.
  let delta = false;
  const counted = o.entropy && nl >= 32;
  if (counted && o.delta) {
    delta = shannonBytes(deltaHist, nl) < shannonBytes(litHist, nl);
    if (delta) fillDeltaLiterals(src, runs);
  }
  q = writeArray(delta ? DELTA_LITS : LITS, 0, nl, out, q, { entropy: o.entropy, longHeader: true, rle: false, margin: o.margin }, counted ? (delta ? deltaHist : litHist) : undefined);
  q = writeArray(CMDS, 0, nc, out, q, { entropy: o.entropy, longHeader: false, margin: o.margin });
  q = writeArray(OFFS, 0, no, out, q, { entropy: o.entropy, longHeader: true, margin: o.margin });
  q = writeArray(LENS, 0, nlen, out, q, { entropy: o.entropy, longHeader: false, margin: o.margin });
  return closeChunk(out, head, q, count, no, nlong, delta);
}

/**
 * Whether Oodle's Kraken decoder, which unpacks a chunk's streams into scratch memory of three times the chunk plus
 * 53 KiB (at most 432 KiB, less its 64-byte table), holds this chunk's: the four arrays, then offsets and lengths as
 * 32-bit values, aligned, with 64 bytes to spare.
 */
function fitsDecoderScratch(count: number, nl: number, nc: number, no: number, nlen: number): boolean {
  const room = Math.min(3 * count + 32 + 0xd000, 0x6c000) - 64;
  return nl + nc + no + nlen + 15 + 4 * no + 15 + 4 * nlen + 64 <= room;
}



function fillDeltaLiterals(src: Uint8Array, runs: number): void {
  let k = 0;
  for (let r = 0; r < runs; r++) {
    const from = RUN_AT[r]!;
    const back = RUN_BACK[r]!;
    for (let i = from, e = from + RUN_LEN[r]!; i < e; i++) DELTA_LITS[k++] = src[i]! - src[i - back]!;
  }
}

