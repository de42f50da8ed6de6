/**
 * AES-256 in plain TypeScript, for hosts without node:crypto (browsers, where WebCrypto has no ECB mode and is
 * asynchronous while the block reader is not). Table-driven, one 16-byte block at a time; the equivalent inverse
 * cipher is used for decryption so both directions share one round structure.
 */

const SBOX = new Uint8Array(256);
const INV_SBOX = new Uint8Array(256);
const TE = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)] as const;
const TD = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)] as const;

const rotr8 = (w: number) => ((w >>> 8) | (w << 24)) >>> 0;

// The tables are derived from GF(2^8) arithmetic at load time rather than written out: 8 KiB of literals less.
(function buildTables() {
  const exp = new Uint8Array(256);
  const log = new Uint8Array(256);
  let x = 1;
  for (let i = 0; i < 255; i++) {
    exp[i] = x;
    log[x] = i;
    x ^= ((x << 1) ^ (x & 0x80 ? 0x1b : 0)) & 0xff; // x * 3, 3 generates the multiplicative group
  }
  const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : exp[(log[a]! + log[b]!) % 255]!);
  for (let a = 0; a < 256; a++) {
    const inv = a === 0 ? 0 : exp[(255 - log[a]!) % 255]!;
    let s = inv;
    for (let k = 1; k <= 4; k++) s ^= ((inv << k) | (inv >>> (8 - k))) & 0xff;
    s ^= 0x63;
    SBOX[a] = s;
    INV_SBOX[s] = a;
  }
  for (let a = 0; a < 256; a++) {
    const s = SBOX[a]!;
    let te = ((mul(s, 2) << 24) | (s << 16) | (s << 8) | mul(s, 3)) >>> 0;
    const i = INV_SBOX[a]!;
    let td = ((mul(i, 14) << 24) | (mul(i, 9) << 16) | (mul(i, 13) << 8) | mul(i, 11)) >>> 0;
    for (let t = 0; t < 4; t++) {
      TE[t][a] = te;
      TD[t][a] = td;
      te = rotr8(te);
      td = rotr8(td);
    }
  }
})();

const ROUNDS = 14;

/** An expanded AES-256 key: encryption and decryption round keys. */
export class Aes256 {
  private readonly enc = new Uint32Array(4 * (ROUNDS + 1));
  private readonly dec = new Uint32Array(4 * (ROUNDS + 1));

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new RangeError(`AES-256 needs a 32-byte key, got ${key.length} bytes`);
    const w = this.enc;
    for (let i = 0; i < 8; i++) w[i] = ((key[4 * i]! << 24) | (key[4 * i + 1]! << 16) | (key[4 * i + 2]! << 8) | key[4 * i + 3]!) >>> 0;
    let rcon = 1;
    for (let i = 8; i < w.length; i++) {
      let t = w[i - 1]!;
      if (i % 8 === 0) {
        t = subWord(((t << 8) | (t >>> 24)) >>> 0) ^ (rcon << 24);
        rcon = (rcon << 1) ^ (rcon & 0x80 ? 0x11b : 0);
      } else if (i % 8 === 4) {
        t = subWord(t);
      }
      w[i] = (w[i - 8]! ^ t) >>> 0;
    }
    // Decryption keys: the encryption keys in reverse round order, InvMixColumns applied to the inner rounds.
    for (let r = 0; r <= ROUNDS; r++) {
      for (let c = 0; c < 4; c++) {
        const k = w[4 * (ROUNDS - r) + c]!;
        this.dec[4 * r + c] = r === 0 || r === ROUNDS ? k : (TD[0][SBOX[k >>> 24]!]! ^ TD[1][SBOX[(k >>> 16) & 255]!]! ^ TD[2][SBOX[(k >>> 8) & 255]!]! ^ TD[3][SBOX[k & 255]!]!) >>> 0;
      }
    }
  }

  /** Encrypts the 16 bytes at `src[from]` into `dst[to]` (the two may be the same place). */
  encryptBlock(src: Uint8Array, from: number, dst: Uint8Array, to: number): void {
    const k = this.enc;
    const [T0, T1, T2, T3] = TE;
    let s0 = readWord(src, from) ^ k[0]!;
    let s1 = readWord(src, from + 4) ^ k[1]!;
    let s2 = readWord(src, from + 8) ^ k[2]!;
    let s3 = readWord(src, from + 12) ^ k[3]!;
    for (let r = 1; r < ROUNDS; r++) {
      const o = 4 * r;
      const t0 = T0[s0 >>> 24]! ^ T1[(s1 >>> 16) & 255]! ^ T2[(s2 >>> 8) & 255]! ^ T3[s3 & 255]! ^ k[o]!;
      const t1 = T0[s1 >>> 24]! ^ T1[(s2 >>> 16) & 255]! ^ T2[(s3 >>> 8) & 255]! ^ T3[s0 & 255]! ^ k[o + 1]!;
      const t2 = T0[s2 >>> 24]! ^ T1[(s3 >>> 16) & 255]! ^ T2[(s0 >>> 8) & 255]! ^ T3[s1 & 255]! ^ k[o + 2]!;
      const t3 = T0[s3 >>> 24]! ^ T1[(s0 >>> 16) & 255]! ^ T2[(s1 >>> 8) & 255]! ^ T3[s2 & 255]! ^ k[o + 3]!;
      s0 = t0 >>> 0;
      s1 = t1 >>> 0;
      s2 = t2 >>> 0;
      s3 = t3 >>> 0;
    }
    const o = 4 * ROUNDS;
    const S = SBOX;
    writeWord(dst, to, ((S[s0 >>> 24]! << 24) | (S[(s1 >>> 16) & 255]! << 16) | (S[(s2 >>> 8) & 255]! << 8) | S[s3 & 255]!) ^ k[o]!);
    writeWord(dst, to + 4, ((S[s1 >>> 24]! << 24) | (S[(s2 >>> 16) & 255]! << 16) | (S[(s3 >>> 8) & 255]! << 8) | S[s0 & 255]!) ^ k[o + 1]!);
    writeWord(dst, to + 8, ((S[s2 >>> 24]! << 24) | (S[(s3 >>> 16) & 255]! << 16) | (S[(s0 >>> 8) & 255]! << 8) | S[s1 & 255]!) ^ k[o + 2]!);
    writeWord(dst, to + 12, ((S[s3 >>> 24]! << 24) | (S[(s0 >>> 16) & 255]! << 16) | (S[(s1 >>> 8) & 255]! << 8) | S[s2 & 255]!) ^ k[o + 3]!);
  }

  /** Decrypts the 16 bytes at `src[from]` into `dst[to]` (the two may be the same place). */
  decryptBlock(src: Uint8Array, from: number, dst: Uint8Array, to: number): void {
    const k = this.dec;
    const [T0, T1, T2, T3] = TD;
    let s0 = readWord(src, from) ^ k[0]!;
    let s1 = readWord(src, from + 4) ^ k[1]!;
    let s2 = readWord(src, from + 8) ^ k[2]!;
    let s3 = readWord(src, from + 12) ^ k[3]!;
    for (let r = 1; r < ROUNDS; r++) {
      const o = 4 * r;
      const t0 = T0[s0 >>> 24]! ^ T1[(s3 >>> 16) & 255]! ^ T2[(s2 >>> 8) & 255]! ^ T3[s1 & 255]! ^ k[o]!;
      const t1 = T0[s1 >>> 24]! ^ T1[(s0 >>> 16) & 255]! ^ T2[(s3 >>> 8) & 255]! ^ T3[s2 & 255]! ^ k[o + 1]!;
      const t2 = T0[s2 >>> 24]! ^ T1[(s1 >>> 16) & 255]! ^ T2[(s0 >>> 8) & 255]! ^ T3[s3 & 255]! ^ k[o + 2]!;
      const t3 = T0[s3 >>> 24]! ^ T1[(s2 >>> 16) & 255]! ^ T2[(s1 >>> 8) & 255]! ^ T3[s0 & 255]! ^ k[o + 3]!;
      s0 = t0 >>> 0;
      s1 = t1 >>> 0;
      s2 = t2 >>> 0;
      s3 = t3 >>> 0;
    }
    const o = 4 * ROUNDS;
    const S = INV_SBOX;
    writeWord(dst, to, ((S[s0 >>> 24]! << 24) | (S[(s3 >>> 16) & 255]! << 16) | (S[(s2 >>> 8) & 255]! << 8) | S[s1 & 255]!) ^ k[o]!);
    writeWord(dst, to + 4, ((S[s1 >>> 24]! << 24) | (S[(s0 >>> 16) & 255]! << 16) | (S[(s3 >>> 8) & 255]! << 8) | S[s2 & 255]!) ^ k[o + 1]!);
    writeWord(dst, to + 8, ((S[s2 >>> 24]! << 24) | (S[(s1 >>> 16) & 255]! << 16) | (S[(s0 >>> 8) & 255]! << 8) | S[s3 & 255]!) ^ k[o + 2]!);
    writeWord(dst, to + 12, ((S[s3 >>> 24]! << 24) | (S[(s2 >>> 16) & 255]! << 16) | (S[(s1 >>> 8) & 255]! << 8) | S[s0 & 255]!) ^ k[o + 3]!);
  }
}

