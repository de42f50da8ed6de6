import { IoStoreError } from '../errors.js';
import { fromHex } from '../util/bytes.js';
import { ByteWriter } from '../zen/byte-writer.js';
import { DATA_RESOURCE_VERSION, writeDataResources, type LegacyDataResource } from './data-resources.js';
import { casePreservingNameHash, isWideLegacyName, nonCasePreservingNameHash } from './name-hash.js';
import type { LegacyCellExport, LegacyCellImport, LegacyExport, LegacyImport, LegacyName } from './package.js';
import type { EngineVersionStamp, LegacyCustomVersion } from './summary.js';
import { LEGACY_PACKAGE_TAG, LegacyFileVersion, PackageFlags, UE5_LEGACY_VERSION as V5 } from './versions.js';

/** What a legacy package is made of; offsets, counts and sizes are computed by the writer. */
export interface LegacyPackageSpec {
  /** Object versions the layout follows (522 / 0 for UE 4.26-4.27, 522 / 1000+ for UE5). */
  fileVersionUE4: number;
  fileVersionUE5: number;
  fileVersionLicenseeUE4?: number;
  /** Store zeros instead of the versions (the form of unversioned cooked packages). */
  unversioned: boolean;
  customVersions?: LegacyCustomVersion[];
  /** `/Game/...` (written as `None` for UE4, as the engine does). */
  packageName: string;
  packageFlags: number;
  names: string[];
  /** Names [0, n) are those the export data refers to (default: all). */
  namesReferencedFromExportDataCount?: number;
  imports: LegacyImport[];
  /** serialOffset is ignored: exports are laid out back to back in the .uexp in this order. */
  exports: LegacyExport[];
  preloadDependencies: number[];
  /** 5.6+ Verse cells; a cell export's serialOffset is its offset in the `.uexp` (the writer adds the header size). */
  cellImports?: LegacyCellImport[];
  cellExports?: LegacyCellExport[];
  dataResources?: LegacyDataResource[];
  /** Hex of the package GUID (before 1016) or the saved hash (1016+); zeros when absent. */
  guid?: string;
  savedHash?: string;
  savedByEngineVersion?: EngineVersionStamp;
  packageSource?: number;
}

const NO_ENGINE: EngineVersionStamp = { major: 0, minor: 0, patch: 0, changelist: 0, branch: '' };

function fstring(w: ByteWriter, s: string): void {
  if (s === '') {
    w.i32(0);
    return;
  }
  if (isWideLegacyName(s)) {
    w.i32(-(s.length + 1));
    for (let i = 0; i < s.length; i++) w.u16(s.charCodeAt(i));
    w.u16(0);
  } else {
    w.i32(s.length + 1);
    w.latin1(s);
    w.u8(0);
  }
}

/**
 * A name-map entry as stored: the FString, then the two name hashes (non-case-preserving first). Converting a game
 * writes the same names (classes, properties, script packages) into thousands of name maps: each entry is encoded
 * and hashed once and copied after that.
 */
function nameEntry(n: string): Uint8Array {
  let e = entryCache.get(n);
  if (e === undefined) {
    if (entryCache.size >= ENTRY_CACHE_MAX) entryCache.clear();
    const w = ENTRY_SCRATCH;
    w.reset();
    fstring(w, n);
    w.u16(nonCasePreservingNameHash(n));
    w.u16(casePreservingNameHash(n));
    e = w.finish();
    entryCache.set(n, e);
  }
  return e;
}
const entryCache = new Map<string, Uint8Array>();
const ENTRY_CACHE_MAX = 1 << 15;
const ENTRY_SCRATCH = new ByteWriter(256);

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

function name(w: ByteWriter, n: LegacyName): void {
  w.i32(n.index);
  w.i32(n.number);
}

function engineStamp(w: ByteWriter, v: EngineVersionStamp): void {
  w.u16(v.major);
  w.u16(v.minor);
  w.u16(v.patch);
  w.u32(v.changelist);
  fstring(w, v.branch);
}

