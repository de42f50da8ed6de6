import { toHex, type ByteReader } from '../util/bytes.js';
import {
  LEGACY_PACKAGE_TAG,
  LegacyFileVersion,
  PackageFlags,
  UE4_OBJECT_VERSION as V4,
  UE5_LEGACY_VERSION as V5,
  type LegacyObjectVersions,
} from './versions.js';

/** A custom version: the GUID (hex of its 16 bytes as stored) and the version number. */
export interface LegacyCustomVersion {
  key: string;
  version: number;
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
 * FPackageFileSummary of a legacy `.uasset`/`.umap`. Offsets are from the start of the `.uasset`; fields that a
 * version does not store are 0 (counts, offsets) or absent (optional values).
 */
export interface LegacyPackageSummary {
  /** Negative: -7 (4.26/4.27), -8 (UE5), -9 (5.6+). */
  legacyFileVersion: number;
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

/** Counts read from a file are checked against this before anything loops over them. */
const sane = (r: ByteReader, n: number, elem: number, what: string) => r.needArray(n, elem, what);

function guid(r: ByteReader, what: string): string {
  return toHex(r.bytesView(16, what));
}

function engineStamp(r: ByteReader, what: string): EngineVersionStamp {
  return { major: r.u16(what), minor: r.u16(what), patch: r.u16(what), changelist: r.u32(what), branch: r.fstring(`${what} branch`) };
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
  if (legacyFileVersion > LegacyFileVersion.OptimizedCustomVersions || legacyFileVersion < LegacyFileVersion.SavedHashFirst) {
    r.fail('UNSUPPORTED', `legacy file version ${legacyFileVersion} is not supported (UE 4.26 to 6.0 write -7 to -9)`, 4);
  }
  const legacyUE3Version = r.i32('legacy UE3 version');
  const storedFileVersionUE4 = r.i32('file version UE4');
  const storedFileVersionUE5 = legacyFileVersion <= LegacyFileVersion.Ue5Version ? r.i32('file version UE5') : 0;
  const fileVersionLicenseeUE4 = r.i32('licensee file version');
  const unversioned = storedFileVersionUE4 === 0 && storedFileVersionUE5 === 0 && fileVersionLicenseeUE4 === 0;
  const ue4 = unversioned ? fallback.fileVersionUE4 : storedFileVersionUE4;
  // Packages older than -8 have no UE5 version at all, whatever the fallback says.
  const ue5 = legacyFileVersion > LegacyFileVersion.Ue5Version ? 0 : unversioned ? fallback.fileVersionUE5 : storedFileVersionUE5;

  let savedHash: string | undefined;
  let totalHeaderSize = -1;
  if (ue5 >= V5.PackageSavedHash) {
    savedHash = toHex(r.bytesView(20, 'saved hash'));
    totalHeaderSize = r.i32('total header size');
  }
  const cvAt = r.pos;
  const cvCount = r.i32('custom version count');
  sane(r, cvCount, 20, 'custom versions');
  const customVersions: LegacyCustomVersion[] = [];
  for (let i = 0; i < cvCount; i++) customVersions.push({ key: guid(r, 'custom version key'), version: r.i32('custom version') });
  if (cvCount < 0) r.fail('BAD_VALUE', `custom version count ${cvCount} is negative`, cvAt);
  if (ue5 < V5.PackageSavedHash) totalHeaderSize = r.i32('total header size');
  const packageName = r.fstring('package name');
  const packageFlags = r.u32('package flags');
  const cooked = (packageFlags & PackageFlags.FilterEditorOnly) !== 0;
  const s = {} as LegacyPackageSummary;
  Object.assign(s, {
    legacyFileVersion, legacyUE3Version, storedFileVersionUE4, storedFileVersionUE5, fileVersionLicenseeUE4,
    unversioned, fileVersionUE4: ue4, fileVersionUE5: ue5, totalHeaderSize, customVersions, packageName, packageFlags,
  });
  if (savedHash !== undefined) s.savedHash = savedHash;
  s.nameCount = r.i32('name count');
  s.nameOffset = r.i32('name offset');
  s.softObjectPathsCount = 0;
  s.softObjectPathsOffset = 0;
  if (ue5 >= V5.AddSoftObjectPathList) {
    s.softObjectPathsCount = r.i32('soft object path count');
    s.softObjectPathsOffset = r.i32('soft object path offset');
  }
  if (!cooked && ue4 >= V4.AddedPackageSummaryLocalizationId) s.localizationId = r.fstring('localization id');
  s.gatherableTextDataCount = 0;
  s.gatherableTextDataOffset = 0;
  if (ue4 >= V4.SerializeTextInPackages) {
    s.gatherableTextDataCount = r.i32('gatherable text count');
    s.gatherableTextDataOffset = r.i32('gatherable text offset');
  }
  s.exportCount = r.i32('export count');
  s.exportOffset = r.i32('export offset');
  s.importCount = r.i32('import count');
  s.importOffset = r.i32('import offset');
  s.cellExportCount = s.cellExportOffset = s.cellImportCount = s.cellImportOffset = 0;
  if (ue5 >= V5.VerseCells) {
    s.cellExportCount = r.i32('cell export count');
    s.cellExportOffset = r.i32('cell export offset');
    s.cellImportCount = r.i32('cell import count');
    s.cellImportOffset = r.i32('cell import offset');
  }
  s.metaDataOffset = ue5 >= V5.MetadataSerializationOffset ? r.i32('metadata offset') : 0;
  s.dependsOffset = r.i32('depends offset');
  s.softPackageReferencesCount = 0;
  s.softPackageReferencesOffset = 0;
  if (ue4 >= V4.AddStringAssetReferencesMap) {
    s.softPackageReferencesCount = r.i32('soft package reference count');
    s.softPackageReferencesOffset = r.i32('soft package reference offset');
  }
  s.searchableNamesOffset = ue4 >= V4.AddedSearchableNames ? r.i32('searchable names offset') : 0;
  s.thumbnailTableOffset = r.i32('thumbnail table offset');
  s.importTypeHierarchiesCount = 0;
  s.importTypeHierarchiesOffset = 0;
  if (ue5 >= V5.ImportTypeHierarchies) {
    s.importTypeHierarchiesCount = r.i32('import type hierarchies count');
    s.importTypeHierarchiesOffset = r.i32('import type hierarchies offset');
  }
  if (ue5 < V5.PackageSavedHash) s.guid = guid(r, 'package guid');
  if (!cooked && ue4 >= V4.AddedPackageOwner) {
    s.persistentGuid = guid(r, 'persistent guid');
    if (ue4 < V4.NonOuterPackageImport) s.ownerPersistentGuid = guid(r, 'owner persistent guid');
  }
  const genAt = r.pos;
  const genCount = r.i32('generation count');
  if (genCount < 0) r.fail('BAD_VALUE', `generation count ${genCount} is negative`, genAt);
  sane(r, genCount, 8, 'generations');
  s.generations = [];
  for (let i = 0; i < genCount; i++) s.generations.push({ exportCount: r.i32('generation export count'), nameCount: r.i32('generation name count') });
  s.savedByEngineVersion = engineStamp(r, 'saved-by engine version');
  s.compatibleWithEngineVersion = ue4 >= V4.PackageSummaryHasCompatibleEngineVersion ? engineStamp(r, 'compatible engine version') : s.savedByEngineVersion;
  s.compressionFlags = r.u32('compression flags');
  const ccAt = r.pos;
  const compressedChunks = r.i32('compressed chunk count');
  if (compressedChunks !== 0) r.fail('UNSUPPORTED', `the package declares ${compressedChunks} compressed chunks (package-level compression is not supported by the engine since 4.x)`, ccAt);
  s.packageSource = r.u32('package source');
  const apAt = r.pos;
  const apCount = r.i32('additional packages count');
  if (apCount < 0) r.fail('BAD_VALUE', `additional packages count ${apCount} is negative`, apAt);
  sane(r, apCount, 4, 'additional packages to cook');
  s.additionalPackagesToCook = [];
  for (let i = 0; i < apCount; i++) s.additionalPackagesToCook.push(r.fstring('additional package'));
  if (legacyFileVersion > LegacyFileVersion.RemovedTextureAllocations) s.numTextureAllocations = r.i32('texture allocations');
  s.assetRegistryDataOffset = r.i32('asset registry data offset');
  const bulkAt = r.pos;
  const bulk = r.i64('bulk data start offset');
  if (bulk < -1n || bulk > BigInt(Number.MAX_SAFE_INTEGER)) r.fail('BAD_VALUE', `bulk data start offset ${bulk} is out of range`, bulkAt);
  s.bulkDataStartOffset = Number(bulk);
  s.worldTileInfoDataOffset = ue4 >= V4.WorldLevelInfo ? r.i32('world tile info offset') : 0;
  s.chunkIds = [];
  if (ue4 >= V4.ChunkIdsInSummary) {
    const at = r.pos;
    const n = r.i32('chunk id count');
    if (n < 0) r.fail('BAD_VALUE', `chunk id count ${n} is negative`, at);
    sane(r, n, 4, 'chunk ids');
    for (let i = 0; i < n; i++) s.chunkIds.push(r.i32('chunk id'));
  }
  s.preloadDependencyCount = 0;
  s.preloadDependencyOffset = 0;
  if (ue4 >= V4.PreloadDependenciesInCookedExports) {
    s.preloadDependencyCount = r.i32('preload dependency count');
    s.preloadDependencyOffset = r.i32('preload dependency offset');
  }
  s.namesReferencedFromExportDataCount = ue5 >= V5.NamesReferencedFromExportData ? r.i32('names referenced from export data') : s.nameCount;
  s.payloadTocOffset = ue5 >= V5.PayloadToc ? Number(r.i64('payload toc offset')) : -1;
  s.dataResourceOffset = ue5 >= V5.DataResources ? r.i32('data resource offset') : -1;
  s.summarySize = r.pos;
  return s;
}
