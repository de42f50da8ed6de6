/**
 * Legacy (cooked `.uasset`/`.umap` + `.uexp`) packages of UE 4.26 to 6.0: the package summary, name, import and
 * export maps, object paths, and the export data in the `.uexp`. Parsers take Uint8Array and throw IoStoreError.
 */
export {
  LEGACY_PACKAGE_TAG,
  LegacyFileVersion,
  UE4_OBJECT_VERSION,
  UE5_LEGACY_VERSION,
  PackageFlags,
  objectVersionsOfEngine,
} from './versions.js';
export type { LegacyObjectVersions } from './versions.js';
export { readLegacySummary } from './summary.js';
export type { LegacyPackageSummary, LegacyCustomVersion, EngineVersionStamp, GenerationInfo } from './summary.js';
export { isLegacyPackage, parseLegacyPackage } from './package.js';
export type {
  LegacyPackage,
  LegacyName,
  LegacyNameEntry,
  LegacyImport,
  LegacyExport,
  LegacyCellImport,
  LegacyCellExport,
  LegacyTableLayout,
  ParseLegacyOptions,
} from './package.js';
export { legacyNameText, legacyRef, legacyObjectName, legacyObjectPath, legacyPackageName, legacyExportClassPath, packageNameFromContentPath } from './paths.js';
export type { LegacyRef } from './paths.js';
export { legacyExportSpans, legacyExportData, checkUexpTag } from './export-data.js';
export type { LegacyExportSpan } from './export-data.js';
export { readDataResources, writeDataResources, dataResourceEntrySize, DATA_RESOURCE_VERSION } from './data-resources.js';
export type { LegacyDataResource } from './data-resources.js';
export { nonCasePreservingNameHash, casePreservingNameHash, isWideLegacyName } from './name-hash.js';
export { writeLegacyPackage, buildUexp, legacyFileVersionFor, exportsHaveScriptOffsets } from './write.js';
export type { LegacyPackageSpec } from './write.js';
export { describeLegacyPackage } from './describe.js';
export type { LegacyPackageView } from './describe.js';
export { taggedPropertiesEnd } from './tagged-properties.js';
