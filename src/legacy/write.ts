import { IoStoreError } from '../errors.js';
import { concatBytes } from '../toc/directory-index.js';
import { fromHex } from '../util/bytes.js';
import { ByteWriter } from '../zen/byte-writer.js';
import { DATA_RESOURCE_VERSION, writeDataResources, type LegacyDataResource } from './data-resources.js';
import { EDITOR_TABLES, writeEditorTable, type EditorTableWriteContext, type LegacyEditorTables } from './editor-tables/index.js';
import { editorTableFormat, fortniteMainOf, type EditorTableFormat } from './editor-tables/format.js';
import { casePreservingNameHash, nonCasePreservingNameHash } from './name-hash.js';
import type { LegacyCellExport, LegacyCellImport, LegacyExport, LegacyImport, LegacyName, LegacyNameEntry } from './package.js';
import type { LegacyRegion, LegacyTable } from './regions.js';
import { writeFString, writeUtf8String } from './strings.js';
import { summaryShape, type EngineVersionStamp, type LegacyCustomVersion, type LegacyPackageSummary } from './summary.js';
import { legacyFileVersionFor, writeLegacySummary } from './summary-writer.js';
import { exportEntryShape, exportsHaveScriptOffsets, importsHavePackageName, type ExportEntryShape } from './tables.js';
import { LEGACY_PACKAGE_TAG, UE4_OBJECT_VERSION as V4, UE5_LEGACY_VERSION as V5 } from './versions.js';

export { exportsHaveScriptOffsets } from './tables.js';
export { legacyFileVersionFor } from './summary-writer.js';

/**
 * What a legacy package is made of; counts, offsets and sizes are computed by the writer. The required fields make
 * a cooked package the way the engine lays one out; the optional ones (what legacyPackageSpec fills from a parsed
 * package) keep every other stored field and table, so that a package read and written back is the same bytes.
 */
export interface LegacyPackageSpec {
  /** Object versions the layout follows (e.g. 522 / 0 for UE 4.26-4.27, 522 / 1000+ for UE5). */
  fileVersionUE4: number;
  fileVersionUE5: number;
  fileVersionLicenseeUE4?: number;
  /** Store zeros instead of the versions (the form of unversioned cooked packages). */
  unversioned: boolean;
  customVersions?: LegacyCustomVersion[];
  /** `/Game/...` (written as `None` for UE4, as the engine does, unless `summary` stores another folder name). */
  packageName: string;
  packageFlags: number;
  /** Names as text (their hashes computed), or as read (stored hashes and form kept, wrong ones included). */
  names: ReadonlyArray<string | LegacyNameEntry>;
  /** Names [0, n) are those the export data refers to (default: all). */
  namesReferencedFromExportDataCount?: number;
  imports: LegacyImport[];
  /**
   * Exports in this order. Without `summary`, serialOffset is ignored: the exports are laid out back to back in
   * the .uexp. With it, each keeps its place relative to the end of the header.
   */
  exports: LegacyExport[];
  preloadDependencies: number[];
  /** 5.6+ Verse cells; a cell export's serialOffset is its offset in the `.uexp` (the writer adds the header size). */
  cellImports?: LegacyCellImport[];
  cellExports?: LegacyCellExport[];
  dataResources?: LegacyDataResource[];
  /** The data resource table's version (default: 2 from UE5 1013, else 1). */
  dataResourceVersion?: number;
  /** Hex of the package GUID (before 1016) or the saved hash (1016+); zeros when absent. */
  guid?: string;
  savedHash?: string;
  savedByEngineVersion?: EngineVersionStamp;
  packageSource?: number;
  /** Whether imports carry their package name (default: uncooked UE4 520+, cooked UE5 1018+, i.e. 5.8 on). */
  importPackageNames?: boolean;
  /** Whether exports carry script-serialization offsets (default: UE5 1010+ without unversioned properties). */
  exportScriptOffsets?: boolean;
  /**
   * The summary as read: every field the spec does not set (legacy and UE3 versions, localization id, GUIDs,
   * generations, both engine versions, chunk ids, counts of the tables kept as bytes ...) is written from it.
   */
  summary?: LegacyPackageSummary;
  /**
   * The editor tables (thumbnails, gatherable text, soft object paths, metadata, searchable names, asset registry
   * data, world tile info, the trailer, the depends map ...) for the regions that name one and give no bytes. The
   * writer sets their counts in the summary and the offsets inside them (thumbnail index, asset registry dependency
   * data) from where it puts them.
   */
  editorTables?: LegacyEditorTables;
  /**
   * What follows the summary, in file order: the tables the writer makes from this spec, and the others as bytes
   * kept as read (an editor package's export data, bulk data and trailer among them). Each summary offset takes
   * the place of its table. Default: the cooked layout (names, imports, exports, cells, depends map, asset registry
   * data, preload dependencies, data resources).
   */
  regions?: LegacyRegion[];
}

