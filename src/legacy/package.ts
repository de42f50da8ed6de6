import { IoStoreError } from '../errors.js';
import type { EngineVersion } from '../toc/engine.js';
import { ByteReader } from '../util/bytes.js';
import { readDataResources, type LegacyDataResource } from './data-resources.js';
import { readLegacySummary, type LegacyPackageSummary } from './summary.js';
import {
  LEGACY_PACKAGE_TAG,
  objectVersionsOfEngine,
  PackageFlags,
  UE4_OBJECT_VERSION as V4,
  UE5_LEGACY_VERSION as V5,
  UNVERSIONED_CANDIDATES,
  type LegacyObjectVersions,
} from './versions.js';

/** An FName as stored in tables: an index into the name map and a number (0 = none, k = `_<k-1>`). */
export interface LegacyName {
  index: number;
  number: number;
}

/** One name-map entry with its two stored 16-bit hashes (absent before UE4 504). */
export interface LegacyNameEntry {
  name: string;
  nonCasePreservingHash: number;
  casePreservingHash: number;
}

/** FObjectImport. */
export interface LegacyImport {
  classPackage: LegacyName;
  className: LegacyName;
  /** FPackageIndex: <0 import -i-1, >0 export i-1, 0 none. */
  outerIndex: number;
  objectName: LegacyName;
  /** UE 5.8+ cooked packages (and uncooked ones since UE4 520): the package the object lives in, when not the outer's. */
  packageName?: LegacyName;
  importOptional: boolean;
}

/** FObjectExport. */
export interface LegacyExport {
  classIndex: number;
  superIndex: number;
  templateIndex: number;
  outerIndex: number;
  objectName: LegacyName;
  objectFlags: number;
  /** Size of the export's data. */
  serialSize: number;
  /** Offset of the export's data in the combined `.uasset` + `.uexp` stream. */
  serialOffset: number;
  forcedExport: boolean;
  notForClient: boolean;
  notForServer: boolean;
  /** Before UE5 1005: hex of the package GUID. */
  packageGuid?: string;
  isInheritedInstance: boolean;
  packageFlags: number;
  notAlwaysLoadedForEditorGame: boolean;
  isAsset: boolean;
  generatePublicHash: boolean;
  firstExportDependency: number;
  serializationBeforeSerializationDependencies: number;
  createBeforeSerializationDependencies: number;
  serializationBeforeCreateDependencies: number;
  createBeforeCreateDependencies: number;
  /** UE5 1010+ tagged-property packages: the span of the tagged properties inside the export data. */
  scriptSerializationStartOffset?: number;
  scriptSerializationEndOffset?: number;
}

/** 5.6+ FCellImport: a Verse cell of another package (or a native one), by the package import and its Verse path. */
export interface LegacyCellImport {
  /** FPackageIndex of the import of the package that holds the cell. */
  packageIndex: number;
  /** The cell's Verse path (UTF-8). */
  versePath: string;
}

/** 5.6+ FCellExport: a Verse cell this package holds. */
export interface LegacyCellExport {
  /** The name of the cell's native class info. */
  cppClassInfo: LegacyName;
  /** The cell's Verse path (UTF-8; empty for a cell nothing outside the package refers to). */
  versePath: string;
  /** Offset of the cell's data in the combined `.uasset` + `.uexp` stream, like an export's. */
  serialOffset: number;
  /** Size of the data's first part (what loading allocates from). */
  serialLayoutSize: number;
  serialSize: number;
  /** Preload dependencies: only "before serialize" ones (a cell has no create dependencies). */
  firstExportDependency: number;
  serializationBeforeSerializationDependencies: number;
  createBeforeSerializationDependencies: number;
}

