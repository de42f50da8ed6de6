import type { ByteReader } from '../util/bytes.js';

/**
 * Reads a compact index: a signed integer in one to five bytes. The first byte holds the sign (bit 7), a
 * continuation bit (bit 6) and six value bits; the next three hold seven value bits and a continuation bit each;
 * a fifth byte holds the last bits. Values must fit in 32 bits, so a fifth byte above 0x0F (which would also be
 * how a longer encoding starts) is an error.
 */
export function readCompactIndex(r: ByteReader, what: string): number {
  const at = r.pos;
  const first = r.u8(what);
  let value = first & 0x3f;
  if (first & 0x40) {
    let shift = 6;
    for (let i = 1; ; i++) {
      const b = r.u8(what);
      if (i === 4) {
        if (b > 0x0f) r.fail('BAD_VALUE', `${what}: compact index longer than five bytes or wider than 32 bits (fifth byte 0x${b.toString(16)})`, at);
        value += b * 2 ** 27;
        break;
      }
      value |= (b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
  }
  return first & 0x80 && value !== 0 ? -value : value;
}

/** The compact-index bytes of `value` (a 32-bit signed integer), shortest form. */
export function encodeCompactIndex(value: number): Uint8Array {
  if (!Number.isInteger(value) || Math.abs(value) > 0x7fffffff) throw new RangeError(`compact index out of range: ${value}`);
  let v = Math.abs(value);
  const out: number[] = [];
  let b = (value < 0 ? 0x80 : 0) | (v & 0x3f);
  v = Math.floor(v / 64);
  if (v > 0) b |= 0x40;
  out.push(b);
  while (v > 0 && out.length < 4) {
    b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v > 0) b |= 0x80;
    out.push(b);
  }
  if (v > 0) out.push(v);
  return Uint8Array.from(out);
}
