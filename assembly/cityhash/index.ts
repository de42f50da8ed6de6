// CityHash64 (v1.1, 64-bit, unseeded) of bytes in this module's memory: the hash of package ids (src/hash/names.ts).
// The JavaScript version (src/hash/cityhash.ts) works on 32-bit halves and runs interpreted until V8 optimizes it:
// a pack hashes a package name per file of a mod before its copy can start (~90 ms cold for 30,000 names).

const K0: u64 = 0xc3a5c85c97cb3127;
const K1: u64 = 0xb492b66fbe98f273;
const K2: u64 = 0x9ae16a3b2f90404f;
const KMUL: u64 = 0x9ddfea08eb382d69;

/** Where callers write the bytes to hash; the hash is written at 0 (8 bytes, little-endian). */
export const INPUT: usize = 16;

// The second word of weakHash's pair.
let pairHigh: u64 = 0;

@inline function word(p: usize): u64 {
  return load<u64>(p);
}

@inline function half(p: usize): u64 {
  return <u64>load<u32>(p);
}

@inline function rot(v: u64, s: u64): u64 {
  return s == 0 ? v : rotr<u64>(v, s);
}

@inline function shiftMix(v: u64): u64 {
  return v ^ (v >> 47);
}

function mix16(u: u64, v: u64, mul: u64): u64 {
  let a = (u ^ v) * mul;
  a ^= a >> 47;
  let b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

function upTo16(s: usize, len: u64): u64 {
  if (len >= 8) {
    const mul = K2 + len * 2;
    const a = word(s) + K2;
    const b = word(s + <usize>len - 8);
    const c = rot(b, 37) * mul + a;
    const d = (rot(a, 25) + b) * mul;
    return mix16(c, d, mul);
  }
  if (len >= 4) {
    const mul = K2 + len * 2;
    return mix16(len + (half(s) << 3), half(s + <usize>len - 4), mul);
  }
  if (len > 0) {
    const y = <u64>load<u8>(s) + (<u64>load<u8>(s + <usize>(len >> 1)) << 8);
    const z = len + (<u64>load<u8>(s + <usize>len - 1) << 2);
    return shiftMix((y * K2) ^ (z * K0)) * K2;
  }
  return K2;
}

function upTo32(s: usize, len: u64): u64 {
  const mul = K2 + len * 2;
  const a = word(s) * K1;
  const b = word(s + 8);
  const c = word(s + <usize>len - 8) * mul;
  const d = word(s + <usize>len - 16) * K2;
  return mix16(rot(a + b, 43) + rot(c, 30) + d, a + rot(b + K2, 18) + c, mul);
}

function upTo64(s: usize, len: u64): u64 {
  const mul = K2 + len * 2;
  let a = word(s) * K2;
  let b = word(s + 8);
  const c = word(s + <usize>len - 24);
  const d = word(s + <usize>len - 32);
  const e = word(s + 16) * K2;
  const f = word(s + 24) * 9;
  const g = word(s + <usize>len - 8);
  const h = word(s + <usize>len - 16) * mul;
  const u = rot(a + g, 43) + (rot(b, 30) + c) * 9;
  const v = ((a + g) ^ d) + f + 1;
  const w = bswap<u64>((u + v) * mul) + h;
  const x = rot(e + f, 42) + c;
  const y = (bswap<u64>((v + w) * mul) + g) * mul;
  const z = e + f + c;
  a = bswap<u64>((x + z) * mul + y) + b;
  b = shiftMix((z + a) * mul + d + h) * mul;
  return b + x;
}

/** The first word of the pair of 32 bytes at `s` with seeds `a`, `b`; the second in pairHigh. */
function weakHash(s: usize, a: u64, b: u64): u64 {
  const w = word(s);
  const x = word(s + 8);
  const y = word(s + 16);
  const z = word(s + 24);
  a += w;
  b = rot(b + a + z, 21);
  const c = a;
  a += x;
  a += y;
  b += rot(a, 44);
  pairHigh = b + c;
  return a + z;
}

function longer(s: usize, len: u64): u64 {
  let x = word(s + <usize>len - 40);
  let y = word(s + <usize>len - 16) + word(s + <usize>len - 56);
  let z = mix16(word(s + <usize>len - 48) + len, word(s + <usize>len - 24), KMUL);
  let v0 = weakHash(s + <usize>len - 64, len, z);
  let v1 = pairHigh;
  let w0 = weakHash(s + <usize>len - 32, y + K1, x);
  let w1 = pairHigh;
  x = x * K1 + word(s);
  let left = (len - 1) & ~(<u64>63);
  do {
    x = rot(x + y + v0 + word(s + 8), 37) * K1;
    y = rot(y + v1 + word(s + 48), 42) * K1;
    x ^= w1;
    y += v0 + word(s + 40);
    z = rot(z + w0, 33) * K1;
    const nv0 = weakHash(s, v1 * K1, x + w0);
    const nv1 = pairHigh;
    const nw0 = weakHash(s + 32, z + w1, y + word(s + 16));
    w1 = pairHigh;
    w0 = nw0;
    v0 = nv0;
    v1 = nv1;
    const t = z;
    z = x;
    x = t;
    s += 64;
    left -= 64;
  } while (left != 0);
  return mix16(mix16(v0, w0, KMUL) + shiftMix(y) * K1 + z, mix16(v1, w1, KMUL) + x, KMUL);
}

/** Hashes the `len` bytes at INPUT and writes the hash at 0. */
export function hash(len: u32): void {
  const n = <u64>len;
  let h: u64;
  if (n <= 16) h = upTo16(INPUT, n);
  else if (n <= 32) h = upTo32(INPUT, n);
  else if (n <= 64) h = upTo64(INPUT, n);
  else h = longer(INPUT, n);
  store<u64>(0, h);
}
