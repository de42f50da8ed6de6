import { corrupt } from './corrupt.js';

/**
 * BitKnit: an LZ codec with adaptive rANS coding. Two interleaved 32-bit rANS states take turns (each renormalises
 * from 16-bit little-endian words and then hands over to the other). Symbols come from adaptive frequency models
 * with 15-bit totals that are re-balanced every 1024 symbols.
 *
 * A literal/length symbol below 256 is a literal, coded as a difference from the byte at the last match distance;
 * 256 and up start a match (length = symbol - 254, longer lengths with extra bits). The distance symbol then picks
 * one of eight recent distances (below 8) or gives a new one in parts. The model state carries over from one 16 KiB
 * quantum to the next and is reset only when a block header asks for it.
 */

/** Adaptive frequency model over `n` symbols; `cum` holds cumulative frequencies ending at 0x8000. */
class AdaptiveModel {
  readonly lookup: Uint16Array;
  readonly cum: Uint16Array;
  readonly freq: Uint16Array;
  interval = 1024;

  constructor(
    readonly n: number,
    /** Bits of the 15-bit state value dropped to index `lookup`. */
    readonly shift: number,
    /** Extra weight the last symbol gets when the model is re-balanced. */
    readonly bump: number,
  ) {
    this.lookup = new Uint16Array((0x8000 >> shift) + 4);
    this.cum = new Uint16Array(n + 1);
    this.freq = new Uint16Array(n);
  }

  reset(): void {
    const { n, cum } = this;
    if (n === 300) {
      // Literals start with most of the range shared evenly by the 256 bytes and the 8 shortest lengths.
      for (let i = 0; i < 264; i++) cum[i] = Math.floor(((0x8000 - 300 + 264) * i) / 264);
      for (let i = 264; i <= 300; i++) cum[i] = 0x8000 - 300 + i;
    } else {
      for (let i = 0; i <= n; i++) cum[i] = Math.floor((0x8000 * i) / n);
    }
    this.freq.fill(1);
    this.interval = 1024;
    this.fillLookup();
  }

  /** lookup[k] is a symbol no greater than the one whose range holds k << shift; decode scans up from there. */
  fillLookup(): void {
    const { n, cum, lookup, shift } = this;
    let p = 0;
    for (let i = 0; i < n; i++) {
      const last = (cum[i + 1] - 1) >> shift;
      do {
        lookup[p] = i;
        lookup[p + 1] = i;
        lookup[p + 2] = i;
        lookup[p + 3] = i;
        p += 4;
      } while (p <= last);
      p = last + 1;
    }
  }

  rebalance(sym: number): void {
    const { n, cum, freq } = this;
    this.interval = 1024;
    freq[sym] += this.bump;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      sum += freq[i];
      freq[i] = 1;
      cum[i + 1] += (sum - cum[i + 1]) >> 1;
    }
    this.fillLookup();
  }
}

/** Decoder state that survives from one quantum to the next. */
export class BitknitState {
  readonly recent = new Uint32Array(8);
  lastDist = 1;
  /** Eight 3-bit indexes into `recent`, most recently used first. */
  order = 0;
  readonly literals = [0, 1, 2, 3].map(() => new AdaptiveModel(300, 6, 725));
  readonly distLow = [0, 1, 2, 3].map(() => new AdaptiveModel(40, 9, 985));
  readonly distBits = new AdaptiveModel(21, 9, 1004);

  constructor() {
    this.reset();
  }

  reset(): void {
    this.recent.fill(1);
    this.lastDist = 1;
    this.order = 0;
    for (let i = 7; i > 0; i--) this.order = this.order * 8 + i;
    this.order *= 8;
    for (const m of this.literals) m.reset();
    for (const m of this.distLow) m.reset();
    this.distBits.reset();
  }
}

/** The rANS pair and the input position. */
class Reader {
  bits = 0;
  bits2 = 0;

  constructor(
    readonly src: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}

  /** Next 16-bit word; words past the quantum read as zero and are caught by the final size check. */
  word(): number {
    const p = this.pos;
    this.pos = p + 2;
    if (p + 2 <= this.end) return this.src[p] | (this.src[p + 1] << 8);
    return p < this.end ? this.src[p] : 0;
  }

  /** Refills the active state if it ran low, then makes the other state active. */
  turn(): void {
    let b = this.bits;
    if (b < 0x10000) b = b * 0x10000 + this.word();
    this.bits = this.bits2;
    this.bits2 = b;
  }

