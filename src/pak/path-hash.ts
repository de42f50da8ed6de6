import { ByteOut } from './byte-out.js';
import { ByteReader } from '../util/bytes.js';
import { readDirectoryTree, writeDirectoryTreeTo, type PakDirectory, type PathHashPair } from './full-directory.js';
import { PakVersion } from './version.js';

const MASK64 = (1n << 64n) - 1n;
const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;

/**
 * FNV-1a 64 as the pak index uses it: the seed is added to the offset basis. Before v11 the engine had the basis
 * and the prime swapped (kept as "LegacyMemFnv64" to read old paks).
 */
export function pakFnv64(data: Uint8Array, seed: bigint, legacy = false): bigint {
  let h = ((legacy ? FNV_PRIME : FNV_OFFSET) + seed) & MASK64;
  const prime = legacy ? FNV_OFFSET : FNV_PRIME;
  for (let i = 0; i < data.length; i++) {
    h ^= BigInt(data[i]!);
    h = (h * prime) & MASK64;
  }
  return h;
}

/**
 * Hash of a path relative to the mount point (e.g. `Config/DefaultGame.ini`): lower-cased, then hashed over its
 * UTF-16LE code units (the engine's TCHAR). Checked against the path-hash indexes of the corpus paks.
 */
export function pakPathHash(relativePath: string, seed: bigint, version: number): bigint {
  const out = new Uint32Array(2);
  pathHasher(seed, version)(relativePath, out, 0);
  return (BigInt(out[1]!) << 32n) | BigInt(out[0]!);
}

/**
 * pakPathHash for many paths of one seed: each hash written as its low and high u32 into `out[2 * i]` and
 * `out[2 * i + 1]`. FNV-1a 64 in 16-bit limbs of plain numbers: a BigInt multiply per byte had taken ~1 s and a
 * young generation of garbage for a 50,000-file pak.
 */
export function pathHasher(seed: bigint, version: number): (relativePath: string, out: Uint32Array, i: number) => void {
  const legacy = version < PakVersion.Fnv64BugFix;
  const start = ((legacy ? FNV_PRIME : FNV_OFFSET) + seed) & MASK64;
  const prime = legacy ? FNV_OFFSET : FNV_PRIME;
  const limb = (v: bigint, k: number) => Number((v >> BigInt(16 * k)) & 0xffffn);
  const [s0, s1, s2, s3] = [0, 1, 2, 3].map((k) => limb(start, k)) as [number, number, number, number];
  const [p0, p1, p2, p3] = [0, 1, 2, 3].map((k) => limb(prime, k)) as [number, number, number, number];
  return (path, out, i) => {
    let h0 = s0;
    let h1 = s1;
    let h2 = s2;
    let h3 = s3;
    const step = (byte: number) => {
      h0 ^= byte;
      // The product's four low limbs; each sum stays below 2^35, exact in a double.
      const r0 = h0 * p0;
      const r1 = h0 * p1 + h1 * p0 + Math.floor(r0 / 65536);
      const r2 = h0 * p2 + h1 * p1 + h2 * p0 + Math.floor(r1 / 65536);
      const r3 = h0 * p3 + h1 * p2 + h2 * p1 + h3 * p0 + Math.floor(r2 / 65536);
      h0 = r0 & 0xffff;
      h1 = r1 & 0xffff;
      h2 = r2 & 0xffff;
      h3 = r3 & 0xffff;
    };
    for (let k = 0; k < path.length; k++) {
      // Per code unit, so a case mapping that changes length cannot shift the hashed bytes.
      let u = path.charCodeAt(k);
      if (u >= 0x41 && u <= 0x5a) u += 0x20;
      else if (u >= 0x80) {
        const lower = path[k]!.toLowerCase();
        if (lower.length === 1) u = lower.charCodeAt(0);
      }
      step(u & 0xff);
      step(u >>> 8);
    }
    out[2 * i] = (h1 * 65536 + h0) >>> 0;
    out[2 * i + 1] = (h3 * 65536 + h2) >>> 0;
  };
}

export interface PathHashIndex {
  entries: PathHashPair[];
  /** Directories kept by the engine's pruning rules (often empty). */
  pruned: PakDirectory[];
}

/** i32 count, (u64 hash, i32 location) pairs, then the pruned directory index in tree form. */
/** `padded`: the part was AES-encrypted, so up to 15 bytes of block padding may follow it. */
export function readPathHashIndex(bytes: Uint8Array, version: number, source: string, base: number, padded = false): PathHashIndex {
  const entries: PathHashPair[] = [];
  const pruned = walkPathHashIndex(bytes, version, source, base, padded, (r) => entries.push({ hash: r.u64('path hash'), location: r.i32('path hash location') }));
  return { entries, pruned };
}

/**
 * How many (hash, location) pairs the path-hash index holds, its structure checked as readPathHashIndex checks it,
 * without an object per pair (a pak's reader only counts them).
 */
export function countPathHashIndex(bytes: Uint8Array, version: number, source: string, base: number, padded = false): number {
  let count = 0;
  walkPathHashIndex(bytes, version, source, base, padded, (r) => {
    r.skip(12, 'path hash index');
    count++;
  });
  return count;
}

/** Checks the index's structure, handing each pair's 12 bytes to `pair` (which must consume them); returns the pruned tree. */
function walkPathHashIndex(bytes: Uint8Array, version: number, source: string, base: number, padded: boolean, pair: (r: ByteReader) => void): PakDirectory[] {
  const r = new ByteReader(bytes, source, base);
  const at = r.pos;
  const count = r.i32('path hash count');
  if (count < 0) r.fail('BAD_VALUE', `negative path hash count ${count}`, at);
  r.needArray(count, 12, 'path hash index');
  for (let i = 0; i < count; i++) pair(r);
  const pruned = readDirectoryTree(r, version);
  if (r.remaining >= (padded ? 16 : 1)) r.fail('BAD_VALUE', `${r.remaining} unexpected bytes after the path hash index`);
  return pruned;
}

/** `hashes`: each entry's hash as low and high u32 (see pathHasher), `locations` its entry location, in index order. */
export function writePathHashIndex(hashes: Uint32Array, locations: Int32Array, pruned: readonly PakDirectory[], version: number): Uint8Array {
  const out = new ByteOut(4 + 12 * locations.length + 64);
  out.i32(locations.length);
  for (let k = 0; k < locations.length; k++) {
    out.u64(hashes[2 * k]!, hashes[2 * k + 1]!);
    out.i32(locations[k]!);
  }
  writeDirectoryTreeTo(out, pruned, version);
  return out.done();
}
