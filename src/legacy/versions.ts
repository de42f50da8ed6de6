import type { EngineVersion } from '../toc/engine.js';

/** The package file tag that starts every legacy (and classic) package and ends every `.uexp`. */
export const LEGACY_PACKAGE_TAG = 0x9e2a83c1;

/**
 * The "legacy file version": a negative number right after the tag of UE4/UE5 packages (classic UE1-UE3 packages
 * hold a positive file version there instead).
 */
export const LegacyFileVersion = {
  /** -6: custom versions serialized as (GUID, version) pairs (the only form this reader takes). */
  OptimizedCustomVersions: -6,
  /** -7: UE 4.26/4.27: NumTextureAllocations removed from the summary. */
  RemovedTextureAllocations: -7,
  /** -8: UE5: FileVersionUE5 follows FileVersionUE4. */
  Ue5Version: -8,
  /** -9: UE 5.6+ cooks as seen in the corpus (5.8, 6.0): the saved hash moved before the custom versions. */
  SavedHashFirst: -9,
} as const;

/** UE4 object versions (EUnrealEngineObjectUE4Version) the legacy layout depends on. */
export const UE4_OBJECT_VERSION = {
  /** 384: soft package references table in the summary. */
  AddStringAssetReferencesMap: 384,
  /** 444: CompatibleWithEngineVersion in the summary. */
  PackageSummaryHasCompatibleEngineVersion: 444,
  /** 445: WorldTileInfoDataOffset in the summary. */
  WorldLevelInfo: 445,
  /** 459: gatherable text data table in the summary. */
  SerializeTextInPackages: 459,
  /** 481: ChunkIDs in the summary. */
  ChunkIdsInSummary: 481,
  /** 485: bIsAsset in export entries. */
  PackageHasAssetFlag: 485,
  /** 504: two 16-bit hashes after each name. */
  NameHashesSerialized: 504,
  /** 507: preload dependencies (summary and export entries). */
  PreloadDependenciesInCookedExports: 507,
  /** 508: TemplateIndex in export entries. */
  TemplateIndexInCookedExports: 508,
  /** 510: SearchableNamesOffset in the summary. */
  AddedSearchableNames: 510,
  /** 511: 64-bit serial sizes and offsets in export entries. */
  ExportMap64BitSizes: 511,
  /** 516: LocalizationId in the summary of uncooked packages. */
  AddedPackageSummaryLocalizationId: 516,
  /** 518: PersistentGuid (and until 520 OwnerPersistentGuid) in uncooked summaries. */
  AddedPackageOwner: 518,
  /** 520: PackageName in the import entries of uncooked packages. */
  NonOuterPackageImport: 520,
  /** 522: the last UE4 version; every UE5 package carries it. */
  CorrectLicenseeFlag: 522,
} as const;

/** UE5 object versions (EUnrealEngineObjectUE5Version) the legacy layout depends on. */
export const UE5_LEGACY_VERSION = {
  /** 1000: the first UE5 version. */
  Initial: 1000,
  /** 1001: NamesReferencedFromExportDataCount in the summary. */
  NamesReferencedFromExportData: 1001,
  /** 1002: PayloadTocOffset in the summary. */
  PayloadToc: 1002,
  /** 1003: bImportOptional in imports, bGeneratePublicHash in exports. */
  OptionalResources: 1003,
  /** 1004: large world coordinates (no layout change here). */
  LargeWorldCoordinates: 1004,
  /** 1005: the package GUID leaves the export entries. */
  RemoveObjectExportPackageGuid: 1005,
  /** 1006: bIsInheritedInstance in export entries. */
  TrackObjectExportIsInherited: 1006,
  /** 1008: soft object path list in the summary. */
  AddSoftObjectPathList: 1008,
  /** 1009: DataResourceOffset in the summary. */
  DataResources: 1009,
  /** 1010: script serialization start/end offsets in export entries (tagged-property packages only). */
  ScriptSerializationOffset: 1010,
  /** 1013: UE 5.5 (no layout change; the export flags and data resource owners the engine writes changed). */
  AssetRegistryPackageBuildDependencies: 1013,
  /** 1014: MetaDataOffset in the summary. */
  MetadataSerializationOffset: 1014,
  /** 1015: Verse cell import/export tables in the summary. */
  VerseCells: 1015,
  /** 1016: the saved hash replaces the package GUID; TotalHeaderSize moves next to it. */
  PackageSavedHash: 1016,
  /** 1018: import type hierarchies table in the summary; cooked imports keep their package name. */
  ImportTypeHierarchies: 1018,
} as const;

/** The object versions an engine release writes (used for unversioned packages, which store zeros). */
export interface LegacyObjectVersions {
  fileVersionUE4: number;
  /** 0 for UE4 releases. */
  fileVersionUE5: number;
}

const ENGINE_OBJECT_VERSIONS: Record<EngineVersion, LegacyObjectVersions> = {
  UE4_25: { fileVersionUE4: 518, fileVersionUE5: 0 },
  UE4_26: { fileVersionUE4: 522, fileVersionUE5: 0 },
  UE4_27: { fileVersionUE4: 522, fileVersionUE5: 0 },
  UE5_0: { fileVersionUE4: 522, fileVersionUE5: 1004 },
  UE5_1: { fileVersionUE4: 522, fileVersionUE5: 1008 },
  UE5_2: { fileVersionUE4: 522, fileVersionUE5: 1009 },
  UE5_3: { fileVersionUE4: 522, fileVersionUE5: 1011 },
  UE5_4: { fileVersionUE4: 522, fileVersionUE5: 1012 },
  UE5_5: { fileVersionUE4: 522, fileVersionUE5: 1013 },
  UE5_6: { fileVersionUE4: 522, fileVersionUE5: 1016 },
  UE5_7: { fileVersionUE4: 522, fileVersionUE5: 1017 },
  UE5_8: { fileVersionUE4: 522, fileVersionUE5: 1018 },
  UE6_0: { fileVersionUE4: 522, fileVersionUE5: 1018 },
};

export function objectVersionsOfEngine(engine: EngineVersion): LegacyObjectVersions {
  return ENGINE_OBJECT_VERSIONS[engine];
}

/** Object versions tried, newest layout first among equals, when an unversioned package comes with no hint. */
export const UNVERSIONED_CANDIDATES: readonly LegacyObjectVersions[] = [
  { fileVersionUE4: 522, fileVersionUE5: 1013 },
  { fileVersionUE4: 522, fileVersionUE5: 1009 },
  { fileVersionUE4: 522, fileVersionUE5: 1008 },
  { fileVersionUE4: 522, fileVersionUE5: 1014 },
  { fileVersionUE4: 522, fileVersionUE5: 1015 },
  { fileVersionUE4: 522, fileVersionUE5: 1017 },
  { fileVersionUE4: 522, fileVersionUE5: 1018 },
  { fileVersionUE4: 522, fileVersionUE5: 1004 },
  { fileVersionUE4: 522, fileVersionUE5: 1006 },
  { fileVersionUE4: 522, fileVersionUE5: 0 },
];

/** Package flags the legacy layout depends on. */
export const PackageFlags = {
  /** Exports use unversioned property serialization (no script-serialization offsets in the export map). */
  UnversionedProperties: 0x2000,
  /** Editor-only data was filtered out (every cooked package). */
  FilterEditorOnly: 0x80000000,
} as const;
