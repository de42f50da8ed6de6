/** The kind and pixel size an image file states in its header (PNG: IHDR; JPEG: the first start-of-frame marker). */
export interface ImageHeader {
  type: 'png' | 'jpeg';
  width: number;
  height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** 'png', 'jpeg' or undefined, by the first bytes. */
export function imageType(b: Uint8Array): 'png' | 'jpeg' | undefined {
  if (b.length >= 8 && PNG_SIGNATURE.every((v, i) => b[i] === v)) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  return undefined;
}

/** The header of a PNG or JPEG image, or undefined when the bytes are neither or end before saying their size. */
export function readImageHeader(b: Uint8Array): ImageHeader | undefined {
  const type = imageType(b);
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (type === 'png') {
    // The signature, then IHDR first: length (13), "IHDR", width, height (big-endian).
    if (b.length < 24 || v.getUint32(12) !== 0x49484452) return undefined;
    return { type, width: v.getUint32(16), height: v.getUint32(20) };
  }
  if (type !== 'jpeg') return undefined;
  // Segments after SOI: FF, marker, big-endian length (counting itself); SOF0-SOF15 but DHT (C4), JPG (C8), DAC (CC)
  // carry precision, height, width.
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined;
    const len = v.getUint16(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > b.length) return undefined;
      return { type, height: v.getUint16(at + 5), width: v.getUint16(at + 7) };
    }
    at += 2 + len;
  }
  return undefined;
}
