import { IoStoreError } from '../errors.js';
import { cityHash64 } from '../hash/cityhash.js';
import { lowerUtf16leBytes, packageIdFromName } from '../hash/names.js';
import { publicExportHash } from './naming.js';
import { concatBytes } from '../toc/directory-index.js';
import { ByteReader, fromHex } from '../util/bytes.js';
import { readDataResources } from '../legacy/data-resources.js';
import type { BulkDataMapEntry, CellExportMapEntry, ExportBundleEntry, ExportMapEntry } from '../zen/export-map.js';
import { nameHash } from '../zen/name-batch.js';
import { makePackageImport, makeScriptImport, NULL_OBJECT_INDEX, packageImportParts } from '../zen/object-index.js';
import { scriptImportIndex } from '../zen/script-objects.js';
import { layoutFromHints, layoutFromObjectVersion, mergeLayout, type ZenPackageHints, type ZenPackageLayout } from '../zen/zen-layout.js';
import { serializeZenPackageHeader } from '../zen/zen-package-writer.js';
import { dependencies, RF_PUBLIC, ue4BundleOrder } from './legacy-to-zen/export-bundles.js';
import type { ZenPackage } from '../zen/zen-package.js';
import { legacyExportSpans, checkUexpTag, hasUexpTag, type LegacyExportSpan } from '../legacy/export-data.js';
import type { LegacyName, LegacyPackage } from '../legacy/package.js';
import { legacyNameText, legacyObjectPath, legacyPackageName } from '../legacy/paths.js';

/**
 * Hashes of names and paths repeat across the packages of a mod (script paths, common names) and CityHash64 over
 * BigInt is the conversion's main cost: results are kept, up to a bound.
 */
function memo<T>(f: (s: string) => T): (s: string) => T {
  const cache = new Map<string, T>();
  return (s) => {
    let v = cache.get(s);
    if (v === undefined) {
      if (cache.size >= 65536) cache.clear();
      cache.set(s, (v = f(s)));
    }
    return v;
  };
}
const cachedNameHash = memo(nameHash);
const cachedScriptImport = memo(scriptImportIndex);
const cachedPackageId = memo(packageIdFromName);

/** EZenPackageVersion written into versioning info (3: extra dependencies, the 5.3+ header). */
const ZEN_PACKAGE_VERSION = 3;

export interface LegacyToZenOptions extends ZenPackageHints {
  /** The zen header layout to write; wins over the hints. */
  layout?: ZenPackageLayout;
}

/** A legacy package converted to zen: the package chunk and what its store entry needs. */
export interface ConvertedZenPackage {
  packageName: string;
  packageId: bigint;
  /** The whole ExportBundleData chunk: zen header, export data, package tag (joined from `pieces` when first read). */
  readonly chunk: Uint8Array;
  /** The chunk in pieces (the header, then views of the `.uexp`), for writers that take them without a copy. */
  pieces: Uint8Array[];
  /** The chunk's size. */
  size: number;
  /** The parsed form of the header written (for store entries and tests). */
  zen: ZenPackage;
  /** Package ids the package imports, in the order of its imported-package indices. */
  importedPackages: bigint[];
  /** Set when the package converted with something to say (one line naming the file): a `.uexp` without its tag. */
  warning?: string;
}

function converted(packageName: string, pieces: Uint8Array[], zen: ZenPackage, importedPackages: bigint[], warning?: string): ConvertedZenPackage {
  let joined: Uint8Array | undefined;
  return {
    ...(warning ? { warning } : {}),
    packageName,
    packageId: cachedPackageId(packageName),
    get chunk() {
      return (joined ??= concatBytes(pieces));
    },
    pieces,
    size: pieces.reduce((a, b) => a + b.length, 0),
    zen,
    importedPackages,
  };
}

/**
 * The zen layout for a legacy package: the hints (engine, container-header version) first, then the package's own
 * object version; where both leave a choice, the newest form of that generation.
 */