/** The entry sizes and optional fields the tables were read with. */
export interface LegacyTableLayout {
  /** 28 (UE4), 32 (UE5 1003+), 40 with a package name. */
  importEntrySize: number;
  importHasPackageName: boolean;
  /** 104 (4.27, with package GUID), 108 (5.0), 96 (5.1+), 112 (with script-serialization offsets). */
  exportEntrySize: number;
  exportHasScriptOffsets: boolean;
  /** 12 (name + two hashes) or 4 + string, per entry; true when hashes follow each name. */
  nameHashes: boolean;
}

/** A parsed legacy `.uasset`/`.umap` header. */
export interface LegacyPackage {
  source: string;
  summary: LegacyPackageSummary;
  layout: LegacyTableLayout;
  names: LegacyNameEntry[];
  imports: LegacyImport[];
  exports: LegacyExport[];
  /**
   * 5.6+ Verse cells. Package indices past the import map name cell imports (import k >= imports.length is cell
   * import k - imports.length), and past the export map cell exports, in preload dependencies.
   */
  cellImports: LegacyCellImport[];
  cellExports: LegacyCellExport[];
  /** Preload dependencies (FPackageIndex values), `summary.preloadDependencyCount` of them. */
  preloadDependencies: number[];
  /** UE 5.2+: the data resource table (bulk data payloads), empty when absent. */
  dataResources: LegacyDataResource[];
  /** The package name when the summary does not hold it (UE4 stores `None`), e.g. from the file's path. */
  packageNameHint?: string;
}

export interface ParseLegacyOptions {
  /** Name used in error messages. */
  source?: string;
  /** Engine release, for unversioned packages (which store no object versions). */
  engine?: EngineVersion;
  /** Object versions for unversioned packages; wins over `engine`. */
  versions?: LegacyObjectVersions;
  /** The package name (e.g. `/Game/Maps/Level`), for UE4 packages whose summary stores `None`. */
  packageName?: string;
}

/**
 * True when `bytes` start like a UE4/UE5 legacy package: the package file tag, then a negative legacy file version
 * (classic UE1-UE3 packages have the same tag followed by a positive file version; zen packages no tag).
 */
export function isLegacyPackage(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  const v = new DataView(bytes.buffer, bytes.byteOffset, 8);
  if (v.getUint32(0, true) !== LEGACY_PACKAGE_TAG) return false;
  const legacy = v.getInt32(4, true);
  return legacy < 0 && legacy >= -16;
}

function readName(r: ByteReader, what: string): LegacyName {
  return { index: r.i32(what), number: r.i32(what) };
}

const bool32 = (r: ByteReader, what: string) => r.i32(what) !== 0;

/** FUtf8String: i32 byte count (no terminator), then the bytes. */
function utf8String(r: ByteReader, what: string): string {
  const at = r.pos;
  const n = r.i32(`${what} length`);
  if (n < 0 || n > r.remaining) r.fail('BAD_VALUE', `${what} of ${n} bytes does not fit the header`, at);
  return new TextDecoder().decode(r.bytesView(n, what));
}

function safeI64(r: ByteReader, what: string): number {
  const at = r.pos;
  const v = r.i64(what);
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) r.fail('BAD_VALUE', `${what} ${v} is out of range`, at);
  return Number(v);
}

function baseImportSize(s: LegacyPackageSummary): number {
  return 28 + (s.fileVersionUE5 >= V5.OptionalResources ? 4 : 0);
}

function baseExportSize(s: LegacyPackageSummary): number {
  const ue4 = s.fileVersionUE4;
  const ue5 = s.fileVersionUE5;
  let n = 16 + 8 + 4; // class, super, template, outer; name; flags
  if (ue4 < V4.TemplateIndexInCookedExports) n -= 4;
  n += ue4 >= V4.ExportMap64BitSizes ? 16 : 8;
  n += 12; // forced export, not for client, not for server
  if (ue5 < V5.RemoveObjectExportPackageGuid) n += 16;
  if (ue5 >= V5.TrackObjectExportIsInherited) n += 4;
  n += 4; // package flags
  n += 4; // not always loaded for editor game (UE4 365+, every supported version)
  if (ue4 >= V4.PackageHasAssetFlag) n += 4;
  if (ue5 >= V5.OptionalResources) n += 4;
  if (ue4 >= V4.PreloadDependenciesInCookedExports) n += 20;
  return n;
}