const NO_ENGINE: EngineVersionStamp = { major: 0, minor: 0, patch: 0, changelist: 0, branch: '' };

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
    writeFString(w, n);
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

function writeNames(w: ByteWriter, names: LegacyPackageSpec['names'], hashes: boolean): void {
  for (const n of names) {
    if (typeof n === 'string') {
      if (hashes) w.bytes(nameEntry(n));
      else writeFString(w, n);
      continue;
    }
    writeFString(w, n.name, n.wide);
    if (hashes) {
      w.u16(n.nonCasePreservingHash);
      w.u16(n.casePreservingHash);
    }
  }
}

function name(w: ByteWriter, n: LegacyName): void {
  w.i32(n.index);
  w.i32(n.number);
}

function writeCellExport(w: ByteWriter, c: LegacyCellExport, headerSize: number): void {
  name(w, c.cppClassInfo);
  writeUtf8String(w, c.versePath);
  w.i64n(c.serialOffset + headerSize);
  w.i64n(c.serialLayoutSize);
  w.i64n(c.serialSize);
  w.i32(c.firstExportDependency);
  w.i32(c.serializationBeforeSerializationDependencies);
  w.i32(c.createBeforeSerializationDependencies);
}

function writeImport(w: ByteWriter, imp: LegacyImport, packageNames: boolean, optional: boolean): void {
  name(w, imp.classPackage);
  name(w, imp.className);
  w.i32(imp.outerIndex);
  name(w, imp.objectName);
  if (packageNames) name(w, imp.packageName ?? imp.objectName);
  if (optional) w.i32(imp.importOptional ? 1 : 0);
}

/** Writes one export map entry; returns where its serial offset lies (patched once the header size is known). */
function writeExport(w: ByteWriter, e: LegacyExport, f: ExportEntryShape, scriptOffsets: boolean): number {
  w.i32(e.classIndex);
  w.i32(e.superIndex);
  if (f.templateIndex) w.i32(e.templateIndex);
  w.i32(e.outerIndex);
  name(w, e.objectName);
  w.u32(e.objectFlags);
  if (f.wideSerial) w.i64n(e.serialSize);
  else w.i32(e.serialSize);
  const serialOffsetAt = w.length;
  if (f.wideSerial) w.i64n(0);
  else w.i32(0);
  w.i32(e.forcedExport ? 1 : 0);
  w.i32(e.notForClient ? 1 : 0);
  w.i32(e.notForServer ? 1 : 0);
  if (f.packageGuid) w.bytes(e.packageGuid && e.packageGuid !== ZERO_GUID_HEX ? fromHex(e.packageGuid) : ZERO_GUID);
  if (f.inheritedInstance) w.i32(e.isInheritedInstance ? 1 : 0);
  w.u32(e.packageFlags);
  if (f.notAlwaysLoadedForEditorGame) w.i32(e.notAlwaysLoadedForEditorGame ? 1 : 0);
  if (f.isAsset) w.i32(e.isAsset ? 1 : 0);
  if (f.generatePublicHash) w.i32(e.generatePublicHash ? 1 : 0);
  if (f.preloadDependencies) {
    w.i32(e.firstExportDependency);
    w.i32(e.serializationBeforeSerializationDependencies);
    w.i32(e.createBeforeSerializationDependencies);
    w.i32(e.serializationBeforeCreateDependencies);
    w.i32(e.createBeforeCreateDependencies);
  }
  if (scriptOffsets) {
    w.i64n(e.scriptSerializationStartOffset ?? 0);
    w.i64n(e.scriptSerializationEndOffset ?? e.serialSize);
  }
  return serialOffsetAt;
}
const ZERO_GUID = new Uint8Array(16);
/** Cooked exports' package GUIDs are zeros: spared the hex parse. */
const ZERO_GUID_HEX = '0'.repeat(32);