interface Offsets {
  nameOffset: number;
  importOffset: number;
  exportOffset: number;
  cellImportOffset: number;
  cellExportOffset: number;
  dependsOffset: number;
  assetRegistryDataOffset: number;
  preloadDependencyOffset: number;
  dataResourceOffset: number;
  totalHeaderSize: number;
  bulkDataStartOffset: number;
}

/** The legacy file version a set of object versions is written with (as the engine does on the corpus). */
export function legacyFileVersionFor(fileVersionUE5: number): number {
  if (fileVersionUE5 === 0) return LegacyFileVersion.RemovedTextureAllocations;
  return fileVersionUE5 >= V5.PackageSavedHash ? LegacyFileVersion.SavedHashFirst : LegacyFileVersion.Ue5Version;
}

function writeSummary(w: ByteWriter, p: LegacyPackageSpec, o: Offsets): void {
  const ue5 = p.fileVersionUE5;
  const legacy = legacyFileVersionFor(ue5);
  w.u32(LEGACY_PACKAGE_TAG);
  w.i32(legacy);
  w.i32(p.unversioned ? 0 : 864);
  w.i32(p.unversioned ? 0 : p.fileVersionUE4);
  if (legacy <= LegacyFileVersion.Ue5Version) w.i32(p.unversioned ? 0 : ue5);
  w.i32(p.unversioned ? 0 : (p.fileVersionLicenseeUE4 ?? 0));
  const cvs = p.unversioned ? [] : (p.customVersions ?? []);
  if (ue5 >= V5.PackageSavedHash) {
    w.bytes(p.savedHash ? fromHex(p.savedHash) : new Uint8Array(20));
    w.i32(o.totalHeaderSize);
  }
  w.i32(cvs.length);
  for (const cv of cvs) {
    w.bytes(keyBytes(cv.key));
    w.i32(cv.version);
  }
  if (ue5 < V5.PackageSavedHash) w.i32(o.totalHeaderSize);
  fstring(w, ue5 === 0 ? 'None' : p.packageName);
  w.u32(p.packageFlags);
  w.i32(p.names.length);
  w.i32(o.nameOffset);
  if (ue5 >= V5.AddSoftObjectPathList) {
    w.i32(0);
    w.i32(o.importOffset);
  }
  w.i32(0); // gatherable text data
  w.i32(0);
  w.i32(p.exports.length);
  w.i32(o.exportOffset);
  w.i32(p.imports.length);
  w.i32(o.importOffset);
  if (ue5 >= V5.VerseCells) {
    w.i32(p.cellExports?.length ?? 0);
    w.i32(o.cellExportOffset);
    w.i32(p.cellImports?.length ?? 0);
    w.i32(o.cellImportOffset);
  } else if ((p.cellImports?.length ?? 0) + (p.cellExports?.length ?? 0) > 0) {
    throw new IoStoreError('USAGE', `UE5 object version ${ue5} has no Verse cell tables (they came with ${V5.VerseCells})`);
  }
  if (ue5 >= V5.MetadataSerializationOffset) w.i32(0);
  w.i32(o.dependsOffset);
  w.i32(0); // soft package references
  w.i32(0);
  w.i32(0); // searchable names
  w.i32(0); // thumbnail table
  if (ue5 >= V5.ImportTypeHierarchies) {
    w.i32(0);
    w.i32(0);
  }
  if (ue5 < V5.PackageSavedHash) w.bytes(p.guid ? fromHex(p.guid) : new Uint8Array(16));
  w.i32(1); // generations
  w.i32(p.exports.length);
  w.i32(p.names.length);
  engineStamp(w, p.savedByEngineVersion ?? NO_ENGINE);
  engineStamp(w, p.savedByEngineVersion ?? NO_ENGINE);
  w.u32(0); // compression flags
  w.i32(0); // compressed chunks
  w.u32(p.packageSource ?? 0);
  w.i32(0); // additional packages to cook
  w.i32(o.assetRegistryDataOffset);
  w.i64n(o.bulkDataStartOffset);
  w.i32(0); // world tile info
  w.i32(0); // chunk ids
  w.i32(p.preloadDependencies.length);
  w.i32(p.preloadDependencies.length > 0 ? o.preloadDependencyOffset : 0);
  if (ue5 >= V5.NamesReferencedFromExportData) w.i32(p.namesReferencedFromExportDataCount ?? p.names.length);
  if (ue5 >= V5.PayloadToc) w.i64n(-1);
  if (ue5 >= V5.DataResources) w.i32(p.dataResources && p.dataResources.length > 0 ? o.dataResourceOffset : -1);
}

