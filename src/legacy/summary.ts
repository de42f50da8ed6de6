import { toHex, type ByteReader } from '../util/bytes.js';
import {
  customVersionFormat,
  LEGACY_PACKAGE_TAG,
  LegacyFileVersion,
  PackageFlags,
  UE4_OBJECT_VERSION as V4,
  UE5_LEGACY_VERSION as V5,
  type CustomVersionFormat,
  type LegacyObjectVersions,
} from './versions.js';

/**
 * A custom version: the key (hex of its 16-byte GUID as stored; of its 4-byte tag in the `enums` form of legacy
 * file version -2) and the version number; the `guids` form (-3 to -5) adds a friendly name.
 */
export interface LegacyCustomVersion {
  key: string;
  version: number;
  friendlyName?: string;
}

/** FEngineVersion as stored in the summary. */
export interface EngineVersionStamp {
  major: number;
  minor: number;
  patch: number;
  changelist: number;
  branch: string;
}

export interface GenerationInfo {
  exportCount: number;
  nameCount: number;
}

/**
 * FPackageFileSummary of a legacy `.uasset`/`.umap`, every stored field. Offsets are from the start of the
 * `.uasset`; fields that a version does not store are 0 (counts, offsets) or absent (optional values). The table
 * offsets (thumbnails, gatherable text, asset registry data, ...) are kept as read, for readers of those tables.
 */
export interface LegacyPackageSummary {
  /** Negative: -1 (first UE4 summaries) to -9 (5.6+); see LegacyFileVersion. */
  legacyFileVersion: number;
  /** Stored for every legacy file version but -4 (0 there). */
  legacyUE3Version: number;
  /** As stored; 0 in unversioned packages. */
  storedFileVersionUE4: number;
  storedFileVersionUE5: number;
  fileVersionLicenseeUE4: number;
  /** True when the package stores no versions (they came from a hint or were detected). */
  unversioned: boolean;
  /** The versions the rest of the package was read with. */
  fileVersionUE4: number;
  fileVersionUE5: number;
  /** 1016+: hex of the 20-byte saved hash. */
  savedHash?: string;
  totalHeaderSize: number;
  customVersions: LegacyCustomVersion[];
  /** The package name (UE5) or folder name (UE4, often `None`). */
  packageName: string;
  packageFlags: number;
  nameCount: number;
  nameOffset: number;
  softObjectPathsCount: number;
  softObjectPathsOffset: number;
  localizationId?: string;
  gatherableTextDataCount: number;
  gatherableTextDataOffset: number;
  exportCount: number;
  exportOffset: number;
  importCount: number;
  importOffset: number;
  cellExportCount: number;
  cellExportOffset: number;
  cellImportCount: number;
  cellImportOffset: number;
  metaDataOffset: number;
  dependsOffset: number;
  softPackageReferencesCount: number;
  softPackageReferencesOffset: number;
  searchableNamesOffset: number;
  thumbnailTableOffset: number;
  /** Before 1016: hex of the package GUID. */
  guid?: string;
  persistentGuid?: string;
  ownerPersistentGuid?: string;
  generations: GenerationInfo[];
  /** Before UE4 336 only the changelist is stored (the rest reads as 4.0.0 with no branch). */
  savedByEngineVersion: EngineVersionStamp;
  compatibleWithEngineVersion: EngineVersionStamp;
  compressionFlags: number;
  packageSource: number;
  additionalPackagesToCook: string[];
  /** Before -7 only. */
  numTextureAllocations?: number;
  assetRegistryDataOffset: number;
  bulkDataStartOffset: number;
  worldTileInfoDataOffset: number;
  /** UE4 278-325 store one chunk id (kept as the one element, -1 included). */
  chunkIds: number[];
  preloadDependencyCount: number;
  preloadDependencyOffset: number;
  namesReferencedFromExportDataCount: number;
  payloadTocOffset: number;
  dataResourceOffset: number;
  importTypeHierarchiesCount: number;
  importTypeHierarchiesOffset: number;
  /** Where the summary ends (the name map starts here in engine-written packages). */
  summarySize: number;
}

