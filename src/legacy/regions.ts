import { dataResourceEntrySize } from './data-resources.js';
import { EDITOR_TABLES, exactEditorTables } from './editor-tables/index.js';
import { isWideLegacyName } from './name-hash.js';
import type { LegacyPackage } from './package.js';
import { summaryShape, type LegacyPackageSummary } from './summary.js';

/**
 * The parts of a legacy `.uasset` after its summary, by what the summary calls them (`gap`: bytes no table claims;
 * `exportData`, `bulkData`, `payloadToc`: what follows the header in editor packages, whose export data stays in
 * the `.uasset`; `thumbnailImages`: the images the thumbnail index, after them, points at).
 */
export type LegacyTable =
  | 'names' | 'softObjectPaths' | 'gatherableText' | 'imports' | 'exports' | 'cellImports' | 'cellExports'
  | 'metaData' | 'depends' | 'softPackageReferences' | 'searchableNames' | 'thumbnailImages' | 'thumbnails' | 'importTypeHierarchies'
  | 'assetRegistryData' | 'worldTileInfo' | 'preloadDependencies' | 'dataResources'
  | 'exportData' | 'bulkData' | 'payloadToc' | 'gap';

/** The tables the writer always makes from a spec; of the others, it makes those editorTables reads exactly (see isWritten). */
export const WRITTEN_TABLES: ReadonlySet<LegacyTable> = new Set<LegacyTable>(['names', 'imports', 'exports', 'cellImports', 'cellExports', 'preloadDependencies', 'dataResources']);

/** A part of a legacy package for the writer: made from the spec (no bytes), or kept as these bytes. */
export interface LegacyRegion {
  table: LegacyTable;
  bytes?: Uint8Array;
}

/** Where a part lies in the parsed `.uasset`. */
export interface LegacyRegionSpan {
  table: LegacyTable;
  offset: number;
  size: number;
  /** True for the tables the writer makes again from the parsed entries and editor tables (the others are kept as bytes). */
  written: boolean;
}

interface Anchor {
  table: LegacyTable;
  offset: number;
  /** The table's stored count, when the summary stores one. */
  count?: number;
}

/** Order of tables that share an offset: the engine's write order (only empty tables share a place in its files). */
const ORDER: readonly LegacyTable[] = [
  'names', 'softObjectPaths', 'gatherableText', 'imports', 'exports', 'cellImports', 'cellExports', 'metaData', 'depends',
  'softPackageReferences', 'searchableNames', 'thumbnailImages', 'thumbnails', 'importTypeHierarchies', 'assetRegistryData', 'worldTileInfo',
  'preloadDependencies', 'dataResources', 'exportData', 'bulkData', 'payloadToc',
];

function anchors(pkg: LegacyPackage, size: number): Anchor[] {
  const s = pkg.summary;
  const shape = summaryShape(s.legacyFileVersion, s.fileVersionUE4, s.fileVersionUE5, s.packageFlags);
  const out: Anchor[] = [];
  const add = (on: boolean, table: LegacyTable, offset: number, count?: number) => {
    if (on && offset >= s.summarySize && offset <= size && offset > 0) out.push(count === undefined ? { table, offset } : { table, offset, count });
  };
  add(true, 'names', s.nameOffset, s.nameCount);
  add(shape.softObjectPaths, 'softObjectPaths', s.softObjectPathsOffset, s.softObjectPathsCount);
  add(shape.gatherableText, 'gatherableText', s.gatherableTextDataOffset, s.gatherableTextDataCount);
  add(true, 'imports', s.importOffset, s.importCount);
  add(true, 'exports', s.exportOffset, s.exportCount);
  add(shape.cells, 'cellImports', s.cellImportOffset, s.cellImportCount);
  add(shape.cells, 'cellExports', s.cellExportOffset, s.cellExportCount);
  add(shape.metaData, 'metaData', s.metaDataOffset);
  add(true, 'depends', s.dependsOffset);
  add(shape.softPackageReferences, 'softPackageReferences', s.softPackageReferencesOffset, s.softPackageReferencesCount);
  add(shape.searchableNames, 'searchableNames', s.searchableNamesOffset);
  const images = pkg.editorTables.places.find((p) => p.table === 'thumbnailImages');
  if (images) add(true, 'thumbnailImages', images.offset);
  add(true, 'thumbnails', s.thumbnailTableOffset);
  add(shape.importTypeHierarchies, 'importTypeHierarchies', s.importTypeHierarchiesOffset, s.importTypeHierarchiesCount);
  add(true, 'assetRegistryData', s.assetRegistryDataOffset);
  add(shape.worldTileInfo, 'worldTileInfo', s.worldTileInfoDataOffset);
  add(shape.preloadDependencies, 'preloadDependencies', s.preloadDependencyOffset, s.preloadDependencyCount);
  add(shape.dataResources && pkg.dataResourceVersion > 0, 'dataResources', s.dataResourceOffset);
  if (s.totalHeaderSize < size) add(true, 'exportData', s.totalHeaderSize);
  if (s.bulkDataStartOffset > s.totalHeaderSize) add(true, 'bulkData', s.bulkDataStartOffset);
  if (s.payloadTocOffset > s.totalHeaderSize) add(true, 'payloadToc', s.payloadTocOffset);
  return out;
}

