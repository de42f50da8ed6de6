import { IoStoreError } from '../errors.js';
import { ENGINE_VERSIONS, normalizeEngineName, type EngineVersion } from '../toc/engine.js';
import { quote } from '../util/quote.js';

/** The package file tag that starts every legacy (and classic) package and ends every `.uexp`. */
export const LEGACY_PACKAGE_TAG = 0x9e2a83c1;

/**
 * The "legacy file version": a negative number right after the tag of UE4/UE5 packages (classic UE1-UE3 packages
 * hold a positive file version there instead). Each step changed the summary's first fields.
 */
export const LegacyFileVersion = {
  /** -1: the first UE4 summaries: no custom versions. */
  Initial: -1,
  /** -2: custom versions as (u32 tag, version) pairs. */
  EnumCustomVersions: -2,
  /** -3: custom versions as (GUID, version, friendly name). */
  GuidCustomVersions: -3,
  /** -4: the UE3 version left the summary (for this one value only: -5 wrote it again). */
  NoUe3Version: -4,
  /** -6: custom versions as (GUID, version) pairs. */
  OptimizedCustomVersions: -6,
  /** -7: NumTextureAllocations left the summary (written by UE 4.14 and later, 4.26/4.27 included). */
  RemovedTextureAllocations: -7,
  /** -8: UE5: FileVersionUE5 follows FileVersionUE4. */
  Ue5Version: -8,
  /** -9: UE 5.6+ cooks as seen in the corpus (5.7, 5.8, 6.0). */
  SavedHashFirst: -9,
} as const;

/** How custom versions are stored, by legacy file version. */
export type CustomVersionFormat = 'none' | 'enums' | 'guids' | 'optimized';

export function customVersionFormat(legacyFileVersion: number): CustomVersionFormat {
  if (legacyFileVersion > LegacyFileVersion.EnumCustomVersions) return 'none';
  if (legacyFileVersion === LegacyFileVersion.EnumCustomVersions) return 'enums';
  return legacyFileVersion > LegacyFileVersion.OptimizedCustomVersions ? 'guids' : 'optimized';
}

/**
 * UE4 object versions (EUnrealEngineObjectUE4Version) the legacy layout depends on. UE 4.0 wrote 342; the summary
 * fields below 342 are kept so that pre-release packages (214+, the oldest the engine loads) read too.
 */