function subWord(w: number): number {
  return ((SBOX[w >>> 24]! << 24) | (SBOX[(w >>> 16) & 255]! << 16) | (SBOX[(w >>> 8) & 255]! << 8) | SBOX[w & 255]!) >>> 0;
}

function readWord(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

function writeWord(b: Uint8Array, at: number, w: number): void {
  b[at] = w >>> 24;
  b[at + 1] = w >>> 16;
  b[at + 2] = w >>> 8;
  b[at + 3] = w;
}

function wholeBlocks(data: Uint8Array): void {
  if (data.length % 16 !== 0) throw new RangeError(`AES-ECB data must be whole 16-byte blocks, got ${data.length} bytes`);
}

/** AES-256-ECB decryption of whole blocks into a new array. */
export function softAesEcbDecrypt(key: Uint8Array | Aes256, data: Uint8Array): Uint8Array {
  wholeBlocks(data);
  const aes = key instanceof Aes256 ? key : new Aes256(key);
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i += 16) aes.decryptBlock(data, i, out, i);
  return out;
}

/** AES-256-ECB encryption of whole blocks into a new array. */
export function softAesEcbEncrypt(key: Uint8Array | Aes256, data: Uint8Array): Uint8Array {
  wholeBlocks(data);
  const aes = key instanceof Aes256 ? key : new Aes256(key);
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i += 16) aes.encryptBlock(data, i, out, i);
  return out;
}

/** AES-256-CTR (either direction) with a 16-byte initial counter block, incremented as a 128-bit big-endian number. */
export function softAesCtr(key: Uint8Array | Aes256, iv16: Uint8Array, data: Uint8Array): Uint8Array {
  const aes = key instanceof Aes256 ? key : new Aes256(key);
  const counter = Uint8Array.from(iv16.subarray(0, 16));
  const stream = new Uint8Array(16);
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i += 16) {
    aes.encryptBlock(counter, 0, stream, 0);
    const n = Math.min(16, data.length - i);
    for (let j = 0; j < n; j++) out[i + j] = data[i + j]! ^ stream[j]!;
    for (let j = 15; j >= 0 && ++counter[j]! === 256; j--) counter[j] = 0;
  }
  return out;
}
