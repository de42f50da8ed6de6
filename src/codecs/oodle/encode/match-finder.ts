import { MIN_DISTANCE } from './commands.js';

/**
 * Hash-chain match finder over the whole input (matches of the Kraken family may reach back into earlier blocks).
 * Positions are hashed on their next four bytes; `head` holds the latest position of each hash and `chain` links each
 * position to the previous one with the same hash, in a ring the size of the window.
 */
export class MatchFinder {
  src: Uint8Array = new Uint8Array(0);
  view: DataView = new DataView(new ArrayBuffer(8));
  /**
   * Latest position + base + 1 of each hash; the fast parse probes it directly. Entries at or below `base` are from
   * an earlier input (or none): moving `base` past them empties the table without clearing it.
   */
  head = new Int32Array(0);
  base = 0;
  private chain = new Int32Array(0);
  hashShift = 0;
  private chainMask = 0;
  /** Farthest distance a match may have. */
  window = 0;
  /** Distance of the match the last `find` returned. */
  bestDist = 0;
  private lastLength = 0;
  /** The next position to add to the chains. */
  next = 0;
  /**
   * Fast levels add only the positions they search (and one near each match's end); the others add every position,
   * catching up at each search.
   */
  sparse = false;

  /** Prepares for a new input; `hashBits` sizes the head table, `windowBits` the chain (0: no chain, one candidate). */
  reset(src: Uint8Array, hashBits: number, windowBits: number, sparse: boolean): void {
    this.src = src;
    this.next = 0;
    this.sparse = sparse;
    this.view = new DataView(src.buffer, src.byteOffset, src.byteLength);
    const size = 1 << hashBits;
    // The chain entries reached from the table are all from this input (each written when its position was added).
    // A smaller input hashes into the table's first entries only (fewer bits: they stay in the cache), which the
    // moving base empties as it does the rest: the table is never made again for a smaller one.
    if (this.head.length < size || this.base + this.lastLength + src.length + 2 >= 0x40000000) {
      this.head = new Int32Array(Math.max(size, this.head.length));
      this.base = 0;
    } else this.base += this.lastLength + 1;
    this.lastLength = src.length;
    this.hashShift = 32 - hashBits;
    // The ring never needs to be longer than the input.
    let bits = windowBits;
    while (bits > 10 && 1 << (bits - 1) >= src.length) bits--;
    const ring = windowBits === 0 ? 0 : 1 << bits;
    if (this.chain.length < ring) this.chain = new Int32Array(ring);
    this.chainMask = ring - 1;
    this.window = windowBits === 0 ? 0x7fffffff : ring - 1;
  }

  hash(p: number): number {
    return Math.imul(this.view.getUint32(p, true), 0x9e3779b1) >>> this.hashShift;
  }

  /** Adds position p (which must have four bytes after it) and returns the previous head of its hash (pos + 1, or 0 or less). */
  insert(p: number): number {
    const h = Math.imul(this.view.getUint32(p, true), 0x9e3779b1) >>> this.hashShift;
    const prev = this.head[h]! - this.base;
    this.head[h] = p + 1 + this.base;
    if (this.chainMask !== 0) this.chain[p & this.chainMask] = prev;
    return prev;
  }

  /** Adds the positions from `next` up to p (exclusive) that have four bytes after them. */
  catchUp(p: number): void {
    const last = Math.min(p, this.src.length - 4);
    let q = this.next;
    for (; q < last; q++) this.insert(q);
    if (q > this.next) this.next = q;
  }

