import type { Commands } from './commands.js';
import { matchLength } from './match-finder.js';
import type { MatchList } from './match-list.js';
import { mermaidStats, type MermaidStats } from './mermaid-encode.js';
import { MERMAID_FAR } from './parse-lazy.js';

/**
 * Optimal parsing for Mermaid's high levels (see parse-optimal.ts for Kraken's). Mermaid's command byte carries up
 * to seven literals and a match of up to fifteen bytes at the last offset, so the cheap steps are short matches at
 * the last offset between short literal runs; a new 16-bit offset costs two bytes and a far one three. The search
 * runs per 64 KiB half, as no command may cross one.
 */

export class MermaidCosts {
  readonly lit = new Float64Array(256);
  readonly deltaLit = new Float64Array(256);
  readonly cmd = new Float64Array(256);
  readonly nearHi = new Float64Array(256);
  readonly nearLo = new Float64Array(256);
  delta = false;

  initial(src: Uint8Array, start: number, end: number, entropy: boolean): void {
    const h = new Uint32Array(256);
    for (let i = start; i < end; i++) h[src[i]!]!++;
    if (entropy) bitsFrom(h, end - start, this.lit, true);
    else this.lit.fill(8);
    this.deltaLit.set(this.lit);
    this.delta = false;
    this.cmd.fill(entropy ? 6 : 8);
    this.nearHi.fill(8);
    this.nearLo.fill(8);
  }

  fromStats(s: MermaidStats, entropy: boolean): void {
    if (!entropy) return;
    const a = bitsFrom(s.lits, s.nl, this.lit, true);
    const b = bitsFrom(s.deltaLits, s.nl, this.deltaLit, true);
    this.delta = b < a;
    bitsFrom(s.cmds, total(s.cmds), this.cmd, false);
    const hi = bitsFrom(s.nearHi, s.nn, this.nearHi, false);
    const lo = bitsFrom(s.nearLo, s.nn, this.nearLo, false);
    // Near offsets are entropy coded only as a pair, and only when that beats two bytes each.
    if (hi + lo > s.nn * 16 * 0.98) {
      this.nearHi.fill(8);
      this.nearLo.fill(8);
    }
  }
}

function total(h: Uint32Array): number {
  let t = 0;
  for (let i = 0; i < 256; i++) t += h[i]!;
  return t;
}

function bitsFrom(h: Uint32Array, n: number, bits: Float64Array, storable: boolean): number {
  const t = n + 128;
  let sum = 0;
  for (let s = 0; s < 256; s++) {
    const b = Math.log2(t / (h[s]! + 0.5));
    bits[s] = b;
    sum += h[s]! * b;
  }
  if (storable && sum > n * 8 * 0.98) {
    bits.fill(8);
    return n * 8;
  }
  return sum;
}

const MAX_NODES = 0x10000 + 16;
const price = new Float64Array(MAX_NODES);
const back = new Int32Array(MAX_NODES);
const mlen = new Int32Array(MAX_NODES);
const mdist = new Int32Array(MAX_NODES);
const run = new Int32Array(MAX_NODES);
const rep = new Int32Array(MAX_NODES);
const tmpAt = new Int32Array(MAX_NODES);
const tmpLen = new Int32Array(MAX_NODES);
const tmpDist = new Int32Array(MAX_NODES);

/**
 * The cheapest parse of the half src[start, end) (matches from `matches`, positions relative to start) under `costs`,
 * appended to `cmds`; `reps[0]` is the last distance at start and is updated to the one at the end.
 */
