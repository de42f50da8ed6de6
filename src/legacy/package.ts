import { IoStoreError } from '../errors.js';
import { ByteReader } from '../util/bytes.js';
import { readDataResources, type LegacyDataResource } from './data-resources.js';
import { readLegacyEditorTables, type LegacyEditorTables } from './editor-tables/index.js';
import { isWideLegacyName } from './name-hash.js';
import { readLegacySummary, type LegacyPackageSummary } from './summary.js';
import { exportEntryShape, readExport, readImport, readName, tableLayout, type LegacyTableLayout } from './tables.js';
import {
  cookedImportsHavePackageName,
  LEGACY_PACKAGE_TAG,
  objectVersionsOfEngine,
  UE5_LEGACY_VERSION as V5,
  unversionedCandidates,
  type LegacyEngineRelease,
  type LegacyObjectVersions,
} from './versions.js';

export type { LegacyTableLayout } from './tables.js';

/** An FName as stored in tables: an index into the name map and a number (0 = none, k = `_<k-1>`). */
export interface LegacyName {
  index: number;
  number: number;
}

/** One name-map entry with its two stored 16-bit hashes (0 before UE4 504). */
export interface LegacyNameEntry {
  name: string;
  nonCasePreservingHash: number;
  casePreservingHash: number;
  /** Set when the name is stored in the other form than the writer would choose (UTF-16 for ASCII, or Latin-1). */
  wide?: boolean;
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
  /** The data resource table's version (1 or 2), 0 when absent. */
  dataResourceVersion: number;
  /**
   * The other tables the summary points at (thumbnails, gatherable text, soft object paths, metadata, searchable
   * names, asset registry data, world tile info, the trailer, the depends map ...), each read on its own: one that
   * does not parse is in `editorTables.errors` with its offset.
   */
  editorTables: LegacyEditorTables;
  /** The package name when the summary does not hold it (UE4 stores `None`), e.g. from the file's path. */
  packageNameHint?: string;
  /** The bytes the package was read from (the tables this reader does not decode are kept from them). */
  uasset: Uint8Array;
  /** The engine release the package was read as, when the caller gave one. */
  engine?: LegacyEngineRelease;
}

