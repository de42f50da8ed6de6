/**
 * CityHash64 (Google CityHash v1.1, 64-bit, unseeded): the hash Unreal uses for package ids, container ids, name
 * hashes and object-path hashes. Written here because the npm packages checked did not reproduce the engine's
 * values; verified against engine-written hashes in the corpus (see test/hash/cityhash.test.ts).
 *
 * 64-bit words are kept as two unsigned 32-bit halves (high, low) in plain numbers: BigInt arithmetic allocates on
 * every operation, and hashing names and object paths was most of the cost of converting a package. Each helper
 * returns the low half of its result and leaves the high half in `H`.
 */
let H = 0;

const K0H = 0xc3a5c85c, K0L = 0x97cb3127;
const K1H = 0xb492b66f, K1L = 0xbe98f273;
const K2H = 0x9ae16a3b, K2L = 0x2f90404f;
const KMH = 0x9ddfea08, KML = 0xeb382d69;

function add(ah: number, al: number, bh: number, bl: number): number {
  const l = (al + bl) >>> 0;
  H = (ah + bh + (l < al ? 1 : 0)) >>> 0;
  return l;
}

/** The low 64 bits of a product: the low halves' full product from 16-bit pieces, cross terms with Math.imul. */
function mul(ah: number, al: number, bh: number, bl: number): number {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const carry = a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  H = (carry + Math.imul(al, bh) + Math.imul(ah, bl)) >>> 0;
  return ((mid << 16) | (p00 & 0xffff)) >>> 0;
}

/** Rotate right by s (0 < s < 64). */
function rot(h: number, l: number, s: number): number {
  if (s >= 32) {
    const t = h;
    h = l;
    l = t;
    s -= 32;
  }
  if (s === 0) {
    H = h;
    return l;
  }
  H = ((h >>> s) | (l << (32 - s))) >>> 0;
  return ((l >>> s) | (h << (32 - s))) >>> 0;
}