export function parseMermaidHalf(src: Uint8Array, start: number, end: number, matches: MatchList, costs: MermaidCosts, nice: number, dense: number, reps: Int32Array, cmds: Commands): void {
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const n = end - start;
  const last = Math.min(end, src.length - 4) - 4;
  price.fill(Infinity, 0, n + 1);
  price[0] = 0;
  run[0] = 0;
  rep[0] = reps[0]!;
  const lit = costs.delta ? costs.deltaLit : costs.lit;
  const delta = costs.delta;
  const cmd = costs.cmd;
  const hiCost = costs.nearHi;
  const loCost = costs.nearLo;
  const more15 = cmd[0x80 | (15 << 3)]!;
  const first = matches.first;
  const lens = matches.len;
  const dists = matches.dist;
  for (let i = 0; i < n; i++) {
    const base = price[i]!;
    if (base === Infinity) continue;
    const p = start + i;
    const L = run[i]!;
    const r = rep[i]!;
    const lf = L >= 7 ? 7 : L;

    // A literal; every seventh beyond the seven a command carries costs a literal-only command.
    const b = delta ? (src[p]! - src[p - r]!) & 255 : src[p]!;
    let c = base + lit[b]! + (L >= 7 && (L - 7) % 7 === 0 ? cmd[0x87]! : 0);
    if (c < price[i + 1]!) {
      price[i + 1] = c;
      back[i + 1] = i;
      mlen[i + 1] = 0;
      run[i + 1] = L + 1;
      rep[i + 1] = r;
    }
    if (p >= last) continue;
    let longest = 0;

    // The last offset: any length, in one command up to 15.
    if (r <= p && src[p - r] === src[p]) {
      let max = matchLength(src, view, p, r, Math.min(end, p + nice));
      if (max >= nice) max = matchLength(src, view, p, r, end);
      const from = max >= nice ? max : 1;
      for (let l = from; l <= max; l = l < dense || l === max ? l + 1 : max) {
        c = base + cmd[0x80 | ((l > 15 ? 15 : l) << 3) | lf]! + (l > 15 ? Math.ceil((l - 15) / 15) * more15 : 0);
        const j = i + l;
        if (c < price[j]!) {
          price[j] = c;
          back[j] = i;
          mlen[j] = l;
          mdist[j] = r;
          run[j] = 0;
          rep[j] = r;
        }
      }
      if (max >= nice) longest = max;
    }

    let prev = 3;
    // Literals a command of the long near or far forms cannot carry go in a command of their own.
    const carryOff = L > 0 ? cmd[0x80 | lf]! : 0;
    for (let k = first[i]!, e = first[i + 1]!; k < e; k++) {
      const max = lens[k]!;
      const d = dists[k]!;
      if (d === r) {
        prev = max;
        continue;
      }
      const from = max >= nice ? max : prev + 1;
      if (d < MERMAID_FAR) {
        const off = hiCost[d >>> 8]! + loCost[d & 255]!;
        for (let l = from; l <= max; l = l < dense || l === max ? l + 1 : max) {
          if (l <= 15) c = cmd[(l << 3) | lf]!;
          else if (l < 91) c = cmd[(15 << 3) | lf]! + Math.ceil((l - 15) / 15) * more15;
          else c = carryOff + cmd[1]! + (l - 91 <= 251 ? 8 : 24);
          c += base + off;
          const j = i + l;
          if (c < price[j]!) {
            price[j] = c;
            back[j] = i;
            mlen[j] = l;
            mdist[j] = d;
            run[j] = 0;
            rep[j] = d;
          }
        }
      } else {
        for (let l = from < 8 ? 8 : from; l <= max; l++) {
          c = base + carryOff + 24 + (l <= 28 ? cmd[l - 5]! : cmd[2]! + (l - 29 <= 251 ? 8 : 24));
          const j = i + l;
          if (c < price[j]!) {
            price[j] = c;
            back[j] = i;
            mlen[j] = l;
            mdist[j] = d;
            run[j] = 0;
            rep[j] = d;
          }
        }
      }
      if (max >= nice && max > longest) longest = max;
      prev = max;
    }
    if (longest > 0) i += longest - 1;
  }

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
  let litStart = 0;
  for (let k = count - 1; k >= 0; k--) {
    const at = tmpAt[k]!;
    cmds.push(at - litStart, tmpLen[k]!, tmpDist[k]!);
    litStart = at + tmpLen[k]!;
  }
  reps[0] = rep[n]!;
}

const stats: MermaidStats = { lits: new Uint32Array(256), deltaLits: new Uint32Array(256), cmds: new Uint32Array(256), nearHi: new Uint32Array(256), nearLo: new Uint32Array(256), nl: 0, nn: 0 };

export function updateMermaidCosts(src: Uint8Array, chunkStart: number, end: number, cmds: Commands, split: number, costs: MermaidCosts, entropy: boolean): void {
  mermaidStats(src, chunkStart, end, cmds, split, stats);
  costs.fromStats(stats, entropy);
}

