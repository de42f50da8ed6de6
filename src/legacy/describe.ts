import { describeLegacyEditorTables, type LegacyEditorTablesView } from './describe-editor.js';
import { checkUexpTag, hasInlineExportData, legacyExportSpans, legacyInlineExportSpans } from './export-data.js';
import type { LegacyPackage } from './package.js';
import { IoStoreError } from '../errors.js';
import { legacyNameText, legacyObjectPath, legacyPackageName, legacyRef } from './paths.js';
import { legacyRegionSpans, type LegacyTable } from './regions.js';
import { summaryShape, type LegacyPackageSummary } from './summary.js';

/**
 * A readable view of a legacy package: the summary and the tables with object paths resolved (the editor tables:
 * thumbnails, gatherable text, asset registry data, the trailer ..., where the package has them).
 */
export interface LegacyPackageView extends LegacyEditorTablesView {
  packageName: string;
  format: 'legacy';
  legacyFileVersion: number;
  /** The engine release the package was read as, when one was given (unversioned packages need it). */
  engine?: string;
  versioning: { fileVersionUE4: number; fileVersionUE5: number; licensee: number; unversioned: boolean; customVersions: number };
  packageFlags: string;
  totalHeaderSize: number;
  importEntrySize: number;
  exportEntrySize: number;
  /** The summary's fields in the order and layout its version stores them (fields it does not store are left out). */
  summary: Record<string, unknown>;
  /** The parts of the `.uasset` after the summary, in file order: `read` ones this reader decodes, `bytes` the others. */
  tables: Array<{ table: LegacyTable; offset: number; size: number; kept: 'read' | 'bytes' }>;
  nameCount: number;
  names: string[];
  imports: Array<{ index: number; path: string; class: string; classPackage: string; outer: string; packageName?: string }>;
  exports: Array<{
    index: number;
    path: string;
    class: string;
    super: string;
    template: string;
    outer: string;
    objectFlags: string;
    serialOffset: number;
    serialSize: number;
    isAsset: boolean;
  }>;
  preloadDependencies: number;
  dataResources: number;
  /**
   * Where the export data is: in the `.uexp` (when given), in the `.uasset` after the header (UE4 cooks without a
   * `.uexp`, editor packages), or not at hand; its size and whether every export lies inside it.
   */
  exportData: { in: 'uexp' | 'uasset' | 'missing'; size: number; ok: boolean; error?: string };
  /** Set when the `.uexp` was given: its size and whether every export lies inside it before the closing tag. */
  uexp?: { size: number; ok: boolean; error?: string };
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

/** The summary as its version lays it out: each stored field once, in file order. */
export function legacySummaryFields(s: LegacyPackageSummary): Record<string, unknown> {
  const shape = summaryShape(s.legacyFileVersion, s.fileVersionUE4, s.fileVersionUE5, s.packageFlags);
  const o: Record<string, unknown> = {};
  const put = (on: boolean, key: string, v: unknown) => {
    if (on) o[key] = v;
  };
  o.legacyFileVersion = s.legacyFileVersion;
  put(shape.ue3Version, 'legacyUE3Version', s.legacyUE3Version);
  o.fileVersionUE4 = s.storedFileVersionUE4;
  put(shape.ue5Version, 'fileVersionUE5', s.storedFileVersionUE5);
  o.fileVersionLicenseeUE4 = s.fileVersionLicenseeUE4;
  put(shape.savedHash, 'savedHash', s.savedHash);
  put(shape.savedHash, 'totalHeaderSize', s.totalHeaderSize);
  put(shape.customVersions !== 'none', 'customVersions', s.customVersions);
  put(!shape.savedHash, 'totalHeaderSize', s.totalHeaderSize);
  o.packageName = s.packageName;
  o.packageFlags = hex(s.packageFlags);
  o.nameCount = s.nameCount;
  o.nameOffset = s.nameOffset;
  put(shape.softObjectPaths, 'softObjectPathsCount', s.softObjectPathsCount);
  put(shape.softObjectPaths, 'softObjectPathsOffset', s.softObjectPathsOffset);
  put(shape.localizationId, 'localizationId', s.localizationId);
  put(shape.gatherableText, 'gatherableTextDataCount', s.gatherableTextDataCount);
  put(shape.gatherableText, 'gatherableTextDataOffset', s.gatherableTextDataOffset);
  Object.assign(o, { exportCount: s.exportCount, exportOffset: s.exportOffset, importCount: s.importCount, importOffset: s.importOffset });
  put(shape.cells, 'cellExportCount', s.cellExportCount);
  put(shape.cells, 'cellExportOffset', s.cellExportOffset);
  put(shape.cells, 'cellImportCount', s.cellImportCount);
  put(shape.cells, 'cellImportOffset', s.cellImportOffset);
  put(shape.metaData, 'metaDataOffset', s.metaDataOffset);
  o.dependsOffset = s.dependsOffset;
  put(shape.softPackageReferences, 'softPackageReferencesCount', s.softPackageReferencesCount);
  put(shape.softPackageReferences, 'softPackageReferencesOffset', s.softPackageReferencesOffset);
  put(shape.searchableNames, 'searchableNamesOffset', s.searchableNamesOffset);
  o.thumbnailTableOffset = s.thumbnailTableOffset;
  put(shape.importTypeHierarchies, 'importTypeHierarchiesCount', s.importTypeHierarchiesCount);
  put(shape.importTypeHierarchies, 'importTypeHierarchiesOffset', s.importTypeHierarchiesOffset);
  put(!shape.savedHash, 'guid', s.guid);
  put(shape.persistentGuid, 'persistentGuid', s.persistentGuid);
  put(shape.ownerPersistentGuid, 'ownerPersistentGuid', s.ownerPersistentGuid);
  o.generations = s.generations;
  o[shape.engineVersionObject ? 'savedByEngineVersion' : 'engineChangelist'] = shape.engineVersionObject ? s.savedByEngineVersion : s.savedByEngineVersion.changelist;
  put(shape.compatibleEngineVersion, 'compatibleWithEngineVersion', s.compatibleWithEngineVersion);
  o.compressionFlags = s.compressionFlags;
  o.packageSource = hex(s.packageSource);
  o.additionalPackagesToCook = s.additionalPackagesToCook;
  put(shape.textureAllocations, 'numTextureAllocations', s.numTextureAllocations);
  o.assetRegistryDataOffset = s.assetRegistryDataOffset;
  o.bulkDataStartOffset = s.bulkDataStartOffset;
  put(shape.worldTileInfo, 'worldTileInfoDataOffset', s.worldTileInfoDataOffset);
  put(shape.chunkIds === 'one', 'chunkId', s.chunkIds[0]);
  put(shape.chunkIds === 'array', 'chunkIds', s.chunkIds);
  put(shape.preloadDependencies, 'preloadDependencyCount', s.preloadDependencyCount);
  put(shape.preloadDependencies, 'preloadDependencyOffset', s.preloadDependencyOffset);
  put(shape.namesReferencedFromExportData, 'namesReferencedFromExportDataCount', s.namesReferencedFromExportDataCount);
  put(shape.payloadToc, 'payloadTocOffset', s.payloadTocOffset);
  put(shape.dataResources, 'dataResourceOffset', s.dataResourceOffset);
  return o;
}

/** Where the export data is and whether every export lies inside it. */
function exportDataOf(pkg: LegacyPackage, uexp: Uint8Array | undefined): LegacyPackageView['exportData'] {
  const check = (size: number, f: () => void): LegacyPackageView['exportData'] => {
    try {
      f();
      return { in: uexp ? 'uexp' : 'uasset', size, ok: true };
    } catch (e) {
      return { in: uexp ? 'uexp' : 'uasset', size, ok: false, error: (e as Error).message };
    }
  };
  if (uexp) {
    return check(uexp.length, () => {
      checkUexpTag(uexp, `${pkg.source} (.uexp)`);
      legacyExportSpans(pkg, uexp.length);
    });
  }
  if (hasInlineExportData(pkg)) return check(pkg.uasset.length - pkg.summary.totalHeaderSize, () => legacyInlineExportSpans(pkg));
  return { in: 'missing', size: 0, ok: pkg.exports.length === 0 };
}

export function describeLegacyPackage(pkg: LegacyPackage, uexp?: Uint8Array): LegacyPackageView {
  const s = pkg.summary;
  const objectPath = shownObjectPaths(pkg);
  const view: LegacyPackageView = {
    packageName: legacyPackageName(pkg),
    format: 'legacy',
    legacyFileVersion: s.legacyFileVersion,
    ...(pkg.engine ? { engine: pkg.engine } : {}),
    versioning: { fileVersionUE4: s.fileVersionUE4, fileVersionUE5: s.fileVersionUE5, licensee: s.fileVersionLicenseeUE4, unversioned: s.unversioned, customVersions: s.customVersions.length },
    packageFlags: hex(s.packageFlags),
    totalHeaderSize: s.totalHeaderSize,
    importEntrySize: pkg.layout.importEntrySize,
    exportEntrySize: pkg.layout.exportEntrySize,
    summary: legacySummaryFields(s),
    tables: legacyRegionSpans(pkg).map((r) => ({ table: r.table, offset: r.offset, size: r.size, kept: r.written ? 'read' : 'bytes' })),
    nameCount: pkg.names.length,
    names: pkg.names.map((n) => n.name),
    imports: pkg.imports.map((imp, i) => ({
      index: i,
      path: objectPath(-i - 1),
      class: legacyNameText(pkg, imp.className),
      classPackage: legacyNameText(pkg, imp.classPackage),
      outer: objectPath(imp.outerIndex),
      ...(imp.packageName ? { packageName: legacyNameText(pkg, imp.packageName) } : {}),
    })),
    exports: pkg.exports.map((e, i) => ({
      index: i,
      path: objectPath(i + 1),
      class: objectPath(e.classIndex),
      super: objectPath(e.superIndex),
      template: objectPath(e.templateIndex),
      outer: objectPath(e.outerIndex),
      objectFlags: hex(e.objectFlags),
      serialOffset: e.serialOffset,
      serialSize: e.serialSize,
      isAsset: e.isAsset,
    })),
    preloadDependencies: pkg.preloadDependencies.length,
    dataResources: pkg.dataResources.length,
    exportData: exportDataOf(pkg, uexp),
    ...describeLegacyEditorTables(pkg, objectPath),
  };
  if (uexp) {
    const { in: _in, ...u } = view.exportData;
    view.uexp = u;
  }
  return view;
}

/** Outer levels an object path shows; a deeper one shows its root, how many levels were left out, and the innermost. */
export const SHOWN_OUTER_LEVELS = 32;

/**
 * Object paths for display, each at most SHOWN_OUTER_LEVELS levels long. Every object of a package whose exports
 * form one long outer chain has a path as long as the chain: written out in full, 3,000 exports made 130 MB of
 * text. The levels of each object are counted once (memoized), so a long chain costs linear time.
 */
function shownObjectPaths(pkg: LegacyPackage): (packageIndex: number) => string {
  const levels = new Map<number, number>();
  const roots = new Map<number, string>();
  const limit = pkg.imports.length + pkg.exports.length;
  const loops = (start: number): never => {
    throw new IoStoreError('BAD_VALUE', `the outer chain of ${start} loops`, { file: pkg.source });
  };
  /** The entry `i` refers to and its outer (0: none). */
  const entry = (i: number): { outer: number; name: string; isImport: boolean } => {
    const ref = legacyRef(i);
    if (ref.kind === 'null') return loops(i);
    const e = ref.kind === 'import' ? pkg.imports[ref.index] : pkg.exports[ref.index];
    if (!e) throw new IoStoreError('BAD_VALUE', `${ref.kind} ${ref.index} is outside the ${ref.kind} map`, { file: pkg.source });
    return { outer: e.outerIndex, name: legacyNameText(pkg, e.objectName), isImport: ref.kind === 'import' };
  };
  // Levels below the root, and the root (a top-level import names itself; exports hang under the package).
  const measure = (start: number): void => {
    const walked: number[] = [];
    let i = start;
    while (!levels.has(i)) {
      if (walked.length > limit) loops(start);
      const e = entry(i);
      if (e.outer === 0) {
        levels.set(i, e.isImport ? 0 : 1);
        roots.set(i, e.isImport ? e.name : legacyPackageName(pkg));
        break;
      }
      walked.push(i);
      i = e.outer;
    }
    for (let k = walked.length - 1; k >= 0; k--) {
      const outer = k === walked.length - 1 ? i : walked[k + 1]!;
      levels.set(walked[k]!, levels.get(outer)! + 1);
      roots.set(walked[k]!, roots.get(outer)!);
    }
  };
  return (packageIndex) => {
    if (packageIndex === 0) return '';
    measure(packageIndex);
    const depth = levels.get(packageIndex)!;
    if (depth <= SHOWN_OUTER_LEVELS) return legacyObjectPath(pkg, packageIndex);
    const inner: string[] = [];
    for (let i = packageIndex; inner.length < SHOWN_OUTER_LEVELS - 1; ) {
      const e = entry(i);
      inner.push(e.name);
      i = e.outer;
    }
    return `${roots.get(packageIndex)!}:…(${depth - inner.length} levels)….${inner.reverse().join('.')}`;
  };
}
