import { CHUNK_ID_SIZE } from './chunk-id.js';

/**
 * The engine's chunk-id hash for the perfect-hash table: 64-bit FNV-1 ordering (multiply, then xor) over the 12
 * id bytes, starting from the seed (or the FNV offset basis for seed 0). Returns the value reduced modulo `mod`.
 * Computed on two 32-bit halves because this runs once per lookup and BigInt would dominate a listing's time.
 */
export function chunkIdHashMod(id: Uint8Array, at: number, seed: number, mod: number): number {
  let hi: number;
  let lo: number;
  if (seed === 0) {
    hi = 0xcbf29ce4;
    lo = 0x84222325;
  } else {
    // (u64)seed: a negative i32 never reaches here (negative seeds are direct slots), so hi is 0.
    hi = 0;
    lo = seed >>> 0;
  }
  for (let i = 0; i < CHUNK_ID_SIZE; i++) {
    // h *= 0x100000001B3 == h * 0x1B3 + (h << 40), modulo 2^64. The carry is below 2^9: truncated as an integer.
    const l = lo * 0x1b3;
    const carry = (l / 0x100000000) >>> 0;
    const newHi = (hi * 0x1b3 + carry + ((lo << 8) >>> 0)) >>> 0;
    lo = (l >>> 0) ^ id[at + i]!;
    lo >>>= 0;
    hi = newHi;
  }
  // (hi * 2^32 + lo) mod `mod`, in 16-bit steps so every intermediate stays exact in a double.
  let r = modExact(hi, mod);
  r = modExact(r * 0x10000 + (lo >>> 16), mod);
  return modExact(r * 0x10000 + (lo & 0xffff), mod);
}

/**
 * x mod m for integers below 2^48 (exact in a double): by a quotient that may be one off, corrected; `%` on doubles
 * is a call into the runtime, several times slower (this runs for every seed the perfect-hash builder tries).
 */
function modExact(x: number, m: number): number {
  let r = x - Math.floor(x / m) * m;
  if (r < 0) r += m;
  else if (r >= m) r -= m;
  return r;
}

/** The parts of a TOC the lookup needs. */
export interface PerfectHashTable {
  readonly chunkIds: Uint8Array; // 12 bytes per chunk, in TOC order
  readonly seeds: Int32Array;
  readonly overflow: Int32Array; // TOC indices of chunks without a perfect-hash slot
}

/**
 * The engine's lookup: returns the TOC index of `id`, or -1. `undefined` when the table has no seeds, so the caller
 * can fall back to a map as the engine does.
 */
export function perfectHashLookup(t: PerfectHashTable, id: Uint8Array, at = 0): number | undefined {
  const n = t.chunkIds.length / CHUNK_ID_SIZE;
  const s = t.seeds.length;
  if (s === 0) return undefined;
  if (n === 0) return -1;
  const seed = t.seeds[chunkIdHashMod(id, at, 0, s)]!;
  if (seed === 0) return -1;
  let slot: number;
  if (seed < 0) {
    const direct = -seed - 1;
    if (direct >= n) return searchOverflow(t, id, at);
    slot = direct;
  } else {
    slot = chunkIdHashMod(id, at, seed, n);
  }
  return idsEqual(t.chunkIds, slot * CHUNK_ID_SIZE, id, at) ? slot : -1;
}

function searchOverflow(t: PerfectHashTable, id: Uint8Array, at: number): number {
  const n = t.chunkIds.length / CHUNK_ID_SIZE;
  for (const slot of t.overflow) {
    if (slot >= 0 && slot < n && idsEqual(t.chunkIds, slot * CHUNK_ID_SIZE, id, at)) return slot;
  }
  return -1;
}

function idsEqual(a: Uint8Array, ai: number, b: Uint8Array, bi: number): boolean {
  for (let i = 0; i < CHUNK_ID_SIZE; i++) if (a[ai + i] !== b[bi + i]) return false;
  return true;
}

/**
 * The first 1000 primes (2 ... 7919): the seeds the engine's writer tries for each bucket, in order. Computed on
 * first use: at load time it cost every process and worker thread ~9 ms, most of which only read containers.
 */
let seedPrimes: readonly number[] | undefined;
function primeSeeds(): readonly number[] {
  if (seedPrimes) return seedPrimes;
  const out: number[] = [];
  for (let n = 2; out.length < 1000; n++) {
    let prime = true;
    for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }
    if (prime) out.push(n);
  }
  return (seedPrimes = out);
}

