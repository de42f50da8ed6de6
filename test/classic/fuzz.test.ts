import { describe, expect, it } from 'vitest';
import { parseClassicPackage } from '../../src/classic/index.js';
import { IoStoreError } from '../../src/errors.js';
import { readUe1, ue1Files } from './helpers.js';

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Parses and returns the IoStoreError, or undefined when the bytes parse; any other exception fails the test. */
function attempt(bytes: Uint8Array, source: string): IoStoreError | undefined {
  try {
    const p = parseClassicPackage(bytes, { source });
    // expect only for an export that is past the end: one expect per export of every case was a third of the file's time.
    for (const e of p.exports) if (e.serialOffset !== null && e.serialOffset + e.serialSize > bytes.length) expect(e.serialOffset + e.serialSize).toBeLessThanOrEqual(bytes.length);
    return undefined;
  } catch (e) {
    if (!(e instanceof IoStoreError)) throw new Error(`${source}: expected IoStoreError, got ${String(e)}`, { cause: e });
    expect(e.message).not.toContain('\n');
    expect(e.message.startsWith(`${source} at offset 0x`)).toBe(true);
    expect(e.offset).toBeLessThanOrEqual(bytes.length);
    return e;
  }
}

describe.each(ue1Files)('fuzzing %s', (name) => {
  const original = readUe1(name);
  const clean = parseClassicPackage(original, { source: name });
  const { names, imports, exports } = clean.extents;
  // Bytes the parser reads: header and names at the start, imports and exports at the end (the data between is
  // only bounds-checked).
  const tableBytes = (rand: (n: number) => number) => (rand(3) === 0 ? rand(names.end) : imports.offset + rand(exports.end - imports.offset));

  it('every truncation is a clean TRUNCATED error', () => {
    const rand = prng(15);
    const cuts = new Set<number>([0, 4, 8, 63, 64, names.end - 1, names.end, imports.offset, imports.offset + 1, exports.offset, exports.end - 1]);
    while (cuts.size < 250) cuts.add(tableBytes(rand));
    for (const cut of cuts) {
      const e = attempt(original.subarray(0, cut), name);
      expect(e?.code, `cut at ${cut}`).toBe('TRUNCATED');
    }
  });

  it('flipped bytes give a clean error or a package whose tables still hold together', () => {
    const rand = prng(1500);
    let errors = 0;
    for (let i = 0; i < 400; i++) {
      const b = original.slice();
      for (let k = 0; k <= rand(4); k++) b[tableBytes(rand)] = rand(3) === 0 ? rand(256) : b[tableBytes(rand)]! ^ (1 << rand(8));
      if (attempt(b, name)) errors++;
    }
    expect(errors).toBeGreaterThan(0);
  });

  it('oversized compact indices: at the start of each table, a BAD_VALUE naming it; anywhere, a clean outcome', () => {
    const oversized = [0xff, 0xff, 0xff, 0xff, 0xff];
    const put = (at: number, bytes: number[]) => {
      const b = original.slice();
      b.set(bytes.slice(0, b.length - at), at);
      return b;
    };
    for (const [at, table] of [[names.offset, 'name table entry 0 length'], [imports.offset, 'import table entry 0 class package'], [exports.offset, 'export table entry 0 class']] as const) {
      const e = attempt(put(at, oversized), name);
      expect(e?.code).toBe('BAD_VALUE');
      expect(e?.message).toBe(`${name} at offset 0x${at.toString(16)}: ${table}: compact index longer than five bytes or wider than 32 bits (fifth byte 0xff)`);
    }
    const rand = prng(69);
    for (let i = 0; i < 200; i++) {
      const fifth = 0x10 + rand(0xf0);
      attempt(put(tableBytes(rand), [0x40 | rand(0x40) | (rand(2) << 7), 0x80 | rand(0x80), 0x80 | rand(0x80), 0x80 | rand(0x80), fifth]), name);
    }
  });
});
