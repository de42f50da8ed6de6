import { readSync } from './sync-fs.js';

/**
 * Reads `length` bytes at `position` of an open file into `into` from `at`, however many calls the kernel wants;
 * returns how many came, fewer only where the file ends. Errors pass through: each caller names its own file.
 */
export function readFullSync(fd: number, into: Uint8Array, at: number, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = readSync(fd, into, at + got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}