export interface PerfectHashLayout {
  /** slotToInput[slot] = index in the input of the chunk placed at that TOC slot. */
  slotToInput: Int32Array;
  seeds: Int32Array;
  /** TOC slots of the chunks the hash could not place. */
  overflow: Int32Array;
}

/**
 * Builds the seed table as the engine's writer does: buckets of FNV(0) mod S largest first, each multi-chunk bucket
 * takes the first prime seed that places all its chunks in distinct free slots (or overflows), single chunks take
 * the lowest free slots as direct (negative) seeds, overflow chunks the slots left.
 */
export function buildPerfectHash(ids: readonly Uint8Array[] | Uint8Array): PerfectHashLayout {
  // Either one id per array, or the ids back to back (12 bytes each), as a writer of many chunks keeps them.
  const packed = ids instanceof Uint8Array;
  const n = packed ? ids.length / CHUNK_ID_SIZE : ids.length;
  const hashMod = (i: number, seed: number, mod: number) => (packed ? chunkIdHashMod(ids, i * CHUNK_ID_SIZE, seed, mod) : chunkIdHashMod(ids[i]!, 0, seed, mod));
  if (n === 0) return { slotToInput: new Int32Array(0), seeds: new Int32Array(0), overflow: new Int32Array(0) };
  const s = Math.max(1, Math.ceil(n / 2));
  // Buckets as runs of one array (a counting sort by bucket, inputs in order within each): an array per bucket was
  // ~50 bytes per chunk of a game's container.
  const bucketOf = new Int32Array(n);
  const start = new Int32Array(s + 1);
  for (let i = 0; i < n; i++) start[(bucketOf[i] = hashMod(i, 0, s)) + 1]!++;
  for (let b = 0; b < s; b++) start[b + 1]! += start[b]!;
  const items = new Int32Array(n);
  const fill = start.slice(0, s);
  for (let i = 0; i < n; i++) items[fill[bucketOf[i]!]!++] = i;
  const sizeOf = (b: number) => start[b + 1]! - start[b]!;
  const bucket = (b: number) => items.subarray(start[b]!, start[b + 1]!);
  const order = new Int32Array(s);
  for (let b = 0; b < s; b++) order[b] = b;
  order.sort((a, b) => sizeOf(b) - sizeOf(a) || a - b);

  const seeds = new Int32Array(s);
  const slotToInput = new Int32Array(n).fill(-1);
  const overflowInputs: number[] = [];
  // A seed's slots for the bucket being placed; a seed is given up at its first taken slot (most are, once the
  // table fills: an array per seed tried had made this ~1.5x slower).
  const slots = new Int32Array(sizeOf(order[0]!));
  const fits = (inputs: Int32Array, prime: number): boolean => {
    for (let k = 0; k < inputs.length; k++) {
      const slot = hashMod(inputs[k]!, prime, n);
      if (slotToInput[slot] !== -1) return false;
      for (let j = 0; j < k; j++) if (slots[j] === slot) return false;
      slots[k] = slot;
    }
    return true;
  };
  const primes = primeSeeds();
  for (const bi of order) {
    const inputs = bucket(bi);
    if (inputs.length < 2) break;
    let placed = false;
    for (const prime of primes) {
      if (!fits(inputs, prime)) continue;
      for (let k = 0; k < inputs.length; k++) slotToInput[slots[k]!] = inputs[k]!;
      seeds[bi] = prime;
      placed = true;
      break;
    }
    if (!placed) {
      seeds[bi] = -(n + 1 + overflowInputs.length);
      overflowInputs.push(...inputs);
    }
  }
  let free = 0;
  const nextFree = () => {
    while (slotToInput[free] !== -1) free++;
    return free;
  };
  for (const bi of order) {
    if (sizeOf(bi) !== 1) continue;
    const slot = nextFree();
    slotToInput[slot] = items[start[bi]!]!;
    seeds[bi] = -(slot + 1);
  }
  const overflow = new Int32Array(overflowInputs.length);
  overflowInputs.forEach((input, k) => {
    const slot = nextFree();
    slotToInput[slot] = input;
    overflow[k] = slot;
  });
  return { slotToInput, seeds, overflow };
}