/** Which optional fields a summary stores: one answer for the reader and the writer. */
export interface SummaryShape {
  ue3Version: boolean;
  ue5Version: boolean;
  customVersions: CustomVersionFormat;
  /** 1016+: the saved hash and the header size come before the custom versions; no package GUID. */
  savedHash: boolean;
  softObjectPaths: boolean;
  localizationId: boolean;
  gatherableText: boolean;
  cells: boolean;
  metaData: boolean;
  softPackageReferences: boolean;
  searchableNames: boolean;
  importTypeHierarchies: boolean;
  persistentGuid: boolean;
  ownerPersistentGuid: boolean;
  engineVersionObject: boolean;
  compatibleEngineVersion: boolean;
  textureAllocations: boolean;
  worldTileInfo: boolean;
  chunkIds: 'none' | 'one' | 'array';
  preloadDependencies: boolean;
  namesReferencedFromExportData: boolean;
  payloadToc: boolean;
  dataResources: boolean;
}

export function summaryShape(legacyFileVersion: number, ue4: number, ue5: number, packageFlags: number): SummaryShape {
  const uncooked = (packageFlags & PackageFlags.FilterEditorOnly) === 0;
  return {
    ue3Version: legacyFileVersion !== LegacyFileVersion.NoUe3Version,
    ue5Version: legacyFileVersion <= LegacyFileVersion.Ue5Version,
    customVersions: customVersionFormat(legacyFileVersion),
    savedHash: ue5 >= V5.PackageSavedHash,
    softObjectPaths: ue5 >= V5.AddSoftObjectPathList,
    localizationId: uncooked && ue4 >= V4.AddedPackageSummaryLocalizationId,
    gatherableText: ue4 >= V4.SerializeTextInPackages,
    cells: ue5 >= V5.VerseCells,
    metaData: ue5 >= V5.MetadataSerializationOffset,
    softPackageReferences: ue4 >= V4.AddStringAssetReferencesMap,
    searchableNames: ue4 >= V4.AddedSearchableNames,
    importTypeHierarchies: ue5 >= V5.ImportTypeHierarchies,
    persistentGuid: uncooked && ue4 >= V4.AddedPackageOwner,
    ownerPersistentGuid: uncooked && ue4 >= V4.AddedPackageOwner && ue4 < V4.NonOuterPackageImport,
    engineVersionObject: ue4 >= V4.EngineVersionObject,
    compatibleEngineVersion: ue4 >= V4.PackageSummaryHasCompatibleEngineVersion,
    textureAllocations: legacyFileVersion > LegacyFileVersion.RemovedTextureAllocations,
    worldTileInfo: ue4 >= V4.WorldLevelInfo,
    chunkIds: ue4 >= V4.ChunkIdsInSummary ? 'array' : ue4 >= V4.AddedChunkId ? 'one' : 'none',
    preloadDependencies: ue4 >= V4.PreloadDependenciesInCookedExports,
    namesReferencedFromExportData: ue5 >= V5.NamesReferencedFromExportData,
    payloadToc: ue5 >= V5.PayloadToc,
    dataResources: ue5 >= V5.DataResources,
  };
}

/** Counts read from a file are checked against this before anything loops over them. */
function count(r: ByteReader, elem: number, what: string): number {
  const at = r.pos;
  const n = r.i32(`${what} count`);
  if (n < 0) r.fail('BAD_VALUE', `${what} count ${n} is negative`, at);
  r.needArray(n, elem, what);
  return n;
}

function guid(r: ByteReader, what: string): string {
  return toHex(r.bytesView(16, what));
}

function engineStamp(r: ByteReader, what: string): EngineVersionStamp {
  return { major: r.u16(what), minor: r.u16(what), patch: r.u16(what), changelist: r.u32(what), branch: r.fstring(`${what} branch`) };
}

function customVersions(r: ByteReader, format: CustomVersionFormat): LegacyCustomVersion[] {
  const out: LegacyCustomVersion[] = [];
  if (format === 'none') return out;
  const n = count(r, format === 'enums' ? 8 : 20, 'custom versions');
  for (let i = 0; i < n; i++) {
    if (format === 'enums') {
      out.push({ key: toHex(r.bytesView(4, 'custom version tag')), version: r.i32('custom version') });
      continue;
    }
    const cv: LegacyCustomVersion = { key: guid(r, 'custom version key'), version: r.i32('custom version') };
    if (format === 'guids') cv.friendlyName = r.fstring('custom version name');
    out.push(cv);
  }
  return out;
}