export interface ParseLegacyOptions {
  /** Name used in error messages. */
  source?: string;
  /** Engine release, for unversioned packages (which store no object versions); UE 4.0 to 6.0. */
  engine?: LegacyEngineRelease;
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

/** Checks that a table of `count` entries of `size` bytes at `offset` lies inside the header. */
function table(r: ByteReader, what: string, count: number, offset: number, size: number, summaryAt: number): void {
  if (count < 0) r.fail('BAD_VALUE', `${what} count ${count} is negative`, summaryAt);
  if (count === 0) return;
  if (offset < 0 || offset > r.bytes.length) r.fail('BAD_VALUE', `${what} offset ${offset} is outside the ${r.bytes.length}-byte header`, summaryAt);
  r.pos = offset;
  r.needArray(count, size, what);
}

function readNames(r: ByteReader, s: LegacyPackageSummary, layout: LegacyTableLayout): LegacyNameEntry[] {
  const names: LegacyNameEntry[] = [];
  table(r, 'name map', s.nameCount, s.nameOffset, 5, 0);
  for (let i = 0; i < s.nameCount; i++) {
    const wide = r.remaining >= 4 && r.view.getInt32(r.pos, true) < 0;
    const name = r.fstring('name');
    let nonCasePreservingHash = 0;
    let casePreservingHash = 0;
    if (layout.nameHashes) {
      nonCasePreservingHash = r.u16('name hash');
      casePreservingHash = r.u16('name hash');
    }
    const entry: LegacyNameEntry = { name, nonCasePreservingHash, casePreservingHash };
    if (wide !== isWideLegacyName(name) && name !== '') entry.wide = wide;
    names.push(entry);
  }
  return names;
}

/**
 * How well a summary read with guessed versions fits the bytes: every test an engine-written header passes (the
 * name map starts where the summary ends and ends where the next table starts, the import and export maps tile
 * the space up to the table after them, the header fits the file). Returns the number of tests failed, or
 * Infinity when a table cannot be read at all.
 */
function misfits(r: ByteReader, s: LegacyPackageSummary, cookedImportNames: boolean | undefined): number {
  const size = r.bytes.length;
  if (s.nameCount < 0 || s.importCount < 0 || s.exportCount < 0) return Infinity;
  if (s.totalHeaderSize <= s.summarySize || s.totalHeaderSize > size) return Infinity;
  const l = tableLayout(s, cookedImportNames);
  const fits = (off: number, n: number, e: number) => n === 0 || (off >= s.summarySize && off + n * e <= size);
  if (!fits(s.importOffset, s.importCount, l.importEntrySize) || !fits(s.exportOffset, s.exportCount, l.exportEntrySize)) return Infinity;
  let bad = 0;
  if (s.nameCount > 0 && s.nameOffset !== s.summarySize) bad++;
  if (s.importCount > 0 && s.exportCount > 0 && s.exportOffset - s.importOffset !== s.importCount * l.importEntrySize) bad++;
  const afterExports = s.cellExportCount > 0 ? s.cellExportOffset : s.dependsOffset;
  if (s.exportCount > 0 && afterExports > s.exportOffset && afterExports - s.exportOffset !== s.exportCount * l.exportEntrySize) bad++;
  if (s.nameCount > 0) {
    try {
      readNames(r, s, l);
    } catch {
      return Infinity;
    }
    const next = nextOffset(s, s.nameOffset);
    if (next !== undefined && r.pos !== next) bad++;
  }
  return bad;
}

/** True when the summary's object versions and licensee version are all zero (an unversioned package). */
function storesNoVersions(r: ByteReader): boolean {
  const legacy = r.view.getInt32(4, true);
  let at = legacy === -4 ? 8 : 12;
  const n = legacy <= -8 ? 3 : 2;
  if (r.bytes.length < at + 4 * n) return false;
  for (let i = 0; i < n; i++, at += 4) if (r.view.getInt32(at, true) !== 0) return false;
  return true;
}

/** The nearest table offset of the summary after `at` (within the header), if any. */
function nextOffset(s: LegacyPackageSummary, at: number): number | undefined {
  let best: number | undefined;
  for (const o of [s.softObjectPathsOffset, s.gatherableTextDataOffset, s.importOffset, s.exportOffset, s.cellImportOffset, s.cellExportOffset, s.dependsOffset, s.totalHeaderSize]) {
    if (o > at && o <= s.totalHeaderSize && (best === undefined || o < best)) best = o;
  }
  return best;
}

function summaryOf(r: ByteReader, options: ParseLegacyOptions, cookedImportNames: boolean | undefined): LegacyPackageSummary {
  const hint = options.versions ?? (options.engine ? objectVersionsOfEngine(options.engine) : undefined);
  const legacyFileVersion = r.view.getInt32(4, true);
  const candidates = unversionedCandidates(legacyFileVersion);
  if (hint) return readLegacySummary(r, hint);
  // A versioned package reads the same with any candidate: the first settles it, or its error is the package's.
  let first: LegacyPackageSummary | undefined;
  try {
    first = readLegacySummary(r, candidates[0]!);
  } catch (e) {
    if (!storesNoVersions(r)) throw e;
  }
  if (first && !first.unversioned) return first;
  // Unversioned and no hint: the candidate the bytes fit best (ties: the first, the newest layout).
  let best: LegacyPackageSummary | undefined;
  let bestMisfits = Infinity;
  let lastError: unknown;
  for (const v of candidates) {
    try {
      const s = readLegacySummary(r, v);
      const m = misfits(r, s, cookedImportNames);
      if (m < bestMisfits) {
        best = s;
        bestMisfits = m;
        if (m === 0) break;
      }
    } catch (e) {
      lastError = e;
    }
  }
  if (best) return best;
  if (lastError instanceof IoStoreError) throw lastError;
  r.fail('UNSUPPORTED', 'the package is unversioned and no engine version makes its summary consistent; give the engine version (--version)', 4);
}

/**
 * Parses a legacy package header (`.uasset`/`.umap` bytes; the `.uexp` is not needed). UE 4.0 to 6.0, cooked and
 * editor packages; unversioned ones read with `engine` (or `versions`), or with the versions their bytes fit best.
 */
export function parseLegacyPackage(uasset: Uint8Array, options: ParseLegacyOptions = {}): LegacyPackage {
  const source = options.source ?? 'legacy package';
  const r = new ByteReader(uasset, source);
  r.need(8, 'package summary');
  const cookedImportNames = cookedImportsHavePackageName(options.engine);
  const s = summaryOf(r, options, cookedImportNames);
  const layout = tableLayout(s, cookedImportNames);
  const names = readNames(r, s, layout);
  table(r, 'import map', s.importCount, s.importOffset, layout.importEntrySize, 0);
  const imports: LegacyImport[] = [];
  for (let i = 0; i < s.importCount; i++) imports.push(readImport(r, s.fileVersionUE5, layout));
  table(r, 'export map', s.exportCount, s.exportOffset, layout.exportEntrySize, 0);
  const exports: LegacyExport[] = [];
  const shape = exportEntryShape(s.fileVersionUE4, s.fileVersionUE5);
  for (let i = 0; i < s.exportCount; i++) exports.push(readExport(r, shape, layout));
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
  let dataResourceVersion = 0;
  if (s.fileVersionUE5 >= V5.DataResources && s.dataResourceOffset > 0) {
    if (s.dataResourceOffset > uasset.length) r.fail('BAD_VALUE', `data resource offset ${s.dataResourceOffset} is outside the ${uasset.length}-byte header`, 0);
    r.pos = s.dataResourceOffset;
    const table = readDataResources(r);
    dataResources.push(...table.entries);
    dataResourceVersion = table.version;
  }
  const editorTables = readLegacyEditorTables({ source, summary: s, exports, uasset, ...(options.engine ? { engine: options.engine } : {}) });
  const pkg: LegacyPackage = { source, summary: s, layout, names, imports, exports, cellImports, cellExports, preloadDependencies, dataResources, dataResourceVersion, editorTables, uasset };
  if (options.packageName !== undefined) pkg.packageNameHint = options.packageName;
  if (options.engine !== undefined) pkg.engine = options.engine;
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
