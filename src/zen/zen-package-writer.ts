import { IoStoreError } from '../errors.js';
import { ByteWriter } from './byte-writer.js';
import {
  BULK_DATA_MAP_ENTRY_SIZE,
  writeBulkDataMapEntry,
  writeCellExportMapEntry,
  writeDependencyBundleHeader,
  writeExportBundleEntry,
  writeExportMapEntry,
} from './export-map.js';
import { nameHash, serializeNameHashes, serializeNameStrings, writeNameBatch } from './name-batch.js';
import {
  UE4_SUMMARY_SIZE,
  writeUe4Summary,
  writeUe5Summary,
  writeVersioningInfo,
  type Ue4PackageSummary,
  type Ue5PackageSummary,
} from './package-summary.js';
import type { ZenPackage } from './zen-package.js';

/**
 * Writes the zen header of a package (the bytes [0, headerSize) of its chunk), recomputing every offset and size
 * from the tables. For a package read by parseZenPackage the result equals the header it was read from.
 */
export function serializeZenPackageHeader(pkg: ZenPackage): Uint8Array {
  return pkg.layout.format === 'UE4' ? writeUe4(pkg) : writeUe5(pkg);
}

function writeUe4(pkg: ZenPackage): Uint8Array {
  const w = new ByteWriter(4096);
  w.zeros(UE4_SUMMARY_SIZE);
  const names = serializeNameStrings(pkg.names);
  const nameMapNamesOffset = w.length;
  w.bytes(names);
  w.zeros((8 - (w.length % 8)) % 8);
  const nameMapHashesOffset = w.length;
  const hashes = serializeNameHashes(pkg.nameHashes.length === pkg.names.length ? pkg.nameHashes : pkg.names.map(nameHash));
  w.bytes(hashes);
  const importMapOffset = w.length;
  for (const i of pkg.imports) w.u64(i, 'import');
  const exportMapOffset = w.length;
  for (const e of pkg.exports) writeExportMapEntry(w, e);
  const exportBundlesOffset = w.length;
  for (const b of pkg.exportBundles) {
    w.u32(b.firstEntryIndex, 'bundle first entry');
    w.u32(b.entryCount, 'bundle entry count');
  }
  for (const e of pkg.exportBundleEntries) writeExportBundleEntry(w, e);
  const graphDataOffset = w.length;
  w.i32(pkg.referencedPackages.length);
  for (const p of pkg.referencedPackages) {
    w.u64(p.packageId, 'graph package id');
    w.i32(p.arcs.length);
    for (const a of p.arcs) {
      w.i32(a.fromExportBundleIndex);
      w.i32(a.toExportBundleIndex);
    }
  }
  const out = w.finish();
  const s: Ue4PackageSummary = {
    name: pkg.name,
    sourceName: pkg.ue4Summary?.sourceName ?? pkg.name,
    packageFlags: pkg.packageFlags,
    cookedHeaderSize: pkg.cookedHeaderSize,
    nameMapNamesOffset,
    nameMapNamesSize: names.length,
    nameMapHashesOffset,
    nameMapHashesSize: hashes.length,
    importMapOffset,
    exportMapOffset,
    exportBundlesOffset,
    graphDataOffset,
    graphDataSize: out.length - graphDataOffset,
  };
  const sw = new ByteWriter(UE4_SUMMARY_SIZE);
  writeUe4Summary(sw, s);
  out.set(sw.finish(), 0);
  return out;
}

function writeUe5(pkg: ZenPackage): Uint8Array {
  const { layout } = pkg;
  const withBundles = layout.summarySize === 52;
  const w = new ByteWriter(4096);
  w.zeros(layout.summarySize);
  if (pkg.versioningInfo) writeVersioningInfo(w, pkg.versioningInfo);
  const cellOffsetsAt = w.length;
  if (layout.cellMaps) w.zeros(8);
  else if (pkg.cellImports.length > 0 || pkg.cellExports.length > 0) throw new IoStoreError('USAGE', 'this zen layout has no cell maps');
  writeNameBatch(w, { names: pkg.names, hashes: pkg.nameHashes }, 'name map');
  if (layout.bulkDataMap === 'none') {
    if (pkg.bulkData.length > 0) throw new IoStoreError('USAGE', 'this zen layout has no bulk data map');
  } else {
    if (layout.bulkDataMap === 'padded') {
      const pad = (8 - ((w.length + 8) % 8)) % 8;
      w.u64n(pad);
      w.zeros(pad);
    }
    w.u64n(pkg.bulkData.length * BULK_DATA_MAP_ENTRY_SIZE);
    for (const b of pkg.bulkData) writeBulkDataMapEntry(w, b);
  }
  const importedPublicExportHashesOffset = w.length;
  for (const h of pkg.importedPublicExportHashes) w.u64(h, 'imported public export hash');
  const importMapOffset = w.length;
  for (const i of pkg.imports) w.u64(i, 'import');
  const exportMapOffset = w.length;
  for (const e of pkg.exports) writeExportMapEntry(w, e);
  if (layout.cellMaps) {
    w.patchI32(cellOffsetsAt, w.length);
    for (const c of pkg.cellImports) w.u64(c, 'cell import');
    w.patchI32(cellOffsetsAt + 4, w.length);
    for (const c of pkg.cellExports) writeCellExportMapEntry(w, c);
  }
  const exportBundleEntriesOffset = w.length;
  for (const e of pkg.exportBundleEntries) writeExportBundleEntry(w, e);
  const s: Ue5PackageSummary = {
    hasVersioningInfo: pkg.versioningInfo !== null,
    headerSize: 0,
    name: pkg.name,
    packageFlags: pkg.packageFlags,
    cookedHeaderSize: pkg.cookedHeaderSize,
    importedPublicExportHashesOffset,
    importMapOffset,
    exportMapOffset,
    exportBundleEntriesOffset,
  };
  if (withBundles) {
    s.dependencyBundleHeadersOffset = w.length;
    for (const h of pkg.dependencyBundleHeaders) writeDependencyBundleHeader(w, h);
    s.dependencyBundleEntriesOffset = w.length;
    for (const e of pkg.dependencyBundleEntries) w.i32(e, 'dependency entry');
    s.importedPackageNamesOffset = w.length;
    const names = pkg.importedPackageNames ?? { batch: { names: [], hashes: [] }, numbers: [] };
    if (names.numbers.length !== names.batch.names.length) throw new IoStoreError('USAGE', 'imported package names and numbers differ in count');
    writeNameBatch(w, names.batch, 'imported package names');
    for (const n of names.numbers) w.u32(n, 'imported package name number');
  } else {
    s.graphDataOffset = w.length;
    for (const b of pkg.exportBundles) {
      w.u64(b.serialOffset ?? 0n, 'bundle serial offset');
      w.u32(b.firstEntryIndex, 'bundle first entry');
      w.u32(b.entryCount, 'bundle entry count');
    }
    w.u32(pkg.internalArcs.length);
    for (const a of pkg.internalArcs) {
      w.i32(a.fromExportBundleIndex);
      w.i32(a.toExportBundleIndex);
    }
    for (const arcs of pkg.externalArcs) {
      w.u32(arcs.length);
      for (const a of arcs) {
        w.i32(a.fromImportIndex);
        w.u8(a.fromCommandType);
        w.i32(a.toExportBundleIndex);
      }
    }
  }
  s.headerSize = w.length;
  const out = w.finish();
  const sw = new ByteWriter(layout.summarySize);
  writeUe5Summary(sw, s, withBundles);
  out.set(sw.finish(), 0);
  return out;
}
