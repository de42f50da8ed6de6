import { ByteReader } from '../util/bytes.js';
import {
  BULK_DATA_MAP_ENTRY_SIZE,
  CELL_EXPORT_MAP_ENTRY_SIZE,
  dependencyCount,
  DEPENDENCY_BUNDLE_HEADER_SIZE,
  EXPORT_BUNDLE_ENTRY_SIZE,
  EXPORT_MAP_ENTRY_SIZE,
  readBulkDataMapEntry,
  readCellExportMapEntry,
  readDependencyBundleHeader,
  readExportBundleEntry,
  readExportMapEntry,
  type BulkDataMapEntry,
  type BundleArc,
  type CellExportMapEntry,
  type DependencyBundleHeader,
  type ExportBundleEntry,
  type ExportBundleHeader,
  type ExportMapEntry,
  type ExternalArc,
} from './export-map.js';
import { resolveMappedName, nameWithNumber, type MappedName } from './mapped-name.js';
import {
  parseNameHashes,
  parseNameStrings,
  readNameBatch,
  type NameBatch,
} from './name-batch.js';
import {
  readUe4Summary,
  readUe5Summary,
  readVersioningInfo,
  type Ue4PackageSummary,
  type Ue5PackageSummary,
  type ZenVersioningInfo,
} from './package-summary.js';
import {
  PACKAGE_FILE_TAG,
  detectCellMaps,
  detectUe5SummarySize,
  layoutFromHints,
  layoutFromObjectVersion,
  looksLikeUe4Summary,
  mergeLayout,
  type BulkDataMapForm,
  type PartialLayout,
  type ZenPackageHints,
  type ZenPackageLayout,
} from './zen-layout.js';

/** A named byte range of the zen header, from the start of the package chunk. */
export interface ZenSection {
  name: string;
  offset: number;
  size: number;
}

/** UE4 graph data: the export-bundle arcs from one imported package. */
export interface ReferencedPackageArcs {
  packageId: bigint;
  arcs: BundleArc[];
}

/** 5.3+ imported package names: a name batch plus the number (0 none, k = `_<k-1>`) of each name. */
export interface ImportedPackageNames {
  batch: NameBatch;
  numbers: number[];
}

/** A parsed zen package header (the start of an ExportBundleData chunk). */
export interface ZenPackage {
  layout: ZenPackageLayout;
  /** UE5 summary (null for UE4). */
  summary: Ue5PackageSummary | null;
  /** UE4 summary (null for UE5). */
  ue4Summary: Ue4PackageSummary | null;
  /** Size of the zen header; export data starts here. */
  headerSize: number;
  name: MappedName;
  /** The package name, resolved from the name map (e.g. `/Game/Maps/Foo`). */
  packageName: string;
  /** UE4: the source package name (differs for localized packages). */
  sourcePackageName?: string;
  packageFlags: number;
  /** Size of the legacy .uasset this package was cooked from. */
  cookedHeaderSize: number;
  versioningInfo: ZenVersioningInfo | null;
  names: string[];
  /** Stored name hashes: CityHash64 of each lower-cased name. */
  nameHashes: bigint[];
  /** 5.2+. */
  bulkData: BulkDataMapEntry[];
  /** UE5: hashes of the public exports imported from other packages. */
  importedPublicExportHashes: bigint[];
  /** Import map: FPackageObjectIndex values. */
  imports: bigint[];
  exports: ExportMapEntry[];
  /** 5.6+. */
  cellImports: bigint[];
  cellExports: CellExportMapEntry[];
  exportBundleEntries: ExportBundleEntry[];
  /** UE4 and 5.0-5.2: export bundles (runs of exportBundleEntries). */
  exportBundles: ExportBundleHeader[];
  /** UE4 graph data. */
  referencedPackages: ReferencedPackageArcs[];
  /** 5.0-5.2 graph data: arcs between this package's bundles, and per imported package the external arcs. */
  internalArcs: BundleArc[];
  externalArcs: ExternalArc[][];
  /** 5.3+. */
  dependencyBundleHeaders: DependencyBundleHeader[];
  /** 5.3+: FPackageIndex values (<0 import -i-1, >0 export i-1). */
  dependencyBundleEntries: number[];
  /** 5.3+. */
  importedPackageNames: ImportedPackageNames | null;
  /** The header's sections in order; they tile [0, headerSize). */
  sections: ZenSection[];
  /** Σ CookedSerialSize of the exports. */
  exportDataSize: number;
}

