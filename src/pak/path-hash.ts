import { concatBytes } from '../toc/directory-index.js';
import { ByteReader } from '../util/bytes.js';
import { readDirectoryTree, writeDirectoryTree, type PakDirectory, type PathHashPair } from './full-directory.js';
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
  const bytes = new Uint8Array(relativePath.length * 2);
  for (let i = 0; i < relativePath.length; i++) {
    // Per code unit, so a case mapping that changes length cannot shift the hashed bytes.
    const c = relativePath[i]!;
    const lower = c.toLowerCase();
    const u = lower.length === 1 ? lower.charCodeAt(0) : c.charCodeAt(0);
    bytes[2 * i] = u & 0xff;
    bytes[2 * i + 1] = u >>> 8;
  }
  return pakFnv64(bytes, seed, version < PakVersion.Fnv64BugFix);
}

export interface PathHashIndex {
  entries: PathHashPair[];
  /** Directories kept by the engine's pruning rules (often empty). */
  pruned: PakDirectory[];
}

/** i32 count, (u64 hash, i32 location) pairs, then the pruned directory index in tree form. */
/** `padded`: the part was AES-encrypted, so up to 15 bytes of block padding may follow it. */
export function readPathHashIndex(bytes: Uint8Array, version: number, source: string, base: number, padded = false): PathHashIndex {
  const r = new ByteReader(bytes, source, base);
  const at = r.pos;
  const count = r.i32('path hash count');
  if (count < 0) r.fail('BAD_VALUE', `negative path hash count ${count}`, at);
  r.needArray(count, 12, 'path hash index');
  const entries: PathHashPair[] = [];
  for (let i = 0; i < count; i++) entries.push({ hash: r.u64('path hash'), location: r.i32('path hash location') });
  const pruned = readDirectoryTree(r, version);
  if (r.remaining >= (padded ? 16 : 1)) r.fail('BAD_VALUE', `${r.remaining} unexpected bytes after the path hash index`);
  return { entries, pruned };
}

export function writePathHashIndex(entries: readonly PathHashPair[], pruned: readonly PakDirectory[], version: number): Uint8Array {
  const table = new Uint8Array(4 + 12 * entries.length);
  const v = new DataView(table.buffer);
  v.setInt32(0, entries.length, true);
  entries.forEach((e, k) => {
    v.setBigUint64(4 + 12 * k, e.hash, true);
    v.setInt32(12 + 12 * k, e.location, true);
  });
  return concatBytes([table, writeDirectoryTree(pruned, version)]);
}