  /**
   * The longest match at p (ending at most at `limit`) among the `depth` latest positions with p's hash, longer than
   * `minLen - 1`; stops at `nice`. Returns its length (0 if none) and leaves its distance in `bestDist`. Adds p (and
   * in dense mode every position before it) to the chains. p must have four bytes after it.
   */
  find(p: number, limit: number, minLen: number, depth: number, nice: number): number {
    const src = this.src;
    const view = this.view;
    if (!this.sparse && this.next < p) this.catchUp(p);
    let cand: number;
    if (this.next <= p) {
      cand = this.insert(p) - 1;
      this.next = p + 1;
    } else cand = this.chainMask !== 0 ? this.chain[p & this.chainMask]! - 1 : -1;
    let bestLen = minLen - 1;
    let bestDist = 0;
    const lowest = p - this.window;
    // Comparisons stop at `nice`: in long runs every candidate matches far, and comparing each to the end is quadratic.
    const maxLen = Math.min(limit - p, nice);
    if (nice > maxLen) nice = maxLen;
    const mask = this.chainMask;
    for (; depth > 0 && cand >= 0 && cand >= lowest; depth--) {
      let d = p - cand;
      let from = cand;
      if (d < MIN_DISTANCE) {
        // A period shorter than the minimum distance: repeat it up to eight bytes or more back.
        const k = Math.ceil(MIN_DISTANCE / d);
        d *= k;
        from = p - d;
        if (from < 0) {
          cand = mask !== 0 ? this.chain[cand & mask]! - 1 : -1;
          continue;
        }
      }
      // A quick look at the byte that would make this match longer than the best so far.
      if (src[from + bestLen] === src[p + bestLen] && bestLen < maxLen) {
        let len = 0;
        while (len + 4 <= maxLen && view.getUint32(from + len, true) === view.getUint32(p + len, true)) len += 4;
        while (len < maxLen && src[from + len] === src[p + len]) len++;
        if (len > bestLen) {
          bestLen = len;
          bestDist = d;
          if (len >= nice) break;
        }
      }
      if (mask === 0) break;
      const next = this.chain[cand & mask]! - 1;
      if (next >= cand) break;
      cand = next;
    }
    this.bestDist = bestDist;
    return bestDist === 0 ? 0 : bestLen;
  }

  /**
   * Every match at p longer than those nearer in the chain (so lengths increase and each is the nearest of its
   * length), of at least four bytes, into lens/dists from k on (at most `max`, the longest kept); returns the new k.
   * Adds p to the chains as `find` does.
   */
  findAll(p: number, limit: number, depth: number, nice: number, lens: Int32Array, dists: Int32Array, k: number, max: number): number {
    const src = this.src;
    const view = this.view;
    const chain = this.chain;
    const mask = this.chainMask;
    if (!this.sparse && this.next < p) this.catchUp(p);
    let cand: number;
    if (this.next <= p) {
      cand = this.insert(p) - 1;
      this.next = p + 1;
    } else cand = mask !== 0 ? chain[p & mask]! - 1 : -1;
    const lowest = p - this.window;
    const maxLen = Math.min(limit - p, nice);
    if (nice > maxLen) nice = maxLen;
    let bestLen = 3;
    const stop = k + max;
    for (; depth > 0 && cand >= 0 && cand >= lowest; depth--) {
      let d = p - cand;
      let from = cand;
      if (d < MIN_DISTANCE) {
        d *= Math.ceil(MIN_DISTANCE / d);
        from = p - d;
      }
      if (from >= 0 && bestLen < maxLen && src[from + bestLen] === src[p + bestLen]) {
        let len = 0;
        while (len + 4 <= maxLen && view.getUint32(from + len, true) === view.getUint32(p + len, true)) len += 4;
        while (len < maxLen && src[from + len] === src[p + len]) len++;
        if (len > bestLen) {
          bestLen = len;
          if (k === stop) k--;
          lens[k] = len;
          dists[k++] = d;
          if (len >= nice) break;
        }
      }
      if (mask === 0) break;
      const next = chain[cand & mask]! - 1;
      if (next >= cand) break;
      cand = next;
    }
    return k;
  }
}

/** Length of the match between p and p - dist, up to `limit`. */
export function matchLength(src: Uint8Array, view: DataView, p: number, dist: number, limit: number): number {
  const from = p - dist;
  const max = limit - p;
  let len = 0;
  while (len + 4 <= max && view.getUint32(from + len, true) === view.getUint32(p + len, true)) len += 4;
  while (len < max && src[from + len] === src[p + len]) len++;
  return len;
}