export interface ParseZenPackageOptions extends ZenPackageHints {
  source?: string;
}

/** Parses the zen header at the start of `bytes` (a whole ExportBundleData chunk, or at least its header). */
export function parseZenPackage(bytes: Uint8Array, options: ParseZenPackageOptions = {}): ZenPackage {
  const source = options.source ?? 'zen package';
  const r = new ByteReader(bytes, source);
  r.need(4, 'zen package summary');
  if (r.view.getUint32(0, true) === PACKAGE_FILE_TAG) {
    r.fail('BAD_MAGIC', 'this is a legacy package (it starts with the package file tag 0x9E2A83C1), not a zen package', 0);
  }
  const hinted = layoutFromHints(options, source);
  if (hinted.format === undefined) {
    if (looksLikeUe4Summary(bytes)) hinted.format = 'UE4';
    else hinted.format = 'UE5';
  }
  return hinted.format === 'UE4' ? parseUe4(r, options) : parseUe5(r, hinted, options);
}

/** Tracks the cursor through the header so that every section starts where the previous one ended. */
class Sections {
  readonly list: ZenSection[] = [];
  constructor(private readonly r: ByteReader) {}

  /** Starts a section at `offset`, which must be the cursor. */
  begin(name: string, offset: number): void {
    if (offset !== this.r.pos) {
      this.r.fail('BAD_VALUE', `${name} is said to start at ${offset} but the previous section ends at ${this.r.pos}`, Math.min(offset, this.r.pos));
    }
  }

  end(name: string, start: number): void {
    this.list.push({ name, offset: start, size: this.r.pos - start });
  }