  decode(m: AdaptiveModel): number {
    const cum = m.cum;
    const x = this.bits;
    const low = x & 0x7fff;
    let sym = m.lookup[low >>> m.shift];
    if (low > cum[sym + 1]) sym++;
    while (low >= cum[sym + 1]) sym++;
    // States stay below 2^32, so unsigned shifts divide them exactly.
    this.bits = low + (x >>> 15) * (cum[sym + 1] - cum[sym]) - cum[sym];
    m.freq[sym] += 31;
    if (--m.interval === 0) m.rebalance(sym);
    this.turn();
    return sym;
  }

  /** `n` raw bits (n <= 16) from the active state. */
  raw(n: number): number {
    const v = this.bits & ((1 << n) - 1);
    this.bits >>>= n;
    this.turn();
    return v;
  }
}

/**
 * Decodes one quantum `src[pos, end)` into `out[d, dEnd)`; the quantum must use exactly its bytes. `d` counts from
 * the start of the output, which is also how far back matches may reach.
 */
export function decodeBitknitQuantum(src: Uint8Array, pos: number, end: number, out: Uint8Array, d: number, dEnd: number, state: BitknitState): void {
  if (dEnd - d < 5) corrupt('BitKnit quantum too small', pos);
  if (end - pos < 4) corrupt('BitKnit quantum too short', pos);
  const r = new Reader(src, pos, end);
  const v = (src[pos] | (src[pos + 1] << 8) | (src[pos + 2] << 16) | (src[pos + 3] << 24)) >>> 0;
  r.pos = pos + 4;
  if (v < 0x10000) corrupt('bad BitKnit initial state', pos);
  // Both rANS states are packed into the first words: the second is split at a bit position given by the low nibble.
  let a = v >>> 4;
  const split = v & 0xf;
  if (a < 0x10000) a = a * 0x10000 + r.word();
  let bits = Math.floor(a / 2 ** split);
  if (bits < 0x10000) bits = bits * 0x10000 + r.word();
  a = ((a << 16) | r.word()) >>> 0;
  const top = 2 ** (split + 16);
  r.bits = bits;
  r.bits2 = top + (a % top);

  const { recent, literals, distLow, distBits } = state;
  let order = state.order;
  let back = state.lastDist;
  const stop = dEnd - 4;

  if (d === 0) {
    out[0] = r.bits & 0xff;
    r.bits = Math.floor(r.bits / 256);
    r.turn();
    d = 1;
  }

  while (d < stop) {
    let sym = r.decode(literals[d & 3]!);
    if (sym < 256) {
      out[d] = sym + out[d - back];
      d++;
      if (d >= stop) break;
      sym = r.decode(literals[d & 3]!);
      if (sym < 256) {
        out[d] = sym + out[d - back];
        d++;
        continue;
      }
    }

    if (sym >= 288) {
      const nb = sym - 287;
      sym = r.raw(nb) + (1 << nb) + 286;
    }
    const len = sym - 254;

    const low = r.decode(distLow[d & 3]!);
    let dist: number;
    if (low >= 8) {
      const nb = r.decode(distBits);
      let hi = r.raw(nb & 0xf);
      if (nb >= 0x10) hi = hi * 0x10000 + r.word();
      // nb < 21 (the model's size), so 32 << nb fits an int32; a power with a variable exponent is a maths-library call.
      dist = (32 << nb) + hi * 32 + low - 39;
      const slot = (order >>> 18) & 7;
      recent[(order >>> 21) & 7] = recent[slot];
      recent[slot] = dist;
    } else {
      const idx = (order >>> (3 * low)) & 7;
      const keep = ~7 << (3 * low);
      dist = recent[idx];
      order = ((order & keep) | ((idx + 8 * order) & ~keep)) >>> 0;
    }

    if (dist > d) corrupt('BitKnit match reaches before the output', r.pos);
    if (len > stop - d) corrupt('BitKnit match overflows the quantum', r.pos);
    const from = d - dist;
    for (let i = 0; i < len; i++) out[d + i] = out[from + i];
    d += len;
    back = dist;
  }

  if (d !== stop) corrupt('BitKnit quantum does not end on its last four bytes', r.pos);
  // The last four bytes are what is left in the two states.
  out[d] = r.bits & 0xff;
  out[d + 1] = (r.bits >>> 8) & 0xff;
  out[d + 2] = r.bits2 & 0xff;
  out[d + 3] = (r.bits2 >>> 8) & 0xff;
  if (r.pos !== end) corrupt('BitKnit quantum size does not match its data', r.pos);
  state.order = order;
  state.lastDist = back;
}
