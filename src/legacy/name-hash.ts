/**
 * The two 16-bit hashes the name map stores after each name (UE4 504+). Checked on the corpus: the first is the
 * engine's deprecated case-insensitive hash (a CRC over the upper-cased characters with the MSB-first 0x04C11DB7
 * table, no final inversion), the second a standard CRC-32 (reflected table, inverted) over each character as
 * four little-endian bytes; both keep their low 16 bits.
 */
const MSB_TABLE = new Uint32Array(256);
const LSB_TABLE = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
  let m = i << 24;
  let l = i;
  for (let k = 0; k < 8; k++) {
    m = m & 0x80000000 ? (m << 1) ^ 0x04c11db7 : m << 1;
    l = l & 1 ? (l >>> 1) ^ 0xedb88320 : l >>> 1;
  }
  MSB_TABLE[i] = m >>> 0;
  LSB_TABLE[i] = l >>> 0;
}

const upper = (c: number): number => (c >= 0x61 && c <= 0x7a ? c - 32 : c);

/** True when the name is stored as UTF-16 (any character outside Latin-1's ASCII range). */
export function isWideLegacyName(name: string): boolean {
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 0x7f) return true;
  return false;
}

export function nonCasePreservingNameHash(name: string): number {
  const wide = isWideLegacyName(name);
  let h = 0;
  for (let i = 0; i < name.length; i++) {
    let c = wide ? name.charCodeAt(i) : upper(name.charCodeAt(i));
    if (wide) c = name[i]!.toUpperCase().charCodeAt(0);
    h = ((h >>> 8) & 0xffffff) ^ MSB_TABLE[(h ^ c) & 0xff]!;
    if (wide) h = ((h >>> 8) & 0xffffff) ^ MSB_TABLE[(h ^ (c >>> 8)) & 0xff]!;
  }
  return h & 0xffff;
}

export function casePreservingNameHash(name: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < name.length; i++) {
    let c = name.charCodeAt(i);
    for (let k = 0; k < 4; k++) {
      crc = (crc >>> 8) ^ LSB_TABLE[(crc ^ c) & 0xff]!;
      c >>>= 8;
    }
  }
  return ~crc & 0xffff;
}
