import { writeArray } from './entropy-encode.js';

/**
 * Run-length arrays (entropy type 3, read by decodeRle in entropy.ts). The payload is one buffer: the literal bytes
 * (and fill values) from the front, and commands from the back, the first command last. A command copies up to a
 * few literals and then repeats the current fill byte; a one-byte command sets a new fill byte from the literals.
 * The literal part may itself be an entropy array, which the first byte tells apart (0: stored as it is).
 */

/** Runs shorter than this are left among the literals (a new fill byte costs two more bytes). */
const MIN_RUN = 4;
const MIN_RUN_NEW_FILL = 6;

const front = new Uint8Array(0x40000 + 16);
const cmds = new Uint8Array(0x40000);

/** Writes the run-length payload of `src[start, start + n)` at `out[at]`; returns its end, or -1 if it does not pay. */
export function writeRlePayload(src: Uint8Array, start: number, n: number, out: Uint8Array, at: number, entropy: boolean): number {
  let f = 0;
  let c = 0;
  let fill = 0;
  let litStart = start;
  const end = start + n;
  let i = start;
  const copy = (to: number) => {
    const count = to - litStart;
    for (let k = litStart; k < to; k++) front[f++] = src[k]!;
    litStart = to;
    return count;
  };
  // Appends commands (in reading order) for `lits` literals, then `repeat` fill bytes.
  const emit = (lits: number, repeat: number) => {
    if (lits === 0 && repeat === 0) return;
    while (lits >= 64) {
      const units = Math.min(lits >> 6, 0x700);
      const v = units + 0x1ff;
      cmds[c++] = v >>> 8;
      cmds[c++] = v & 0xff;
      lits -= units * 64;
    }
    let r = repeat;
    if (lits <= 15 && r >= 3 && r <= 15) {
      cmds[c++] = (r << 4) | (15 - lits);
      return;
    }
    const first = Math.min(r, 127);
    const v = 0x1000 + ((first << 6) | lits);
    cmds[c++] = v >>> 8;
    cmds[c++] = v & 0xff;
    r -= first;
    while (r >= 128) {
      const units = Math.min(r >> 7, 0x700);
      const w = units + 0x8ff;
      cmds[c++] = w >>> 8;
      cmds[c++] = w & 0xff;
      r -= units * 128;
    }
    if (r > 0) {
      const w = 0x1000 + (r << 6);
      cmds[c++] = w >>> 8;
      cmds[c++] = w & 0xff;
    }
  };
  while (i < end) {
    const v = src[i]!;
    let j = i + 1;
    while (j < end && src[j] === v) j++;
    const run = j - i;
    if (run >= (v === fill ? MIN_RUN : MIN_RUN_NEW_FILL)) {
      if (v !== fill) {
        // The new fill byte is read from the literals when its command runs, just before the copy ahead of the run.
        cmds[c++] = 1;
        front[f++] = v;
        fill = v;
      }
      emit(copy(i), run);
      litStart = j;
    }
    i = j;
  }
  const rest = copy(end);
  if (rest > 0) emit(rest, 0);
  if (c === 0) return -1;

  // The literal front: stored after a zero byte, or as an entropy array (whose header never starts with zero).
  let p = at;
  let coded = -1;
  if (entropy && f >= 32) {
    coded = writeArray(front, 0, f, out, p, { entropy: true, longHeader: false, rle: false });
    if (coded - p >= f + 1 || out[p] === 0) coded = -1;
  }
  if (coded >= 0) p = coded;
  else {
    out[p++] = 0;
    out.set(front.subarray(0, f), p);
    p += f;
  }
  // Commands back to front: the first one read is the last byte.
  for (let k = c - 1; k >= 0; k--) out[p++] = cmds[k]!;
  // Two-byte commands went in high byte first, so reversed each reads as [low, high], the high byte above.
  return p;
}