/**
 * The table layout for a summary. The stored versions say which fields exist; two optional fields depend on the
 * package's flags as well (import package names, script-serialization offsets), and where the bytes say otherwise
 * the space between adjacent tables decides.
 */
function tableLayout(s: LegacyPackageSummary): LegacyTableLayout {
  const cooked = (s.packageFlags & PackageFlags.FilterEditorOnly) !== 0;
  const importBase = baseImportSize(s);
  let importHasPackageName = (!cooked && s.fileVersionUE4 >= V4.NonOuterPackageImport) || s.fileVersionUE5 >= V5.ImportTypeHierarchies;
  if (s.importCount > 0 && s.exportOffset > s.importOffset) {
    const gap = (s.exportOffset - s.importOffset) / s.importCount;
    if (gap === importBase) importHasPackageName = false;
    else if (gap === importBase + 8) importHasPackageName = true;
  }
  const exportBase = baseExportSize(s);
  let exportHasScriptOffsets = s.fileVersionUE5 >= V5.ScriptSerializationOffset && (s.packageFlags & PackageFlags.UnversionedProperties) === 0;
  const afterExports = s.cellExportCount > 0 ? s.cellExportOffset : s.dependsOffset;
  if (s.exportCount > 0 && afterExports > s.exportOffset) {
    const gap = (afterExports - s.exportOffset) / s.exportCount;
    if (gap === exportBase) exportHasScriptOffsets = false;
    else if (gap === exportBase + 16) exportHasScriptOffsets = true;
  }
  return {
    importEntrySize: importBase + (importHasPackageName ? 8 : 0),
    importHasPackageName,
    exportEntrySize: exportBase + (exportHasScriptOffsets ? 16 : 0),
    exportHasScriptOffsets,
    nameHashes: s.fileVersionUE4 >= V4.NameHashesSerialized,
  };
}

function readImport(r: ByteReader, s: LegacyPackageSummary, layout: LegacyTableLayout): LegacyImport {
  const imp: LegacyImport = {
    classPackage: readName(r, 'import class package'),
    className: readName(r, 'import class name'),
    outerIndex: r.i32('import outer index'),
    objectName: readName(r, 'import object name'),
    importOptional: false,
  };
  if (layout.importHasPackageName) imp.packageName = readName(r, 'import package name');
  if (s.fileVersionUE5 >= V5.OptionalResources) imp.importOptional = bool32(r, 'import optional');
  return imp;
}

