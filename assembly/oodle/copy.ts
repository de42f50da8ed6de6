/**
 * Copies of the LZ loops, sixteen bytes at a time with SIMD. They may write up to 16 bytes past the end of a run:
 * every output buffer and scratch buffer has slack behind it, and bytes written ahead of the write position are
 * always written again with the real data later (matches and delta literals only ever read behind it).
 */

/** Copies `len` bytes from `from` to `to` within the output (`from < to`); overlapping runs repeat their pattern. */
@inline
export function copyMatch(to: usize, from: usize, len: i32): void {
  if (to - from >= 16) {
    v128.store(to, v128.load(from));
    if (len > 16) copyFarRest(to, from, len);
  } else {
    copyNear(to, from, len);
  }
}

/** A match of at most 16 bytes (the short commands' matches). */
@inline
export function copyShortMatch(to: usize, from: usize, len: i32): void {
  if (to - from >= 16) v128.store(to, v128.load(from));
  else copyNear(to, from, len);
}

function copyFarRest(to: usize, from: usize, len: i32): void {
  for (let i = 16; i < len; i += 16) v128.store(to + i, v128.load(from + i));
}

/**
 * A match less than 16 bytes back: its first 16 bytes one by one, then 16 at a time from a whole number of periods
 * back (at least 16), which holds the same bytes.
 */
function copyNear(to: usize, from: usize, len: i32): void {
  const dist = <i32>(to - from);
  const first = len < 16 ? len : 16;
  for (let i = 0; i < first; i++) store<u8>(to + i, load<u8>(from + i));
  if (len <= 16) return;
  const period = dist * ((15 + dist) / dist);
  for (let i = 16; i < len; i += 16) v128.store(to + i, v128.load(to + i - period));
}

/** Copies `len` literals from `from` (a scratch buffer with slack) to `to`. */
@inline
export function copyLiterals(to: usize, from: usize, len: i32): void {
  v128.store(to, v128.load(from));
  if (len > 16) copyLongLiterals(to, from, len);
}

function copyLongLiterals(to: usize, from: usize, len: i32): void {
  if (len > 256) {
    memory.copy(to, from, len);
    return;
  }
  for (let i = 16; i < len; i += 16) v128.store(to + i, v128.load(from + i));
}

/** Writes `len` delta literals: each is the literal plus the output byte `back` positions earlier (`back` > 0). */
@inline
export function addLiterals(to: usize, from: usize, len: i32, back: usize): void {
  if (back >= 16) {
    v128.store(to, i8x16.add(v128.load(from), v128.load(to - back)));
    if (len > 16) addFarRest(to, from, len, back);
  } else {
    addNear(to, from, len, back);
  }
}

function addFarRest(to: usize, from: usize, len: i32, back: usize): void {
  for (let i = 16; i < len; i += 16) v128.store(to + i, i8x16.add(v128.load(from + i), v128.load(to + i - back)));
}

function addNear(to: usize, from: usize, len: i32, back: usize): void {
  let i = 0;
  if (back >= 8) {
    for (; i < len; i += 8) {
      const a = load<u64>(from + i);
      const b = load<u64>(to + i - back);
      store<u64>(to + i, ((a & 0x7f7f7f7f7f7f7f7f) + (b & 0x7f7f7f7f7f7f7f7f)) ^ ((a ^ b) & 0x8080808080808080));
    }
    return;
  }
  for (; i < len; i++) store<u8>(to + i, load<u8>(from + i) + load<u8>(to + i - back));
}

/** Literal modes as type arguments, so that a loop's instance for each mode is compiled with the mode fixed. */
export class Delta {}
export class Raw {}

/** Whether mode M codes literals as differences (a compile-time constant). */
@inline
export function isDelta<M>(): bool {
  return idof<M>() == idof<Delta>();
}