/** FUtf8String: i32 byte count, the bytes (no terminator). */
function utf8String(w: ByteWriter, s: string): void {
  const b = new TextEncoder().encode(s);
  w.i32(b.length);
  w.bytes(b);
}

function writeCellExport(w: ByteWriter, c: LegacyCellExport, headerSize: number): void {
  name(w, c.cppClassInfo);
  utf8String(w, c.versePath);
  w.i64n(c.serialOffset + headerSize);
  w.i64n(c.serialLayoutSize);
  w.i64n(c.serialSize);
  w.i32(c.firstExportDependency);
  w.i32(c.serializationBeforeSerializationDependencies);
  w.i32(c.createBeforeSerializationDependencies);
}

/** Whether exports carry script-serialization offsets (1010+ packages with tagged properties). */
export function exportsHaveScriptOffsets(fileVersionUE5: number, packageFlags: number): boolean {
  return fileVersionUE5 >= V5.ScriptSerializationOffset && (packageFlags & PackageFlags.UnversionedProperties) === 0;
}

function writeImport(w: ByteWriter, p: LegacyPackageSpec, imp: LegacyImport): void {
  name(w, imp.classPackage);
  name(w, imp.className);
  w.i32(imp.outerIndex);
  name(w, imp.objectName);
  if (p.fileVersionUE5 >= V5.ImportTypeHierarchies) name(w, imp.packageName ?? imp.objectName);
  if (p.fileVersionUE5 >= V5.OptionalResources) w.i32(imp.importOptional ? 1 : 0);
}

/** Writes one export map entry; returns where its serial offset lies (patched once the header size is known). */
function writeExport(w: ByteWriter, p: LegacyPackageSpec, e: LegacyExport, serialOffset: number): number {
  const ue5 = p.fileVersionUE5;
  w.i32(e.classIndex);
  w.i32(e.superIndex);
  w.i32(e.templateIndex);
  w.i32(e.outerIndex);
  name(w, e.objectName);
  w.u32(e.objectFlags);
  w.i64n(e.serialSize);
  const serialOffsetAt = w.length;
  w.i64n(serialOffset);
  w.i32(e.forcedExport ? 1 : 0);
  w.i32(e.notForClient ? 1 : 0);
  w.i32(e.notForServer ? 1 : 0);
  if (ue5 < V5.RemoveObjectExportPackageGuid) w.bytes(e.packageGuid ? fromHex(e.packageGuid) : new Uint8Array(16));
  if (ue5 >= V5.TrackObjectExportIsInherited) w.i32(e.isInheritedInstance ? 1 : 0);
  w.u32(e.packageFlags);
  w.i32(e.notAlwaysLoadedForEditorGame ? 1 : 0);
  w.i32(e.isAsset ? 1 : 0);
  if (ue5 >= V5.OptionalResources) w.i32(e.generatePublicHash ? 1 : 0);
  w.i32(e.firstExportDependency);
  w.i32(e.serializationBeforeSerializationDependencies);
  w.i32(e.createBeforeSerializationDependencies);
  w.i32(e.serializationBeforeCreateDependencies);
  w.i32(e.createBeforeCreateDependencies);
  if (exportsHaveScriptOffsets(ue5, p.packageFlags)) {
    w.i64n(e.scriptSerializationStartOffset ?? 0);
    w.i64n(e.scriptSerializationEndOffset ?? e.serialSize);
  }
  return serialOffsetAt;
}

/**
 * Writes the `.uasset` of a cooked legacy package in the engine's section order (summary, names, imports, exports,
 * depends map, asset registry data, preload dependencies, data resources). Returns the bytes and the header size,
 * which is where the exports' data starts in the combined `.uasset` + `.uexp` stream.
 */
