/**
 * Zen structures of IoStore containers: the container header chunk, the zen package header (UE 4.26/4.27 and UE5),
 * name batches, and the global script-object chunks. Parsers take Uint8Array and throw IoStoreError on bad input;
 * writers reproduce engine-written bytes exactly.
 */
export { ByteWriter } from './byte-writer.js';
export {
  NAME_HASH_ALGORITHM_ID,
  nameHash,
  isWideName,
  readNameBatch,
  writeNameBatch,
  serializeNameBatch,
  parseNameStrings,
  serializeNameStrings,
  parseNameHashes,
  serializeNameHashes,
  parseOldNameBatch,
  nameHashMismatches,
} from './name-batch.js';
export type { NameBatch } from './name-batch.js';
export { MappedNameType, readMappedName, writeMappedName, nameWithNumber, resolveMappedName } from './mapped-name.js';
export type { MappedName } from './mapped-name.js';
export {
  NULL_OBJECT_INDEX,
  objectIndexKind,
  isNullObjectIndex,
  objectIndexValue,
  packageImportParts,
  makePackageImport,
  makeScriptImport,
} from './object-index.js';
export type { ObjectIndexKind } from './object-index.js';
export { parseStoreEntries, serializeStoreEntries, storeEntrySize } from './store-entry.js';
export type { StoreEntry, StoreEntryLayout, ShaderMapHashSize, StoreEntriesResult } from './store-entry.js';
export {
  CONTAINER_HEADER_MAGIC,
  CONTAINER_HEADER_VERSIONS,
  containerHeaderVersionRank,
  containerHeaderVersionNumber,
  isUe4ContainerHeaderVersion,
  parseContainerHeaderVersionName,
  parseContainerHeader,
  serializeContainerHeader,
  findStoreEntry,
  packagesById,
  decodeSoftPackageIndices,
} from './container-header.js';
export type {
  ContainerHeader,
  ContainerHeaderVersionName,
  ContainerPackage,
  LocalizedPackage,
  PackageRedirect,
  CulturePackages,
  SoftPackageReferences,
  ParseContainerHeaderOptions,
} from './container-header.js';
export { toJsonFriendly, bigintToHex, containerHeaderToJson, containerHeaderFromJson } from './json.js';
export type { Jsonify, ContainerHeaderJson } from './json.js';
export { UE4_SUMMARY_SIZE, UE5_SUMMARY_SIZE_GRAPH, UE5_SUMMARY_SIZE_BUNDLES } from './package-summary.js';
export type { Ue4PackageSummary, Ue5PackageSummary, ZenVersioningInfo, CustomVersion } from './package-summary.js';
export {
  EXPORT_MAP_ENTRY_SIZE,
  CELL_EXPORT_MAP_ENTRY_SIZE,
  EXPORT_BUNDLE_ENTRY_SIZE,
  DEPENDENCY_BUNDLE_HEADER_SIZE,
  BULK_DATA_MAP_ENTRY_SIZE,
  ExportCommandType,
  dependencyCount,
} from './export-map.js';
export type {
  ExportMapEntry,
  CellExportMapEntry,
  ExportBundleEntry,
  ExportBundleHeader,
  DependencyBundleHeader,
  BundleArc,
  ExternalArc,
  BulkDataMapEntry,
} from './export-map.js';
export {
  PACKAGE_FILE_TAG,
  UE5_OBJECT_VERSION,
  layoutFromEngine,
  layoutFromContainerHeaderVersion,
  layoutFromObjectVersion,
  layoutFromHints,
  looksLikeUe4Summary,
  detectUe5SummarySize,
} from './zen-layout.js';
export type { ZenPackageLayout, ZenPackageHints, BulkDataMapForm, PartialLayout } from './zen-layout.js';
export { parseZenPackage, importedPackageNameStrings, exportName, exportChunkOffsets } from './zen-package.js';
export { serializeZenPackageHeader } from './zen-package-writer.js';
export type { ZenPackage, ZenSection, ReferencedPackageArcs, ImportedPackageNames, ParseZenPackageOptions } from './zen-package.js';
export {
  SCRIPT_OBJECT_ENTRY_SIZE,
  parseScriptObjects,
  serializeScriptObjects,
  parseLoaderGlobalNames,
  serializeLoaderGlobalNames,
  parseLoaderGlobalNameHashes,
  serializeLoaderGlobalNameHashes,
  parseLoaderInitialLoadMeta,
  serializeLoaderInitialLoadMeta,
  scriptObjectPaths,
  scriptImportIndex,
} from './script-objects.js';
export type { ScriptObjects, ScriptObjectEntry, ParseGlobalOptions } from './script-objects.js';
export { buildZenPackage } from './package-builder.js';
export type { PackageSpec, ExportSpec } from './package-builder.js';