function readExport(r: ByteReader, s: LegacyPackageSummary, layout: LegacyTableLayout): LegacyExport {
  const ue4 = s.fileVersionUE4;
  const ue5 = s.fileVersionUE5;
  const classIndex = r.i32('export class index');
  const superIndex = r.i32('export super index');
  const templateIndex = ue4 >= V4.TemplateIndexInCookedExports ? r.i32('export template index') : 0;
  const outerIndex = r.i32('export outer index');
  const objectName = readName(r, 'export object name');
  const objectFlags = r.u32('export object flags');
  let serialSize: number;
  let serialOffset: number;
  if (ue4 >= V4.ExportMap64BitSizes) {
    serialSize = safeI64(r, 'export serial size');
    serialOffset = safeI64(r, 'export serial offset');
  } else {
    serialSize = r.i32('export serial size');
    serialOffset = r.i32('export serial offset');
  }
  const e: LegacyExport = {
    classIndex, superIndex, templateIndex, outerIndex, objectName, objectFlags, serialSize, serialOffset,
    forcedExport: bool32(r, 'forced export'),
    notForClient: bool32(r, 'not for client'),
    notForServer: bool32(r, 'not for server'),
    isInheritedInstance: false,
    packageFlags: 0,
    notAlwaysLoadedForEditorGame: false,
    isAsset: false,
    generatePublicHash: false,
    firstExportDependency: -1,
    serializationBeforeSerializationDependencies: 0,
    createBeforeSerializationDependencies: 0,
    serializationBeforeCreateDependencies: 0,
    createBeforeCreateDependencies: 0,
  };
  if (ue5 < V5.RemoveObjectExportPackageGuid) e.packageGuid = Array.from(r.bytesView(16, 'export package guid'), (b) => b.toString(16).padStart(2, '0')).join('');
  if (ue5 >= V5.TrackObjectExportIsInherited) e.isInheritedInstance = bool32(r, 'inherited instance');
  e.packageFlags = r.u32('export package flags');
  e.notAlwaysLoadedForEditorGame = bool32(r, 'not always loaded for editor game');
  if (ue4 >= V4.PackageHasAssetFlag) e.isAsset = bool32(r, 'is asset');
  if (ue5 >= V5.OptionalResources) e.generatePublicHash = bool32(r, 'generate public hash');
  if (ue4 >= V4.PreloadDependenciesInCookedExports) {
    e.firstExportDependency = r.i32('first export dependency');
    e.serializationBeforeSerializationDependencies = r.i32('dependency count');
    e.createBeforeSerializationDependencies = r.i32('dependency count');
    e.serializationBeforeCreateDependencies = r.i32('dependency count');
    e.createBeforeCreateDependencies = r.i32('dependency count');
  }
  if (layout.exportHasScriptOffsets) {
    e.scriptSerializationStartOffset = safeI64(r, 'script serialization start');
    e.scriptSerializationEndOffset = safeI64(r, 'script serialization end');
  }
  return e;
}

/** Checks that a table of `count` entries of `size` bytes at `offset` lies inside the header. */
function table(r: ByteReader, what: string, count: number, offset: number, size: number, summaryAt: number): void {
  if (count < 0) r.fail('BAD_VALUE', `${what} count ${count} is negative`, summaryAt);
  if (count === 0) return;
  if (offset < 0 || offset > r.bytes.length) r.fail('BAD_VALUE', `${what} offset ${offset} is outside the ${r.bytes.length}-byte header`, summaryAt);
  r.pos = offset;
  r.needArray(count, size, what);
}

/** A summary is plausible when its tables follow it and fit the header; used to settle unversioned layouts. */
function plausible(s: LegacyPackageSummary, size: number): boolean {
  if (s.nameCount < 0 || s.importCount < 0 || s.exportCount < 0) return false;
  if (s.nameCount > 0 && s.nameOffset !== s.summarySize) return false;
  if (s.totalHeaderSize <= 0 || s.totalHeaderSize > size) return false;
  const l = tableLayout(s);
  const ends = (off: number, n: number, e: number) => n === 0 || (off >= s.summarySize && off + n * e <= size);
  if (!ends(s.importOffset, s.importCount, l.importEntrySize) || !ends(s.exportOffset, s.exportCount, l.exportEntrySize)) return false;
  if (s.importCount > 0 && s.exportCount > 0 && s.exportOffset - s.importOffset !== s.importCount * l.importEntrySize) return false;
  return true;
}

function summaryOf(r: ByteReader, options: ParseLegacyOptions): LegacyPackageSummary {
  const hint = options.versions ?? (options.engine ? objectVersionsOfEngine(options.engine) : undefined);
  const first = readLegacySummary(r, hint ?? UNVERSIONED_CANDIDATES[0]!);
  if (!first.unversioned || hint) return first;
  let lastError: unknown;
  for (const v of UNVERSIONED_CANDIDATES) {
    try {
      const s = readLegacySummary(r, v);
      if (plausible(s, r.bytes.length)) return s;
    } catch (e) {
      lastError = e;
    }
  }
  if (lastError instanceof IoStoreError && !plausible(first, r.bytes.length)) throw lastError;
  r.fail('UNSUPPORTED', 'the package is unversioned and no engine version makes its summary consistent; give the engine version (--version)', 4);
}

