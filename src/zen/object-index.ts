/**
 * FPackageObjectIndex (u64): the top 2 bits give the kind; Export (low 32 bits = export index), ScriptImport (a
 * CityHash of the script object path), PackageImport (UE5: imported package index << 32 | public export hash index;
 * UE4: a hash of the imported object path) and Null (all bits set).
 */
export type ObjectIndexKind = 'Export' | 'ScriptImport' | 'PackageImport' | 'Null';

export const NULL_OBJECT_INDEX = 0xffffffffffffffffn;

export function objectIndexKind(v: bigint): ObjectIndexKind {
  // Comparisons, not a shift: a shifted bigint is a new heap object, and this runs for every reference of every package.
  return v < KIND_1 ? 'Export' : v < KIND_2 ? 'ScriptImport' : v < KIND_3 ? 'PackageImport' : 'Null';
}
const KIND_1 = 1n << 62n;
const KIND_2 = 2n << 62n;
const KIND_3 = 3n << 62n;

export function isNullObjectIndex(v: bigint): boolean {
  return v === NULL_OBJECT_INDEX;
}

/** The 62-bit payload (the hash or index bits) of an object index. */
export function objectIndexValue(v: bigint): bigint {
  return v & 0x3fffffffffffffffn;
}

/** UE5 package import: the index into the store entry's ImportedPackages and into ImportedPublicExportHashes. */
export function packageImportParts(v: bigint): { importedPackageIndex: number; publicExportHashIndex: number } {
  return { importedPackageIndex: Number((v >> 32n) & 0x3fffffffn), publicExportHashIndex: Number(v & 0xffffffffn) };
}

export function makePackageImport(importedPackageIndex: number, publicExportHashIndex: number): bigint {
  return (2n << 62n) | (BigInt(importedPackageIndex) << 32n) | BigInt(publicExportHashIndex);
}

/** ScriptImport index from a CityHash64 of the lower-cased script object path. */
export function makeScriptImport(hash: bigint): bigint {
  return (1n << 62n) | (hash & 0x3fffffffffffffffn);
}