export function zenLayoutForLegacy(pkg: LegacyPackage, hints: ZenPackageHints): ZenPackageLayout {
  const partial = layoutFromHints(hints, pkg.source);
  if (pkg.summary.fileVersionUE5 >= 1000) {
    // A versioned package's object version must agree with the hints; an unversioned one's was inferred, so the
    // hints win where they disagree.
    try {
      mergeLayout(partial, layoutFromObjectVersion(pkg.summary.fileVersionUE5), pkg.source);
    } catch (e) {
      if (!pkg.summary.unversioned) throw e;
    }
  }
  const format = partial.format ?? (pkg.summary.fileVersionUE5 >= 1000 ? 'UE5' : 'UE4');
  if (format === 'UE4') return { format, summarySize: 64, cellMaps: false, bulkDataMap: 'none' };
  const forms = partial.bulkDataMap ?? ['padded'];
  return {
    format,
    summarySize: partial.summarySize ?? 52,
    cellMaps: partial.cellMaps ?? false,
    bulkDataMap: forms.includes('padded') ? 'padded' : forms[0]!,
  };
}

/**
 * The public export hash of an object from its path inside its package: lower-cased, `/`-separated, without the
 * leading separator (`T_Test` for `/Game/T_Test.T_Test`, `A/B` for `/Game/P.A:B`).
 */