/**
 * Reads the summary at the start of `r` with the given object versions (used only where the package stores none).
 * Throws IoStoreError on bad input.
 */
export function readLegacySummary(r: ByteReader, fallback: LegacyObjectVersions): LegacyPackageSummary {
  r.pos = 0;
  const tag = r.u32('package tag');
  if (tag !== LEGACY_PACKAGE_TAG) r.fail('BAD_MAGIC', `not a legacy package (tag 0x${tag.toString(16)}, expected 0x9e2a83c1)`, 0);
  const legacyFileVersion = r.i32('legacy file version');
  if (legacyFileVersion >= 0) r.fail('UNSUPPORTED', `legacy file version ${legacyFileVersion} is a classic (UE1-UE3) package, not a UE4/UE5 one`, 4);
  if (legacyFileVersion < LegacyFileVersion.SavedHashFirst) {
    r.fail('UNSUPPORTED', `legacy file version ${legacyFileVersion} is newer than any this reader knows (UE 4.0 to 6.0 write -1 to -9)`, 4);
  }
  const s = {} as LegacyPackageSummary;
  s.legacyFileVersion = legacyFileVersion;
  s.legacyUE3Version = legacyFileVersion !== LegacyFileVersion.NoUe3Version ? r.i32('legacy UE3 version') : 0;
  const versionAt = r.pos;
  s.storedFileVersionUE4 = r.i32('file version UE4');
  s.storedFileVersionUE5 = legacyFileVersion <= LegacyFileVersion.Ue5Version ? r.i32('file version UE5') : 0;
  s.fileVersionLicenseeUE4 = r.i32('licensee file version');
  s.unversioned = s.storedFileVersionUE4 === 0 && s.storedFileVersionUE5 === 0 && s.fileVersionLicenseeUE4 === 0;
  const ue4 = (s.fileVersionUE4 = s.unversioned ? fallback.fileVersionUE4 : s.storedFileVersionUE4);
  // Packages older than -8 have no UE5 version at all, whatever the fallback says.
  const ue5 = (s.fileVersionUE5 = legacyFileVersion > LegacyFileVersion.Ue5Version ? 0 : s.unversioned ? fallback.fileVersionUE5 : s.storedFileVersionUE5);
  if (!s.unversioned && ue4 < V4.OldestLoadable) r.fail('UNSUPPORTED', `UE4 object version ${ue4} is older than the oldest the engine loads (${V4.OldestLoadable})`, versionAt);
  if (ue5 !== 0 && ue5 < V5.Initial) r.fail('BAD_VALUE', `UE5 object version ${ue5} is not one (they start at ${V5.Initial})`, versionAt + 4);
  if (ue5 >= V5.PackageSavedHash) {
    s.savedHash = toHex(r.bytesView(20, 'saved hash'));
    s.totalHeaderSize = r.i32('total header size');
  }
  s.customVersions = customVersions(r, customVersionFormat(legacyFileVersion));
  if (ue5 < V5.PackageSavedHash) s.totalHeaderSize = r.i32('total header size');
  s.packageName = r.fstring('package name');
  s.packageFlags = r.u32('package flags');
  readTables(r, s, summaryShape(legacyFileVersion, ue4, ue5, s.packageFlags));
  return s;
}

