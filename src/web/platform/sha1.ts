/** SHA-1 for the browser build's node:crypto seam (pak index hashes); synchronous, as the pak reader expects. */
export function sha1(data: Uint8Array): Uint8Array {
  const words = new Uint32Array(80);
  let h0 = 0x67452301, h1 = 0xefcdab89, h2 = 0x98badcfe, h3 = 0x10325476, h4 = 0xc3d2e1f0;
  const total = Math.ceil((data.length + 9) / 64) * 64;
  const tail = new Uint8Array(total - (data.length & ~63));
  tail.set(data.subarray(data.length & ~63));
  tail[data.length & 63] = 0x80;
  const bits = data.length * 8;
  const tv = new DataView(tail.buffer);
  tv.setUint32(tail.length - 4, bits >>> 0);
  tv.setUint32(tail.length - 8, Math.floor(bits / 2 ** 32));
  const full = data.length & ~63;
  for (let off = 0; off < total; off += 64) {
    const src = off < full ? data : tail;
    const base = off < full ? off : off - full;
    for (let t = 0; t < 16; t++) {
      const p = base + 4 * t;
      words[t] = (src[p]! << 24) | (src[p + 1]! << 16) | (src[p + 2]! << 8) | src[p + 3]!;
    }
    for (let t = 16; t < 80; t++) {
      const x = words[t - 3]! ^ words[t - 8]! ^ words[t - 14]! ^ words[t - 16]!;
      words[t] = (x << 1) | (x >>> 31);
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4;
    for (let t = 0; t < 80; t++) {
      const f = t < 20 ? (b & c) | (~b & d) : t < 40 ? b ^ c ^ d : t < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
      const k = t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const tmp = (((a << 5) | (a >>> 27)) + f + e + k + words[t]!) >>> 0;
      e = d;
      d = c;
      c = ((b << 30) | (b >>> 2)) >>> 0;
      b = a;
      a = tmp;
    }
    h0 = (h0 + a) >>> 0;
    h1 = (h1 + b) >>> 0;
    h2 = (h2 + c) >>> 0;
    h3 = (h3 + d) >>> 0;
    h4 = (h4 + e) >>> 0;
  }
  const out = new Uint8Array(20);
  const ov = new DataView(out.buffer);
  [h0, h1, h2, h3, h4].forEach((h, i) => ov.setUint32(4 * i, h));
  return out;
}
