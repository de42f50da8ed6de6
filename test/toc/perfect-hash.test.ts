import { describe, expect, it } from 'vitest';
import { buildPerfectHash, chunkIdHashMod, perfectHashLookup } from '../../src/toc/perfect-hash.js';

/** The engine's chunk-id hash as its definition says: 64-bit FNV-1 over the 12 id bytes from the seed, mod `mod`. */
function fnvReference(id: Uint8Array, at: number, seed: number, mod: number): number {
  let h = seed === 0 ? 0xcbf29ce484222325n : BigInt(seed >>> 0);
  for (let i = 0; i < 12; i++) h = ((h * 0x100000001b3n) & 0xffffffffffffffffn) ^ BigInt(id[at + i]!);
  return Number(h % BigInt(mod));
}

describe('perfect hash', () => {
  it('hashes chunk ids as 64-bit FNV-1 does, for any seed and table size (the fast remainder included)', () => {
    let x = 12345;
    const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
    const ids = new Uint8Array(12 * 500);
    for (let i = 0; i < ids.length; i++) ids[i] = next() & 0xff;
    // Table sizes around powers of two and primes, up to the 24-bit counts a TOC can hold.
    const mods = [1, 2, 3, 7, 1000, 65535, 65536, 65537, 150001, 1 << 23, (1 << 24) - 1, 0x7fffffff];
    // 24,000 cases checked in plain code, one expect on those that differ (vitest's matchers cost microseconds each).
    const differ: string[] = [];
    let cases = 0;
    for (let k = 0; k < 500; k++) {
      for (const seed of [0, 2, 7919, next() & 0x7fffffff]) {
        for (const mod of mods) {
          const got = chunkIdHashMod(ids, k * 12, seed, mod);
          const want = fnvReference(ids, k * 12, seed, mod);
          if (got !== want) differ.push(`id ${k} seed ${seed} mod ${mod}: ${got}, not ${want}`);
          cases++;
        }
      }
    }
    expect(cases).toBe(500 * 4 * mods.length);
    expect(differ.slice(0, 10)).toEqual([]);
  });

  it('places every chunk where the lookup finds it', () => {
    const n = 5000;
    const ids = new Uint8Array(12 * n);
    for (let i = 0; i < n; i++) {
      new DataView(ids.buffer).setUint32(i * 12, Math.imul(i + 1, 2654435761) >>> 0, true);
      ids[i * 12 + 11] = 2;
    }
    const layout = buildPerfectHash(ids);
    const chunkIds = new Uint8Array(12 * n);
    layout.slotToInput.forEach((input, slot) => chunkIds.set(ids.subarray(input * 12, input * 12 + 12), slot * 12));
    const table = { chunkIds, seeds: layout.seeds, overflow: layout.overflow };
    const missed: number[] = [];
    for (let i = 0; i < n; i++) {
      const slot = perfectHashLookup(table, ids, i * 12);
      if (slot === undefined || Buffer.compare(chunkIds.subarray(slot * 12, slot * 12 + 12), ids.subarray(i * 12, i * 12 + 12)) !== 0) missed.push(i);
    }
    expect(missed.slice(0, 10)).toEqual([]);
  });
});
