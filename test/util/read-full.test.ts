import { closeSync, openSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readFullSync } from '../../src/util/read-full.js';
import { corpusPath, hasCorpus } from '../corpus.js';

describe.skipIf(!hasCorpus)('readFullSync', () => {
  const file = corpusPath('ue5-wayoftheninja/global.ucas');

  it('reads a range of a real .ucas (2.6 MB) into a buffer at the place asked, and fewer bytes only at the end of the file', () => {
    const whole = readFileSync(file);
    const fd = openSync(file, 'r');
    try {
      const into = new Uint8Array(4 << 20).fill(0xee);
      // Larger than one read of most kernels' pipes and pages, from an odd place, into an odd place.
      expect(readFullSync(fd, into, 7, 2 << 20, 12345)).toBe(2 << 20);
      expect(Buffer.from(into.subarray(7, 7 + (2 << 20))).equals(whole.subarray(12345, 12345 + (2 << 20)))).toBe(true);
      expect(into[6]).toBe(0xee);
      expect(into[7 + (2 << 20)]).toBe(0xee);
      // Across the end: what is there, then 0 past it.
      expect(readFullSync(fd, into, 0, 1000, whole.length - 100)).toBe(100);
      expect(Buffer.from(into.subarray(0, 100)).equals(whole.subarray(whole.length - 100))).toBe(true);
      expect(readFullSync(fd, into, 0, 1000, whole.length + 5)).toBe(0);
    } finally {
      closeSync(fd);
    }
  });
});
