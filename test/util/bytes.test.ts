import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../src/util/bytes.js';

describe('toHex', () => {
  it('writes lower-case hex of every length, short and long, as Buffer does', () => {
    for (let n = 0; n <= 200; n++) {
      const b = new Uint8Array(n).map((_, i) => (i * 37 + n * 11) & 255);
      expect(toHex(b)).toBe(Buffer.from(b).toString('hex'));
      expect(fromHex(toHex(b))).toEqual(b);
    }
    // A view into a larger buffer.
    const big = new Uint8Array(64).map((_, i) => 255 - i);
    expect(toHex(big.subarray(10, 22))).toBe(Buffer.from(big.subarray(10, 22)).toString('hex'));
  });
});