/** The summary the spec describes, counts and offsets still to be set. */
function baseSummary(p: LegacyPackageSpec): LegacyPackageSummary {
  const ue4 = p.fileVersionUE4;
  const ue5 = p.fileVersionUE5;
  const kept = p.summary;
  const s: LegacyPackageSummary = kept
    ? { ...kept, customVersions: kept.customVersions, generations: kept.generations.map((g) => ({ ...g })) }
    : {
        legacyFileVersion: legacyFileVersionFor(ue5),
        legacyUE3Version: p.unversioned ? 0 : 864,
        storedFileVersionUE4: 0,
        storedFileVersionUE5: 0,
        fileVersionLicenseeUE4: 0,
        unversioned: p.unversioned,
        fileVersionUE4: ue4,
        fileVersionUE5: ue5,
        totalHeaderSize: 0,
        customVersions: [],
        packageName: 'None',
        packageFlags: p.packageFlags,
        nameCount: 0, nameOffset: 0, softObjectPathsCount: 0, softObjectPathsOffset: 0,
        gatherableTextDataCount: 0, gatherableTextDataOffset: 0,
        exportCount: 0, exportOffset: 0, importCount: 0, importOffset: 0,
        cellExportCount: 0, cellExportOffset: 0, cellImportCount: 0, cellImportOffset: 0,
        metaDataOffset: 0, dependsOffset: 0, softPackageReferencesCount: 0, softPackageReferencesOffset: 0,
        searchableNamesOffset: 0, thumbnailTableOffset: 0,
        generations: [{ exportCount: p.exports.length, nameCount: p.names.length }],
        savedByEngineVersion: NO_ENGINE,
        compatibleWithEngineVersion: NO_ENGINE,
        compressionFlags: 0,
        packageSource: 0,
        additionalPackagesToCook: [],
        assetRegistryDataOffset: 0,
        bulkDataStartOffset: 0,
        worldTileInfoDataOffset: 0,
        chunkIds: [],
        preloadDependencyCount: 0,
        preloadDependencyOffset: 0,
        namesReferencedFromExportDataCount: 0,
        payloadTocOffset: -1,
        dataResourceOffset: -1,
        importTypeHierarchiesCount: 0,
        importTypeHierarchiesOffset: 0,
        summarySize: 0,
      };
  s.fileVersionUE4 = ue4;
  s.fileVersionUE5 = ue5;
  s.unversioned = p.unversioned;
  s.storedFileVersionUE4 = p.unversioned ? 0 : ue4;
  s.storedFileVersionUE5 = p.unversioned ? 0 : ue5;
  s.fileVersionLicenseeUE4 = p.unversioned ? 0 : (p.fileVersionLicenseeUE4 ?? s.fileVersionLicenseeUE4);
  s.customVersions = p.unversioned ? [] : (p.customVersions ?? s.customVersions);
  // A stored name that is not a path (UE4's `None`, a folder name) stays as it is.
  if (ue5 !== 0 && (!kept || kept.packageName.startsWith('/'))) s.packageName = p.packageName;
  s.packageFlags = p.packageFlags;
  if (ue5 >= V5.PackageSavedHash) {
    if (p.savedHash !== undefined) s.savedHash = p.savedHash;
    delete s.guid;
  } else {
    if (p.guid !== undefined) s.guid = p.guid;
    delete s.savedHash;
  }
  if (p.savedByEngineVersion) {
    s.savedByEngineVersion = p.savedByEngineVersion;
    if (!kept) s.compatibleWithEngineVersion = p.savedByEngineVersion;
  }
  if (p.packageSource !== undefined) s.packageSource = p.packageSource;
  s.nameCount = p.names.length;
  s.importCount = p.imports.length;
  s.exportCount = p.exports.length;
  s.cellImportCount = p.cellImports?.length ?? 0;
  s.cellExportCount = p.cellExports?.length ?? 0;
  // Cooks without the event-driven loader store -1 for "no preload dependencies": kept when there are none.
  s.preloadDependencyCount = p.preloadDependencies.length === 0 && kept && kept.preloadDependencyCount < 0 ? kept.preloadDependencyCount : p.preloadDependencies.length;
  s.namesReferencedFromExportDataCount = p.namesReferencedFromExportDataCount ?? (kept ? kept.namesReferencedFromExportDataCount : p.names.length);
  return s;
}

