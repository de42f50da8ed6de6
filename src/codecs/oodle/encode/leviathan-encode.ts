import { CHUNK_SIZE, type Commands } from './commands.js';
import { shannonBytes, writeArray } from './entropy-encode.js';
import { closeChunk, LONG, OFFS, packOffset } from './offset-streams.js';

/**
 * Writes a Leviathan LZ chunk from a parse, in the layout leviathan.ts reads, using its plainest forms: one literal
 * stream (mode 1, or mode 0 with literals as differences from the byte at the last offset) and one command stream.
 * Offsets and long lengths go in the side streams Kraken uses. Leviathan keeps seven recent offsets; its command byte
 * holds a match of 2-8 bytes (9: longer, from the back of the length array), 0-2 literals (3: from the front) and
 * which recent offset the match reuses (7: a new one).
 *
 * The parse must leave the last 16 bytes of the chunk to trailing literals: decoders copy long literal runs and long
 * matches in wide steps that may not reach into the chunk's last bytes.
 */

const LITS = new Uint8Array(CHUNK_SIZE + 16);
const DELTA_LITS = new Uint8Array(CHUNK_SIZE + 16);
const CMDS = new Uint8Array(CHUNK_SIZE);
/** Literal lengths (front of the length array) and match lengths (its back, in reverse command order). */
const LIT_LENS = new Int32Array(CHUNK_SIZE);
const MATCH_LENS = new Int32Array(CHUNK_SIZE);
const LENS = new Uint8Array(CHUNK_SIZE);
const litHist = new Uint32Array(256);
const deltaHist = new Uint32Array(256);
const recent = new Int32Array(7);

export interface LeviathanChunkOptions {
  entropy: boolean;
  delta: boolean;
  /** ArrayOptions.margin of every array. */
  margin: number;
}

/** Returns the chunk's end at out[at] (header included), or -1 when it would not shrink. */
export function writeLeviathanChunk(src: Uint8Array, start: number, end: number, cmds: Commands, out: Uint8Array, at: number, o: LeviathanChunkOptions): number {
  const count = end - start;
  let p = start === 0 ? 8 : start;
  let nl = 0;
  let nc = 0;
  let no = 0;
  let nlit = 0;
  let nmatch = 0;
  recent.fill(8);
  // The literals are counted as they are written, and written and counted as differences from the byte at the last
  // offset only for a level that weighs those.
  const withDelta = o.entropy && o.delta;
  litHist.fill(0);
  if (withDelta) deltaHist.fill(0);
  let last = 8;
  const addLiterals = (from: number, n: number) => {
    if (withDelta) {
      for (let i = from, e = from + n; i < e; i++, nl++) {
        const b = src[i]!;
        const d = (b - src[i - last]!) & 255;
        LITS[nl] = b;
        litHist[b]!++;
        DELTA_LITS[nl] = d;
        deltaHist[d]!++;
      }
    } else {
      for (let i = from, e = from + n; i < e; i++, nl++) {
        const b = src[i]!;
        LITS[nl] = b;
        litHist[b]!++;
      }
    }
  };
  for (let k = 0; k < cmds.count; k++) {
    const lit = cmds.litLen[k]!;
    const len = cmds.matchLen[k]!;
    const d = cmds.dist[k]!;
    addLiterals(p, lit);
    p += lit;
    let idx = 0;
    while (idx < 7 && recent[idx] !== d) idx++;
    if (idx === 7) packOffset(d, no++);
    for (let j = idx < 7 ? idx : 6; j > 0; j--) recent[j] = recent[j - 1]!;
    recent[0] = d;
    last = d;
    if (lit >= 3) LIT_LENS[nlit++] = lit - 3;
    if (len >= 9) MATCH_LENS[nmatch++] = len - 9;
    CMDS[nc++] = (idx << 5) | ((lit >= 3 ? 3 : lit) << 3) | (len >= 9 ? 7 : len - 2);
    p += len;
  }
  addLiterals(p, end - p);

  // The length array: literal lengths in order, then match lengths last command first (read from the back).
  let nlen = 0;
  let nlong = 0;
  const put = (v: number) => {
    if (v < 255) LENS[nlen++] = v;
    else {
      LENS[nlen++] = 255;
      LONG[nlong++] = v - 255;
    }
  };
  for (let i = 0; i < nlit; i++) put(LIT_LENS[i]!);
  for (let i = nmatch - 1; i >= 0; i--) put(MATCH_LENS[i]!);
  if (no > Math.floor(count / 3) || nlen > Math.floor(count / 5) || !fitsDecoderScratch(count, nl, nc, no, nlen)) return -1;

  const head = at;
  let q = at + 3;
  if (start === 0) {
    out.set(src.subarray(0, 8), q);
    q += 8;
  }
  // A set top bit before the offset array would announce scaled offsets, and before the commands eight streams.
  q = writeArray(OFFS, 0, no, out, q, { entropy: o.entropy, longHeader: true, margin: o.margin });
  q = writeArray(LENS, 0, nlen, out, q, { entropy: o.entropy, longHeader: false, margin: o.margin });
  let delta = false;
  const counted = o.entropy && nl >= 32;
  if (counted && withDelta) delta = shannonBytes(deltaHist, nl) < shannonBytes(litHist, nl);
  q = writeArray(delta ? DELTA_LITS : LITS, 0, nl, out, q, { entropy: o.entropy, longHeader: false, rle: false, margin: o.margin }, counted ? (delta ? deltaHist : litHist) : undefined);
  q = writeArray(CMDS, 0, nc, out, q, { entropy: o.entropy, longHeader: true, margin: o.margin });
  return closeChunk(out, head, q, count, no, nlong, delta);
}

/**
 * Whether Oodle's Leviathan decoder, whose scratch memory is Kraken's (three times the chunk plus 53 KiB, at most
 * 432 KiB, less its table of about 370 bytes), holds this chunk's arrays, offsets and lengths as 32-bit values, and
 * the chunk's size again for its literal and command work.
 */
function fitsDecoderScratch(count: number, nl: number, nc: number, no: number, nlen: number): boolean {
  const room = Math.min(3 * count + 32 + 0xd000, 0x6c000) - 384;
  return no + nlen + 15 + 4 * no + 15 + 4 * nlen + nl + nc + count <= room;
}