/** Whether the writer makes this table of the package from its values (else it keeps the bytes read). */
function isWritten(table: LegacyTable, editor: ReadonlySet<LegacyTable>): boolean {
  return WRITTEN_TABLES.has(table) || editor.has(table);
}

/** The size of a table the writer makes, as it will write it from the parsed entries. */
function writtenSize(pkg: LegacyPackage, table: LegacyTable): number {
  const utf8 = (t: string) => new TextEncoder().encode(t).length;
  if (EDITOR_TABLES.has(table)) return pkg.editorTables.places.find((p) => p.table === table)?.size ?? 0;
  switch (table) {
    case 'names': {
      let n = 0;
      for (const e of pkg.names) {
        const wide = e.wide ?? isWideLegacyName(e.name);
        n += 4 + (e.name === '' ? 0 : (e.name.length + 1) * (wide ? 2 : 1)) + (pkg.layout.nameHashes ? 4 : 0);
      }
      return n;
    }
    case 'imports': return pkg.imports.length * pkg.layout.importEntrySize;
    case 'exports': return pkg.exports.length * pkg.layout.exportEntrySize;
    case 'cellImports': return pkg.cellImports.reduce((n, c) => n + 8 + utf8(c.versePath), 0);
    case 'cellExports': return pkg.cellExports.reduce((n, c) => n + 48 + utf8(c.versePath), 0);
    case 'preloadDependencies': return pkg.preloadDependencies.length * 4;
    case 'dataResources': return 8 + pkg.dataResources.length * dataResourceEntrySize(pkg.dataResourceVersion);
    default: return 0;
  }
}

/**
 * The parts of a parsed package after its summary, in file order, tiling the `.uasset` to its end: every place the
 * summary points at starts a part; the tables the writer makes span what it writes for them (anything after that,
 * up to the next part, is a `gap`); tables that share a place with a non-empty one are empty.
 */
export function legacyRegionSpans(pkg: LegacyPackage): LegacyRegionSpan[] {
  // The editor tables the writer gives back exactly are made from their values where each has its own place: one
  // that a damaged file makes overlap another keeps its bytes (and the thumbnail images go with their index).
  const editor = new Set(exactEditorTables(pkg));
  for (;;) {
    const spans = tile(pkg, editor);
    const misplaced = spans.filter((r) => r.written && editor.has(r.table) && !pkg.editorTables.places.some((p) => p.table === r.table && p.offset === r.offset && p.size === r.size));
    if (misplaced.length === 0) return spans;
    for (const r of misplaced) editor.delete(r.table);
    if (!editor.has('thumbnails') || !editor.has('thumbnailImages')) {
      editor.delete('thumbnails');
      editor.delete('thumbnailImages');
    }
  }
}

function tile(pkg: LegacyPackage, editor: ReadonlySet<LegacyTable>): LegacyRegionSpan[] {
  const size = pkg.uasset.length;
  const s: LegacyPackageSummary = pkg.summary;
  const list = anchors(pkg, size).sort((a, b) => a.offset - b.offset || emptyFirst(a) - emptyFirst(b) || ORDER.indexOf(a.table) - ORDER.indexOf(b.table));
  const out: LegacyRegionSpan[] = [];
  let at = s.summarySize;
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    if (a.offset > at) out.push({ table: 'gap', offset: at, size: a.offset - at, written: false });
    at = Math.max(at, a.offset);
    const next = list[i + 1]?.offset ?? size;
    const written = isWritten(a.table, editor);
    if (next === a.offset && i + 1 < list.length) {
      // Another part starts here too: this one is empty (or, in a damaged file, overlaps; written ones keep theirs).
      const n = written ? writtenSize(pkg, a.table) : 0;
      out.push({ table: a.table, offset: a.offset, size: n, written });
      at = a.offset + n;
      continue;
    }
    const n = written ? Math.min(writtenSize(pkg, a.table), Math.max(0, next - a.offset)) : Math.max(0, next - at);
    out.push({ table: a.table, offset: at, size: n, written });
    at += n;
  }
  if (at < size) out.push({ table: 'gap', offset: at, size: size - at, written: false });
  return out;
}

const emptyFirst = (a: Anchor) => (a.count === 0 ? 0 : 1);
