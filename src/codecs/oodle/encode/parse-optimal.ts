import { CHUNK_SIZE, type Commands } from './commands.js';
import { krakenStats, type KrakenStats } from './kraken-encode.js';
import { matchLength } from './match-finder.js';
import type { MatchList } from './match-list.js';

/**
 * Optimal parsing for Kraken's high levels: a shortest-path search over the chunk's positions, where each step is a
 * literal or a match (from the gathered match list, or at one of the three recent offsets the path has at that
 * point) and costs what it would add to the chunk's entropy-coded streams. Costs come from the statistics of the
 * previous pass (the first pass uses a rough model), so two or three passes converge on a parse and a code that
 * suit each other.
 */

/** Bits each symbol of each stream costs. */
export class KrakenCosts {
  readonly lit = new Float64Array(256);
  readonly deltaLit = new Float64Array(256);
  readonly cmd = new Float64Array(256);
  readonly off = new Float64Array(256);
  readonly len = new Float64Array(256);
  /** Price literals as differences from the byte at the last offset (mode 0). */
  delta = false;

  /** The first pass's model: literals from the chunk's byte counts, flat prices for the rest. */
  initial(src: Uint8Array, start: number, end: number): void {
    const h = new Uint32Array(256);
    for (let i = start; i < end; i++) h[src[i]!]!++;
    bitsFrom(h, end - start, this.lit, true);
    this.deltaLit.set(this.lit);
    this.delta = false;
    for (let c = 0; c < 256; c++) this.cmd[c] = (c >>> 6 === 0 ? 4.5 : c >>> 6 === 3 ? 5 : 6.5) + ((c >>> 2) & 15) * 0.1 + (c & 3) * 0.2;
    this.off.fill(5);
    for (let v = 0; v < 256; v++) this.len[v] = 4 + Math.min(8, v >> 4);
  }

  /** Prices from the streams a parse gave. */
  fromStats(s: KrakenStats): void {
    const litBits = bitsFrom(s.lits, s.nl, this.lit, true);
    const deltaBits = bitsFrom(s.deltaLits, s.nl, this.deltaLit, true);
    this.delta = deltaBits < litBits;
    bitsFrom(s.cmds, total(s.cmds), this.cmd, false);
    bitsFrom(s.offs, total(s.offs), this.off, false);
    bitsFrom(s.lens, total(s.lens), this.len, false);
  }
}

function total(h: Uint32Array): number {
  let t = 0;
  for (let i = 0; i < 256; i++) t += h[i]!;
  return t;
}

/**
 * -log2 of each symbol's smoothed frequency into `bits`; returns the array's estimated size in bits. An array that
 * would not shrink is stored, at eight bits a symbol (`storable`).
 */
function bitsFrom(h: Uint32Array, n: number, bits: Float64Array, storable: boolean): number {
  const smooth = 0.5;
  const t = n + 256 * smooth;
  let sum = 0;
  for (let s = 0; s < 256; s++) {
    const b = Math.log2(t / (h[s]! + smooth));
    bits[s] = b;
    sum += h[s]! * b;
  }
  if (storable && sum > n * 8 * 0.98) {
    bits.fill(8);
    return n * 8;
  }
  return sum;
}

const MAX_NODES = CHUNK_SIZE + 16;
const COST_ROOM = CHUNK_SIZE + 16;
const matchExtra = new Float64Array(COST_ROOM);
const runStep = new Float64Array(COST_ROOM);
const price = new Float64Array(MAX_NODES);
const back = new Int32Array(MAX_NODES);
const mlen = new Int32Array(MAX_NODES);
const mdist = new Int32Array(MAX_NODES);
const run = new Int32Array(MAX_NODES);
const rep0 = new Int32Array(MAX_NODES);
const rep1 = new Int32Array(MAX_NODES);
const rep2 = new Int32Array(MAX_NODES);

/** Bits of an offset's raw part (besides its bucket byte). */
function rawOffsetBits(d: number): number {
  if (d < 8388360) return 31 - Math.clz32((d + 248) >>> 4);
  return 31 - Math.clz32(Math.floor((d - 8322816) / 4096)) + 12;
}

/** Bits of a length-stream value v (the byte, and for 255 and up the long length's bits). */
function lengthBits(costs: KrakenCosts, v: number): number {
  if (v < 255) return costs.len[v]!;
  const x = v - 255 + 64;
  return costs.len[255]! + 2 * (32 - Math.clz32(x)) - 7;
}

/** The bucket byte of distance d (as packOffset makes it). */
function offsetBucket(d: number): number {
  if (d < 8388360) {
    const x = d + 248;
    return ((31 - Math.clz32(x >>> 4) - 4) << 4) | (x & 15);
  }
  return 0xec + 31 - Math.clz32(Math.floor((d - 8322816) / 4096));
}

/**
 * The cheapest parse of src[start, end) under `costs`, into `cmds` (cleared first); `matches` holds the positions'
 * matches (from start). Matches of `nice` bytes or more are taken whole.
 */
