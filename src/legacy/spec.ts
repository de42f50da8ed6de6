import { EDITOR_TABLES } from './editor-tables/index.js';
import type { LegacyPackage } from './package.js';
import { legacyPackageName } from './paths.js';
import { legacyRegionSpans, type LegacyRegion } from './regions.js';
import type { LegacyPackageSpec } from './write.js';

/**
 * The spec that writes a parsed package back: its tables (the editor tables among them: thumbnails, gatherable
 * text, asset registry data, the trailer ..., wherever their values give back their bytes), every summary field,
 * and the parts this reader does not decode (an editor package's export data, bulk data, a table that did not
 * parse) kept as their bytes. `writeLegacyPackage(legacyPackageSpec(parseLegacyPackage(x))).uasset` is `x`, byte for byte, for
 * every package the engine wrote; edit the spec's tables to write a changed package (the kept parts are copied as
 * they are, so offsets inside them are not updated).
 */
export function legacyPackageSpec(pkg: LegacyPackage): LegacyPackageSpec {
  const s = pkg.summary;
  const regions: LegacyRegion[] = legacyRegionSpans(pkg).map((r) => (r.written ? { table: r.table } : { table: r.table, bytes: pkg.uasset.subarray(r.offset, r.offset + r.size) }));
  const spec: LegacyPackageSpec = {
    fileVersionUE4: s.fileVersionUE4,
    fileVersionUE5: s.fileVersionUE5,
    fileVersionLicenseeUE4: s.fileVersionLicenseeUE4,
    unversioned: s.unversioned,
    customVersions: s.customVersions,
    packageName: s.packageName.startsWith('/') ? s.packageName : legacyPackageName(pkg),
    packageFlags: s.packageFlags,
    names: pkg.names,
    namesReferencedFromExportDataCount: s.namesReferencedFromExportDataCount,
    imports: pkg.imports,
    exports: pkg.exports,
    preloadDependencies: pkg.preloadDependencies,
    cellImports: pkg.cellImports,
    // The writer takes cell offsets in the .uexp (it adds the header size).
    cellExports: pkg.cellExports.map((c) => ({ ...c, serialOffset: c.serialOffset - s.totalHeaderSize })),
    dataResources: pkg.dataResources,
    savedByEngineVersion: s.savedByEngineVersion,
    packageSource: s.packageSource,
    importPackageNames: pkg.layout.importHasPackageName,
    exportScriptOffsets: pkg.layout.exportHasScriptOffsets,
    summary: s,
    regions,
  };
  if (regions.some((r) => !r.bytes && EDITOR_TABLES.has(r.table))) spec.editorTables = pkg.editorTables;
  if (pkg.dataResourceVersion > 0) spec.dataResourceVersion = pkg.dataResourceVersion;
  if (s.guid !== undefined) spec.guid = s.guid;
  if (s.savedHash !== undefined) spec.savedHash = s.savedHash;
  return spec;
}