  /** Reads a fixed-size table spanning [start, end). */
  table<T>(name: string, start: number, end: number, elem: number, read: (i: number) => T): T[] {
    this.begin(name, start);
    if (end < start) this.r.fail('BAD_VALUE', `${name} ends at ${end}, before its start ${start}`, start);
    if ((end - start) % elem !== 0) this.r.fail('BAD_VALUE', `${name} spans ${end - start} bytes, not a multiple of its ${elem}-byte entries`, start);
    const n = (end - start) / elem;
    this.r.needArray(n, elem, name);
    const out: T[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = read(i);
    this.end(name, start);
    return out;
  }
}

function emptyPackage(layout: ZenPackageLayout): Omit<ZenPackage, 'headerSize' | 'name' | 'packageName' | 'packageFlags' | 'cookedHeaderSize'> {
  return {
    layout,
    summary: null,
    ue4Summary: null,
    versioningInfo: null,
    names: [],
    nameHashes: [],
    bulkData: [],
    importedPublicExportHashes: [],
    imports: [],
    exports: [],
    cellImports: [],
    cellExports: [],
    exportBundleEntries: [],
    exportBundles: [],
    referencedPackages: [],
    internalArcs: [],
    externalArcs: [],
    dependencyBundleHeaders: [],
    dependencyBundleEntries: [],
    importedPackageNames: null,
    sections: [],
    exportDataSize: 0,
  };
}

function packageNameOf(r: ByteReader, names: readonly string[], n: MappedName, what: string): string {
  const s = resolveMappedName(names, n);
  if (s === undefined) r.fail('BAD_VALUE', `${what} refers to name ${n.index} but the name map has ${names.length} names`, 0);
  return s;
}

function sumSizes(r: ByteReader, exports: readonly ExportMapEntry[]): number {
  let total = 0;
  for (const e of exports) total += e.cookedSerialSize;
  if (!Number.isSafeInteger(total)) r.fail('BAD_VALUE', 'export sizes add up to more than 2^53', 0);
  return total;
}

function parseUe4(r: ByteReader, hints: ZenPackageHints): ZenPackage {
  const layout: ZenPackageLayout = { format: 'UE4', summarySize: 64, cellMaps: false, bulkDataMap: 'none' };
  const s = readUe4Summary(r);
  const sec = new Sections(r);
  sec.end('summary', 0);
  const headerSize = s.graphDataOffset + s.graphDataSize;
  if (headerSize > r.bytes.length) r.fail('TRUNCATED', `the zen header ends at ${headerSize} but the data has only ${r.bytes.length} bytes`, 52);
  const { names, nameHashes } = readUe4NameMap(r, sec, s);
  const imports = sec.table('import map', s.importMapOffset, s.exportMapOffset, 8, () => r.u64());
  const exports = sec.table('export map', s.exportMapOffset, s.exportBundlesOffset, EXPORT_MAP_ENTRY_SIZE, (i) => readExportMapEntry(r, i));
  const { exportBundles, exportBundleEntries } = readUe4ExportBundles(r, sec, s, hints, exports.length);
  const referencedPackages = readUe4GraphData(r, sec, s, headerSize);
  const packageName = packageNameOf(r, names, s.name, 'package name');
  const sourcePackageName = packageNameOf(r, names, s.sourceName, 'source package name');
  return {
    ...emptyPackage(layout),
    ue4Summary: s,
    headerSize,
    name: s.name,
    packageName,
    sourcePackageName,
    packageFlags: s.packageFlags,
    cookedHeaderSize: s.cookedHeaderSize,
    names,
    nameHashes,
    imports,
    exports,
    exportBundleEntries,
    exportBundles,
    referencedPackages,
    sections: sec.list,
    exportDataSize: sumSizes(r, exports),
  };
}

/** A UE4 zen header's own name map: the strings, zero padding to 8, then one hash per name. */
function readUe4NameMap(r: ByteReader, sec: Sections, s: Ue4PackageSummary): { names: string[]; nameHashes: bigint[] } {
  sec.begin('name map names', s.nameMapNamesOffset);
  r.need(s.nameMapNamesSize, 'name map names');
  const names = parseNameStrings(r.bytes.subarray(r.pos, r.pos + s.nameMapNamesSize), r.source, r.base + r.pos, 'name map');
  r.pos += s.nameMapNamesSize;
  sec.end('name map names', s.nameMapNamesOffset);
  if (s.nameMapHashesOffset > r.pos) {
    const at = r.pos;
    const gap = s.nameMapHashesOffset - at;
    if (gap >= 8) r.fail('BAD_VALUE', `${gap} bytes between the names and their hashes (alignment needs fewer than 8)`, at);
    const pad = r.bytesView(gap, 'name map alignment');
    if (pad.some((b) => b !== 0)) r.fail('BAD_VALUE', 'name map alignment bytes are not zero', at);
    sec.end('name map alignment', at);
  }
  sec.begin('name map hashes', s.nameMapHashesOffset);
  r.need(s.nameMapHashesSize, 'name map hashes');
  const nameHashes = parseNameHashes(r.bytes.subarray(r.pos, r.pos + s.nameMapHashesSize), r.source, r.base + r.pos, 'name map hashes');
  r.pos += s.nameMapHashesSize;
  sec.end('name map hashes', s.nameMapHashesOffset);
  if (nameHashes.length !== names.length) r.fail('BAD_VALUE', `the name map has ${names.length} names but ${nameHashes.length} hashes`, s.nameMapHashesOffset);
  return { names, nameHashes };
}

/**
 * Export bundles: BundleCount x {u32 FirstEntryIndex, u32 EntryCount}, then the entries of all bundles, filling the
 * bytes up to the graph data (the count is the store entry's, or inferred from that fit).
 */
function readUe4ExportBundles(r: ByteReader, sec: Sections, s: Ue4PackageSummary, hints: ZenPackageHints, exportCount: number): { exportBundles: ExportBundleHeader[]; exportBundleEntries: ExportBundleEntry[] } {
  sec.begin('export bundles', s.exportBundlesOffset);
  const regionEnd = s.graphDataOffset;
  if (regionEnd < r.pos) r.fail('BAD_VALUE', `graph data offset ${regionEnd} is before the export bundles at ${r.pos}`, 52);
  const bundleCount = hints.storeEntry?.exportBundleCount ?? inferUe4BundleCount(r, regionEnd);
  r.needArray(bundleCount, 8, 'export bundle headers');
  const exportBundles: ExportBundleHeader[] = [];
  let entryTotal = 0;
  for (let i = 0; i < bundleCount; i++) {
    const h = { firstEntryIndex: r.u32('bundle first entry'), entryCount: r.u32('bundle entry count') };
    entryTotal += h.entryCount;
    exportBundles.push(h);
  }
  const entriesStart = r.pos;
  if (entriesStart + entryTotal * 8 !== regionEnd) {
    r.fail('BAD_VALUE', `${bundleCount} export bundles with ${entryTotal} entries do not fill the ${regionEnd - s.exportBundlesOffset} bytes before the graph data`, s.exportBundlesOffset);
  }
  const exportBundleEntries: ExportBundleEntry[] = new Array(entryTotal);
  for (let i = 0; i < entryTotal; i++) exportBundleEntries[i] = readExportBundleEntry(r);
  sec.end('export bundles', s.exportBundlesOffset);
  checkBundleRuns(r, exportBundles, exportBundleEntries.length, exportCount, exportBundleEntries, s.exportBundlesOffset);
  return { exportBundles, exportBundleEntries };
}

/** Graph data: i32 package count, then per package u64 id, i32 arc count, arcs; it must end at the header's end. */
function readUe4GraphData(r: ByteReader, sec: Sections, s: Ue4PackageSummary, headerSize: number): ReferencedPackageArcs[] {
  sec.begin('graph data', s.graphDataOffset);
  const gr = new ByteReader(r.bytes.subarray(0, headerSize), r.source, r.base);
  gr.pos = r.pos;
  const pkgCount = gr.i32('graph referenced package count');
  if (pkgCount < 0) gr.fail('BAD_VALUE', `graph data package count ${pkgCount} is negative`, gr.pos - 4);
  gr.needArray(pkgCount, 12, 'graph data packages');
  const referencedPackages: ReferencedPackageArcs[] = [];
  for (let i = 0; i < pkgCount; i++) {
    const packageId = gr.u64('graph package id');
    const n = gr.i32('graph arc count');
    if (n < 0) gr.fail('BAD_VALUE', `graph arc count ${n} is negative`, gr.pos - 4);
    gr.needArray(n, 8, 'graph arcs');
    const arcs: BundleArc[] = new Array(n);
    for (let k = 0; k < n; k++) arcs[k] = { fromExportBundleIndex: gr.i32(), toExportBundleIndex: gr.i32() };
    referencedPackages.push({ packageId, arcs });
  }
  if (gr.pos !== headerSize) gr.fail('BAD_VALUE', `graph data ends at ${gr.pos} but GraphDataSize says ${headerSize}`, s.graphDataOffset);
  r.pos = gr.pos;
  sec.end('graph data', s.graphDataOffset);
  return referencedPackages;
}

/**
 * The number of UE4 export bundles: the k for which k headers of 8 bytes, chained (each FirstEntryIndex is the
 * running entry total), plus their entries fill the region exactly.
 */
function inferUe4BundleCount(r: ByteReader, regionEnd: number): number {
  const start = r.pos;
  const size = regionEnd - start;
  if (size === 0) return 0;
  let total = 0;
  for (let k = 1; k * 8 <= size; k++) {
    const at = start + (k - 1) * 8;
    const first = r.view.getUint32(at, true);
    const count = r.view.getUint32(at + 4, true);
    if (first !== total) break;
    total += count;
    if (k * 8 + total * 8 === size) return k;
    if (k * 8 + total * 8 > size) break;
  }
  r.fail('BAD_VALUE', `cannot find a consistent number of export bundles in the ${size} bytes at ${start}`, start);
}

function checkBundleRuns(r: ByteReader, bundles: readonly ExportBundleHeader[], entryCount: number, exportCount: number, entries: readonly ExportBundleEntry[], at: number): void {
  let next = 0;
  bundles.forEach((b, i) => {
    if (b.firstEntryIndex !== next) r.fail('BAD_VALUE', `export bundle ${i} starts at entry ${b.firstEntryIndex}, expected ${next}`, at);
    next += b.entryCount;
  });
  if (next !== entryCount) r.fail('BAD_VALUE', `export bundles cover ${next} entries but there are ${entryCount}`, at);
  entries.forEach((e, i) => {
    if (e.localExportIndex >= exportCount || e.commandType > 1) {
      r.fail('BAD_VALUE', `export bundle entry ${i} (export ${e.localExportIndex}, command ${e.commandType}) is invalid for ${exportCount} exports`, at);
    }
  });
}

function parseUe5(r: ByteReader, hinted: PartialLayout, hints: ZenPackageHints): ZenPackage {
  const summarySize = hinted.summarySize ?? detectUe5SummarySize(r.bytes);
  if (summarySize === undefined || summarySize === 64) {
    r.need(44, 'zen package summary');
    r.fail('BAD_VALUE', 'the summary offsets fit neither the UE5 44-byte nor the 52-byte zen summary (and not the UE4 one)', 36);
  }
  const withBundles = summarySize === 52;
  const s = readUe5Summary(r, withBundles);
  if (s.headerSize > r.bytes.length) r.fail('TRUNCATED', `HeaderSize ${s.headerSize} exceeds the ${r.bytes.length} bytes of data`, 4);
  if (s.headerSize < r.pos) r.fail('BAD_VALUE', `HeaderSize ${s.headerSize} is smaller than the summary`, 4);
  // Everything below must lie inside the header.
  const hr = new ByteReader(r.bytes.subarray(0, s.headerSize), r.source, r.base);
  hr.pos = r.pos;
  const sections = new Sections(hr);
  sections.end('summary', 0);
  let versioningInfo: ZenVersioningInfo | null = null;
  if (s.hasVersioningInfo) {
    const at = hr.pos;
    versioningInfo = readVersioningInfo(hr);
    sections.end('versioning info', at);
    mergeLayout(hinted, layoutFromObjectVersion(versioningInfo.fileVersionUE5), hr.source);
  }
  const cellMaps = hinted.cellMaps ?? detectCellMaps(hr.bytes, hr.pos) ?? false;
  let cellImportMapOffset = s.exportBundleEntriesOffset;
  let cellExportMapOffset = s.exportBundleEntriesOffset;
  if (cellMaps) {
    const at = hr.pos;
    cellImportMapOffset = hr.i32('cell import map offset');
    cellExportMapOffset = hr.i32('cell export map offset');
    sections.end('cell map offsets', at);
  }
  const namesAt = hr.pos;
  const nameMap = readNameBatch(hr, 'name map');
  sections.end('name map', namesAt);
  const bulkForms = hinted.bulkDataMap ?? ['none', 'plain', 'padded'];
  const bulkAt = hr.pos;
  const bulkDataMap = chooseBulkForm(hr, bulkForms, s.importedPublicExportHashesOffset);
  const bulkData = bulkDataMap === 'none' ? [] : readBulkDataMap(hr, bulkDataMap, sections, bulkAt);
  const layout: ZenPackageLayout = { format: 'UE5', summarySize, cellMaps, bulkDataMap };
  const importedPublicExportHashes = sections.table('imported public export hashes', s.importedPublicExportHashesOffset, s.importMapOffset, 8, () => hr.u64());
  const imports = sections.table('import map', s.importMapOffset, s.exportMapOffset, 8, () => hr.u64());
  const exports = sections.table('export map', s.exportMapOffset, cellImportMapOffset, EXPORT_MAP_ENTRY_SIZE, (i) => readExportMapEntry(hr, i));
  let cellImports: bigint[] = [];
  let cellExports: CellExportMapEntry[] = [];
  if (cellMaps) {
    cellImports = sections.table('cell import map', cellImportMapOffset, cellExportMapOffset, 8, () => hr.u64());
    cellExports = sections.table('cell export map', cellExportMapOffset, s.exportBundleEntriesOffset, CELL_EXPORT_MAP_ENTRY_SIZE, (i) => readCellExportMapEntry(hr, i));
  }
  const entriesEnd = withBundles ? s.dependencyBundleHeadersOffset! : s.graphDataOffset!;
  const exportBundleEntries = sections.table('export bundle entries', s.exportBundleEntriesOffset, entriesEnd, EXPORT_BUNDLE_ENTRY_SIZE, () => readExportBundleEntry(hr));
  const pkg: ZenPackage = {
    ...emptyPackage(layout),
    summary: s,
    headerSize: s.headerSize,
    name: s.name,
    packageName: packageNameOf(hr, nameMap.names, s.name, 'package name'),
    packageFlags: s.packageFlags,
    cookedHeaderSize: s.cookedHeaderSize,
    versioningInfo,
    names: nameMap.names,
    nameHashes: nameMap.hashes,
    bulkData,
    importedPublicExportHashes,
    imports,
    exports,
    cellImports,
    cellExports,
    exportBundleEntries,
    exportDataSize: sumSizes(hr, exports),
  };
  if (withBundles) {
    readDependencyBundles(hr, pkg, s, sections);
  } else {
    sections.begin('graph data', s.graphDataOffset!);
    readUe5GraphData(hr, pkg, hints);
    sections.end('graph data', s.graphDataOffset!);
  }
  if (hr.pos !== s.headerSize) hr.fail('BAD_VALUE', `the header's sections end at ${hr.pos} but HeaderSize is ${s.headerSize}`, hr.pos);
  pkg.sections = sections.list;
  return pkg;
}

/** The bulk data map; in its 'padded' form up to 7 zero bytes come before its size so that the entries align to 8. */
function readBulkDataMap(hr: ByteReader, form: 'plain' | 'padded', sections: Sections, bulkAt: number): BulkDataMapEntry[] {
  if (form === 'padded') {
    const padAt = hr.pos;
    const pad = hr.u64n('bulk data map padding size');
    if (pad >= 8 || (hr.pos + pad) % 8 !== 0) hr.fail('BAD_VALUE', `bulk data map padding of ${pad} bytes does not align the map size to 8`, padAt);
    const bytes = hr.bytesView(pad, 'bulk data map padding');
    if (bytes.some((b) => b !== 0)) hr.fail('BAD_VALUE', 'bulk data map padding is not zero', padAt + 8);
  }
  const sizeAt = hr.pos;
  const size = hr.u64n('bulk data map size');
  if (size % BULK_DATA_MAP_ENTRY_SIZE !== 0) hr.fail('BAD_VALUE', `bulk data map size ${size} is not a multiple of ${BULK_DATA_MAP_ENTRY_SIZE}`, sizeAt);
  const n = size / BULK_DATA_MAP_ENTRY_SIZE;
  hr.needArray(n, BULK_DATA_MAP_ENTRY_SIZE, 'bulk data map');
  const bulkData: BulkDataMapEntry[] = [];
  for (let i = 0; i < n; i++) bulkData.push(readBulkDataMapEntry(hr, i));
  sections.end('bulk data map', bulkAt);
  return bulkData;
}

/** The 52-byte summary's dependency bundles (headers, entries) and imported package names, in place of graph data. */
function readDependencyBundles(hr: ByteReader, pkg: ZenPackage, s: Ue5PackageSummary, sections: Sections): void {
  pkg.dependencyBundleHeaders = sections.table('dependency bundle headers', s.dependencyBundleHeadersOffset!, s.dependencyBundleEntriesOffset!, DEPENDENCY_BUNDLE_HEADER_SIZE, () => readDependencyBundleHeader(hr));
  pkg.dependencyBundleEntries = sections.table('dependency bundle entries', s.dependencyBundleEntriesOffset!, s.importedPackageNamesOffset!, 4, () => hr.i32());
  pkg.dependencyBundleHeaders.forEach((h, i) => {
    const n = dependencyCount(h);
    if (n > 0 && (h.firstEntryIndex < 0 || h.firstEntryIndex + n > pkg.dependencyBundleEntries.length)) {
      hr.fail('BAD_VALUE', `dependency bundle ${i} (first entry ${h.firstEntryIndex}, ${n} entries) lies outside the ${pkg.dependencyBundleEntries.length} dependency entries`, s.dependencyBundleHeadersOffset! + i * DEPENDENCY_BUNDLE_HEADER_SIZE);
    }
  });
  sections.begin('imported package names', s.importedPackageNamesOffset!);
  const batch = readNameBatch(hr, 'imported package names');
  hr.needArray(batch.names.length, 4, 'imported package name numbers');
  const numbers = batch.names.map(() => hr.u32('imported package name number'));
  pkg.importedPackageNames = { batch, numbers };
  sections.end('imported package names', s.importedPackageNamesOffset!);
}

/** Picks the bulk-data-map form (among `forms`) after which the imported public export hashes start at `end`. */
function chooseBulkForm(r: ByteReader, forms: readonly BulkDataMapForm[], end: number): BulkDataMapForm {
  const p = r.pos;
  const v = r.view;
  const fits = (form: BulkDataMapForm): boolean => {
    if (form === 'none') return end === p;
    let q = p;
    if (form === 'padded') {
      if (q + 8 > r.bytes.length) return false;
      const pad = v.getBigUint64(q, true);
      if (pad >= 8n) return false;
      q += 8 + Number(pad);
      if (q % 8 !== 0) return false;
    }
    if (q + 8 > r.bytes.length) return false;
    const size = v.getBigUint64(q, true);
    return BigInt(q + 8) + size === BigInt(end);
  };
  const ok = forms.filter(fits);
  if (ok.length === 1) return ok[0]!;
  if (ok.length > 1) return ok[ok.length - 1]!;
  // None fits: take the most likely one, whose parse then names the inconsistency.
  return forms.length === 1 ? forms[0]! : end === p ? 'none' : forms.includes('padded') ? 'padded' : forms[forms.length - 1]!;
}

/**
 * 5.0-5.2 graph data: ExportBundleCount × {u64 SerialOffset, u32 FirstEntryIndex, u32 EntryCount}, the internal
 * arcs (TArray of 8-byte pairs), then per imported package a TArray of 9-byte external arcs. The counts come from
 * the store entry when given; otherwise bundles are read until they cover every bundle entry, and external-arc
 * arrays until the header ends.
 */
function readUe5GraphData(r: ByteReader, pkg: ZenPackage, hints: ZenPackageHints): void {
  const total = pkg.exportBundleEntries.length;
  const start = r.pos;
  const bundles: ExportBundleHeader[] = [];
  const want = hints.storeEntry?.exportBundleCount;
  if (want !== undefined) r.needArray(want, 16, 'export bundle headers');
  let covered = 0;
  while (want !== undefined ? bundles.length < want : covered < total) {
    const h = { serialOffset: r.u64('bundle serial offset'), firstEntryIndex: r.u32('bundle first entry'), entryCount: r.u32('bundle entry count') };
    if (want === undefined && (h.firstEntryIndex !== covered || h.entryCount === 0)) {
      r.fail('BAD_VALUE', `export bundle ${bundles.length} (first entry ${h.firstEntryIndex}, ${h.entryCount} entries) does not continue the bundles before it`, r.pos - 16);
    }
    covered += h.entryCount;
    bundles.push(h);
  }
  checkBundleRuns(r, bundles, total, pkg.exports.length, pkg.exportBundleEntries, start);
  pkg.exportBundles = bundles;
  const n = r.u32('internal arc count');
  r.needArray(n, 8, 'internal arcs');
  for (let i = 0; i < n; i++) pkg.internalArcs.push({ fromExportBundleIndex: r.i32(), toExportBundleIndex: r.i32() });
  const imported = hints.storeEntry?.importedPackages.length;
  while (imported !== undefined ? pkg.externalArcs.length < imported : r.remaining > 0) {
    const k = r.u32(`external arc count of imported package ${pkg.externalArcs.length}`);
    r.needArray(k, 9, 'external arcs');
    const arcs: ExternalArc[] = new Array(k);
    for (let i = 0; i < k; i++) arcs[i] = { fromImportIndex: r.i32(), fromCommandType: r.u8(), toExportBundleIndex: r.i32() };
    pkg.externalArcs.push(arcs);
  }
}

/**
 * Where each export's data starts in the package chunk. 5.3+: HeaderSize + CookedSerialOffset. UE4 and 5.0-5.2:
 * bundles in order (5.0-5.2: from HeaderSize + the bundle's SerialOffset; UE4: back to back from HeaderSize), each
 * bundle's Serialize entries' exports back to back. An export without a Serialize entry gets -1.
 */
export function exportChunkOffsets(pkg: ZenPackage): number[] {
  if (pkg.layout.summarySize === 52) return pkg.exports.map((e) => pkg.headerSize + e.cookedSerialOffset);
  const out = pkg.exports.map(() => -1);
  let pos = pkg.headerSize;
  for (const b of pkg.exportBundles) {
    if (pkg.layout.format === 'UE5') pos = pkg.headerSize + Number(b.serialOffset ?? 0n);
    for (let i = b.firstEntryIndex; i < b.firstEntryIndex + b.entryCount; i++) {
      const entry = pkg.exportBundleEntries[i];
      if (!entry || entry.commandType !== 1) continue;
      const e = pkg.exports[entry.localExportIndex];
      if (!e) continue;
      out[entry.localExportIndex] = pos;
      pos += e.cookedSerialSize;
    }
  }
  return out;
}

/** The imported package names with their numbers applied (`Name_<n-1>`), 5.3+; empty before. */
export function importedPackageNameStrings(pkg: ZenPackage): string[] {
  const p = pkg.importedPackageNames;
  if (!p) return [];
  return p.batch.names.map((n, i) => nameWithNumber(n, p.numbers[i] ?? 0));
}

/** An export's object name, resolved from the package's name map. */
export function exportName(pkg: ZenPackage, e: ExportMapEntry): string | undefined {
  return resolveMappedName(pkg.names, e.objectName);
}
