import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempSink } from '../../src/pack/pak-sink.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir();

// The sink's blocking writes, counted (the same writes otherwise).
const counted = vi.hoisted(() => ({ writes: 0 }));
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  return { ...fs, writeSync: (...a: Parameters<typeof fs.writeSync>) => (counted.writes++, fs.writeSync(...(a as [number, Uint8Array, number, number, number]))) };
});

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

  it('writes entries written data first then header a few MiB at a time, after its buffer first fills too', async () => {
    const path = join(tmp, 'gathered.bin');
    const sink = await tempSink(path, path);
    const model = new Uint8Array(12 << 20);
    const write = async (data: Uint8Array, position: number) => {
      model.set(data, position);
      await sink.write(data, position);
    };
    // ~10 MiB of 2-3 KiB entries: the 4 MiB buffer fills twice. Its first refill had started at the next entry's
    // data, leaving that entry's header outside: from then on two writes an entry (main's build: 4,717 here).
    let pos = 0;
    counted.writes = 0;
    for (let e = 0; e < 4000; e++) {
      const size = 2000 + ((e * 37) % 1000);
      await write(randomFillSync(new Uint8Array(size)), pos + 53);
      await write(randomFillSync(new Uint8Array(53)), pos);
      pos += 53 + size;
    }
    await sink.close();
    expect(counted.writes).toBeLessThanOrEqual(4);
    expect(Buffer.from(model.subarray(0, pos)).equals(readFileSync(path))).toBe(true);
  });
});
