import { MIN_DISTANCE, type Commands } from './commands.js';
import { matchLength, type MatchFinder } from './match-finder.js';

/**
 * Greedy and lazy parsing for the fast and normal levels: at each position the best of the recent-offset matches and
 * the hash chain's match, scored by an estimate of the bits it saves; a lazy parse also looks one or two bytes ahead
 * and prefers a later, better match.
 */

export interface LazyParams {
  /** Hash-chain candidates examined per position (1: the latest only). */
  depth: number;
  /** A match this long is taken at once. */
  nice: number;
  /** Positions looked ahead for a better match (0: greedy). */
  lazy: number;
  /** After 2^skipAfter positions without a match the scan moves two bytes a step, then three... (0: never). */
  skipAfter: number;
  /** Shortest match at a new offset. */
  minLen: number;
  /** Mermaid's costs and limits (one recent offset, 16-bit near offsets, far matches of 8 bytes or more). */
  mermaid: boolean;
}

/** Rough price of a literal, in bits, against which matches are weighed. */
const LITERAL_BITS = 6;

/** Mermaid offsets this far and beyond are "far" (three bytes, matches of eight bytes or more). */
export const MERMAID_FAR = 0x10000;

/** Estimated bits a match saves over coding its bytes as literals (Kraken: bucket byte and raw offset bits). */
function krakenScore(len: number, dist: number): number {
  return len * LITERAL_BITS - 6 - (31 - Math.clz32((dist + 248) >>> 4) + 4) - (len > 16 ? 6 : 0);
}

function mermaidScore(len: number, dist: number): number {
  if (dist >= MERMAID_FAR) return len < 8 ? 0 : len * LITERAL_BITS - 8 - 24 - (len > 28 ? 8 : 0);
  return len * LITERAL_BITS - 6 - 16 - (len > 15 ? 6 : 0);
}

function repScore(len: number, idx: number): number {
  return len * LITERAL_BITS - (idx === 0 ? 4 : 6) - (len > 16 ? 6 : 0);
}

/**
 * Parses src[start, end) into `cmds` (appended), with `reps` the recent distances at start (updated to those at the
 * end). No match runs past `end`.
 */
export function parseLazy(mf: MatchFinder, start: number, end: number, reps: Int32Array, cmds: Commands, o: LazyParams): void {
  if (o.skipAfter > 0 && o.lazy === 0) {
    parseFast(mf, start, end, reps, cmds, o);
    return;
  }
  const skip = o.skipAfter;
  let misses = 0;
  const src = mf.src;
  const view = mf.view;
  const recent = o.mermaid ? 1 : 3;
  const mermaid = o.mermaid;
  let p = start;
  let litStart = start;
  // Matches need four bytes to hash and compare; the last few bytes of the chunk stay literals.
  const last = Math.min(end, src.length - 4) - 4;
  while (p < last) {
    // Recent offsets first: they cost no offset bits.
    bestRecent(src, view, p, end, reps, recent);
    let bestScore = hit.score;
    let bestLen = hit.len;
    let bestDist = hit.dist;
    if (bestLen < o.nice) {
      const len = mf.find(p, end, o.minLen, o.depth, o.nice);
      if (len > 0) {
        const s = mermaid ? mermaidScore(len, mf.bestDist) : krakenScore(len, mf.bestDist);
        if (s > bestScore) {
          bestScore = s;
          bestLen = len;
          bestDist = mf.bestDist;
        }
      }
    }
    if (bestLen === 0) {
      // Through data that does not match, the search thins out (and so do the positions the chains get).
      if (skip > 0 && ++misses >= 1 << skip) {
        p += 1 + ((misses - (1 << skip)) >> 4);
        if (mf.next < p) mf.next = p;
      } else p++;
      continue;
    }
    misses = 0;

    // Lazy evaluation: a better match starting a byte or two later is worth the literals it leaves behind.
    for (let ahead = 0; ahead < o.lazy && bestLen < o.nice && p + 1 < last; ahead++) {
      const q = p + 1;
      bestRecent(src, view, q, end, reps, recent);
      let s2 = hit.score;
      let l2 = hit.len;
      let d2 = hit.dist;
      const len = mf.find(q, end, o.minLen, o.depth, o.nice);
      if (len > 0) {
        const s = mermaid ? mermaidScore(len, mf.bestDist) : krakenScore(len, mf.bestDist);
        if (s > s2) {
          s2 = s;
          l2 = len;
          d2 = mf.bestDist;
        }
      }
      if (s2 > bestScore + LITERAL_BITS) {
        p = q;
        bestScore = s2;
        bestLen = l2;
        bestDist = d2;
      } else break;
    }

    // The finder stops comparing at `nice`: such a match may run on.
    if (bestLen >= o.nice) bestLen = matchLength(src, view, p, bestDist, end);
    cmds.push(p - litStart, bestLen, bestDist);
    updateReps(reps, bestDist, recent);
    p += bestLen;
    litStart = p;
  }
}

