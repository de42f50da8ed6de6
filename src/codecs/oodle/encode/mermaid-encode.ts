import { CHUNK_SIZE, type Commands } from './commands.js';
import { histogram, shannonBytes, writeArray } from './entropy-encode.js';
import { MERMAID_FAR } from './parse-lazy.js';
import { writeChunkHeader } from './offset-streams.js';

/**
 * Writes a Mermaid (or Selkie: no entropy coding) LZ chunk from a parse, in the layout mermaid.ts reads. The chunk is
 * two 64 KiB halves that share the literal, command, near-offset and length streams; each half has its own far
 * offsets, counted back from its start, and no command crosses a half's end (the parse is made per half).
 *
 * Commands: 0x80 | len << 3 | lits reuses the last offset (len 0-15, lits 0-7); len << 3 | lits takes the next 16-bit
 * near offset (len 3-15); 3..23 is a far match of cmd + 5 bytes; 0, 1 and 2 are a long literal run (64+), a long
 * near match (91+) and a long far match (29+), their lengths in the length stream.
 */

const LITS = new Uint8Array(CHUNK_SIZE + 16);
const DELTA_LITS = new Uint8Array(CHUNK_SIZE + 16);
const CMDS = new Uint8Array(CHUNK_SIZE + 16);
const NEAR = new Int32Array(CHUNK_SIZE);
const NEAR_HI = new Uint8Array(CHUNK_SIZE);
const NEAR_LO = new Uint8Array(CHUNK_SIZE);
const FAR = new Int32Array(CHUNK_SIZE);
const LENGTHS = new Uint8Array(CHUNK_SIZE);
const HALF = 0x10000;

export interface MermaidChunkOptions {
  entropy: boolean;
  delta: boolean;
  /** ArrayOptions.margin of every array. */
  margin: number;
}

/** Running state of one chunk's streams while its commands are produced. */
class Streams {
  nl = 0;
  nc = 0;
  nn = 0;
  nf = 0;
  nlen = 0;
  /** The last match distance (positive). */
  recent = 8;
  /** Whether the literals are also written and counted as differences (for a level that weighs them). */
  delta = true;

  cmd(c: number): void {
    CMDS[this.nc++] = c;
  }

  length(v: number): void {
    if (v <= 251) LENGTHS[this.nlen++] = v;
    else {
      // 252-255 plus four times a 16-bit value.
      const low = 252 + ((v - 252) & 3);
      const w = (v - low) >>> 2;
      LENGTHS[this.nlen++] = low;
      LENGTHS[this.nlen++] = w & 0xff;
      LENGTHS[this.nlen++] = w >>> 8;
    }
  }
}

const st = new Streams();
const litHist = new Uint32Array(256);
const deltaHist = new Uint32Array(256);

/** Where the first half's far offsets and commands end, once buildStreams has run. */
const halves = { farA: 0, cmdSplit: 0 };

/**
 * Produces the chunk's streams (in the module's arrays and `st`) from the parse, half by half, counting the literals
 * into litHist (and, with `delta`, their differences into deltaHist) as they are written.
 */
function buildStreams(src: Uint8Array, start: number, end: number, cmds: Commands, split: number, delta: boolean): void {
  st.nl = st.nc = st.nn = st.nf = st.nlen = 0;
  st.recent = 8;
  st.delta = delta;
  litHist.fill(0);
  if (delta) deltaHist.fill(0);
  let k = 0;
  for (let half = 0; half < 2; half++) {
    const begin = start + half * HALF;
    if (begin >= end) break;
    const hEnd = Math.min(begin + HALF, end);
    let p = start === 0 && half === 0 ? 8 : begin;
    const stop = half === 0 ? split : cmds.count;
    for (; k < stop; k++) p = emit(src, p, begin, cmds.litLen[k]!, cmds.matchLen[k]!, cmds.dist[k]!);
    // Trailing literals fill the half.
    addLiterals(src, p, hEnd - p);
    if (half === 0) {
      halves.farA = st.nf;
      halves.cmdSplit = st.nc;
    }
  }
}

/** Histograms of a parse's streams, for the optimal parse's cost model. */
export interface MermaidStats {
  lits: Uint32Array;
  deltaLits: Uint32Array;
  cmds: Uint32Array;
  nearHi: Uint32Array;
  nearLo: Uint32Array;
  nl: number;
  nn: number;
}