/** Parses a legacy package header (`.uasset`/`.umap` bytes; the `.uexp` is not needed). */
export function parseLegacyPackage(uasset: Uint8Array, options: ParseLegacyOptions = {}): LegacyPackage {
  const source = options.source ?? 'legacy package';
  const r = new ByteReader(uasset, source);
  r.need(8, 'package summary');
  const s = summaryOf(r, options);
  const layout = tableLayout(s);
  const names: LegacyNameEntry[] = [];
  table(r, 'name map', s.nameCount, s.nameOffset, 5, 0);
  for (let i = 0; i < s.nameCount; i++) {
    const name = r.fstring('name');
    let nonCasePreservingHash = 0;
    let casePreservingHash = 0;
    if (layout.nameHashes) {
      nonCasePreservingHash = r.u16('name hash');
      casePreservingHash = r.u16('name hash');
    }
    names.push({ name, nonCasePreservingHash, casePreservingHash });
  }
  table(r, 'import map', s.importCount, s.importOffset, layout.importEntrySize, 0);
  const imports: LegacyImport[] = [];
  for (let i = 0; i < s.importCount; i++) imports.push(readImport(r, s, layout));
  table(r, 'export map', s.exportCount, s.exportOffset, layout.exportEntrySize, 0);
  const exports: LegacyExport[] = [];
  for (let i = 0; i < s.exportCount; i++) exports.push(readExport(r, s, layout));
  // FCellImport: i32 package index, UTF-8 Verse path (i32 byte count, bytes); FCellExport: FName class info, Verse
  // path, i64 offset, layout size and size, then i32 first dependency and two counts.
  const cellImports: LegacyCellImport[] = [];
  table(r, 'cell import map', s.cellImportCount, s.cellImportOffset, 8, 0);
  for (let i = 0; i < s.cellImportCount; i++) cellImports.push({ packageIndex: r.i32('cell import package index'), versePath: utf8String(r, 'cell import Verse path') });
  const cellExports: LegacyCellExport[] = [];
  table(r, 'cell export map', s.cellExportCount, s.cellExportOffset, 48, 0);
  for (let i = 0; i < s.cellExportCount; i++) {
    cellExports.push({
      cppClassInfo: readName(r, 'cell export class info'),
      versePath: utf8String(r, 'cell export Verse path'),
      serialOffset: safeI64(r, 'cell export serial offset'),
      serialLayoutSize: safeI64(r, 'cell export serial layout size'),
      serialSize: safeI64(r, 'cell export serial size'),
      firstExportDependency: r.i32('cell export first dependency'),
      serializationBeforeSerializationDependencies: r.i32('cell export dependency count'),
      createBeforeSerializationDependencies: r.i32('cell export dependency count'),
    });
  }
  const preloadDependencies: number[] = [];
  if (s.preloadDependencyCount > 0) {
    table(r, 'preload dependencies', s.preloadDependencyCount, s.preloadDependencyOffset, 4, 0);
    for (let i = 0; i < s.preloadDependencyCount; i++) preloadDependencies.push(r.i32('preload dependency'));
  }
  const dataResources: LegacyDataResource[] = [];
  if (s.fileVersionUE5 >= V5.DataResources && s.dataResourceOffset > 0) {
    if (s.dataResourceOffset > uasset.length) r.fail('BAD_VALUE', `data resource offset ${s.dataResourceOffset} is outside the ${uasset.length}-byte header`, 0);
    r.pos = s.dataResourceOffset;
    dataResources.push(...readDataResources(r).entries);
  }
  const pkg: LegacyPackage = { source, summary: s, layout, names, imports, exports, cellImports, cellExports, preloadDependencies, dataResources };
  if (options.packageName !== undefined) pkg.packageNameHint = options.packageName;
  checkReferences(pkg);
  return pkg;
}

