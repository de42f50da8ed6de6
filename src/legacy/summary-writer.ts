import { fromHex } from '../util/bytes.js';
import type { ByteWriter } from '../zen/byte-writer.js';
import { writeFString } from './strings.js';
import { summaryShape, type EngineVersionStamp, type LegacyCustomVersion, type LegacyPackageSummary } from './summary.js';
import { LEGACY_PACKAGE_TAG, LegacyFileVersion, UE5_LEGACY_VERSION, type CustomVersionFormat } from './versions.js';

/** Custom version keys as bytes: the same hundred keys head every package of a cook. */
function keyBytes(hex: string): Uint8Array {
  let b = keyCache.get(hex);
  if (!b) {
    if (keyCache.size >= 4096) keyCache.clear();
    keyCache.set(hex, (b = fromHex(hex)));
  }
  return b;
}
const keyCache = new Map<string, Uint8Array>();

function engineStamp(w: ByteWriter, v: EngineVersionStamp): void {
  w.u16(v.major);
  w.u16(v.minor);
  w.u16(v.patch);
  w.u32(v.changelist);
  writeFString(w, v.branch);
}

function customVersions(w: ByteWriter, format: CustomVersionFormat, cvs: readonly LegacyCustomVersion[]): void {
  if (format === 'none') return;
  w.i32(cvs.length);
  for (const cv of cvs) {
    w.bytes(keyBytes(cv.key));
    w.i32(cv.version);
    if (format === 'guids') writeFString(w, cv.friendlyName ?? '');
  }
}

const guid = (w: ByteWriter, hex: string | undefined) => w.bytes(hex ? fromHex(hex) : ZERO_GUID);
const ZERO_GUID = new Uint8Array(16);

/**
 * Writes `s` as readLegacySummary reads it: the fields its legacy file version, object versions (the ones it was
 * read with) and package flags call for, each as given. Counts and offsets are written as they are.
 */
export function writeLegacySummary(w: ByteWriter, s: LegacyPackageSummary): void {
  const shape = summaryShape(s.legacyFileVersion, s.fileVersionUE4, s.fileVersionUE5, s.packageFlags);
  const opt = (on: boolean, v: number) => {
    if (on) w.i32(v);
  };
  w.u32(LEGACY_PACKAGE_TAG);
  w.i32(s.legacyFileVersion);
  if (shape.ue3Version) w.i32(s.legacyUE3Version);
  w.i32(s.storedFileVersionUE4);
  if (shape.ue5Version) w.i32(s.storedFileVersionUE5);
  w.i32(s.fileVersionLicenseeUE4);
  if (shape.savedHash) {
    w.bytes(s.savedHash ? fromHex(s.savedHash) : new Uint8Array(20));
    w.i32(s.totalHeaderSize);
  }
  customVersions(w, shape.customVersions, s.customVersions);
  if (!shape.savedHash) w.i32(s.totalHeaderSize);
  writeFString(w, s.packageName);
  w.u32(s.packageFlags);
  w.i32(s.nameCount);
  w.i32(s.nameOffset);
  opt(shape.softObjectPaths, s.softObjectPathsCount);
  opt(shape.softObjectPaths, s.softObjectPathsOffset);
  if (shape.localizationId) writeFString(w, s.localizationId ?? '');
  opt(shape.gatherableText, s.gatherableTextDataCount);
  opt(shape.gatherableText, s.gatherableTextDataOffset);
  w.i32(s.exportCount);
  w.i32(s.exportOffset);
  w.i32(s.importCount);
  w.i32(s.importOffset);
  opt(shape.cells, s.cellExportCount);
  opt(shape.cells, s.cellExportOffset);
  opt(shape.cells, s.cellImportCount);
  opt(shape.cells, s.cellImportOffset);
  opt(shape.metaData, s.metaDataOffset);
  w.i32(s.dependsOffset);
  opt(shape.softPackageReferences, s.softPackageReferencesCount);
  opt(shape.softPackageReferences, s.softPackageReferencesOffset);
  opt(shape.searchableNames, s.searchableNamesOffset);
  w.i32(s.thumbnailTableOffset);
  opt(shape.importTypeHierarchies, s.importTypeHierarchiesCount);
  opt(shape.importTypeHierarchies, s.importTypeHierarchiesOffset);
  if (!shape.savedHash) guid(w, s.guid);
  if (shape.persistentGuid) guid(w, s.persistentGuid);
  if (shape.ownerPersistentGuid) guid(w, s.ownerPersistentGuid);
  w.i32(s.generations.length);
  for (const g of s.generations) {
    w.i32(g.exportCount);
    w.i32(g.nameCount);
  }
  if (shape.engineVersionObject) engineStamp(w, s.savedByEngineVersion);
  else w.u32(s.savedByEngineVersion.changelist);
  if (shape.compatibleEngineVersion) engineStamp(w, s.compatibleWithEngineVersion);
  w.u32(s.compressionFlags);
  w.i32(0); // compressed chunks
  w.u32(s.packageSource);
  w.i32(s.additionalPackagesToCook.length);
  for (const a of s.additionalPackagesToCook) writeFString(w, a);
  if (shape.textureAllocations) w.i32(s.numTextureAllocations ?? 0);
  w.i32(s.assetRegistryDataOffset);
  w.i64n(s.bulkDataStartOffset);
  opt(shape.worldTileInfo, s.worldTileInfoDataOffset);
  if (shape.chunkIds === 'one') w.i32(s.chunkIds[0] ?? -1);
  else if (shape.chunkIds === 'array') {
    w.i32(s.chunkIds.length);
    for (const c of s.chunkIds) w.i32(c);
  }
  opt(shape.preloadDependencies, s.preloadDependencyCount);
  opt(shape.preloadDependencies, s.preloadDependencyOffset);
  opt(shape.namesReferencedFromExportData, s.namesReferencedFromExportDataCount);
  if (shape.payloadToc) w.i64n(s.payloadTocOffset);
  opt(shape.dataResources, s.dataResourceOffset);
}

/** The legacy file version the engine writes with a set of object versions (as seen on the corpus). */
export function legacyFileVersionFor(fileVersionUE5: number): number {
  if (fileVersionUE5 === 0) return LegacyFileVersion.RemovedTextureAllocations;
  return fileVersionUE5 >= UE5_LEGACY_VERSION.PackageSavedHash ? LegacyFileVersion.SavedHashFirst : LegacyFileVersion.Ue5Version;
}
