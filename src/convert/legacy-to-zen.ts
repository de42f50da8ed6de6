import { IoStoreError } from '../errors.js';
import { cityHash64 } from '../hash/cityhash.js';
import { lowerUtf16leBytes, packageIdFromName } from '../hash/names.js';
import { publicExportHash } from './naming.js';
import { concatBytes } from '../toc/directory-index.js';
import { ByteReader, fromHex } from '../util/bytes.js';
import { readDataResources } from '../legacy/data-resources.js';
import type { BulkDataMapEntry, CellExportMapEntry, DependencyBundleHeader, ExportBundleEntry, ExportMapEntry } from '../zen/export-map.js';
import { nameHash } from '../zen/name-batch.js';
import { makePackageImport, makeScriptImport, NULL_OBJECT_INDEX, packageImportParts } from '../zen/object-index.js';
import { scriptImportIndex } from '../zen/script-objects.js';
import { layoutFromHints, layoutFromObjectVersion, mergeLayout, type ZenPackageHints, type ZenPackageLayout } from '../zen/zen-layout.js';
import { serializeZenPackageHeader } from '../zen/zen-package-writer.js';
import type { ZenPackage } from '../zen/zen-package.js';
import { legacyExportSpans, checkUexpTag, hasUexpTag } from '../legacy/export-data.js';
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

