import type { ByteReader } from '../util/bytes.js';
import type { ByteWriter } from './byte-writer.js';

/** The name map an FMappedName points into (top 2 bits of its first u32). */
export const MappedNameType = { Package: 0, Container: 1, Global: 2 } as const;

/**
 * FMappedName (8 bytes): u32 with a 30-bit index into a name map and a 2-bit map type, then u32 Number
 * (0 = no suffix, k = `_<k-1>`).
 */
export interface MappedName {
  index: number;
  type: number;
  number: number;
}

const INDEX_MASK = 0x3fffffff;

export function readMappedName(r: ByteReader, what = 'mapped name'): MappedName {
  const indexAndType = r.u32(what);
  const number = r.u32(`${what} number`);
  return { index: indexAndType & INDEX_MASK, type: indexAndType >>> 30, number };
}

export function writeMappedName(w: ByteWriter, n: MappedName, what = 'mapped name'): void {
  w.u32(((n.type & 3) << 30 >>> 0) + (n.index & INDEX_MASK), what);
  w.u32(n.number, `${what} number`);
}

/** The text of a name: the map entry plus `_<number-1>` when the number is set. */
export function nameWithNumber(base: string, number: number): string {
  return number === 0 ? base : `${base}_${number - 1}`;
}

/** Resolves an FMappedName against a name map; undefined when the index is outside the map. */
export function resolveMappedName(names: readonly string[], n: MappedName): string | undefined {
  const base = names[n.index];
  return base === undefined ? undefined : nameWithNumber(base, n.number);
}