function nameInMap(n: LegacyName, names: number): boolean {
  return n.index >= 0 && n.index < names && n.number >= 0;
}

function indexInMaps(i: number, imports: number, exports: number): boolean {
  return i < 0 ? -i - 1 < imports : i - 1 < exports;
}

/** Every name and package index in the tables must point inside them: the paths built from them rely on it. */
function checkReferences(pkg: LegacyPackage): void {
  const { summary: s, layout } = pkg;
  const fail = (what: string, at: number): never => {
    throw new IoStoreError('BAD_VALUE', what, { file: pkg.source, offset: at });
  };
  // Loops and module-level predicates: closures made per call are optimized again for every package.
  const names = pkg.names.length;
  const imports = pkg.imports.length;
  const exports = pkg.exports.length;
  for (let i = 0; i < imports; i++) {
    const imp = pkg.imports[i]!;
    const at = s.importOffset + i * layout.importEntrySize;
    for (const n of [imp.classPackage, imp.className, imp.objectName, imp.packageName ?? imp.objectName]) {
      if (!nameInMap(n, names)) fail(`import ${i} names entry ${n.index} but the name map has ${names}`, at);
    }
    if (!indexInMaps(imp.outerIndex, imports, exports)) fail(`import ${i} has outer ${imp.outerIndex}, outside the import and export maps`, at);
  }
  for (let i = 0; i < exports; i++) {
    const e = pkg.exports[i]!;
    const at = s.exportOffset + i * layout.exportEntrySize;
    if (!nameInMap(e.objectName, names)) fail(`export ${i} names entry ${e.objectName.index} but the name map has ${names}`, at);
    if (!indexInMaps(e.classIndex, imports, exports)) fail(`export ${i} has class ${e.classIndex}, outside the import and export maps`, at);
    if (!indexInMaps(e.superIndex, imports, exports)) fail(`export ${i} has super ${e.superIndex}, outside the import and export maps`, at);
    if (!indexInMaps(e.templateIndex, imports, exports)) fail(`export ${i} has template ${e.templateIndex}, outside the import and export maps`, at);
    if (!indexInMaps(e.outerIndex, imports, exports)) fail(`export ${i} has outer ${e.outerIndex}, outside the import and export maps`, at);
  }
  pkg.cellImports.forEach((c, i) => {
    if (c.packageIndex >= 0 || -c.packageIndex - 1 >= pkg.imports.length) fail(`cell import ${i} has package ${c.packageIndex}, not an import`, s.cellImportOffset);
  });
  pkg.cellExports.forEach((c, i) => {
    if (!nameInMap(c.cppClassInfo, names)) fail(`cell export ${i} names entry ${c.cppClassInfo.index} but the name map has ${pkg.names.length}`, s.cellExportOffset);
  });
  // Outer chains must end: a cycle would make every path walk loop forever.
  const total = pkg.imports.length + pkg.exports.length;
  const outerOf = (i: number) => (i < 0 ? pkg.imports[-i - 1]!.outerIndex : pkg.exports[i - 1]!.outerIndex);
  const slot = (i: number) => (i < 0 ? -i - 1 : pkg.imports.length + i - 1);
  // Each entry is walked once (1: on the current walk, 2: its chain ends): one long chain costs linear time.
  const state = new Uint8Array(total);
  const walked: number[] = [];
  for (let k = 0; k < total; k++) {
    let i = k < pkg.imports.length ? -k - 1 : k - pkg.imports.length + 1;
    walked.length = 0;
    while (i !== 0 && state[slot(i)] !== 2) {
      if (state[slot(i)] === 1) fail(`the outer chain of ${k < pkg.imports.length ? `import ${k}` : `export ${k - pkg.imports.length}`} loops`, s.importOffset);
      state[slot(i)] = 1;
      walked.push(i);
      i = outerOf(i);
    }
    for (const w of walked) state[slot(w)] = 2;
  }
}