/** EObjectFlags bits the conversion looks at. */
const RF_PUBLIC = 0x1;

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
  const source = pkg.source;
  const layout = options.layout ?? zenLayoutForLegacy(pkg, options);
  if (layout.format === 'UE4') return legacyToZenUe4(pkg, uexp, layout);
  const graph = layout.summarySize === 44;
  const cells = pkg.cellImports.length + pkg.cellExports.length;
  if (cells > 0 && !layout.cellMaps) {
    throw new IoStoreError('UNSUPPORTED', `the package has Verse cells (${pkg.cellExports.length} exports, ${pkg.cellImports.length} imports), which the target's zen header (before UE 5.6) cannot hold`, { file: source, offset: pkg.summary.cellExportOffset });
  }
  const { tagged, warning } = uexpTag(uexp, source);
  const spans = legacyExportSpans(pkg, uexp.length, tagged);
  const s = pkg.summary;
  const packageName = legacyPackageName(pkg);
  if (!packageName.startsWith('/')) throw new IoStoreError('BAD_VALUE', `the package names itself "${packageName}", not a long package name; give its path below a mount point`, { file: source, offset: 0 });

  // Names: export data refers to the first namesReferencedFromExportDataCount legacy names, so they keep their
  // indices; the header then adds the names it needs, each once, in the order it needs them.
  const kept = s.namesReferencedFromExportDataCount > 0 && s.namesReferencedFromExportDataCount <= pkg.names.length ? s.namesReferencedFromExportDataCount : pkg.names.length;
  // Plain loops, no per-call closures: V8 optimizes a closure made in each call again, which cost more than the work.
  const names: string[] = new Array(kept);
  const nameIndex = new Map<string, number>();
  for (let i = 0; i < kept; i++) {
    const n = pkg.names[i]!.name;
    names[i] = n;
    if (!nameIndex.has(n)) nameIndex.set(n, i);
  }
  const nameTable: NameTable = { all: pkg.names, names, index: nameIndex };

  // Imports: script objects by the hash of their path; objects of other packages by (imported package, public
  // export hash); the package entries themselves are null.
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
  let packageNameAt = nameIndex.get(packageName);
  if (packageNameAt === undefined) {
    packageNameAt = names.push(packageName) - 1;
    nameIndex.set(packageName, packageNameAt);
  }
  const packageNameIndex = { index: packageNameAt, type: 0, number: 0 };

  const { bundleEntries, dependencyHeaders, dependencyEntries } = dependencies(pkg, [...imports, ...cellImports]);
  const cellExports: CellExportMapEntry[] = pkg.cellExports.map((c, i) => {
    const offset = c.serialOffset - s.totalHeaderSize;
    if (offset < 0 || c.serialSize < c.serialLayoutSize || offset + c.serialSize > uexp.length - 4) {
      throw new IoStoreError('BAD_VALUE', `cell export ${i} (offset ${c.serialOffset}, ${c.serialSize} bytes, layout ${c.serialLayoutSize}) lies outside the ${uexp.length}-byte .uexp that follows the ${s.totalHeaderSize}-byte header`, { file: source, offset: s.cellExportOffset });
    }
    return {
      cookedSerialOffset: offset,
      cookedSerialLayoutSize: c.serialLayoutSize,
      cookedSerialSize: c.serialSize,
      cppClassInfo: mapName(nameTable, c.cppClassInfo),
      publicExportHash: c.versePath === '' ? 0n : cellHash(c.versePath),
    };
  });


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
  if (graph) {
    // UE 5.0-5.2: one export bundle with the same command order, export offsets as in the legacy package, export data
    // in load order without the closing tag (as UE4), and graph data instead of dependency bundles: per imported package, an arc from each of its
    // objects an export waits for to the bundle.
    zen.exportBundles = [{ serialOffset: 0n, firstEntryIndex: 0, entryCount: bundleEntries.length }];
    zen.exports.forEach((e, i) => (e.cookedSerialOffset = pkg.exports[i]!.serialOffset));
    zen.externalArcs = importedPackages.map(() => []);
    const seen = new Set<string>();
    dependencyHeaders.forEach((h) => {
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
  const headerBytes = serializeZenPackageHeader(zen);
  zen.headerSize = headerBytes.length;
  const data = graph ? bundleEntries.filter((e) => e.commandType === 1).map((e) => uexp.subarray(spans[e.localExportIndex]!.offset, spans[e.localExportIndex]!.offset + spans[e.localExportIndex]!.size)) : tagged ? [uexp] : [uexp, PACKAGE_TAG_BYTES];
  return converted(packageName, [headerBytes, ...data], zen, importedPackages, warning);
}

/** The zen name map being built: the legacy names, the zen names so far and where each text is. */
interface NameTable {
  all: readonly { name: string }[];
  names: string[];
  index: Map<string, number>;
}

/** A legacy FName as a zen mapped name, adding its text to the zen name map the first time. */
function mapName(t: NameTable, n: LegacyName) {
  const text = t.all[n.index]!.name;
  let i = t.index.get(text);
  if (i === undefined) {
    i = t.names.push(text) - 1;
    t.index.set(text, i);
  }
  return { index: i, type: 0, number: n.number };
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

/** An export or a cell export, as the dependency graph sees it (cells come after the exports, never public). */
interface Unit {
  firstExportDependency: number;
  serializationBeforeSerializationDependencies: number;
  createBeforeSerializationDependencies: number;
  serializationBeforeCreateDependencies: number;
  createBeforeCreateDependencies: number;
  isPublic: boolean;
  /** Its index among the exports, or among the cell exports (for error messages). */
  index: number;
  cell: boolean;
}

/** The exports, then the cell exports (which have no "before create" dependencies). */
function units(pkg: LegacyPackage): Unit[] {
  const out: Unit[] = new Array(pkg.exports.length + pkg.cellExports.length);
  pkg.exports.forEach((e, i) => {
    out[i] = {
      firstExportDependency: e.firstExportDependency,
      serializationBeforeSerializationDependencies: e.serializationBeforeSerializationDependencies,
      createBeforeSerializationDependencies: e.createBeforeSerializationDependencies,
      serializationBeforeCreateDependencies: e.serializationBeforeCreateDependencies,
      createBeforeCreateDependencies: e.createBeforeCreateDependencies,
      isPublic: (e.objectFlags & RF_PUBLIC) !== 0,
      index: i,
      cell: false,
    };
  });
  pkg.cellExports.forEach((c, i) => {
    out[pkg.exports.length + i] = {
      firstExportDependency: c.firstExportDependency,
      serializationBeforeSerializationDependencies: c.serializationBeforeSerializationDependencies,
      createBeforeSerializationDependencies: c.createBeforeSerializationDependencies,
      serializationBeforeCreateDependencies: 0,
      createBeforeCreateDependencies: 0,
      isPublic: false,
      index: i,
      cell: true,
    };
  });
  return out;
}

/** `export 3` / `cell export 0`, and the offset of its entry, for an error. */
function unitWhere(pkg: LegacyPackage, u: Unit): { what: string; at: number } {
  return u.cell ? { what: `cell export ${u.index}`, at: pkg.summary.cellExportOffset } : { what: `export ${u.index}`, at: pkg.summary.exportOffset + u.index * pkg.layout.exportEntrySize };
}

/**
 * Export bundle entries and dependency bundles from the legacy preload dependencies. The engine orders the create
 * and serialize commands topologically over the arcs between exports, taking among ready commands public exports
 * first, then creates before serializes, then lower export indices (UE4 takes the lowest export index first). Cell
 * exports follow the exports in every table (index exports + k), and package indices past the import map name cell
 * imports, in legacy and zen alike.
 */
function dependencies(pkg: LegacyPackage, imports: bigint[]) {
  const all = units(pkg);
  const n = all.length;
  const headers: DependencyBundleHeader[] = [];
  const entries: number[] = [];
  const deps = pkg.preloadDependencies;
  // Dependencies kept in zen: exports and objects of other packages (script objects are always loaded).
  const packageImport = new Uint8Array(imports.length);
  for (let k = 0; k < imports.length; k++) packageImport[k] = imports[k]! >> 62n === 2n ? 1 : 0;
  for (const e of all) {
    const counts = [e.serializationBeforeSerializationDependencies, e.createBeforeSerializationDependencies, e.serializationBeforeCreateDependencies, e.createBeforeCreateDependencies];
    const total = counts[0]! + counts[1]! + counts[2]! + counts[3]!;
    if (e.firstExportDependency >= 0 && (e.firstExportDependency + total > deps.length || counts.some((c) => c < 0))) {
      const { what, at: offset } = unitWhere(pkg, e);
      throw new IoStoreError('BAD_VALUE', `${what}'s preload dependencies run past the ${deps.length}-entry list`, { file: pkg.source, offset });
    }
    const first = e.firstExportDependency < 0 ? 0 : e.firstExportDependency;
    const listed = e.firstExportDependency < 0 ? 0 : total;
    for (let k = first; k < first + listed; k++) {
      const d = deps[k]!;
      if (d > n || d < -imports.length) {
        throw new IoStoreError('BAD_VALUE', `${unitWhere(pkg, e).what} depends on package index ${d}, outside the import and export maps`, { file: pkg.source, offset: pkg.summary.preloadDependencyOffset });
      }
    }
    // Legacy lists SBS, CBS, SBC, CBC; zen CBC, SBC, CBS, SBS.
    const header: DependencyBundleHeader = {
      // An export without preload dependencies has no entries to point at (the engine's cook writes -1 then).
      firstEntryIndex: listed === 0 ? -1 : entries.length,
      createBeforeCreate: 0,
      serializeBeforeCreate: 0,
      createBeforeSerialize: 0,
      serializeBeforeSerialize: 0,
    };
    const kept = [0, 0, 0, 0];
    for (let g = 3; g >= 0 && listed > 0; g--) {
      let at = first;
      for (let q = 0; q < g; q++) at += counts[q]!;
      for (let k = at; k < at + counts[g]!; k++) {
        const d = deps[k]!;
        if (d > 0 || (d < 0 && packageImport[-d - 1] === 1)) {
          entries.push(d);
          kept[g]!++;
        }
      }
    }
    header.serializeBeforeSerialize = kept[0]!;
    header.createBeforeSerialize = kept[1]!;
    header.serializeBeforeCreate = kept[2]!;
    header.createBeforeCreate = kept[3]!;
    headers.push(header);
  }
  // Among ready commands: public exports first, then creates before serializes, then lower export indices.
  const keys = new Float64Array(n * 2);
  for (let k = 0; k < n * 2; k++) keys[k] = (all[k >> 1]!.isPublic ? 0 : 2 * n) + (k & 1) * n + (k >> 1);
  const bundleEntries = topologicalOrder(n * 2, exportArcs(pkg, all), keys, pkg);
  return { bundleEntries, dependencyHeaders: headers, dependencyEntries: entries };
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
  const data = entries.filter((e) => e.commandType === 1).map((e) => uexp.subarray(spans[e.localExportIndex]!.offset, spans[e.localExportIndex]!.offset + spans[e.localExportIndex]!.size));
  return converted(packageName, [header, ...data], zen, importedPackages, warning);
}

/**
 * UE4's single export bundle (checked on the UE 4.27 pair): the same arcs as UE5's, ordered topologically taking
 * among ready commands the lowest export index, create before serialize.
 */
function ue4BundleOrder(pkg: LegacyPackage): ExportBundleEntry[] {
  const n = pkg.exports.length;
  const arcs = exportArcs(pkg);
  const keys = new Float64Array(n * 2);
  for (let k = 0; k < n * 2; k++) keys[k] = k;
  return topologicalOrder(n * 2, arcs, keys, pkg);
}

/** Arcs between the commands of a package's exports (node 2i: create export i, 2i+1: serialize it). */
function exportArcs(pkg: LegacyPackage, all: readonly Unit[] = units(pkg)): number[][] {
  const n = all.length;
  const out: number[][] = Array.from({ length: n * 2 }, () => []);
  all.forEach((e, i) => {
    out[i * 2]!.push(i * 2 + 1);
    if (e.firstExportDependency < 0) return;
    let at = e.firstExportDependency;
    const groups: Array<[number, number, number]> = [
      [e.serializationBeforeSerializationDependencies, 1, 1],
      [e.createBeforeSerializationDependencies, 0, 1],
      [e.serializationBeforeCreateDependencies, 1, 0],
      [e.createBeforeCreateDependencies, 0, 0],
    ];
    for (const [count, fromCmd, toCmd] of groups) {
      for (let k = 0; k < count; k++) {
        const d = pkg.preloadDependencies[at++];
        if (d === undefined) throw new IoStoreError('BAD_VALUE', `${unitWhere(pkg, e).what}'s preload dependencies run past the list`, { file: pkg.source, offset: pkg.summary.preloadDependencyOffset });
        if (d > 0 && d <= n) out[(d - 1) * 2 + fromCmd]!.push(i * 2 + toCmd);
      }
    }
  });
  return out;
}

/** Kahn's topological sort taking the ready node of least key each time (a binary heap keeps it n log n). */
function topologicalOrder(count: number, out: number[][], keys: Float64Array, pkg: LegacyPackage): ExportBundleEntry[] {
  const before = (a: number, b: number) => keys[a]! < keys[b]!;
  const incoming = new Int32Array(count);
  for (const list of out) for (const t of list) incoming[t]!++;
  const heap: number[] = [];
  const push = (x: number) => {
    let i = heap.push(x) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const pop = (): number => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = i * 2 + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  };
  for (let k = 0; k < count; k++) if (incoming[k] === 0) push(k);
  const order: ExportBundleEntry[] = [];
  while (heap.length > 0) {
    const k = pop();
    order.push({ localExportIndex: k >> 1, commandType: k & 1 });
    for (const t of out[k]!) if (--incoming[t]! === 0) push(t);
  }
  if (order.length !== count) {
    throw new IoStoreError('BAD_VALUE', 'the preload dependencies between exports form a cycle', { file: pkg.source, offset: pkg.summary.preloadDependencyOffset });
  }
  return order;
}
