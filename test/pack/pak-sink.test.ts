import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempSink } from '../../src/pack/pak-sink.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir();

/** A deterministic pseudo-random source (xorshift32). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('tempSink (gathered positioned writes)', () => {
  it('ends with the bytes of every write, in order, for entries written data first then header, big ones and rewrites', async () => {
    for (let seed = 1; seed <= 3; seed++) {
      const r = rng(seed * 7919);
      const path = join(tmp, `sink${seed}.bin`);
      const sink = await tempSink(path, path);
      const model = new Uint8Array(32 << 20);
      let size = 0;
      const write = async (position: number, length: number) => {
        const data = randomFillSync(new Uint8Array(length));
        model.set(data, position);
        size = Math.max(size, position + length);
        await sink.write(data, position);
      };
      // As writePak does: a header's place is skipped, the data written, then the header; now and then an entry
      // of more than the 4 MiB gathered, and a compressed try written over by the raw bytes from the same place.
      let pos = 0;
      for (let e = 0; e < 150; e++) {
        const header = 40 + ((r() * 30) | 0);
        const big = e % 60 === 5;
        const length = big ? (5 << 20) + ((r() * 1000) | 0) : 1 + ((r() * 60_000) | 0);
        if (r() < 0.1) await write(pos + header, Math.min(length + 100, 70_000));
        await write(pos + header, length);
        await write(pos, header);
        pos += header + length;
      }
      await write(pos, 1000);
      size = pos + 1000;
      await sink.truncate(size);
      await sink.close();
      const got = readFileSync(path);
      expect(got.length).toBe(size);
      expect(Buffer.from(model.subarray(0, size)).equals(got), `seed ${seed}`).toBe(true);
    }
  });
});
