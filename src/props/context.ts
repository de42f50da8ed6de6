import type { Usmap } from '../usmap/usmap.js';

/**
 * What reading and writing property data needs from its package: the name map (FNames are indices into it),
 * object references (package indices, shown as object paths), the object versions the data was saved with, and the
 * type mappings of unversioned data. The export data of a package is the same bytes in its legacy and zen forms;
 * only the tables these lookups use differ.
 */
export interface PropsPackage {
  /** For messages: the package name or file. */
  source: string;
  /** The name map. Writing may append names (the caller then stores the longer map). */
  names: string[];
  /** Object path (or a stable stand-in) of a package index (<0 import, >0 export); '' for 0. */
  objectPath(index: number): string;
  /** The package index of an object path as objectPath renders it; undefined when the package has none. */
  objectIndex(path: string): number | undefined;
  /** Object versions of the data (UE5 0 for UE4 packages). */
  fileVersionUE4: number;
  fileVersionUE5: number;
  /** Custom versions by key (hex of the 16 stored bytes); empty for unversioned packages. */
  customVersions: ReadonlyMap<string, number>;
  /** Unversioned property serialization (needs `mappings`). */
  unversioned: boolean;
  /** Cooked (editor-only data filtered out). */
  cooked: boolean;
  mappings?: Usmap;
  /** 5.1+ uncooked packages: the soft object path table that soft references index into. */
  softObjectPaths?: string[];
}

/** Hex key of a custom version GUID given as its four 32-bit parts (stored little-endian). */
export function customVersionKey(a: number, b: number, c: number, d: number): string {
  let s = '';
  for (const x of [a, b, c, d]) for (let i = 0; i < 4; i++) s += ((x >>> (8 * i)) & 0xff).toString(16).padStart(2, '0');
  return s;
}

export const CustomVersions = {
  Editor: customVersionKey(0xe4b068ed, 0xf49442e9, 0xa231da0b, 0x2e46bb41),
  FortniteMain: customVersionKey(0x601d1886, 0xac644f84, 0xaa16d3de, 0x0deac7d6),
  UE5ReleaseStream: customVersionKey(0xd89b5e42, 0x24bd4d46, 0x8412aca8, 0xdf641779),
  Release: customVersionKey(0x9c54d522, 0xa8264fbe, 0x94210746, 0x61b482d0),
} as const;

/**
 * Whether a custom version is at least `min`. Unversioned packages store none: they were saved by the engine
 * release that reads them, so every change is taken as present (`ifAbsent`, true unless the caller knows better).
 */
export function hasCustomVersion(p: PropsPackage, key: string, min: number, ifAbsent = true): boolean {
  const v = p.customVersions.get(key);
  return v === undefined ? ifAbsent : v >= min;
}

/** Object versions the readers branch on. */
export const ObjectVersion = {
  /** UE4 441: struct GUID in property tags. */
  StructGuidInPropertyTag: 441,
  /** UE4 503: optional property GUID in property tags. */
  PropertyGuidInPropertyTag: 503,
  /** UE4 500: array-of-struct values start with an inner tag. */
  InnerArrayTagInfo: 500,
  /** UE5 1004: vectors, rotators, quats and boxes hold doubles. */
  LargeWorldCoordinates: 1004,
  /** UE5 1007: soft object paths store a top-level asset path (package and asset names). */
  SoftObjectPathRemoveAssetPathFNames: 1007,
  /** UE5 1008: uncooked packages index soft object paths into a table. */
  SoftObjectPathList: 1008,
  /** UE5 1011: tag extension byte; objects start with a serialization-control byte. */
  PropertyTagExtension: 1011,
  /** UE5 1012: tags store the complete type name and a flags byte. */
  PropertyTagCompleteTypeName: 1012,
} as const;
