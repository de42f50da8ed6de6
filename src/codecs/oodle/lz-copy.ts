/**
 * Copies used by the LZ loops. JavaScript has no unaligned wide loads except through DataView, which V8 compiles
 * to plain 32-bit moves, so runs are moved four bytes at a time where that is safe and byte by byte otherwise.
 *
 * The four-byte paths may write up to three bytes past the end of the run. Callers only take them when those bytes
 * are still inside the output, and such bytes always lie ahead of the write position, where the decoder writes the
 * real data later (matches and delta literals only ever read behind it).
 */

/** Copies `len` bytes from `from` to `to` within the output (`from < to`); overlapping runs repeat a pattern. */
export function copyMatch(out: Uint8Array, view: DataView, to: number, from: number, len: number): void {
  if (to - from >= 4 && to + len + 3 < out.length) {
    if (len > 64 && to - from >= len) {
      out.copyWithin(to, from, from + len);
      return;
    }
    for (let i = 0; i < len; i += 4) view.setUint32(to + i, view.getUint32(from + i, true), true);
    return;
  }
  for (let i = 0; i < len; i++) out[to + i] = out[from + i];
}

/**
 * Writes `len` literals from `lits[from]` to `out[to]`. `litsView` must cover at least three bytes past the run.
 */
export function copyLiterals(out: Uint8Array, view: DataView, to: number, lits: Uint8Array, litsView: DataView, from: number, len: number): void {
  if (to + len + 3 < out.length) {
    if (len > 64) {
      out.set(lits.subarray(from, from + len), to);
      return;
    }
    for (let i = 0; i < len; i += 4) view.setUint32(to + i, litsView.getUint32(from + i, true), true);
    return;
  }
  for (let i = 0; i < len; i++) out[to + i] = lits[from + i];
}

/**
 * Writes `len` delta literals: each output byte is the literal plus the byte `back` positions earlier (`back` > 0),
 * modulo 256. Four at a time when the bytes read are all behind the ones written.
 */
export function addLiterals(out: Uint8Array, view: DataView, to: number, lits: Uint8Array, litsView: DataView, from: number, len: number, back: number): void {
  if (back >= 4 && to + len + 3 < out.length) {
    for (let i = 0; i < len; i += 4) {
      const a = litsView.getUint32(from + i, true);
      const b = view.getUint32(to - back + i, true);
      // Per-byte addition without carries between bytes.
      view.setUint32(to + i, ((a & 0x7f7f7f7f) + (b & 0x7f7f7f7f)) ^ ((a ^ b) & 0x80808080), true);
    }
    return;
  }
  for (let i = 0; i < len; i++) out[to + i] = lits[from + i] + out[to - back + i];
}
