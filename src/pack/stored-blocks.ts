// What a stored (uncompressed) block of a .ucas is: its bytes padded to 16 with its own bytes from its start, the
// engine's rule whether the block is encrypted or not. Shared by the writer and the threads that copy stored chunks.
import { align } from '../util/bytes.js';

/** The bytes a stored chunk of `size` raw bytes takes in the .ucas: each block padded to 16. */
export function storedSize(size: number, blockSize: number): number {
  if (size === 0) return 0;
  const full = Math.floor(size / blockSize) * blockSize;
  return full + align(size - full, 16);
}

/**
 * Pads the block of `used` bytes at `start` of `buf` to 16 bytes in place, repeating its own bytes from its start
 * (a block under 16 bytes repeats itself); `buf` must have room. Returns the padded length.
 */
export function padBlockInPlace(buf: Uint8Array, start: number, used: number): number {
  const padded = align(used, 16);
  for (let i = used; i < padded; i++) buf[start + i] = buf[start + i - used]!;
  return padded;
}