function bswap32(v: number): number {
  return (((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24)) >>> 0;
}

/** hashLen16(u, v, m): a ^ (a >> 47) twice, multiplied by m. */
function hashLen16(uh: number, ul: number, vh: number, vl: number, mh: number, ml: number): number {
  let al = mul((uh ^ vh) >>> 0, (ul ^ vl) >>> 0, mh, ml);
  let ah = H;
  al = (al ^ (ah >>> 15)) >>> 0;
  let bl = mul((vh ^ ah) >>> 0, (vl ^ al) >>> 0, mh, ml);
  const bh = H;
  bl = (bl ^ (bh >>> 15)) >>> 0;
  return mul(bh, bl, mh, ml);
}

let bytes: Uint8Array = new Uint8Array(0);
function lo32(at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

function len0to16(len: number): number {
  if (len >= 8) {
    const ml = add(K2H, K2L, 0, len * 2), mh = H;
    const al = add(lo32(4), lo32(0), K2H, K2L), ah = H;
    const bh = lo32(len - 4), bl = lo32(len - 8);
    let cl = rot(bh, bl, 37), ch = H;
    cl = mul(ch, cl, mh, ml);
    ch = H;
    cl = add(ch, cl, ah, al);
    ch = H;
    let dl = rot(ah, al, 25), dh = H;
    dl = add(dh, dl, bh, bl);
    dh = H;
    dl = mul(dh, dl, mh, ml);
    dh = H;
    return hashLen16(ch, cl, dh, dl, mh, ml);
  }
  if (len >= 4) {
    const ml = add(K2H, K2L, 0, len * 2), mh = H;
    const a = lo32(0);
    const ul = add(a >>> 29, (a << 3) >>> 0, 0, len), uh = H;
    return hashLen16(uh, ul, 0, lo32(len - 4), mh, ml);
  }
  if (len > 0) {
    const y = bytes[0]! + (bytes[len >> 1]! << 8);
    const z = len + (bytes[len - 1]! << 2);
    const yl = mul(0, y, K2H, K2L), yh = H;
    const zl = mul(0, z, K0H, K0L), zh = H;
    const xh = (yh ^ zh) >>> 0;
    const xl = ((yl ^ zl) ^ (xh >>> 15)) >>> 0;
    return mul(xh, xl, K2H, K2L);
  }
  H = K2H;
  return K2L;
}

function len17to32(len: number): number {
  const ml = add(K2H, K2L, 0, len * 2), mh = H;
  const al = mul(lo32(4), lo32(0), K1H, K1L), ah = H;
  const bh = lo32(12), bl = lo32(8);
  const cl = mul(lo32(len - 4), lo32(len - 8), mh, ml), ch = H;
  const dl = mul(lo32(len - 12), lo32(len - 16), K2H, K2L), dh = H;
  // u = rot(a + b, 43) + rot(c, 30) + d
  let ul = add(ah, al, bh, bl), uh = H;
  ul = rot(uh, ul, 43);
  uh = H;
  const rcl = rot(ch, cl, 30), rch = H;
  ul = add(uh, ul, rch, rcl);
  uh = H;
  ul = add(uh, ul, dh, dl);
  uh = H;
  // v = a + rot(b + K2, 18) + c
  let vl = add(bh, bl, K2H, K2L), vh = H;
  vl = rot(vh, vl, 18);
  vh = H;
  vl = add(ah, al, vh, vl);
  vh = H;
  vl = add(vh, vl, ch, cl);
  vh = H;
  return hashLen16(uh, ul, vh, vl, mh, ml);
}

function len33to64(len: number): number {
  const ml = add(K2H, K2L, 0, len * 2), mh = H;
  let al = mul(lo32(4), lo32(0), K2H, K2L), ah = H;
  let bh = lo32(12), bl = lo32(8);
  const ch = lo32(len - 20), cl = lo32(len - 24);
  const dh = lo32(len - 28), dl = lo32(len - 32);
  const el = mul(lo32(20), lo32(16), K2H, K2L), eh = H;
  const fl = mul(lo32(28), lo32(24), 0, 9), fh = H;
  const gh = lo32(len - 4), gl = lo32(len - 8);
  const hl = mul(lo32(len - 12), lo32(len - 16), mh, ml), hh = H;
  // u = rot(a + g, 43) + (rot(b, 30) + c) * 9
  const agl = add(ah, al, gh, gl), agh = H;
  let ul = rot(agh, agl, 43), uh = H;
  let tl = rot(bh, bl, 30), th = H;
  tl = add(th, tl, ch, cl);
  th = H;
  tl = mul(th, tl, 0, 9);
  th = H;
  ul = add(uh, ul, th, tl);
  uh = H;
  // v = ((a + g) ^ d) + f + 1
  let vl = add((agh ^ dh) >>> 0, (agl ^ dl) >>> 0, fh, fl), vh = H;
  vl = add(vh, vl, 0, 1);
  vh = H;
  // w = bswap((u + v) * m) + h
  tl = add(uh, ul, vh, vl);
  th = H;
  tl = mul(th, tl, mh, ml);
  th = H;
  let wl = add(bswap32(tl), bswap32(th), hh, hl), wh = H;
  // x = rot(e + f, 42) + c
  const efl = add(eh, el, fh, fl), efh = H;
  let xl = rot(efh, efl, 42), xh = H;
  xl = add(xh, xl, ch, cl);
  xh = H;
  // y = (bswap((v + w) * m) + g) * m
  tl = add(vh, vl, wh, wl);
  th = H;
  tl = mul(th, tl, mh, ml);
  th = H;
  let yl = add(bswap32(tl), bswap32(th), gh, gl), yh = H;
  yl = mul(yh, yl, mh, ml);
  yh = H;
  // z = e + f + c
  const zl = add(efh, efl, ch, cl), zh = H;
  // a = bswap((x + z) * m + y) + b
  tl = add(xh, xl, zh, zl);
  th = H;
  tl = mul(th, tl, mh, ml);
  th = H;
  tl = add(th, tl, yh, yl);
  th = H;
  al = add(bswap32(tl), bswap32(th), bh, bl);
  ah = H;
  // b = shiftMix((z + a) * m + d + h) * m
  tl = add(zh, zl, ah, al);
  th = H;
  tl = mul(th, tl, mh, ml);
  th = H;
  tl = add(th, tl, dh, dl);
  th = H;
  tl = add(th, tl, hh, hl);
  th = H;
  bl = mul(th, (tl ^ (th >>> 15)) >>> 0, mh, ml);
  bh = H;
  void wh;
  return add(bh, bl, xh, xl);
}

/** The weak 32-byte hash of bytes [at, at + 32) with seeds a and b: its two words land in W. */
const W = new Array<number>(4).fill(0);
function weak32(at: number, ah: number, al: number, bh: number, bl: number): void {
  const wh = lo32(at + 4), wL = lo32(at);
  const xh = lo32(at + 12), xl = lo32(at + 8);
  const yh = lo32(at + 20), yl = lo32(at + 16);
  const zh = lo32(at + 28), zl = lo32(at + 24);
  al = add(ah, al, wh, wL);
  ah = H;
  bl = add(bh, bl, ah, al);
  bh = H;
  bl = add(bh, bl, zh, zl);
  bh = H;
  bl = rot(bh, bl, 21);
  bh = H;
  const ch = ah, cl = al;
  al = add(ah, al, xh, xl);
  ah = H;
  al = add(ah, al, yh, yl);
  ah = H;
  const rl = rot(ah, al, 44), rh = H;
  bl = add(bh, bl, rh, rl);
  bh = H;
  W[1] = add(ah, al, zh, zl);
  W[0] = H;
  W[3] = add(bh, bl, ch, cl);
  W[2] = H;
}

function hashLong(len: number): number {
  let xh = lo32(len - 36), xl = lo32(len - 40);
  let yl = add(lo32(len - 12), lo32(len - 16), lo32(len - 52), lo32(len - 56)), yh = H;
  let zl = add(lo32(len - 44), lo32(len - 48), 0, len), zh = H;
  zl = hashLen16(zh, zl, lo32(len - 20), lo32(len - 24), KMH, KML);
  zh = H;
  weak32(len - 64, 0, len, zh, zl);
  let v0h = W[0]!, v0l = W[1]!, v1h = W[2]!, v1l = W[3]!;
  let tl = add(yh, yl, K1H, K1L), th = H;
  weak32(len - 32, th, tl, xh, xl);
  let w0h = W[0]!, w0l = W[1]!, w1h = W[2]!, w1l = W[3]!;
  xl = mul(xh, xl, K1H, K1L);
  xh = H;
  xl = add(xh, xl, lo32(4), lo32(0));
  xh = H;

  let pos = 0;
  let left = (len - 1) & ~63;
  do {
    // x = rot(x + y + v0 + f64(pos + 8), 37) * K1
    tl = add(xh, xl, yh, yl);
    th = H;
    tl = add(th, tl, v0h, v0l);
    th = H;
    tl = add(th, tl, lo32(pos + 12), lo32(pos + 8));
    th = H;
    tl = rot(th, tl, 37);
    th = H;
    xl = mul(th, tl, K1H, K1L);
    xh = H;
    // y = rot(y + v1 + f64(pos + 48), 42) * K1
    tl = add(yh, yl, v1h, v1l);
    th = H;
    tl = add(th, tl, lo32(pos + 52), lo32(pos + 48));
    th = H;
    tl = rot(th, tl, 42);
    th = H;
    yl = mul(th, tl, K1H, K1L);
    yh = H;
    xh = (xh ^ w1h) >>> 0;
    xl = (xl ^ w1l) >>> 0;
    // y += v0 + f64(pos + 40)
    tl = add(v0h, v0l, lo32(pos + 44), lo32(pos + 40));
    th = H;
    yl = add(yh, yl, th, tl);
    yh = H;
    // z = rot(z + w0, 33) * K1
    tl = add(zh, zl, w0h, w0l);
    th = H;
    tl = rot(th, tl, 33);
    th = H;
    zl = mul(th, tl, K1H, K1L);
    zh = H;
    // v = weak32(pos, v1 * K1, x + w0); w = weak32(pos + 32, z + w1, y + f64(pos + 16))
    const al = mul(v1h, v1l, K1H, K1L), ah = H;
    const bl = add(xh, xl, w0h, w0l), bh = H;
    weak32(pos, ah, al, bh, bl);
    v0h = W[0]!;
    v0l = W[1]!;
    v1h = W[2]!;
    v1l = W[3]!;
    const cl = add(zh, zl, w1h, w1l), ch = H;
    const dl = add(yh, yl, lo32(pos + 20), lo32(pos + 16)), dh = H;
    weak32(pos + 32, ch, cl, dh, dl);
    w0h = W[0]!;
    w0l = W[1]!;
    w1h = W[2]!;
    w1l = W[3]!;
    const sh = zh, sl = zl;
    zh = xh;
    zl = xl;
    xh = sh;
    xl = sl;
    pos += 64;
    left -= 64;
  } while (left !== 0);
  // hashLen16(hashLen16(v0, w0) + shiftMix(y) * K1 + z, hashLen16(v1, w1) + x)
  let ul = hashLen16(v0h, v0l, w0h, w0l, KMH, KML), uh = H;
  tl = mul(yh, (yl ^ (yh >>> 15)) >>> 0, K1H, K1L);
  th = H;
  ul = add(uh, ul, th, tl);
  uh = H;
  ul = add(uh, ul, zh, zl);
  uh = H;
  let vl = hashLen16(v1h, v1l, w1h, w1l, KMH, KML), vh = H;
  vl = add(vh, vl, xh, xl);
  vh = H;
  return hashLen16(uh, ul, vh, vl, KMH, KML);
}

/** The two 32-bit halves of CityHash64 of `input`: [high, low]. */
export function cityHash64Words(input: Uint8Array): [number, number] {
  bytes = input;
  const len = input.length;
  let lo: number;
  if (len <= 16) lo = len0to16(len);
  else if (len <= 32) lo = len17to32(len);
  else if (len <= 64) lo = len33to64(len);
  else lo = hashLong(len);
  bytes = EMPTY;
  return [H, lo];
}
const EMPTY = new Uint8Array(0);

export function cityHash64(input: Uint8Array): bigint {
  const [hi, lo] = cityHash64Words(input);
  return (BigInt(hi) << 32n) | BigInt(lo);
}
