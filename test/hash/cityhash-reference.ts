/**
 * The first, BigInt form of CityHash64 (slow, but a direct reading of the algorithm): the oracle the 32-bit-word form in
 * src/hash/cityhash.ts is checked against on every length class.
 */
const M = (1n << 64n) - 1n;
const K0 = 0xc3a5c85c97cb3127n;
const K1 = 0xb492b66fbe98f273n;
const K2 = 0x9ae16a3b2f90404fn;
const KMUL = 0x9ddfea08eb382d69n;

const mul = (a: bigint, b: bigint): bigint => (a * b) & M;
const add = (a: bigint, b: bigint): bigint => (a + b) & M;
const rot = (v: bigint, s: bigint): bigint => (s === 0n ? v : ((v >> s) | (v << (64n - s))) & M);
const shiftMix = (v: bigint): bigint => v ^ (v >> 47n);

function bswap64(v: bigint): bigint {
  let r = 0n;
  for (let i = 0n; i < 64n; i += 8n) r = (r << 8n) | ((v >> i) & 0xffn);
  return r;
}

function hashLen16(u: bigint, v: bigint, m: bigint = KMUL): bigint {
  let a = mul(u ^ v, m);
  a ^= a >> 47n;
  let b = mul(v ^ a, m);
  b ^= b >> 47n;
  return mul(b, m);
}

class Input {
  private readonly view: DataView;
  constructor(readonly b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  f64(at: number): bigint {
    return this.view.getBigUint64(at, true);
  }
  f32(at: number): bigint {
    return BigInt(this.view.getUint32(at, true));
  }
}

function len0to16(s: Input, len: number): bigint {
  const n = BigInt(len);
  if (len >= 8) {
    const m = add(K2, n * 2n);
    const a = add(s.f64(0), K2);
    const b = s.f64(len - 8);
    const c = add(mul(rot(b, 37n), m), a);
    const d = mul(add(rot(a, 25n), b), m);
    return hashLen16(c, d, m);
  }
  if (len >= 4) {
    const m = add(K2, n * 2n);
    const a = s.f32(0);
    return hashLen16(add(n, a << 3n), s.f32(len - 4), m);
  }
  if (len > 0) {
    const a = BigInt(s.b[0]!);
    const b = BigInt(s.b[len >> 1]!);
    const c = BigInt(s.b[len - 1]!);
    const y = a + (b << 8n);
    const z = n + (c << 2n);
    return mul(shiftMix(mul(y, K2) ^ mul(z, K0)), K2);
  }
  return K2;
}

function len17to32(s: Input, len: number): bigint {
  const m = add(K2, BigInt(len) * 2n);
  const a = mul(s.f64(0), K1);
  const b = s.f64(8);
  const c = mul(s.f64(len - 8), m);
  const d = mul(s.f64(len - 16), K2);
  return hashLen16(add(add(rot(add(a, b), 43n), rot(c, 30n)), d), add(add(a, rot(add(b, K2), 18n)), c), m);
}

function len33to64(s: Input, len: number): bigint {
  const m = add(K2, BigInt(len) * 2n);
  let a = mul(s.f64(0), K2);
  let b = s.f64(8);
  const c = s.f64(len - 24);
  const d = s.f64(len - 32);
  const e = mul(s.f64(16), K2);
  const f = mul(s.f64(24), 9n);
  const g = s.f64(len - 8);
  const h = mul(s.f64(len - 16), m);
  const u = add(rot(add(a, g), 43n), mul(add(rot(b, 30n), c), 9n));
  const v = add(add((add(a, g) ^ d), f), 1n);
  const w = add(bswap64(mul(add(u, v), m)), h);
  const x = add(rot(add(e, f), 42n), c);
  const y = mul(add(bswap64(mul(add(v, w), m)), g), m);
  const z = add(add(e, f), c);
  a = add(bswap64(add(mul(add(x, z), m), y)), b);
  b = mul(shiftMix(add(add(mul(add(z, a), m), d), h)), m);
  return add(b, x);
}

/** Returns [first, second] of the 32-byte weak hash with two seeds. */
function weak32(s: Input, at: number, a: bigint, b: bigint): [bigint, bigint] {
  const w = s.f64(at);
  const x = s.f64(at + 8);
  const y = s.f64(at + 16);
  const z = s.f64(at + 24);
  a = add(a, w);
  b = rot(add(add(b, a), z), 21n);
  const c = a;
  a = add(a, x);
  a = add(a, y);
  b = add(b, rot(a, 44n));
  return [add(a, z), add(b, c)];
}

export function cityHash64Reference(bytes: Uint8Array): bigint {
  const s = new Input(bytes);
  const len = bytes.length;
  if (len <= 16) return len0to16(s, len);
  if (len <= 32) return len17to32(s, len);
  if (len <= 64) return len33to64(s, len);

  let x = s.f64(len - 40);
  let y = add(s.f64(len - 16), s.f64(len - 56));
  let z = hashLen16(add(s.f64(len - 48), BigInt(len)), s.f64(len - 24));
  let v = weak32(s, len - 64, BigInt(len), z);
  let w = weak32(s, len - 32, add(y, K1), x);
  x = add(mul(x, K1), s.f64(0));

  let pos = 0;
  let left = (len - 1) & ~63;
  do {
    x = mul(rot(add(add(add(x, y), v[0]), s.f64(pos + 8)), 37n), K1);
    y = mul(rot(add(add(y, v[1]), s.f64(pos + 48)), 42n), K1);
    x ^= w[1];
    y = add(y, add(v[0], s.f64(pos + 40)));
    z = mul(rot(add(z, w[0]), 33n), K1);
    v = weak32(s, pos, mul(v[1], K1), add(x, w[0]));
    w = weak32(s, pos + 32, add(z, w[1]), add(y, s.f64(pos + 16)));
    const t = z;
    z = x;
    x = t;
    pos += 64;
    left -= 64;
  } while (left !== 0);
  return hashLen16(add(add(hashLen16(v[0], w[0]), mul(shiftMix(y), K1)), z), add(hashLen16(v[1], w[1]), x));
}
