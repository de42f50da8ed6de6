import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { zlibNode } from '../../src/index.js';
import { backgroundDeflater, deflateRoom } from '../../src/codecs/zlib.js';
import { corpusPath } from '../corpus.js';

const ucas = readFileSync(corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.ucas'));
// A block of package bytes, then a shorter one that a reset handle (not a new one) deflated a few bits differently
// after it: zlib's matcher looked past the short block's end at what the longer one had left there.
const longer = ucas.subarray(0, 65536);
const shorter = ucas.subarray(229376, 229376 + 20000);

describe('Zlib deflate on reused handles', () => {
  it('a block after a longer one comes out as deflateSync makes it (no dependence on what the handle did before)', () => {
    for (const b of [longer, shorter, longer, ucas.subarray(1003520, 1006520), shorter]) {
      expect(Buffer.from(zlibNode.compress!(b)).equals(deflateSync(b, { level: 6 }))).toBe(true);
    }
  });

  it('backgroundDeflater deflates on the thread pool into the caller\'s buffer, the same bytes', async () => {
    const d = backgroundDeflater(6)!;
    expect(d).toBeDefined();
    const out = new Uint8Array(deflateRoom(65536));
    for (const b of [longer, shorter, longer, shorter]) {
      const n = await d(b, out);
      expect(Buffer.from(out.subarray(0, n)).equals(deflateSync(b, { level: 6 }))).toBe(true);
    }
    await expect(d(longer, new Uint8Array(100))).rejects.toThrow(/room/);
  });
});