export function exportHashOfPath(pathInPackage: string): bigint {
  return publicExportHash(pathInPackage.replace(/[.:]/g, '/').replace(/^\//, ''));
}

/**
 * Each export's path inside its package as public export hashes take it (`A/B/C`: outer chain of exports, `/`-joined,
 * separators inside names turned to `/` as in a full path), built once per outer and kept.
 */
function exportPathsInPackage(pkg: LegacyPackage): (i: number) => string {
  const paths: Array<string | undefined> = new Array(pkg.exports.length);
  const at = (i: number, depth: number): string => {
    const known = paths[i];
    if (known !== undefined) return known;
    const e = pkg.exports[i]!;
    let name = legacyNameText(pkg, e.objectName);
    if (name.includes('.') || name.includes(':')) name = name.replace(/[.:]/g, '/');
    let path: string;
    if (e.outerIndex === 0) path = name;
    else if (e.outerIndex > 0 && e.outerIndex <= pkg.exports.length && depth < pkg.exports.length) path = `${at(e.outerIndex - 1, depth + 1)}/${name}`;
    // An export under an import (or a looping chain, which legacyObjectPath reports): the full path's tail.
    else path = splitObjectPath(legacyObjectPath(pkg, i + 1))[1].replace(/^\//, '');
    paths[i] = path;
    return path;
  };
  return (i) => at(i, 0);
}

/** A Verse cell's hash (public export hash of a cell export, script import of a native cell): CityHash64 of its path's UTF-8. */
function cellHash(versePath: string): bigint {
  return cityHash64(new TextEncoder().encode(versePath));
}

/** The package tag as the zen chunk ends with it (the .uexp's last four bytes). */
const PACKAGE_TAG_BYTES = new Uint8Array([0xc1, 0x83, 0x2a, 0x9e]);

/**
 * Whether the `.uexp` ends with the package tag. Some games ship it without: such a package converts (its exports
 * may then fill the file to its end, and the zen chunk gets the tag), with a warning naming the file.
 */
function uexpTag(uexp: Uint8Array, source: string): { tagged: boolean; warning?: string } {
  if (hasUexpTag(uexp)) return { tagged: true };
  if (uexp.length < 4) checkUexpTag(uexp, `${source} (.uexp)`);
  return { tagged: false, warning: `${source.replace(/\.(uasset|umap)$/i, '.uexp')}: no closing package tag (0x9e2a83c1) at its end; converted, the tag added` };
}

/** Splits an object path at its package: `/Game/A.B:C` -> [`/Game/A`, `/B/C`]. */
function splitObjectPath(path: string): [string, string] {
  const at = path.search(/[.:]/);
  return at < 0 ? [path, ''] : [path.slice(0, at), path.slice(at).replace(/[.:]/g, '/')];
}

/**
 * Converts a cooked legacy package (`.uasset` header parsed by parseLegacyPackage, plus its `.uexp`) to the zen
 * package the engine's IoStore cook writes for it: the name map (names export data refers to, in their legacy order,
 * then the names the header adds), import map as script-object or package-import indices, public export hashes,
 * export map, export bundle entries and dependency bundles, the bulk-data map, and the `.uexp` bytes unchanged.
 */
export function legacyToZen(pkg: LegacyPackage, uasset: Uint8Array, uexp: Uint8Array, options: LegacyToZenOptions = {}): ConvertedZenPackage {
  const layout = options.layout ?? zenLayoutForLegacy(pkg, options);
  if (layout.format === 'UE4') return legacyToZenUe4(pkg, uexp, layout);
  checkCellsFit(pkg, layout);
  const { tagged, warning } = uexpTag(uexp, pkg.source);
  const spans = legacyExportSpans(pkg, uexp.length, tagged);
  const packageName = longPackageName(pkg);
  const nameTable = exportDataNames(pkg);
  const { imports, cellImports, importedPackages, importedNames, importedHashes } = zenImports(pkg);
  const exports = zenExports(pkg, nameTable, imports, spans);
  const packageNameIndex = { index: nameAt(nameTable, packageName), type: 0, number: 0 };
  const { bundleEntries, dependencyHeaders, dependencyEntries } = dependencies(pkg, [...imports, ...cellImports]);
  const cellExports = zenCellExports(pkg, nameTable, uexp.length);
  const s = pkg.summary;
  const names = nameTable.names;
  const zen: ZenPackage = {
    layout,
    summary: null,
    ue4Summary: null,
    headerSize: 0,
    name: packageNameIndex,
    packageName,
    packageFlags: s.packageFlags >>> 0,
    cookedHeaderSize: s.totalHeaderSize,
    versioningInfo: s.unversioned
      ? null
      : {
          zenVersion: ZEN_PACKAGE_VERSION,
          fileVersionUE4: s.fileVersionUE4,
          fileVersionUE5: s.fileVersionUE5,
          licenseeVersion: s.fileVersionLicenseeUE4,
          customVersions: s.customVersions.map((c) => ({ key: fromHex(c.key), version: c.version })),
        },
    names,
    nameHashes: names.map(cachedNameHash),
    bulkData: layout.bulkDataMap === 'none' ? [] : dataResources(pkg, uasset),
    importedPublicExportHashes: importedHashes,
    imports,
    exports,
    cellImports,
    cellExports,
    exportBundleEntries: bundleEntries,
    exportBundles: [],
    referencedPackages: [],
    internalArcs: [],
    externalArcs: [],
    dependencyBundleHeaders: dependencyHeaders,
    dependencyBundleEntries: dependencyEntries,
    importedPackageNames: importedPackageNames(importedPackages, importedNames),
    sections: [],
    exportDataSize: pkg.exports.reduce((a, e) => a + e.serialSize, 0),
  };
  const graph = layout.summarySize === 44;
  if (graph) toGraphForm(zen, pkg, importedPackages);
  const headerBytes = serializeZenPackageHeader(zen);
  zen.headerSize = headerBytes.length;
  const data = graph ? inLoadOrder(bundleEntries, spans, uexp) : tagged ? [uexp] : [uexp, PACKAGE_TAG_BYTES];
  return converted(packageName, [headerBytes, ...data], zen, importedPackages, warning);
}

/** Verse cells need the cell maps of the 5.6+ zen header. */
function checkCellsFit(pkg: LegacyPackage, layout: ZenPackageLayout): void {
  const cells = pkg.cellImports.length + pkg.cellExports.length;
  if (cells > 0 && !layout.cellMaps) {
    throw new IoStoreError('UNSUPPORTED', `the package has Verse cells (${pkg.cellExports.length} exports, ${pkg.cellImports.length} imports), which the target's zen header (before UE 5.6) cannot hold`, { file: pkg.source, offset: pkg.summary.cellExportOffset });
  }
}

/** The package's long package name (`/Game/...`), which a zen header must hold. */
function longPackageName(pkg: LegacyPackage): string {
  const packageName = legacyPackageName(pkg);
  if (!packageName.startsWith('/')) throw new IoStoreError('BAD_VALUE', `the package names itself "${packageName}", not a long package name; give its path below a mount point`, { file: pkg.source, offset: 0 });
  return packageName;
}

/**
 * The zen name map's start: export data refers to the first namesReferencedFromExportDataCount legacy names, so they
 * keep their indices; the header then adds the names it needs, each once, in the order it needs them (mapName).
 */
function exportDataNames(pkg: LegacyPackage): NameTable {
  const s = pkg.summary;
  const kept = s.namesReferencedFromExportDataCount > 0 && s.namesReferencedFromExportDataCount <= pkg.names.length ? s.namesReferencedFromExportDataCount : pkg.names.length;
  // Plain loops, no per-call closures: V8 optimizes a closure made in each call again, which cost more than the work.
  const names: string[] = new Array(kept);
  const nameIndex = new Map<string, number>();
  for (let i = 0; i < kept; i++) {
    const n = pkg.names[i]!.name;
    names[i] = n;
    if (!nameIndex.has(n)) nameIndex.set(n, i);
  }
  return { all: pkg.names, names, index: nameIndex };
}

/** The zen import map and cell imports, with the imported packages (sorted ids, and names) and public export hashes. */
interface ZenImports {
  imports: bigint[];
  cellImports: bigint[];
  importedPackages: bigint[];
  importedNames: Map<bigint, string>;
  importedHashes: bigint[];
}

/**
 * Imports: script objects by the hash of their path; objects of other packages by (imported package, public export
 * hash); the package entries themselves are null.
 */
function zenImports(pkg: LegacyPackage): ZenImports {
  const importCount = pkg.imports.length;
  const importPaths: string[] = new Array(importCount);
  const importPackage: string[] = new Array(importCount);
  for (let i = 0; i < importCount; i++) {
    const imp = pkg.imports[i]!;
    const path = (importPaths[i] = legacyObjectPath(pkg, -i - 1));
    // 5.8+ imports may name their package; only a long package name there overrides the outer chain.
    const own = imp.packageName ? legacyNameText(pkg, imp.packageName) : '';
    importPackage[i] = own.startsWith('/') ? own : splitObjectPath(path)[0];
  }
  const importedNames = new Map<bigint, string>();
  for (let i = 0; i < importCount; i++) {
    if (importPaths[i]!.startsWith('/Script/') || pkg.imports[i]!.outerIndex === 0) continue;
    importedNames.set(cachedPackageId(importPackage[i]!), importPackage[i]!);
  }
  // A cell import names the import of its package: a native (/Script/) one, or a package it imports.
  const cellImportPackage: string[] = [];
  for (const c of pkg.cellImports) cellImportPackage.push(legacyObjectPath(pkg, c.packageIndex));
  for (const p of cellImportPackage) if (!p.startsWith('/Script/')) importedNames.set(cachedPackageId(p), p);
  const importedPackages = [...importedNames.keys()].sort(compareBigInt);
  const importedHashes: bigint[] = [];
  const importedHashAt = new Map<bigint, number>();
  const importedPackageAt = new Map<bigint, number>();
  for (let k = 0; k < importedPackages.length; k++) importedPackageAt.set(importedPackages[k]!, k);
  const imports: bigint[] = new Array(importCount);
  for (let i = 0; i < importCount; i++) {
    const path = importPaths[i]!;
    if (path.startsWith('/Script/')) {
      imports[i] = cachedScriptImport(path);
      continue;
    }
    if (pkg.imports[i]!.outerIndex === 0) {
      imports[i] = NULL_OBJECT_INDEX;
      continue;
    }
    const owner = importPackage[i]!;
    const rel = path.startsWith(owner) ? path.slice(owner.length) : splitObjectPath(path)[1];
    imports[i] = makePackageImport(importedPackageAt.get(cachedPackageId(owner))!, hashIndex(importedHashes, importedHashAt, exportHashOfPath(rel)));
  }
  // Cell imports by the hash of their Verse path's UTF-8 bytes: a script import for native cells, else the imported
  // package and the hash among the imported public export hashes (after those of the imports).
  const cellImports: bigint[] = [];
  pkg.cellImports.forEach((c, i) => {
    const hash = cellHash(c.versePath);
    if (cellImportPackage[i]!.startsWith('/Script/')) cellImports.push(makeScriptImport(hash));
    else cellImports.push(makePackageImport(importedPackageAt.get(cachedPackageId(cellImportPackage[i]!))!, hashIndex(importedHashes, importedHashAt, hash)));
  });
  return { imports, cellImports, importedPackages, importedNames, importedHashes };
}

/** The zen export map: offsets in the export data, names (added to the name map), object indices, public hashes. */
function zenExports(pkg: LegacyPackage, nameTable: NameTable, imports: readonly bigint[], spans: readonly LegacyExportSpan[]): ExportMapEntry[] {
  const pathInPackage = exportPathsInPackage(pkg);
  const exports: ExportMapEntry[] = new Array(pkg.exports.length);
  for (let i = 0; i < pkg.exports.length; i++) {
    const e = pkg.exports[i]!;
    exports[i] = {
      cookedSerialOffset: spans[i]!.offset,
      cookedSerialSize: e.serialSize,
      objectName: mapName(nameTable, e.objectName),
      outerIndex: objectIndexOf(imports, e.outerIndex),
      classIndex: objectIndexOf(imports, e.classIndex),
      superIndex: objectIndexOf(imports, e.superIndex),
      templateIndex: objectIndexOf(imports, e.templateIndex),
      publicExportHash: (e.objectFlags & RF_PUBLIC) !== 0 ? publicExportHash(pathInPackage(i)) : 0n,
      objectFlags: e.objectFlags >>> 0,
      filterFlags: e.notForClient ? 1 : e.notForServer ? 2 : 0,
    };
  }
  return exports;
}

/** The zen cell export map: offsets in the export data (checked against the `.uexp`), class names, Verse path hashes. */
function zenCellExports(pkg: LegacyPackage, nameTable: NameTable, uexpSize: number): CellExportMapEntry[] {
  const s = pkg.summary;
  return pkg.cellExports.map((c, i) => {
    const offset = c.serialOffset - s.totalHeaderSize;
    if (offset < 0 || c.serialSize < c.serialLayoutSize || offset + c.serialSize > uexpSize - 4) {
      throw new IoStoreError('BAD_VALUE', `cell export ${i} (offset ${c.serialOffset}, ${c.serialSize} bytes, layout ${c.serialLayoutSize}) lies outside the ${uexpSize}-byte .uexp that follows the ${s.totalHeaderSize}-byte header`, { file: pkg.source, offset: s.cellExportOffset });
    }
    return {
      cookedSerialOffset: offset,
      cookedSerialLayoutSize: c.serialLayoutSize,
      cookedSerialSize: c.serialSize,
      cppClassInfo: mapName(nameTable, c.cppClassInfo),
      publicExportHash: c.versePath === '' ? 0n : cellHash(c.versePath),
    };
  });
}

/**
 * UE 5.0-5.2: one export bundle with the same command order, export offsets as in the legacy package, export data in
 * load order without the closing tag (as UE4), and graph data instead of dependency bundles: per imported package, an
 * arc from each of its objects an export waits for to the bundle.
 */
function toGraphForm(zen: ZenPackage, pkg: LegacyPackage, importedPackages: readonly bigint[]): void {
  const imports = zen.imports;
  const dependencyEntries = zen.dependencyBundleEntries;
  zen.exportBundles = [{ serialOffset: 0n, firstEntryIndex: 0, entryCount: zen.exportBundleEntries.length }];
  zen.exports.forEach((e, i) => (e.cookedSerialOffset = pkg.exports[i]!.serialOffset));
  zen.externalArcs = importedPackages.map(() => []);
  const seen = new Set<string>();
  zen.dependencyBundleHeaders.forEach((h) => {
    const runs: Array<[number, number]> = [[h.createBeforeCreate, 0], [h.serializeBeforeCreate, 1], [h.createBeforeSerialize, 0], [h.serializeBeforeSerialize, 1]];
    let at = h.firstEntryIndex;
    for (const [count, fromCommandType] of runs) {
      for (let k = 0; k < count; k++, at++) {
        const d = dependencyEntries[at]!;
        if (d >= 0) continue;
        const { importedPackageIndex } = packageImportParts(imports[-d - 1]!);
        const key = `${-d - 1}:${fromCommandType}`;
        if (seen.has(key)) continue;
        seen.add(key);
        zen.externalArcs[importedPackageIndex]!.push({ fromImportIndex: -d - 1, fromCommandType, toExportBundleIndex: 0 });
      }
    }
  });
  for (const arcs of zen.externalArcs) arcs.sort((a, b) => a.fromImportIndex - b.fromImportIndex || a.fromCommandType - b.fromCommandType);
  zen.dependencyBundleHeaders = [];
  zen.dependencyBundleEntries = [];
  zen.importedPackageNames = null;
}

/** The export data in load order (the serialize commands of the export bundle), as UE4 and 5.0-5.2 store it. */
function inLoadOrder(entries: readonly ExportBundleEntry[], spans: readonly LegacyExportSpan[], uexp: Uint8Array): Uint8Array[] {
  return entries.filter((e) => e.commandType === 1).map((e) => uexp.subarray(spans[e.localExportIndex]!.offset, spans[e.localExportIndex]!.offset + spans[e.localExportIndex]!.size));
}

/** The zen name map being built: the legacy names, the zen names so far and where each text is. */
interface NameTable {
  all: readonly { name: string }[];
  names: string[];
  index: Map<string, number>;
}

/** A legacy FName as a zen mapped name, adding its text to the zen name map the first time. */
function mapName(t: NameTable, n: LegacyName) {
  return { index: nameAt(t, t.all[n.index]!.name), type: 0, number: n.number };
}

/** The index of a text in the zen name map, added the first time. */
function nameAt(t: NameTable, text: string): number {
  let i = t.index.get(text);
  if (i === undefined) {
    i = t.names.push(text) - 1;
    t.index.set(text, i);
  }
  return i;
}

/** A legacy package index as a zen object index: imports through their zen values, exports by index. */
function objectIndexOf(imports: readonly bigint[], packageIndex: number): bigint {
  if (packageIndex === 0) return NULL_OBJECT_INDEX;
  if (packageIndex < 0) return imports[-packageIndex - 1]!;
  return BigInt(packageIndex - 1);
}

/** The index of a hash among the imported public export hashes, appended the first time. */
function hashIndex(hashes: bigint[], at: Map<bigint, number>, hash: bigint): number {
  let h = at.get(hash);
  if (h === undefined) at.set(hash, (h = hashes.push(hash) - 1));
  return h;
}

const compareBigInt = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** 5.3+ imported package names: each imported package's FName (base text and number) in imported-package order. */
function importedPackageNames(ids: bigint[], names: Map<bigint, string>) {
  const base: string[] = [];
  const numbers: number[] = [];
  for (const id of ids) {
    const full = names.get(id)!;
    const split = splitNameNumber(full);
    base.push(split.base);
    numbers.push(split.number);
  }
  return { batch: { names: base, hashes: base.map(cachedNameHash) }, numbers };
}

/** FName's split of a trailing `_<digits>` (no leading zero) into a number: `M_Cube_1` -> (`M_Cube`, 2). */
function splitNameNumber(text: string): { base: string; number: number } {
  const m = /^(.*)_(0|[1-9]\d{0,8})$/.exec(text);
  if (!m || m[1] === '') return { base: text, number: 0 };
  const n = Number(m[2]);
  return n < 0x7fffffff ? { base: m[1]!, number: n + 1 } : { base: text, number: 0 };
}

/** The legacy data-resource table (UE5 1009+), as zen bulk-data map entries. */
function dataResources(pkg: LegacyPackage, uasset: Uint8Array): BulkDataMapEntry[] {
  const at = pkg.summary.dataResourceOffset;
  if (at <= 0) return [];
  const r = new ByteReader(uasset, pkg.source);
  if (at >= uasset.length) r.fail('BAD_VALUE', `the data resource table offset ${at} lies outside the ${uasset.length}-byte header`, 0);
  r.pos = at;
  return readDataResources(r).entries.map((d) => ({
    serialOffset: BigInt(d.serialOffset),
    duplicateSerialOffset: BigInt(d.duplicateSerialOffset),
    serialSize: BigInt(d.serialSize),
    flags: d.legacyBulkDataFlags,
    cookedIndex: d.cookedIndex,
  }));
}

/** UE4 GlobalImportIndex of an object of a package: CityHash64 of its lower-cased full path, as a PackageImport. */
function ue4PackageObjectIndex(fullPath: string): bigint {
  return (cachedPathHash(fullPath) & 0x3fffffffffffffffn) | (2n << 62n);
}
const cachedPathHash = memo((p: string) => cityHash64(lowerUtf16leBytes(p.replace(/[.:]/g, '/'))));

/**
 * The UE 4.26/4.27 zen package: the legacy name map unchanged, imports and public exports as global object-path
 * hashes, export offsets as in the legacy package, one export bundle in dependency order, and graph data with an
 * arc from each imported package; the export data follows in the bundle's serialize order.
 */
function legacyToZenUe4(pkg: LegacyPackage, uexp: Uint8Array, layout: ZenPackageLayout): ConvertedZenPackage {
  const source = pkg.source;
  const { tagged, warning } = uexpTag(uexp, source);
  const s = pkg.summary;
  const packageName = legacyPackageName(pkg);
  if (!packageName.startsWith('/')) throw new IoStoreError('BAD_VALUE', `the package names itself "${packageName}" (UE4 stores None): give its path below a mount point`, { file: source, offset: 0 });
  const names = pkg.names.map((n) => n.name);
  let nameAt = names.indexOf(packageName);
  if (nameAt < 0) nameAt = names.push(packageName) - 1;
  const importPaths = pkg.imports.map((_, i) => legacyObjectPath(pkg, -i - 1));
  const referenced = new Set<bigint>();
  const imports = pkg.imports.map((imp, i) => {
    const path = importPaths[i]!;
    if (path.startsWith('/Script/')) return cachedScriptImport(path);
    if (imp.outerIndex === 0) {
      referenced.add(cachedPackageId(path));
      return NULL_OBJECT_INDEX;
    }
    return ue4PackageObjectIndex(path);
  });
  const objectIndex = (i: number): bigint => (i === 0 ? NULL_OBJECT_INDEX : i < 0 ? imports[-i - 1]! : BigInt(i - 1));
  const exports: ExportMapEntry[] = pkg.exports.map((e, i) => ({
    cookedSerialOffset: e.serialOffset,
    cookedSerialSize: e.serialSize,
    objectName: { index: e.objectName.index, type: 0, number: e.objectName.number },
    outerIndex: objectIndex(e.outerIndex),
    classIndex: objectIndex(e.classIndex),
    superIndex: objectIndex(e.superIndex),
    templateIndex: objectIndex(e.templateIndex),
    publicExportHash: (e.objectFlags & RF_PUBLIC) !== 0 ? ue4PackageObjectIndex(legacyObjectPath(pkg, i + 1)) : NULL_OBJECT_INDEX,
    objectFlags: e.objectFlags >>> 0,
    filterFlags: e.notForClient ? 1 : e.notForServer ? 2 : 0,
  }));
  const entries = ue4BundleOrder(pkg);
  const zen: ZenPackage = {
    layout,
    summary: null,
    ue4Summary: null,
    headerSize: 0,
    name: { index: nameAt, type: 0, number: 0 },
    packageName,
    packageFlags: s.packageFlags >>> 0,
    cookedHeaderSize: s.totalHeaderSize,
    versioningInfo: null,
    names,
    nameHashes: names.map(cachedNameHash),
    bulkData: [],
    importedPublicExportHashes: [],
    imports,
    exports,
    cellImports: [],
    cellExports: [],
    exportBundleEntries: entries,
    exportBundles: entries.length > 0 ? [{ firstEntryIndex: 0, entryCount: entries.length }] : [],
    referencedPackages: [...referenced].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((packageId) => ({ packageId, arcs: [{ fromExportBundleIndex: 0, toExportBundleIndex: 0 }] })),
    internalArcs: [],
    externalArcs: [],
    dependencyBundleHeaders: [],
    dependencyBundleEntries: [],
    importedPackageNames: null,
    sections: [],
    exportDataSize: pkg.exports.reduce((a, e) => a + e.serialSize, 0),
  };
  const header = serializeZenPackageHeader(zen);
  zen.headerSize = header.length;
  const importedPackages = zen.referencedPackages.map((r) => r.packageId);
  // UE4 stores the export data in load order (the bundle's serialize commands), without the closing tag.
  const spans = legacyExportSpans(pkg, uexp.length, tagged);
  return converted(packageName, [header, ...inLoadOrder(entries, spans, uexp)], zen, importedPackages, warning);
}
