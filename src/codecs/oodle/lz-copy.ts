import { scratch } from './scratch.js';

/**
 * Copies used by the LZ loops. JavaScript has no unaligned wide loads except through DataView, which V8 compiles
 * to plain 32-bit moves, so runs are moved four bytes at a time where that is safe and byte by byte otherwise.
 *
 * The four-byte paths may write up to fifteen bytes past the end of the run. Callers only take them when those
 * bytes are still inside the output, and such bytes always lie ahead of the write position, where the decoder writes
 * the real data later (matches and delta literals only ever read behind it).
 *
 * Short runs (most of them: a command byte holds matches of up to 16 bytes and literal runs of up to 2) are moved
 * as a fixed number of words whatever their length, because a loop whose trip count changes with every command
 * costs a mispredicted branch each time.
 */

/** Every LZ codec decodes its literals into the one scratch buffer; as module constants its address and size are known to the compiler. */
const LITS = scratch().lz.lits;
const LITS_VIEW = scratch().lz.litsView;

/** Copies `len` bytes from `from` to `to` within the output (`from < to`); overlapping runs repeat a pattern. */
export function copyMatch(out: Uint8Array, view: DataView, to: number, from: number, len: number): void {
  // Reading a word that ends before the word being written keeps pattern repeats (distance 4 and up) exact.
  if (len <= 16 && to - from >= 4 && to + 19 < out.length) {
    view.setUint32(to, view.getUint32(from, true), true);
    view.setUint32(to + 4, view.getUint32(from + 4, true), true);
    view.setUint32(to + 8, view.getUint32(from + 8, true), true);
    view.setUint32(to + 12, view.getUint32(from + 12, true), true);
    return;
  }
  copyLongMatch(out, view, to, from, len);
}

/*
 * The long forms live in functions of their own, so that the short paths above stay small enough for the compiler
 * to inline them into the command loops.
 */

function copyLongMatch(out: Uint8Array, view: DataView, to: number, from: number, len: number): void {
  if (to - from >= 4 && to + len + 3 < out.length) {
    if (len > 64 && to - from >= len) {
      out.copyWithin(to, from, from + len);
      return;
    }
    let i = 0;
    if (to - from >= 16) {
      // Sixteen bytes a step, all read before any is written.
      for (; i + 12 < len; i += 16) {
        const a = view.getUint32(from + i, true);
        const b = view.getUint32(from + i + 4, true);
        const c = view.getUint32(from + i + 8, true);
        const d = view.getUint32(from + i + 12, true);
        view.setUint32(to + i, a, true);
        view.setUint32(to + i + 4, b, true);
        view.setUint32(to + i + 8, c, true);
        view.setUint32(to + i + 12, d, true);
      }
    }
    for (; i < len; i += 4) view.setUint32(to + i, view.getUint32(from + i, true), true);
    return;
  }
  for (let i = 0; i < len; i++) out[to + i] = out[from + i];
}

/**
 * Writes `len` literals from the shared literal buffer (which has room for seven bytes past any run) at `from` to
 * `out[to]`.
 */
export function copyLiterals(out: Uint8Array, view: DataView, to: number, from: number, len: number): void {
  if (len <= 8 && to + 11 < out.length) {
    view.setUint32(to, LITS_VIEW.getUint32(from, true), true);
    view.setUint32(to + 4, LITS_VIEW.getUint32(from + 4, true), true);
    return;
  }
  copyLongLiterals(out, view, to, from, len);
}

function copyLongLiterals(out: Uint8Array, view: DataView, to: number, from: number, len: number): void {
  if (to + len + 3 < out.length) {
    if (len > 64) {
      out.set(LITS.subarray(from, from + len), to);
      return;
    }
    for (let i = 0; i < len; i += 4) view.setUint32(to + i, LITS_VIEW.getUint32(from + i, true), true);
    return;
  }
  for (let i = 0; i < len; i++) out[to + i] = LITS[from + i];
}

/**
 * Writes `len` delta literals: each output byte is the literal plus the byte `back` positions earlier (`back` > 0),
 * modulo 256. Four at a time when the bytes read are all behind the ones written.
 */
export function addLiterals(out: Uint8Array, view: DataView, to: number, from: number, len: number, back: number): void {
  if (len <= 4 && back >= 4 && to + 4 <= out.length) {
    const a = LITS_VIEW.getUint32(from, true);
    const b = view.getUint32(to - back, true);
    // Per-byte addition without carries between bytes.
    view.setUint32(to, ((a & 0x7f7f7f7f) + (b & 0x7f7f7f7f)) ^ ((a ^ b) & 0x80808080), true);
    return;
  }
  addLongLiterals(out, view, to, from, len, back);
}

function addLongLiterals(out: Uint8Array, view: DataView, to: number, from: number, len: number, back: number): void {
  let i = 0;
  if (back >= 4) {
    // Runs that end near the output's end (a block's trailing literals can be long) must stop at whole words.
    const words = to + len + 3 < out.length ? len : len & ~3;
    if (back >= 8) {
      for (; i + 4 < words; i += 8) {
        const a = LITS_VIEW.getUint32(from + i, true);
        const b = view.getUint32(to - back + i, true);
        const c = LITS_VIEW.getUint32(from + i + 4, true);
        const d = view.getUint32(to - back + i + 4, true);
        view.setUint32(to + i, ((a & 0x7f7f7f7f) + (b & 0x7f7f7f7f)) ^ ((a ^ b) & 0x80808080), true);
        view.setUint32(to + i + 4, ((c & 0x7f7f7f7f) + (d & 0x7f7f7f7f)) ^ ((c ^ d) & 0x80808080), true);
      }
    }
    for (; i < words; i += 4) {
      const a = LITS_VIEW.getUint32(from + i, true);
      const b = view.getUint32(to - back + i, true);
      view.setUint32(to + i, ((a & 0x7f7f7f7f) + (b & 0x7f7f7f7f)) ^ ((a ^ b) & 0x80808080), true);
    }
  }
  for (; i < len; i++) out[to + i] = LITS[from + i] + out[to - back + i];
}
