/**
 * Code lengths for the Huffman arrays: minimum-redundancy lengths (computed in place over the sorted weights, after
 * Moffat and Katajainen), then limited to the format's 11 bits while keeping the code complete, which the decoders
 * require (the lengths must fill the code space exactly).
 */

export const MAX_CODE_LEN = 11;

const order = new Int32Array(256);
const work = new Float64Array(256);
const keys = new Int32Array(256);

/**
 * Fills `lens[0..255]` with code lengths for the symbol counts `hist` (0 for absent symbols) and returns how many
 * symbols are present. With one symbol present its length is 0: no code is needed (callers code such arrays as runs).
 */
export function codeLengths(hist: Uint32Array, lens: Uint8Array, maxLen = MAX_CODE_LEN): number {
  let n = 0;
  // Without a branch (which sparse counts would mispredict): the symbol is written, and kept if its count is not 0.
  for (let s = 0; s < 256; s++) {
    order[n] = s;
    n += -hist[s]! >>> 31;
  }
  return lengthsOfOrder(hist, n, lens, maxLen);
}

/** codeLengths for a caller that has the present symbols already, ascending, in present[0, m). */
export function codeLengthsOf(hist: Uint32Array, present: Int32Array, m: number, lens: Uint8Array): number {
  for (let i = 0; i < m; i++) order[i] = present[i]!;
  return lengthsOfOrder(hist, m, lens, MAX_CODE_LEN);
}

/** The lengths of the n present symbols in order[0, n). */
function lengthsOfOrder(hist: Uint32Array, n: number, lens: Uint8Array, maxLen: number): number {
  lens.fill(0);
  if (n <= 1) return n;
  sortByCount(hist, n);
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

/**
 * The canonical code of each of the m present symbols (ascending in `present`; shorter codes first, then by symbol),
 * bit-reversed for least-significant-first output, as one entry per symbol: code << 4 | length.
 */
export function canonicalEntries(lens: Uint8Array, present: Int32Array, m: number, entries: Int32Array): void {
  lengthCount.fill(0);
  for (let i = 0; i < m; i++) lengthCount[lens[present[i]!]!]!++;
  let code = 0;
  for (let len = 1; len <= MAX_CODE_LEN; len++) {
    nextCode[len] = code;
    code = (code + lengthCount[len]!) << 1;
  }
  for (let i = 0; i < m; i++) {
    const s = present[i]!;
    const len = lens[s]!;
    // The code's bits reversed: its reversal in 11 bits, shifted down to its length.
    entries[s] = ((REVERSED[nextCode[len]!++]! >>> (MAX_CODE_LEN - len)) << 4) | len;
  }
}

const lengthCount = new Int32Array(MAX_CODE_LEN + 2);
const nextCode = new Int32Array(MAX_CODE_LEN + 2);
/** Each 11-bit value with its bits in reverse order. */
const REVERSED = (() => {
  const t = new Uint16Array(1 << MAX_CODE_LEN);
  for (let v = 1; v < t.length; v++) t[v] = (t[v >> 1]! >> 1) | ((v & 1) << (MAX_CODE_LEN - 1));
  return t;
})();

/** Counts below this pack with their symbol into one int32 sort key (arrays are at most 256 KiB: always so). */
const KEY_LIMIT = 1 << 23;

/**
 * Sorts the present symbols order[0, n) by count, ties by symbol, into order (and their counts into work): each
 * count and symbol packed into one integer key for the typed array's native sort (faster, measured, than a radix sort
 * or an insertion sort of 40 to 256 such keys). Counts too large to pack are halved until they fit (never needed:
 * arrays are at most 256 KiB).
 */
function sortByCount(hist: Uint32Array, n: number): void {
  let max = 0;
  for (let i = 0; i < n; i++) if (hist[order[i]!]! > max) max = hist[order[i]!]!;
  let shift = 0;
  while (max >>> shift >= KEY_LIMIT) shift++;
  for (let i = 0; i < n; i++) {
    const s = order[i]!;
    keys[i] = (Math.max(1, hist[s]! >>> shift) << 8) | s;
  }
  keys.subarray(0, n).sort();
  for (let i = 0; i < n; i++) {
    order[i] = keys[i]! & 0xff;
    work[i] = keys[i]! >>> 8;
  }
}
