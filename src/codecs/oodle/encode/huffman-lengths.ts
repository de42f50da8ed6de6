/**
 * Code lengths for the Huffman arrays: minimum-redundancy lengths (computed in place over the sorted weights, after
 * Moffat and Katajainen), then limited to the format's 11 bits while keeping the code complete, which the decoders
 * require (the lengths must fill the code space exactly).
 */

export const MAX_CODE_LEN = 11;

const order = new Int32Array(256);
const work = new Float64Array(256);
const spare = new Int32Array(256);
const buckets = new Int32Array(256);

/**
 * Fills `lens[0..255]` with code lengths for the symbol counts `hist` (0 for absent symbols) and returns how many
 * symbols are present. With one symbol present its length is 0: no code is needed (callers code such arrays as runs).
 */
export function codeLengths(hist: Uint32Array, lens: Uint8Array, maxLen = MAX_CODE_LEN): number {
  let n = 0;
  for (let s = 0; s < 256; s++) {
    lens[s] = 0;
    if (hist[s]! > 0) order[n++] = s;
  }
  if (n <= 1) return n;
  // Ascending by count, ties by symbol (the symbols start in order and the sort is stable).
  sortByCount(hist, n);
  for (let i = 0; i < n; i++) work[i] = hist[order[i]!]!;
  minimumRedundancy(work, n);
  let longest = 0;
  for (let i = 0; i < n; i++) {
    const len = work[i]!;
    lens[order[i]!] = len;
    if (len > longest) longest = len;
  }
  if (longest > maxLen) limitLengths(lens, n, maxLen);
  return n;
}

/**
 * Replaces the ascending weights `a[0..n)` (n >= 2) by their code lengths (longest first). Phase one builds the
 * tree's internal weights and parent links in the same array, phase two turns parent links into depths, phase three
 * hands the leaf depths out level by level.
 */
function minimumRedundancy(a: Float64Array, n: number): void {
  a[0] += a[1]!;
  let root = 0;
  let leaf = 2;
  for (let next = 1; next < n - 1; next++) {
    if (leaf >= n || a[root]! < a[leaf]!) {
      a[next] = a[root]!;
      a[root++] = next;
    } else a[next] = a[leaf++]!;
    if (leaf >= n || (root < next && a[root]! < a[leaf]!)) {
      a[next] += a[root]!;
      a[root++] = next;
    } else a[next] += a[leaf++]!;
  }
  a[n - 2] = 0;
  for (let next = n - 3; next >= 0; next--) a[next] = a[a[next]!]! + 1;
  let available = 1;
  let used = 0;
  let depth = 0;
  root = n - 2;
  let next = n - 1;
  while (available > 0) {
    while (root >= 0 && a[root] === depth) {
      used++;
      root--;
    }
    while (available > used) {
      a[next--] = depth;
      available--;
    }
    available = 2 * used;
    depth++;
    used = 0;
  }
}

/**
 * Caps every length at `maxLen`, then restores a complete code: first lengthens the rarest symbols that still have
 * room until the code space is no longer overfull, then shortens the most frequent ones while that fits exactly.
 * `order[0..n)` holds the present symbols by ascending count.
 */
function limitLengths(lens: Uint8Array, n: number, maxLen: number): void {
  const full = 1 << maxLen;
  let space = 0;
  for (let i = 0; i < n; i++) {
    const s = order[i]!;
    if (lens[s]! > maxLen) lens[s] = maxLen;
    space += full >> lens[s]!;
  }
  // Overfull: each step frees half a symbol's share. Rare symbols first, and among them the longest codes.
  while (space > full) {
    for (let i = 0; i < n && space > full; i++) {
      const s = order[i]!;
      if (lens[s]! < maxLen) {
        space -= full >> (lens[s]! + 1);
        lens[s]!++;
      }
    }
  }
  // Room left: shorten frequent symbols whose doubled share still fits.
  for (let i = n - 1; i >= 0 && space < full; i--) {
    const s = order[i]!;
    while (lens[s]! > 1 && space + (full >> lens[s]!) <= full) {
      space += full >> lens[s]!;
      lens[s]!--;
    }
  }
}

/** Canonical codes for `lens` (shorter codes first, then by symbol), bit-reversed for least-significant-first output. */
export function canonicalCodes(lens: Uint8Array, codes: Uint16Array): void {
  const count = new Int32Array(MAX_CODE_LEN + 2);
  for (let s = 0; s < 256; s++) count[lens[s]!]!++;
  const next = new Int32Array(MAX_CODE_LEN + 2);
  let code = 0;
  for (let len = 1; len <= MAX_CODE_LEN; len++) {
    next[len] = code;
    code = (code + count[len]!) << 1;
  }
  for (let s = 0; s < 256; s++) {
    const len = lens[s]!;
    if (len === 0) continue;
    codes[s] = reverseBits(next[len]!++, len);
  }
}

function reverseBits(v: number, len: number): number {
  let r = 0;
  for (let i = 0; i < len; i++) r |= ((v >>> i) & 1) << (len - 1 - i);
  return r;
}

/** Sorts order[0, n) by hist[order[i]], stably: a least-significant-byte radix sort, skipping bytes all counts share. */
function sortByCount(hist: Uint32Array, n: number): void {
  let or = 0;
  let and = -1;
  for (let i = 0; i < n; i++) {
    or |= hist[order[i]!]!;
    and &= hist[order[i]!]!;
  }
  let from = order;
  let to = spare;
  for (let shift = 0; shift < 32; shift += 8) {
    if (((or ^ and) >>> shift) & 0xff) {
      buckets.fill(0);
      for (let i = 0; i < n; i++) buckets[(hist[from[i]!]! >>> shift) & 0xff]!++;
      let sum = 0;
      for (let b = 0; b < 256; b++) {
        const c = buckets[b]!;
        buckets[b] = sum;
        sum += c;
      }
      for (let i = 0; i < n; i++) {
        const sym = from[i]!;
        to[buckets[(hist[sym]! >>> shift) & 0xff]!++] = sym;
      }
      const t = from;
      from = to;
      to = t;
    }
  }
  if (from !== order) order.set(from.subarray(0, n));
}