/** The best recent-offset match bestRecent found: its score (0: none), length and distance. */
const hit = { score: 0, len: 0, dist: 0 };

/** Finds the best match at p among the `recent` recent distances into `hit`. */
function bestRecent(src: Uint8Array, view: DataView, p: number, end: number, reps: Int32Array, recent: number): void {
  const word = view.getUint32(p, true);
  let score = 0;
  let len = 0;
  let dist = 0;
  for (let r = 0; r < recent; r++) {
    const d = reps[r]!;
    if (d > p || view.getUint32(p - d, true) !== word) continue;
    // The first four bytes are known to match.
    const l = 4 + matchLength(src, view, p + 4, d, end);
    const s = repScore(l, r);
    if (s > score) {
      score = s;
      len = l;
      dist = d;
    }
  }
  hit.score = score;
  hit.len = len;
  hit.dist = dist;
}

/**
 * The fastest parse: one hash-table candidate per position, the last offset tried first, every match taken, and a
 * scan that speeds up through data that does not match (and adds only the positions it looks at to the table).
 */
function parseFast(mf: MatchFinder, start: number, end: number, reps: Int32Array, cmds: Commands, o: LazyParams): void {
  const src = mf.src;
  const view = mf.view;
  const head = mf.head;
  const base = mf.base;
  const shiftBits = mf.hashShift;
  const mermaid = o.mermaid;
  const minLen = o.minLen;
  const nice = o.nice;
  let p = start;
  let litStart = start;
  const last = Math.min(end, src.length - 4) - 4;
  let misses = 0;
  const shift = o.skipAfter;
  let r0 = reps[0]!;
  while (p < last) {
    const word = view.getUint32(p, true);
    let len = 0;
    let dist = 0;
    if (r0 <= p && view.getUint32(p - r0, true) === word) {
      len = 4 + matchLength(src, view, p + 4, r0, end);
      dist = r0;
    } else {
      // The table's one candidate (the position's own entry is replaced by p).
      const h = Math.imul(word, 0x9e3779b1) >>> shiftBits;
      const cand = head[h]! - base - 1;
      head[h] = p + base + 1;
      dist = p - cand;
      if (cand >= 0 && dist >= MIN_DISTANCE && view.getUint32(cand, true) === word) {
        len = 4 + matchLength(src, view, p + 4, dist, Math.min(end, p + nice));
        if (len >= nice) len = nice + matchLength(src, view, p + nice, dist, end);
        if (len < minLen || (mermaid && dist >= MERMAID_FAR && len < 8)) len = 0;
      }
    }
    if (len === 0) {
      misses++;
      p += 1 + (misses >> shift);
      continue;
    }
    misses = 0;
    cmds.push(p - litStart, len, dist);
    if (dist !== r0) {
      updateReps(reps, dist, mermaid ? 1 : 3);
      r0 = dist;
    }
    const stop = p + len;
    // One position near the match's end joins the table.
    if (stop - 2 < last) head[Math.imul(view.getUint32(stop - 2, true), 0x9e3779b1) >>> shiftBits] = stop - 1 + base;
    p = stop;
    litStart = p;
  }
  mf.next = Math.max(mf.next, p);
}

/** Moves `dist` to the front of the recent distances, as the decoders do. */
export function updateReps(reps: Int32Array, dist: number, recent: number): void {
  let i = 0;
  while (i < recent && reps[i] !== dist) i++;
  if (i === recent) i = recent - 1;
  for (; i > 0; i--) reps[i] = reps[i - 1]!;
  reps[0] = dist;
}
