import { describe, expect, it } from 'vitest';
import { cityHash64 } from '../../src/hash/cityhash.js';
import { cityHash64Reference } from './cityhash-reference.js';
import { containerIdFromName, packageIdFromName, utf16leBytes } from '../../src/hash/names.js';

const ascii = (s: string) => new TextEncoder().encode(s);
const hex = (v: bigint) => v.toString(16).padStart(16, '0');

describe('cityHash64', () => {
  // Values read from engine-written containers (spec §0.3), one per length class of the algorithm.
  it.each([
    ['empty', new Uint8Array(0), '9ae16a3b2f90404f'],
    ['19-byte ASCII name', ascii('aclcompressionlevel'), '9b1242dd628271df'],
    ['46-byte container name', utf16leBytes('colliderproject-windows'), 'a7533d90054f15ab'],
    ['42-byte container name', utf16leBytes('wayoftheninja-windows'), '3e4c1234b9b452eb'],
    ['34-byte package name', utf16leBytes('/game/mm_walk_fwd'), 'c88173783c61e21a'],
    ['82-byte package name', utf16leBytes('/niagara/vectorfields/assets/tilingcurl32'), '16aaee739b6135a8'],
    ['50-byte shader library', utf16leBytes('colliderproject-pcd3d_sm5'), 'c7d64f43f488c4e9'],
  ])('%s', (_name, input, expected) => {
    expect(hex(cityHash64(input))).toBe(expected);
  });

  it('derives package and container ids from names as the engine does (case-folded, UTF-16LE)', () => {
    expect(hex(packageIdFromName('/Game/MM_Walk_Fwd'))).toBe('c88173783c61e21a');
    expect(hex(containerIdFromName('Colliderproject-Windows'))).toBe('a7533d90054f15ab');
    expect(hex(containerIdFromName('WayOfTheNinja-Windows'))).toBe('3e4c1234b9b452eb');
  });
});

describe('cityHash64 in 32-bit words against the BigInt reference', () => {
  it('agrees on every length from 0 to 300 bytes and on all-0xff inputs (carries everywhere)', () => {
    let seed = 7;
    const rand = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 24;
    };
    let checked = 0;
    for (let len = 0; len <= 300; len++) {
      for (const fill of ['random', 'ones', 'zeros'] as const) {
        const b = new Uint8Array(len);
        for (let i = 0; i < len; i++) b[i] = fill === 'random' ? rand() : fill === 'ones' ? 0xff : 0;
        expect(hex(cityHash64(b)), `${fill} ${len}`).toBe(hex(cityHash64Reference(b)));
        checked++;
      }
    }
    expect(checked).toBe(903);
  });

  it('reads the input at its own offset inside a larger buffer', () => {
    const big = new Uint8Array(200).map((_, i) => (i * 37) & 0xff);
    for (const [at, len] of [[3, 10], [5, 20], [7, 50], [1, 150]] as const) {
      expect(hex(cityHash64(big.subarray(at, at + len)))).toBe(hex(cityHash64Reference(big.slice(at, at + len))));
    }
  });
});