/** The summary after the package flags: table counts and offsets, GUIDs, engine versions, the tail offsets. */
function readTables(r: ByteReader, s: LegacyPackageSummary, shape: SummaryShape): void {
  const opt = (on: boolean, what: string) => (on ? r.i32(what) : 0);
  s.nameCount = r.i32('name count');
  s.nameOffset = r.i32('name offset');
  s.softObjectPathsCount = opt(shape.softObjectPaths, 'soft object path count');
  s.softObjectPathsOffset = opt(shape.softObjectPaths, 'soft object path offset');
  if (shape.localizationId) s.localizationId = r.fstring('localization id');
  s.gatherableTextDataCount = opt(shape.gatherableText, 'gatherable text count');
  s.gatherableTextDataOffset = opt(shape.gatherableText, 'gatherable text offset');
  s.exportCount = r.i32('export count');
  s.exportOffset = r.i32('export offset');
  s.importCount = r.i32('import count');
  s.importOffset = r.i32('import offset');
  s.cellExportCount = opt(shape.cells, 'cell export count');
  s.cellExportOffset = opt(shape.cells, 'cell export offset');
  s.cellImportCount = opt(shape.cells, 'cell import count');
  s.cellImportOffset = opt(shape.cells, 'cell import offset');
  s.metaDataOffset = opt(shape.metaData, 'metadata offset');
  s.dependsOffset = r.i32('depends offset');
  s.softPackageReferencesCount = opt(shape.softPackageReferences, 'soft package reference count');
  s.softPackageReferencesOffset = opt(shape.softPackageReferences, 'soft package reference offset');
  s.searchableNamesOffset = opt(shape.searchableNames, 'searchable names offset');
  s.thumbnailTableOffset = r.i32('thumbnail table offset');
  s.importTypeHierarchiesCount = opt(shape.importTypeHierarchies, 'import type hierarchies count');
  s.importTypeHierarchiesOffset = opt(shape.importTypeHierarchies, 'import type hierarchies offset');
  if (!shape.savedHash) s.guid = guid(r, 'package guid');
  if (shape.persistentGuid) s.persistentGuid = guid(r, 'persistent guid');
  if (shape.ownerPersistentGuid) s.ownerPersistentGuid = guid(r, 'owner persistent guid');
  const genCount = count(r, 8, 'generations');
  s.generations = [];
  for (let i = 0; i < genCount; i++) s.generations.push({ exportCount: r.i32('generation export count'), nameCount: r.i32('generation name count') });
  s.savedByEngineVersion = shape.engineVersionObject
    ? engineStamp(r, 'saved-by engine version')
    : { major: 4, minor: 0, patch: 0, changelist: r.u32('engine changelist'), branch: '' };
  s.compatibleWithEngineVersion = shape.compatibleEngineVersion ? engineStamp(r, 'compatible engine version') : s.savedByEngineVersion;
  s.compressionFlags = r.u32('compression flags');
  const ccAt = r.pos;
  const compressedChunks = r.i32('compressed chunk count');
  if (compressedChunks !== 0) r.fail('UNSUPPORTED', `the package declares ${compressedChunks} compressed chunks (package-level compression is not supported by the engine since 4.x)`, ccAt);
  s.packageSource = r.u32('package source');
  const apCount = count(r, 4, 'additional packages to cook');
  s.additionalPackagesToCook = [];
  for (let i = 0; i < apCount; i++) s.additionalPackagesToCook.push(r.fstring('additional package'));
  if (shape.textureAllocations) s.numTextureAllocations = r.i32('texture allocations');
  s.assetRegistryDataOffset = r.i32('asset registry data offset');
  s.bulkDataStartOffset = i64(r, 'bulk data start offset');
  s.worldTileInfoDataOffset = opt(shape.worldTileInfo, 'world tile info offset');
  s.chunkIds = [];
  if (shape.chunkIds === 'one') s.chunkIds.push(r.i32('chunk id'));
  else if (shape.chunkIds === 'array') {
    const n = count(r, 4, 'chunk ids');
    for (let i = 0; i < n; i++) s.chunkIds.push(r.i32('chunk id'));
  }
  s.preloadDependencyCount = opt(shape.preloadDependencies, 'preload dependency count');
  s.preloadDependencyOffset = opt(shape.preloadDependencies, 'preload dependency offset');
  s.namesReferencedFromExportDataCount = shape.namesReferencedFromExportData ? r.i32('names referenced from export data') : s.nameCount;
  s.payloadTocOffset = shape.payloadToc ? i64(r, 'payload toc offset') : -1;
  s.dataResourceOffset = shape.dataResources ? r.i32('data resource offset') : -1;
  s.summarySize = r.pos;
}

/** A 64-bit offset: -1 (none) up to the largest safe integer. */
function i64(r: ByteReader, what: string): number {
  const at = r.pos;
  const v = r.i64(what);
  if (v < -1n || v > BigInt(Number.MAX_SAFE_INTEGER)) r.fail('BAD_VALUE', `${what} ${v} is out of range`, at);
  return Number(v);
}
