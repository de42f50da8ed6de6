/** Whether the `n` bytes at `a` and at `b` are the same, sixteen at a time (the encoder's decode-back check). */
export function sameBytes(a: usize, b: usize, n: i32): bool {
  let i = 0;
  for (; i + 16 <= n; i += 16) if (v128.any_true(v128.xor(v128.load(a + i), v128.load(b + i)))) return false;
  for (; i < n; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false;
  return true;
}