export function parseOptimal(src: Uint8Array, start: number, end: number, matches: MatchList, costs: KrakenCosts, nice: number, dense: number, cmds: Commands): void {
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const n = end - start;
  const last = Math.min(end, src.length - 4) - 4;
  price.fill(Infinity, 0, n + 1);
  price[0] = 0;
  run[0] = 0;
  rep0[0] = 8;
  rep1[0] = 8;
  rep2[0] = 8;
  const lit = costs.delta ? costs.deltaLit : costs.lit;
  const delta = costs.delta;
  const cmd = costs.cmd;
  const first = matches.first;
  const lens = matches.len;
  const dists = matches.dist;
  // Per length: what the length stream adds for a match of l (17 and up) and for the l-th literal of a run (3rd on).
  const top = Math.min(n + 1, COST_ROOM);
  for (let l = 0; l < top; l++) matchExtra[l] = l >= 17 ? lengthBits(costs, l - 17) : 0;
  for (let L = 0; L < top; L++) runStep[L] = L < 2 ? 0 : L === 2 ? lengthBits(costs, 0) : lengthBits(costs, L - 2) - lengthBits(costs, L - 3);
  for (let i = 0; i < n; i++) {
    const base = price[i]!;
    if (base === Infinity) continue;
    const p = start + i;
    const L = run[i]!;
    const r0 = rep0[i]!;
    const r1 = rep1[i]!;
    const r2 = rep2[i]!;

    // A literal.
    const b = delta ? (src[p]! - src[p - r0]!) & 255 : src[p]!;
    let c = base + lit[b]! + runStep[L < top ? L : top - 1]!;
    if (c < price[i + 1]!) {
      price[i + 1] = c;
      back[i + 1] = i;
      mlen[i + 1] = 0;
      run[i + 1] = L + 1;
      rep0[i + 1] = r0;
      rep1[i + 1] = r1;
      rep2[i + 1] = r2;
    }
    if (p >= last) continue;
    const lf = L >= 3 ? 3 : L;
    // A match of `nice` or more is taken whole, and the positions it covers are not searched.
    let longest = 0;
    let longestAt = 0;

    // Recent offsets.
    for (let r = 0; r < 3; r++) {
      const d = r === 0 ? r0 : r === 1 ? r1 : r2;
      if (d > p || (r === 1 && d === r0) || (r === 2 && (d === r0 || d === r1))) continue;
      if (src[p - d] !== src[p] || src[p + 1 - d] !== src[p + 1]) continue;
      let max = matchLength(src, view, p, d, Math.min(end, p + nice));
      if (max >= nice) max = matchLength(src, view, p, d, end);
      const from = max >= nice ? max : 2;
      for (let l = from; l <= max; l = l < dense || l === max ? l + 1 : max) {
        c = base + cmd[(r << 6) | ((l >= 17 ? 15 : l - 2) << 2) | lf]! + matchExtra[l < top ? l : top - 1]!;
        const j = i + l;
        if (c < price[j]!) {
          price[j] = c;
          back[j] = i;
          mlen[j] = l;
          mdist[j] = d;
          run[j] = 0;
          rep0[j] = d;
          rep1[j] = r === 0 ? r1 : r0;
          rep2[j] = r === 2 ? r1 : r2;
        }
      }
      if (max >= nice && max > longest) {
        longest = max;
        longestAt = i + max;
      }
    }

    // New offsets: each match covers the lengths above the previous one's.
    let prev = 3;
    for (let k = first[i]!, e = first[i + 1]!; k < e; k++) {
      const max = lens[k]!;
      const d = dists[k]!;
      if (d === r0 || d === r1 || d === r2) {
        prev = max;
        continue;
      }
      const offBits = costs.off[offsetBucket(d)]! + rawOffsetBits(d);
      const from = max >= nice ? max : prev + 1;
      for (let l = from; l <= max; l = l < dense || l === max ? l + 1 : max) {
        c = base + offBits + cmd[(3 << 6) | ((l >= 17 ? 15 : l - 2) << 2) | lf]! + matchExtra[l < top ? l : top - 1]!;
        const j = i + l;
        if (c < price[j]!) {
          price[j] = c;
          back[j] = i;
          mlen[j] = l;
          mdist[j] = d;
          run[j] = 0;
          rep0[j] = d;
          rep1[j] = r0;
          rep2[j] = r1;
        }
      }
      if (max >= nice && max > longest) {
        longest = max;
        longestAt = i + max;
      }
      prev = max;
    }
    if (longest > 0) {
      // Only the end of the long match goes on (the nodes it skips keep what earlier steps gave them, unused).
      i = longestAt - 1;
    }
  }

  // Walk back from the end, then emit in order.
  let count = 0;
  for (let j = n; j > 0; ) {
    const i = back[j]!;
    if (mlen[j]! > 0) {
      tmpAt[count] = i;
      tmpLen[count] = mlen[j]!;
      tmpDist[count++] = mdist[j]!;
    }
    j = i;
  }
  cmds.count = 0;
  let litStart = 0;
  for (let k = count - 1; k >= 0; k--) {
    const at = tmpAt[k]!;
    cmds.push(at - litStart, tmpLen[k]!, tmpDist[k]!);
    litStart = at + tmpLen[k]!;
  }
}

const tmpAt = new Int32Array(MAX_NODES);
const tmpLen = new Int32Array(MAX_NODES);
const tmpDist = new Int32Array(MAX_NODES);

const stats: KrakenStats = { lits: new Uint32Array(256), deltaLits: new Uint32Array(256), cmds: new Uint32Array(256), offs: new Uint32Array(256), lens: new Uint32Array(256), nl: 0 };

/** Refines `costs` from the parse in `cmds` of src[chunkStart, end) (the parse starting at `start`). */
export function updateCosts(src: Uint8Array, chunkStart: number, end: number, cmds: Commands, costs: KrakenCosts): void {
  krakenStats(src, chunkStart, end, cmds, stats);
  costs.fromStats(stats);
}