/** The cooked layout after the summary, as the engine writes it (checked on the corpus pairs). */
function cookedRegions(p: LegacyPackageSpec): LegacyRegion[] {
  const regions: LegacyRegion[] = [{ table: 'names' }, { table: 'softObjectPaths', bytes: EMPTY }, { table: 'imports' }, { table: 'exports' }, { table: 'cellImports' }, { table: 'cellExports' }];
  regions.push({ table: 'depends', bytes: new Uint8Array(4 * p.exports.length) }); // an empty dependency list per export
  regions.push({ table: 'assetRegistryData', bytes: new Uint8Array(4) }); // no asset registry objects
  if (p.preloadDependencies.length > 0) regions.push({ table: 'preloadDependencies' });
  if (p.fileVersionUE5 >= V5.DataResources && p.dataResources && p.dataResources.length > 0) regions.push({ table: 'dataResources' });
  return regions;
}
const EMPTY = new Uint8Array(0);

/** The summary's numeric fields (its offsets among them). */
type NumberField = { [K in keyof LegacyPackageSummary]-?: LegacyPackageSummary[K] extends number ? K : never }[keyof LegacyPackageSummary];

/** The summary field each table's place is written to. */
const OFFSET_FIELD: Partial<Record<LegacyTable, NumberField>> = {
  names: 'nameOffset',
  softObjectPaths: 'softObjectPathsOffset',
  gatherableText: 'gatherableTextDataOffset',
  imports: 'importOffset',
  exports: 'exportOffset',
  cellImports: 'cellImportOffset',
  cellExports: 'cellExportOffset',
  metaData: 'metaDataOffset',
  depends: 'dependsOffset',
  softPackageReferences: 'softPackageReferencesOffset',
  searchableNames: 'searchableNamesOffset',
  thumbnails: 'thumbnailTableOffset',
  importTypeHierarchies: 'importTypeHierarchiesOffset',
  assetRegistryData: 'assetRegistryDataOffset',
  worldTileInfo: 'worldTileInfoDataOffset',
  preloadDependencies: 'preloadDependencyOffset',
  dataResources: 'dataResourceOffset',
  exportData: 'totalHeaderSize',
  bulkData: 'bulkDataStartOffset',
  payloadToc: 'payloadTocOffset',
};

/** Where the tables the writer makes were put in `body`, for the offsets patched once the header size is known. */
interface Placed {
  serialOffsetsAt: number[];
  cellExportsAt: number;
  /** For the editor tables: the layout, and where `body` starts in the file (the summary's size). */
  editor: EditorTableWriteContext;
}

/**
 * The layout the editor tables are written with: the summary's versions and flags; the custom version the summary
 * stores, else the one they were read with (an unversioned package stores none); soft object paths by index when
 * the list written is not empty.
 */
function editorWriteFormat(s: LegacyPackageSummary, p: LegacyPackageSpec): EditorTableFormat {
  const f = editorTableFormat(s);
  f.fortniteMain = fortniteMainOf(s.customVersions) ?? p.editorTables?.format.fortniteMain ?? f.fortniteMain;
  const typedPaths = p.regions?.some((r) => r.table === 'softObjectPaths' && !r.bytes) && p.editorTables?.softObjectPaths;
  // Indices when the list is not empty, unless the tables were read with paths inline (a save with mapping off).
  f.softObjectPathIndices = s.fileVersionUE5 >= V5.AddSoftObjectPathList && (typedPaths ? typedPaths.length : s.softObjectPathsCount) > 0 && !p.editorTables?.format.softObjectPathsInline;
  return f;
}

