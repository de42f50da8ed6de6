/**
 * Legacy `.uasset`/`.umap` (+ `.uexp`) packages of UE 4.0 to 6.0, cooked and editor-saved: the package summary,
 * name, import and export maps, object paths, the export data (in the `.uexp`, or in the `.uasset` when there is
 * none), and a writer that gives back the bytes it read. Parsers take Uint8Array and throw IoStoreError.
 */
export {
  LEGACY_PACKAGE_TAG,
  LegacyFileVersion,
  UE4_OBJECT_VERSION,
  UE5_LEGACY_VERSION,
  PackageFlags,
  LEGACY_ENGINE_RELEASES,
  objectVersionsOfEngine,
  parseLegacyEngineRelease,
  isIoStoreRelease,
  customVersionFormat,
} from './versions.js';
export type { LegacyObjectVersions, LegacyEngineRelease, CustomVersionFormat } from './versions.js';
export { readLegacySummary, summaryShape } from './summary.js';
export type { LegacyPackageSummary, LegacyCustomVersion, EngineVersionStamp, GenerationInfo, SummaryShape } from './summary.js';
export { writeLegacySummary } from './summary-writer.js';
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
export { legacyExportSpans, legacyInlineExportSpans, hasInlineExportData, legacyExportData, checkUexpTag, hasUexpTag } from './export-data.js';
export type { LegacyExportSpan } from './export-data.js';
export { readDataResources, writeDataResources, dataResourceEntrySize, DATA_RESOURCE_VERSION } from './data-resources.js';
export type { LegacyDataResource } from './data-resources.js';
export { nonCasePreservingNameHash, casePreservingNameHash, isWideLegacyName } from './name-hash.js';
export { writeLegacyPackage, buildUexp, legacyFileVersionFor, exportsHaveScriptOffsets } from './write.js';
export type { LegacyPackageSpec } from './write.js';
export { legacyPackageSpec } from './spec.js';
export { legacyRegionSpans, WRITTEN_TABLES } from './regions.js';
export type { LegacyRegion, LegacyRegionSpan, LegacyTable } from './regions.js';
export { describeLegacyPackage, legacySummaryFields } from './describe.js';
export type { LegacyPackageView } from './describe.js';
export { taggedPropertiesEnd } from './tagged-properties.js';
export { readLegacyEditorTables, writeEditorTable, exactEditorTables, EDITOR_TABLES, thumbnailFileNames, thumbnailImageType, readImageHeader, imageType, readCompressedBufferHeader, trailerPayloadSpan } from './editor-tables/index.js';
export type {
  LegacyEditorTables,
  LegacyTableError,
  LegacyTablePlace,
  EditorTableFormat,
  EditorTableWriteContext,
  LegacyThumbnail,
  LegacyGatherableText,
  LegacyTextSourceSite,
  LegacyLocMetadata,
  LegacyLocMetadataValue,
  LegacySoftObjectPath,
  LegacySoftObjectPathRef,
  LegacyPackageMetaData,
  LegacyMetaDataValue,
  LegacySearchableNames,
  LegacyAssetRegistryData,
  LegacyAssetRegistryObject,
  LegacyAssetRegistryDependencies,
  LegacyWorldTileInfo,
  LegacyWorldTileLod,
  LegacyPackageTrailer,
  LegacyTrailerPayload,
  LegacyPayloadAccessMode,
  CompressedBufferHeader,
  ImageHeader,
} from './editor-tables/index.js';
export { describeLegacyEditorTables, legacySoftObjectPathText } from './describe-editor.js';
export type { LegacyEditorTablesView, LegacyThumbnailView } from './describe-editor.js';