export function mermaidStats(src: Uint8Array, start: number, end: number, cmds: Commands, split: number, into: MermaidStats): void {
  buildStreams(src, start, end, cmds, split, true);
  into.lits.set(litHist);
  into.deltaLits.set(deltaHist);
  histogram(CMDS, 0, st.nc, into.cmds);
  into.nearHi.fill(0);
  into.nearLo.fill(0);
  for (let i = 0; i < st.nn; i++) {
    into.nearHi[NEAR[i]! >>> 8]!++;
    into.nearLo[NEAR[i]! & 255]!++;
  }
  into.nl = st.nl;
  into.nn = st.nn;
}

/**
 * Writes the chunk header and payload for src[start, end) at out[at]; `cmds` holds the parse of the first half in
 * [0, split) and of the second in [split, count). Returns the end, or -1 when the chunk would not shrink.
 */
export function writeMermaidChunk(src: Uint8Array, start: number, end: number, cmds: Commands, split: number, out: Uint8Array, at: number, o: MermaidChunkOptions): number {
  const count = end - start;
  buildStreams(src, start, end, cmds, split, o.entropy && o.delta);
  const farA = halves.farA;
  const cmdSplit = halves.cmdSplit;
  const farB = st.nf - farA;

  const head = at;
  let q = at + 3;
  if (start === 0) {
    out.set(src.subarray(0, 8), q);
    q += 8;
  }
  const nl = st.nl;
  let delta = false;
  const counted = o.entropy && nl >= 32;
  if (counted && o.delta) delta = shannonBytes(deltaHist, nl) < shannonBytes(litHist, nl);
  q = writeArray(delta ? DELTA_LITS : LITS, 0, nl, out, q, { entropy: o.entropy, longHeader: false, rle: false, margin: o.margin }, counted ? (delta ? deltaHist : litHist) : undefined);
  q = writeArray(CMDS, 0, st.nc, out, q, { entropy: o.entropy, longHeader: false, margin: o.margin });
  if (count > HALF) {
    out[q++] = cmdSplit;
    out[q++] = cmdSplit >>> 8;
  }
  const nearAt = q;
  q = writeNearOffsets(out, q, o.entropy, o.margin);
  if (!fitsDecoderScratch(count, nl, st.nc, out[nearAt] === 0xff && out[nearAt + 1] === 0xff ? st.nn : 0, st.nf)) return -1;
  // Far offset counts: 12 bits each, 4095 meaning a 16-bit count follows.
  const sizes = (Math.min(farA, 4095) << 12) | Math.min(farB, 4095);
  out[q++] = sizes;
  out[q++] = sizes >>> 8;
  out[q++] = sizes >>> 16;
  if (farA >= 4095) {
    out[q++] = farA;
    out[q++] = farA >>> 8;
  }
  if (farB >= 4095) {
    out[q++] = farB;
    out[q++] = farB >>> 8;
  }
  // Past 12 MiB of output, far offsets of 12 MiB and more take a fourth byte.
  q = writeFar(out, q, 0, farA, start >= 0xc00000 - 1);
  q = writeFar(out, q, farA, st.nf, start + HALF >= 0xc00000 - 1);
  if (q - head - 3 + st.nlen >= count) return -1;
  out.set(LENGTHS.subarray(0, st.nlen), q);
  q += st.nlen;
  const used = q - head - 3;
  if (used >= count || used < 10) return -1;
  writeChunkHeader(out, head, used, delta);
  return q;
}

/**
 * Whether a decoder working in the scratch memory Oodle's Mermaid decoder gets (twice the chunk plus 32 bytes, at most
 * 256 KiB, less its 104-byte table) holds this chunk's streams: the literal and command arrays, entropy-coded near
 * offsets (both halves and their 16-bit form) and the far offsets as 32-bit values. Tiny chunks never fit.
 */
function fitsDecoderScratch(count: number, nl: number, nc: number, codedNear: number, nf: number): boolean {
  const room = Math.min(2 * count + 32, 0x40000) - 104;
  const need = nl + nc + (codedNear > 0 ? 4 * codedNear + 1 : 0) + (nf > 0 ? 4 * nf + 64 + 3 : 32);
  return need <= room;
}

/** Adds n literals at p, as they are and (st.delta) as differences from the byte at the last distance (mode 0). */
function addLiterals(src: Uint8Array, p: number, n: number): void {
  if (n <= 0) return;
  let k = st.nl;
  if (st.delta) {
    const back = st.recent;
    for (let i = p, e = p + n; i < e; i++, k++) {
      const b = src[i]!;
      const dl = (b - src[i - back]!) & 255;
      LITS[k] = b;
      litHist[b]!++;
      DELTA_LITS[k] = dl;
      deltaHist[dl]!++;
    }
  } else {
    for (let i = p, e = p + n; i < e; i++, k++) {
      const b = src[i]!;
      LITS[k] = b;
      litHist[b]!++;
    }
  }
  st.nl = k;
}