/** The summary counts of the editor tables written from values. */
function setEditorCounts(s: LegacyPackageSummary, p: LegacyPackageSpec, written: ReadonlySet<LegacyTable>): void {
  const t = p.editorTables;
  if (!t) return;
  if (written.has('softObjectPaths') && t.softObjectPaths) s.softObjectPathsCount = t.softObjectPaths.length;
  if (written.has('gatherableText') && t.gatherableText) s.gatherableTextDataCount = t.gatherableText.length;
  if (written.has('softPackageReferences') && t.softPackageReferences) s.softPackageReferencesCount = t.softPackageReferences.length;
}

/** Writes one region's bytes: a table made from the spec, or bytes kept as read. */
function writeRegion(body: ByteWriter, region: LegacyRegion, p: LegacyPackageSpec, placed: Placed): void {
  if (region.bytes) {
    body.bytes(region.bytes);
    return;
  }
  const ue4 = p.fileVersionUE4;
  const ue5 = p.fileVersionUE5;
  switch (region.table) {
    case 'names':
      writeNames(body, p.names, ue4 >= V4.NameHashesSerialized);
      return;
    case 'imports': {
      const packageNames = p.importPackageNames ?? importsHavePackageName(ue4, ue5, p.packageFlags);
      for (const imp of p.imports) writeImport(body, imp, packageNames, ue5 >= V5.OptionalResources);
      return;
    }
    case 'exports': {
      const shape = exportEntryShape(ue4, ue5);
      const scriptOffsets = p.exportScriptOffsets ?? exportsHaveScriptOffsets(ue5, p.packageFlags);
      placed.serialOffsetsAt = p.exports.map((e) => writeExport(body, e, shape, scriptOffsets));
      return;
    }
    case 'cellImports':
      for (const c of p.cellImports ?? []) {
        body.i32(c.packageIndex);
        writeUtf8String(body, c.versePath);
      }
      return;
    case 'cellExports':
      placed.cellExportsAt = body.length;
      for (const c of p.cellExports ?? []) writeCellExport(body, c, 0);
      return;
    case 'preloadDependencies':
      for (const d of p.preloadDependencies) body.i32(d);
      return;
    case 'dataResources': {
      const version = p.dataResourceVersion ?? (ue5 >= V5.AssetRegistryPackageBuildDependencies ? DATA_RESOURCE_VERSION.AddedCookedIndex : DATA_RESOURCE_VERSION.Initial);
      writeDataResources(body, version, p.dataResources ?? []);
      return;
    }
    default:
      if (!EDITOR_TABLES.has(region.table) || !p.editorTables) throw new IoStoreError('USAGE', `the writer makes no "${region.table}" table: give its bytes`);
      writeEditorTable(body, region.table, p.editorTables, placed.editor);
  }
}

/**
 * Writes a legacy `.uasset`: the summary, then the regions (default: the cooked layout). Returns the bytes and the
 * header size, which is where the exports' data starts in the combined `.uasset` + `.uexp` stream.
 */