export function writeLegacyPackage(p: LegacyPackageSpec): { uasset: Uint8Array; totalHeaderSize: number } {
  if (p.fileVersionUE5 !== 0 && p.fileVersionUE5 < V5.Initial) throw new IoStoreError('USAGE', `UE5 object version ${p.fileVersionUE5} is not valid`);
  const o: Offsets = { nameOffset: 0, importOffset: 0, exportOffset: 0, cellImportOffset: 0, cellExportOffset: 0, dependsOffset: 0, assetRegistryDataOffset: 0, preloadDependencyOffset: 0, dataResourceOffset: 0, totalHeaderSize: 0, bulkDataStartOffset: 0 };
  // Scratch writers shared by every call (this function never yields): converting a game writes thousands of
  // packages, and fresh growable buffers for each cost more than the writing.
  const head = SCRATCH.head;
  const body = SCRATCH.body;
  head.reset();
  body.reset();
  // The summary is written twice: first for its size (the offsets depend on it), then with the offsets.
  writeSummary(head, p, o);
  const summarySize = head.length;
  const at = () => summarySize + body.length;
  o.nameOffset = at();
  for (const n of p.names) body.bytes(nameEntry(n));
  o.importOffset = at();
  for (const imp of p.imports) writeImport(body, p, imp);
  o.exportOffset = at();
  // Serial offsets count from the header's end, known only once every table is written: patched in below.
  const serialOffsetsAt: number[] = new Array(p.exports.length);
  for (let k = 0; k < p.exports.length; k++) serialOffsetsAt[k] = writeExport(body, p, p.exports[k]!, 0);
  o.cellImportOffset = at();
  for (const c of p.cellImports ?? []) {
    body.i32(c.packageIndex);
    utf8String(body, c.versePath);
  }
  o.cellExportOffset = at();
  const cellExportsAt = body.length;
  for (const c of p.cellExports ?? []) writeCellExport(body, c, 0);
  o.dependsOffset = at();
  body.zeros(4 * p.exports.length); // an empty dependency list per export
  o.assetRegistryDataOffset = at();
  body.i32(0); // no asset registry objects
  o.preloadDependencyOffset = at();
  for (const d of p.preloadDependencies) body.i32(d);
  o.dataResourceOffset = at();
  if (p.fileVersionUE5 >= V5.DataResources && p.dataResources && p.dataResources.length > 0) {
    const version = p.fileVersionUE5 >= 1013 ? DATA_RESOURCE_VERSION.AddedCookedIndex : DATA_RESOURCE_VERSION.Initial;
    writeDataResources(body, version, p.dataResources);
  }
  o.totalHeaderSize = at();
  let offset = o.totalHeaderSize;
  for (const e of p.exports) offset += e.serialSize;
  o.bulkDataStartOffset = offset;
  head.reset();
  writeSummary(head, p, o);
  if (head.length !== summarySize) throw new IoStoreError('USAGE', 'legacy summary size changed between passes');
  const out = new Uint8Array(o.totalHeaderSize);
  out.set(head.written(), 0);
  out.set(body.written(), summarySize);
  const view = new DataView(out.buffer);
  offset = o.totalHeaderSize;
  for (let k = 0; k < p.exports.length; k++) {
    view.setBigInt64(summarySize + serialOffsetsAt[k]!, BigInt(offset), true);
    offset += p.exports[k]!.serialSize;
  }
  if (p.cellExports && p.cellExports.length > 0) {
    // Cell exports hold offsets from the header's end too: written again, like the export map.
    const cells = new ByteWriter(128);
    for (const c of p.cellExports) writeCellExport(cells, c, o.totalHeaderSize);
    out.set(cells.finish(), summarySize + cellExportsAt);
  }
  return { uasset: out, totalHeaderSize: o.totalHeaderSize };
}

const SCRATCH = { head: new ByteWriter(1024), body: new ByteWriter(64 << 10) };

/** The `.uexp`: each export's data in export-map order, then the package tag. */
export function buildUexp(exportData: readonly Uint8Array[]): Uint8Array {
  let n = 4;
  for (const d of exportData) n += d.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const d of exportData) {
    out.set(d, at);
    at += d.length;
  }
  new DataView(out.buffer).setUint32(at, LEGACY_PACKAGE_TAG, true);
  return out;
}