/** Commands for `lit` literals at p then a match of `len` at distance `d`; returns the position after the match. */
function emit(src: Uint8Array, p: number, begin: number, lit: number, len: number, d: number): number {
  const far = d >= MERMAID_FAR;
  const rep = d === st.recent;
  // Literals a match command carries: up to 7 with a recent-offset or short near match, none with the others.
  const carry = rep || !far ? Math.min(lit, 7) : 0;
  let rest = lit - carry;
  if (rest >= 64) {
    st.cmd(0);
    st.length(rest - 64);
    addLiterals(src, p, rest);
    p += rest;
    rest = 0;
  }
  while (rest > 0) {
    // Literal-only commands: the last offset with a zero-length match.
    const n = Math.min(rest, 7);
    st.cmd(0x80 | n);
    addLiterals(src, p, n);
    p += n;
    rest -= n;
  }
  if (carry > 0) {
    addLiterals(src, p, carry);
    p += carry;
  }
  if (rep) {
    // A long match at the same offset is cheaper as a new near or far offset with its length in the length stream.
    if (len > 90 + 15) return emitNew(p, begin, carry, len, d);
    let left = len;
    let first = true;
    while (left > 0 || first) {
      const n = Math.min(left, 15);
      st.cmd(0x80 | (n << 3) | (first ? carry : 0));
      first = false;
      left -= n;
    }
    return p + len;
  }
  return emitNew(p, begin, carry, len, d);
}

/** A match at a new offset (near or far) after `carry` literals the command holds; returns the end of the match. */
function emitNew(p: number, begin: number, carry: number, len: number, d: number): number {  if (d < MERMAID_FAR) {
    if (len <= 15) {
      st.cmd((len << 3) | carry);
      NEAR[st.nn++] = d;
    } else if (len >= 91) {
      // The long form carries no literals: they go first, in a command of their own.
      if (carry > 0) st.cmd(0x80 | carry);
      st.cmd(1);
      st.length(len - 91);
      NEAR[st.nn++] = d;
    } else {
      // 16-90 bytes: a near match of 15, the rest at the same offset.
      st.cmd((15 << 3) | carry);
      NEAR[st.nn++] = d;
      let left = len - 15;
      while (left > 0) {
        const n = Math.min(left, 15);
        st.cmd(0x80 | (n << 3));
        left -= n;
      }
    }
  } else {
    if (carry > 0) st.cmd(0x80 | carry);
    FAR[st.nf++] = begin - (p - d);
    if (len <= 28) st.cmd(len - 5);
    else {
      st.cmd(2);
      st.length(len - 29);
    }
  }
  st.recent = d;
  return p + len;
}

function writeNearOffsets(out: Uint8Array, q: number, entropy: boolean, margin: number): number {
  const n = st.nn;
  if (entropy && n >= 32) {
    for (let i = 0; i < n; i++) {
      NEAR_HI[i] = NEAR[i]! >>> 8;
      NEAR_LO[i] = NEAR[i]!;
    }
    const at = q;
    out[q++] = 0xff;
    out[q++] = 0xff;
    q = writeArray(NEAR_HI, 0, n, out, q, { entropy: true, longHeader: false, margin });
    q = writeArray(NEAR_LO, 0, n, out, q, { entropy: true, longHeader: false, margin });
    if (q - at < 2 + 2 * n) return q;
    q = at;
  }
  out[q++] = n;
  out[q++] = n >>> 8;
  for (let i = 0; i < n; i++) {
    out[q++] = NEAR[i]!;
    out[q++] = NEAR[i]! >>> 8;
  }
  return q;
}

function writeFar(out: Uint8Array, q: number, from: number, to: number, wide: boolean): number {
  for (let i = from; i < to; i++) {
    let v = FAR[i]!;
    let top = -1;
    if (wide && v >= 0xc00000) {
      top = Math.floor((v - 0xc00000) / 0x400000);
      v -= top * 0x400000;
    }
    out[q++] = v;
    out[q++] = v >>> 8;
    out[q++] = v >>> 16;
    if (top >= 0) out[q++] = top;
  }
  return q;
}
