/** Bytes that differ from file to file and from block to block (bytes or a hash taken from the wrong place shows). */
export function patternedBytes(size: number, seed: number): Uint8Array {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 131 + seed * 7 + (i >> 4)) & 0xff;
  return b;
}