export const UE4_OBJECT_VERSION = {
  /** 214: the oldest package the engine loads. */
  OldestLoadable: 214,
  /** 224: WorldTileInfoDataOffset in the summary. */
  WorldLevelInfo: 224,
  /** 278: one ChunkID in the summary. */
  AddedChunkId: 278,
  /** 326: ChunkIDs (an array) in the summary. */
  ChunkIdsInSummary: 326,
  /** 336: SavedByEngineVersion (FEngineVersion) replaces a bare changelist. */
  EngineVersionObject: 336,
  /** 365: bNotAlwaysLoadedForEditorGame in export entries. */
  LoadForEditorGame: 365,
  /** 384: soft package references table in the summary. */
  AddStringAssetReferencesMap: 384,
  /** 444: CompatibleWithEngineVersion in the summary. */
  PackageSummaryHasCompatibleEngineVersion: 444,
  /** 459: gatherable text data table in the summary. */
  SerializeTextInPackages: 459,
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

/**
 * Engine releases a legacy package may come from, oldest first: UE 4.0 to 6.0. (IoStore, and with it the releases
 * the rest of the toolkit names, starts at 4.25.)
 */
export const LEGACY_ENGINE_RELEASES = [
  'UE4_0', 'UE4_1', 'UE4_2', 'UE4_3', 'UE4_4', 'UE4_5', 'UE4_6', 'UE4_7', 'UE4_8', 'UE4_9', 'UE4_10', 'UE4_11',
  'UE4_12', 'UE4_13', 'UE4_14', 'UE4_15', 'UE4_16', 'UE4_17', 'UE4_18', 'UE4_19', 'UE4_20', 'UE4_21', 'UE4_22',
  'UE4_23', 'UE4_24',
  ...ENGINE_VERSIONS,
] as const;
export type LegacyEngineRelease = (typeof LEGACY_ENGINE_RELEASES)[number];

/**
 * The object versions each release writes (EUnrealEngineObjectUE4Version's last value when the release branched;
 * the public readers agree on these, and a UE 5.3.2 save game stores 1009), used for unversioned packages, which
 * store zeros. UE 5.7 is 1018: its cooked summaries carry the import type hierarchies table (checked on the corpus).
 */
const ENGINE_OBJECT_VERSIONS: Record<LegacyEngineRelease, LegacyObjectVersions> = {
  UE4_0: ue4(342), UE4_1: ue4(352), UE4_2: ue4(363), UE4_3: ue4(382), UE4_4: ue4(385), UE4_5: ue4(401),
  UE4_6: ue4(413), UE4_7: ue4(434), UE4_8: ue4(451), UE4_9: ue4(482), UE4_10: ue4(482), UE4_11: ue4(498),
  UE4_12: ue4(504), UE4_13: ue4(505), UE4_14: ue4(508), UE4_15: ue4(510), UE4_16: ue4(513), UE4_17: ue4(513),
  UE4_18: ue4(514), UE4_19: ue4(516), UE4_20: ue4(516), UE4_21: ue4(517), UE4_22: ue4(517), UE4_23: ue4(517),
  UE4_24: ue4(518), UE4_25: ue4(518), UE4_26: ue4(522), UE4_27: ue4(522),
  UE5_0: ue5(1004),
  UE5_1: ue5(1008),
  UE5_2: ue5(1009),
  UE5_3: ue5(1009),
  UE5_4: ue5(1012),
  UE5_5: ue5(1013),
  UE5_6: ue5(1017),
  UE5_7: ue5(1018),
  UE5_8: ue5(1018),
  UE6_0: ue5(1018),
};

function ue4(v: number): LegacyObjectVersions {
  return { fileVersionUE4: v, fileVersionUE5: 0 };
}
function ue5(v: number): LegacyObjectVersions {
  return { fileVersionUE4: UE4_OBJECT_VERSION.CorrectLicenseeFlag, fileVersionUE5: v };
}

export function objectVersionsOfEngine(engine: LegacyEngineRelease): LegacyObjectVersions {
  return ENGINE_OBJECT_VERSIONS[engine];
}

/** A release named as `UE4_18`, `4.18`, `ue5.7` ...; throws a USAGE error naming the releases otherwise. */
export function parseLegacyEngineRelease(s: string): LegacyEngineRelease {
  const norm = normalizeEngineName(s);
  const v = LEGACY_ENGINE_RELEASES.find((e) => e === norm || e === `UE${norm}`);
  if (!v) throw new IoStoreError('USAGE', `unknown engine version ${quote(s)} (expected one of UE4_0 .. UE4_27, UE5_0 .. UE5_8, UE6_0)`);
  return v;
}

/** True for the releases IoStore containers exist for (UE 4.25+): the ones `to-zen` and the zen readers take. */
export function isIoStoreRelease(engine: LegacyEngineRelease): engine is EngineVersion {
  return (ENGINE_VERSIONS as readonly string[]).includes(engine);
}

/**
 * Whether the cooked import entries of a release carry the import's package name: UE 5.8 and later do (checked on
 * the corpus), 5.7 does not although it writes the same object version (1018). Unknown release: undefined.
 */
export function cookedImportsHavePackageName(engine: LegacyEngineRelease | undefined): boolean | undefined {
  if (engine === undefined) return undefined;
  return LEGACY_ENGINE_RELEASES.indexOf(engine) >= LEGACY_ENGINE_RELEASES.indexOf('UE5_8');
}

/**
 * Object versions tried, in this order, when an unversioned package comes with no hint: for each legacy file
 * version the object versions that can go with it (UE5 ones from -8 on), newest layout first among equals. The
 * first that makes the whole header consistent wins.
 */
export function unversionedCandidates(legacyFileVersion: number): readonly LegacyObjectVersions[] {
  if (legacyFileVersion <= LegacyFileVersion.SavedHashFirst) return UE5_SAVED_HASH_CANDIDATES;
  if (legacyFileVersion <= LegacyFileVersion.Ue5Version) return UE5_CANDIDATES;
  return UE4_CANDIDATES;
}

const UE5_CANDIDATES: readonly LegacyObjectVersions[] = [1013, 1009, 1008, 1014, 1015, 1017, 1018, 1004, 1006, 1012, 1011, 1010, 1002, 1000].map(ue5);
const UE5_SAVED_HASH_CANDIDATES: readonly LegacyObjectVersions[] = [1018, 1017, 1016, ...UE5_CANDIDATES.map((v) => v.fileVersionUE5)].filter((v, i, all) => all.indexOf(v) === i).map(ue5);
/** One UE4 version per layout of the cooked tables (the thresholds above), newest first. */
const UE4_CANDIDATES: readonly LegacyObjectVersions[] = [522, 511, 510, 508, 507, 504, 485, 459, 444, 384, 365, 342].map(ue4);

/** Package flags the legacy layout depends on. */
export const PackageFlags = {
  /** Exports use unversioned property serialization (no script-serialization offsets in the export map). */
  UnversionedProperties: 0x2000,
  /** Editor-only data was filtered out (every cooked package). */
  FilterEditorOnly: 0x80000000,
} as const;
