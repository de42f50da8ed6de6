import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha1 } from '../../src/web/platform/sha1.js';
import * as zlib from '../../src/web/platform/node-zlib.js';
import { deflateSync } from 'node:zlib';

describe('browser stand-ins for node built-ins', () => {
  it('SHA-1 agrees with node:crypto at every padding boundary', () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 100_003]) {
      const d = randomBytes(n);
      expect(Buffer.from(sha1(d)).toString('hex'), `${n} bytes`).toBe(createHash('sha1').update(d).digest('hex'));
    }
  });

  it('zlib inflate through fflate returns the bytes, bounded by maxOutputLength', () => {
    const d = randomBytes(70_000);
    expect(zlib.inflateSync(deflateSync(d), { maxOutputLength: d.length + 1 })).toEqual(new Uint8Array(d));
  });
});