export function writeLegacyPackage(p: LegacyPackageSpec): { uasset: Uint8Array; totalHeaderSize: number } {
  if (p.fileVersionUE5 !== 0 && p.fileVersionUE5 < V5.Initial) throw new IoStoreError('USAGE', `UE5 object version ${p.fileVersionUE5} is not valid`);
  const s = baseSummary(p);
  const shape = summaryShape(s.legacyFileVersion, s.fileVersionUE4, s.fileVersionUE5, s.packageFlags);
  if (!shape.cells && s.cellImportCount + s.cellExportCount > 0) {
    throw new IoStoreError('USAGE', `UE5 object version ${p.fileVersionUE5} has no Verse cell tables (they came with ${V5.VerseCells})`);
  }
  // Scratch writers shared by every call (this function never yields): converting a game writes thousands of
  // packages, and fresh growable buffers for each cost more than the writing.
  const head = SCRATCH.head;
  const body = SCRATCH.body;
  head.reset();
  body.reset();
  // The summary is written twice: first for its size (the offsets depend on it), then with the offsets.
  writeLegacySummary(head, s);
  const summarySize = head.length;
  const placed: Placed = { serialOffsetsAt: [], cellExportsAt: -1, editor: { format: editorWriteFormat(s, p), base: summarySize, exportCount: p.exports.length } };
  const starts = new Map<LegacyTable, number>();
  const fromValues = new Set<LegacyTable>();
  for (const region of p.regions ?? cookedRegions(p)) {
    if (!starts.has(region.table)) starts.set(region.table, summarySize + body.length);
    if (!region.bytes) fromValues.add(region.table);
    writeRegion(body, region, p, placed);
  }
  setEditorCounts(s, p, fromValues);
  const end = summarySize + body.length;
  for (const [table, n] of [['names', p.names.length], ['imports', p.imports.length], ['exports', p.exports.length], ['cellImports', s.cellImportCount], ['cellExports', s.cellExportCount], ['preloadDependencies', p.preloadDependencies.length]] as const) {
    if (n > 0 && !starts.has(table)) throw new IoStoreError('USAGE', `the regions have no place for the ${n} entries of ${table}`);
  }
  const oldHeader = p.summary?.totalHeaderSize;
  for (const [table, at] of starts) {
    const field = OFFSET_FIELD[table];
    if (field !== undefined) s[field] = at;
  }
  const headerSize = starts.get('exportData') ?? end;
  s.totalHeaderSize = headerSize;
  // Offsets past the header (export data, bulk data, the payload table) move with it.
  const shift = (v: number) => (oldHeader !== undefined && v >= oldHeader ? v - oldHeader + headerSize : v);
  let dataEnd = headerSize;
  for (const e of p.exports) dataEnd += e.serialSize;
  if (!starts.has('bulkData')) s.bulkDataStartOffset = p.summary ? shift(p.summary.bulkDataStartOffset) : dataEnd;
  if (!starts.has('payloadToc') && p.summary) s.payloadTocOffset = shift(p.summary.payloadTocOffset);
  if (!p.summary) {
    if (!starts.has('preloadDependencies')) s.preloadDependencyOffset = 0;
    if (!starts.has('dataResources')) s.dataResourceOffset = -1;
  }
  head.reset();
  writeLegacySummary(head, s);
  if (head.length !== summarySize) throw new IoStoreError('USAGE', 'legacy summary size changed between passes');
  const out = new Uint8Array(end);
  out.set(head.written(), 0);
  out.set(body.written(), summarySize);
  const view = new DataView(out.buffer);
  const wide = exportEntryShape(p.fileVersionUE4, p.fileVersionUE5).wideSerial;
  let offset = headerSize;
  p.exports.forEach((e, k) => {
    const at = summarySize + placed.serialOffsetsAt[k]!;
    const v = p.summary ? shift(e.serialOffset) : offset;
    if (wide) view.setBigInt64(at, BigInt(v), true);
    else view.setInt32(at, v, true);
    offset += e.serialSize;
  });
  if (p.cellExports && p.cellExports.length > 0 && placed.cellExportsAt >= 0) {
    // Cell exports hold offsets from the header's end too: written again, like the export map.
    const cells = new ByteWriter(128);
    for (const c of p.cellExports) writeCellExport(cells, c, headerSize);
    out.set(cells.finish(), summarySize + placed.cellExportsAt);
  }
  return { uasset: out, totalHeaderSize: headerSize };
}

const SCRATCH = { head: new ByteWriter(1024), body: new ByteWriter(64 << 10) };

/** The `.uexp`: each export's data in export-map order, then the package tag. */
export function buildUexp(exportData: readonly Uint8Array[]): Uint8Array {
  const tag = new Uint8Array(4);
  new DataView(tag.buffer).setUint32(0, LEGACY_PACKAGE_TAG, true);
  return concatBytes([...exportData, tag]);
}
