import { IoStoreError } from '../errors.js';
import { encodeFString } from '../toc/directory-index.js';
import { ByteReader } from '../util/bytes.js';
import { ByteWriter } from './byte-writer.js';
import { readMappedName, writeMappedName, type MappedName } from './mapped-name.js';
import {
  nameHash,
  parseNameHashes,
  parseNameStrings,
  readNameBatch,
  serializeNameHashes,
  serializeNameStrings,
  writeNameBatch,
  type NameBatch,
} from './name-batch.js';
import {
  parseStoreEntries,
  serializeStoreEntries,
  type ShaderMapHashSize,
  type StoreEntry,
  type StoreEntryLayout,
} from './store-entry.js';
import { quote } from '../util/quote.js';

/** u32 at the start of every UE5 container header ("nCoI"). */
export const CONTAINER_HEADER_MAGIC = 0x496f436e;

/**
 * Container-header layouts, oldest first. `PreInitial` and `Initial` have no magic (UE 4.26/4.27; PreInitial is a
 * variant with 16-byte store entries seen in some shipped titles); the others start with the magic and store their
 * version number: `UE5Initial` 0 (UE5 early access), `LocalizedPackages` 1 (5.0), `OptionalSegmentPackages` 2 (5.1,
 * 5.2), `NoExportInfo` 3 (5.3, 5.4), `SoftPackageReferences` 4 (5.5), `SoftPackageReferencesOffset` 5 (5.6+).
 */
export const CONTAINER_HEADER_VERSIONS = [
  'PreInitial',
  'Initial',
  'UE5Initial',
  'LocalizedPackages',
  'OptionalSegmentPackages',
  'NoExportInfo',
  'SoftPackageReferences',
  'SoftPackageReferencesOffset',
] as const;
export type ContainerHeaderVersionName = (typeof CONTAINER_HEADER_VERSIONS)[number];

/** Position of a version in CONTAINER_HEADER_VERSIONS, for ordering comparisons. */
export function containerHeaderVersionRank(v: ContainerHeaderVersionName): number {
  return CONTAINER_HEADER_VERSIONS.indexOf(v);
}

/** True for the UE4 layouts (no magic, no version field). */
export function isUe4ContainerHeaderVersion(v: ContainerHeaderVersionName): boolean {
  return v === 'PreInitial' || v === 'Initial';
}

/** The number a UE5 header stores after the magic; undefined for the UE4 layouts. */
export function containerHeaderVersionNumber(v: ContainerHeaderVersionName): number | undefined {
  const r = containerHeaderVersionRank(v);
  return r >= 2 ? r - 2 : undefined;
}

export function parseContainerHeaderVersionName(s: string): ContainerHeaderVersionName {
  const want = s.trim().toLowerCase();
  // CUE4Parse's name for the magic-less UE 4.26/4.27 layout.
  if (want === 'beforeversionwasadded') return 'Initial';
  const v = CONTAINER_HEADER_VERSIONS.find((n) => n.toLowerCase() === want);
  if (v === undefined) {
    throw new IoStoreError('USAGE', `unknown container header version ${quote(s)} (expected one of ${CONTAINER_HEADER_VERSIONS.join(', ')})`);
  }
  return v;
}

function storeLayout(v: ContainerHeaderVersionName): StoreEntryLayout {
  switch (v) {
    case 'PreInitial': return 'PreInitial';
    case 'Initial': return 'UE4';
    case 'UE5Initial':
    case 'LocalizedPackages':
    case 'OptionalSegmentPackages': return 'UE5WithExportInfo';
    default: return 'UE5';
  }
}

/** A package of the container: its id and its store entry. */
export interface ContainerPackage extends StoreEntry {
  packageId: bigint;
}

/** UE5 (version 1+): a package that has localized variants. */
export interface LocalizedPackage {
  sourcePackageId: bigint;
  /** Name in the header's name map. */
  sourcePackageName: MappedName;
}

/** A package redirect. UE5 stores the source name (in the header's name map); UE4 does not. */
export interface PackageRedirect {
  sourcePackageId: bigint;
  targetPackageId: bigint;
  sourcePackageName?: MappedName;
}

/** UE4: the localized packages of one culture. */
export interface CulturePackages {
  culture: string;
  packages: { sourcePackageId: bigint; localizedPackageId: bigint }[];
}

/** UE5.5+ soft package references. `packageIndices` is kept as stored (per-package views of u32 indices). */
export interface SoftPackageReferences {
  contains: boolean;
  packageIds: bigint[];
  packageIndices: Uint8Array;
}

export interface ContainerHeader {
  version: ContainerHeaderVersionName;
  containerId: bigint;
  /** Packages in stored order (the engine sorts them by id). */
  packages: ContainerPackage[];
  /** Version 2+: optional-segment (editor-optional) packages. */
  optionalSegmentPackages: ContainerPackage[];
  /** UE4: the container name batch (empty in practice); UE5: the redirects name map. */
  nameMap: NameBatch;
  /** Version 1+. */
  localizedPackages: LocalizedPackage[];
  packageRedirects: PackageRedirect[];
  /** UE4 only. */
  culturePackageMap: CulturePackages[];
  /**
   * Version 4+: the soft package reference block; null when there is none (always null before version 4; in
   * version 5 a zero-sized block).
   */
  softPackageReferences: SoftPackageReferences | null;
  /** Byte size of each shader-map hash in the store entries. */
  shaderMapHashSize: ShaderMapHashSize;
  /** Zero bytes after the header (some tools pad the chunk); written back as they were. */
  trailingPadding: number;
}

export interface ParseContainerHeaderOptions {
  /** Name of the data, for error messages. */
  source?: string;
  /**
   * The layout, when known. Without it a UE5 header is recognised by its magic and version, and a header without
   * magic is taken as `Initial` unless its store entries only fit the 16-byte `PreInitial` layout.
   */
  version?: ContainerHeaderVersionName;
  /** Size of shader-map hashes; inferred from the store-entry data when absent. */
  shaderMapHashSize?: ShaderMapHashSize;
}

/** Parses a container-header chunk ("depsFile"). Throws IoStoreError on malformed or truncated data. */
export function parseContainerHeader(bytes: Uint8Array, options: ParseContainerHeaderOptions = {}): ContainerHeader {
  const source = options.source ?? 'container header';
  const r = new ByteReader(bytes, source);
  let version = options.version;
  if (version === undefined) {
    r.need(4, 'container header signature');
    const first = r.view.getUint32(0, true);
    if (first === CONTAINER_HEADER_MAGIC) {
      r.need(8, 'container header version');
      const n = r.view.getUint32(4, true);
      const name = CONTAINER_HEADER_VERSIONS[n + 2];
      if (name === undefined) r.fail('UNSUPPORTED', `container header version ${n} is not supported (known: 0-5)`, 4);
      version = name;
    } else {
      version = detectUe4Layout(bytes, source);
    }
  }
  return readHeader(r, version, options.shaderMapHashSize);
}

/**
 * Chooses between the two magic-less layouts by whether the store entries tile their buffer with 32-byte (Initial)
 * or 16-byte (PreInitial) fixed parts. Falls back to Initial, whose parse then reports what is wrong.
 */
function detectUe4Layout(bytes: Uint8Array, source: string): ContainerHeaderVersionName {
  try {
    const r = new ByteReader(bytes, source);
    r.skip(12, 'container id and package count');
    r.skip(r.u32('names size'), 'names');
    r.skip(r.u32('name hashes size'), 'name hashes');
    const count = r.u32('package id count');
    r.skip(count * 8, 'package ids');
    const size = r.u32('store entries size');
    const buf = r.bytesView(size, 'store entries');
    if (entriesTile(buf, count, 32, 24)) return 'Initial';
    if (entriesTile(buf, count, 16, 8)) return 'PreInitial';
  } catch (e) {
    if (!(e instanceof IoStoreError)) throw e;
  }
  return 'Initial';
}

/** True when `count` fixed parts of `size` bytes plus their imported-package arrays fill `buf` exactly. */
function entriesTile(buf: Uint8Array, count: number, size: number, viewAt: number): boolean {
  if (count * size > buf.length) return false;
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let expect = count * size;
  for (let i = 0; i < count; i++) {
    const at = i * size + viewAt;
    const num = v.getUint32(at, true);
    if (num === 0) continue;
    if (at + v.getUint32(at + 4, true) !== expect) return false;
    expect += num * 8;
    if (expect > buf.length) return false;
  }
  return expect === buf.length;
}

function readU64Array(r: ByteReader, what: string): bigint[] {
  const n = r.u32(`${what} count`);
  r.needArray(n, 8, what);
  const out: bigint[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = r.view.getBigUint64(r.pos + i * 8, true);
  r.pos += n * 8;
  return out;
}

function readBool(r: ByteReader, what: string): boolean {
  const at = r.pos;
  const v = r.u32(what);
  if (v > 1) r.fail('BAD_VALUE', `${what}: boolean holds ${v}`, at);
  return v === 1;
}

function readPackages(r: ByteReader, layout: StoreEntryLayout, what: string, hashSize?: ShaderMapHashSize): { packages: ContainerPackage[]; hashSize: ShaderMapHashSize } {
  const ids = readU64Array(r, `${what} ids`);
  const size = r.u32(`${what} store entries size`);
  const at = r.pos;
  const buf = r.bytesView(size, `${what} store entries`);
  const { entries, shaderMapHashSize } = parseStoreEntries(buf, ids.length, layout, r.source, r.base + at, hashSize);
  return { packages: entries.map((e, i) => ({ packageId: ids[i]!, ...e })), hashSize: shaderMapHashSize };
}

function readHeader(r: ByteReader, version: ContainerHeaderVersionName, hashSizeOpt?: ShaderMapHashSize): ContainerHeader {
  const rank = containerHeaderVersionRank(version);
  const ue4 = isUe4ContainerHeaderVersion(version);
  if (!ue4) readSignature(r, version);
  const containerId = r.u64('container id');
  const packageCountAt = r.pos;
  const packageCount = rank <= containerHeaderVersionRank('LocalizedPackages') ? r.u32('package count') : undefined;
  const ue4Names = ue4 ? readUe4NameBatch(r) : undefined;
  const layout = storeLayout(version);
  const main = readPackages(r, layout, 'package', hashSizeOpt);
  if (packageCount !== undefined && packageCount !== main.packages.length) {
    r.fail('BAD_VALUE', `package count ${packageCount} differs from the ${main.packages.length} package ids`, packageCountAt);
  }
  let hashSize = main.hashSize;
  let optionalSegmentPackages: ContainerPackage[] = [];
  if (rank >= containerHeaderVersionRank('OptionalSegmentPackages')) {
    const opt = readPackages(r, layout, 'optional segment package', hashSizeOpt ?? hashSize);
    optionalSegmentPackages = opt.packages;
    if (opt.packages.some((p) => p.shaderMapHashes.length > 0) && !main.packages.some((p) => p.shaderMapHashes.length > 0)) hashSize = opt.hashSize;
  }
  const tail = ue4Names ? readUe4Tail(r, ue4Names) : readUe5Tail(r, version);
  const trailingPadding = readTrailingPadding(r, version);
  return { version, containerId, packages: main.packages, optionalSegmentPackages, ...tail, shaderMapHashSize: hashSize, trailingPadding };
}

/** What follows the packages: the redirects, and the cultures (UE4) or the localized packages and soft references (UE5). */
type HeaderTail = Pick<ContainerHeader, 'nameMap' | 'localizedPackages' | 'packageRedirects' | 'culturePackageMap' | 'softPackageReferences'>;

function readSignature(r: ByteReader, version: ContainerHeaderVersionName): void {
  const magicAt = r.pos;
  const magic = r.u32('container header signature');
  if (magic !== CONTAINER_HEADER_MAGIC) {
    r.fail('BAD_MAGIC', `container header signature 0x${magic.toString(16)} is not 0x${CONTAINER_HEADER_MAGIC.toString(16)} (a ${version} header starts with it)`, magicAt);
  }
  const vAt = r.pos;
  const n = r.u32('container header version');
  if (n !== containerHeaderVersionNumber(version)) r.fail('BAD_VALUE', `container header version is ${n}, expected ${containerHeaderVersionNumber(version)} (${version})`, vAt);
}

/** UE4 headers carry their name batch before the packages, as two sized blobs: the strings, then their hashes. */
function readUe4NameBatch(r: ByteReader): NameBatch {
  const namesSize = r.u32('container names size');
  const namesAt = r.pos;
  const names = parseNameStrings(r.bytesView(namesSize, 'container names'), r.source, r.base + namesAt, 'container names');
  const hashesSize = r.u32('container name hashes size');
  const hashesAt = r.pos;
  const hashes = parseNameHashes(r.bytesView(hashesSize, 'container name hashes'), r.source, r.base + hashesAt, 'container name hashes');
  if (hashes.length !== names.length) r.fail('BAD_VALUE', `container name batch has ${names.length} names but ${hashes.length} hashes`, hashesAt);
  return { names, hashes };
}

function readUe4Tail(r: ByteReader, nameMap: NameBatch): HeaderTail {
  const culturePackageMap: CulturePackages[] = [];
  const cultures = r.u32('culture count');
  // Each culture takes at least 8 bytes (string length and package count).
  r.needArray(cultures, 8, 'culture package map');
  for (let c = 0; c < cultures; c++) {
    const culture = r.fstring(`culture ${c} name`);
    const n = r.u32(`culture ${c} package count`);
    r.needArray(n, 16, `culture ${culture} packages`);
    const packages: CulturePackages['packages'] = new Array(n);
    for (let i = 0; i < n; i++) packages[i] = { sourcePackageId: r.u64(), localizedPackageId: r.u64() };
    culturePackageMap.push({ culture, packages });
  }
  const packageRedirects: PackageRedirect[] = [];
  const n = r.u32('package redirect count');
  r.needArray(n, 16, 'package redirects');
  for (let i = 0; i < n; i++) packageRedirects.push({ sourcePackageId: r.u64(), targetPackageId: r.u64() });
  return { nameMap, localizedPackages: [], packageRedirects, culturePackageMap, softPackageReferences: null };
}

function readUe5Tail(r: ByteReader, version: ContainerHeaderVersionName): HeaderTail {
  const nameMap = readNameBatch(r, 'redirects name map');
  const localizedPackages: LocalizedPackage[] = [];
  if (containerHeaderVersionRank(version) >= containerHeaderVersionRank('LocalizedPackages')) {
    const n = r.u32('localized package count');
    r.needArray(n, 16, 'localized packages');
    for (let i = 0; i < n; i++) localizedPackages.push({ sourcePackageId: r.u64(), sourcePackageName: readMappedName(r) });
  }
  const packageRedirects: PackageRedirect[] = [];
  const n = r.u32('package redirect count');
  r.needArray(n, 24, 'package redirects');
  for (let i = 0; i < n; i++) packageRedirects.push({ sourcePackageId: r.u64(), targetPackageId: r.u64(), sourcePackageName: readMappedName(r) });
  let softPackageReferences: SoftPackageReferences | null = null;
  if (version === 'SoftPackageReferences') softPackageReferences = readSoftReferences(r);
  else if (version === 'SoftPackageReferencesOffset') softPackageReferences = readOffsetSoftReferences(r);
  return { nameMap, localizedPackages, packageRedirects, culturePackageMap: [], softPackageReferences };
}

/** The soft references behind an offset/size pair, which must point right after the pair and match the bytes read. */
function readOffsetSoftReferences(r: ByteReader): SoftPackageReferences | null {
  const infoAt = r.pos;
  const offset = r.i64('soft package references offset');
  const size = r.i64('soft package references size');
  if (size === 0n) return null;
  if (offset !== BigInt(r.base + r.pos)) {
    r.fail('BAD_VALUE', `soft package references offset ${offset} does not point right after its serial info (${r.base + r.pos})`, infoAt);
  }
  const start = r.pos;
  const refs = readSoftReferences(r);
  if (BigInt(r.pos - start) !== size) {
    r.fail('BAD_VALUE', `soft package references take ${r.pos - start} bytes but their serial info says ${size}`, infoAt + 8);
  }
  return refs;
}

/** Zero padding may follow the header (the writer aligns the chunk); anything else is a misread. */
function readTrailingPadding(r: ByteReader, version: ContainerHeaderVersionName): number {
  const trailingAt = r.pos;
  const trailing = r.bytesView(r.remaining, 'trailing bytes');
  const nonZero = trailing.findIndex((b) => b !== 0);
  if (nonZero >= 0) {
    r.fail('BAD_VALUE', `${trailing.length} unexplained bytes after the end of the ${version} container header`, trailingAt + nonZero);
  }
  return trailing.length;
}

function readSoftReferences(r: ByteReader): SoftPackageReferences {
  const contains = readBool(r, 'contains soft package references');
  if (!contains) return { contains, packageIds: [], packageIndices: new Uint8Array(0) };
  const packageIds = readU64Array(r, 'soft package reference ids');
  const n = r.u32('soft package reference indices size');
  const packageIndices = r.bytesView(n, 'soft package reference indices').slice();
  return { contains, packageIds, packageIndices };
}

/** Writes a container header. For a header read by parseContainerHeader the bytes are those it was read from. */
export function serializeContainerHeader(h: ContainerHeader): Uint8Array {
  const version = h.version;
  if (!CONTAINER_HEADER_VERSIONS.includes(version)) throw new IoStoreError('USAGE', `unknown container header version ${quote(String(version))}`);
  const rank = containerHeaderVersionRank(version);
  const ue4 = isUe4ContainerHeaderVersion(version);
  const w = new ByteWriter(1024);
  if (!ue4) {
    w.u32(CONTAINER_HEADER_MAGIC);
    w.u32(containerHeaderVersionNumber(version)!);
  }
  w.u64(h.containerId, 'container id');
  if (rank <= containerHeaderVersionRank('LocalizedPackages')) w.u32(h.packages.length);
  if (ue4) writeUe4NameMap(w, h);
  writeStorePackages(w, h, h.packages, 'packages');
  if (rank >= containerHeaderVersionRank('OptionalSegmentPackages')) {
    writeStorePackages(w, h, h.optionalSegmentPackages, 'optional segment packages');
  } else if (h.optionalSegmentPackages.length > 0) {
    throw new IoStoreError('USAGE', `a ${version} container header cannot hold optional segment packages`);
  }
  if (ue4) writeUe4Tail(w, h);
  else writeUe5Tail(w, h, rank);
  w.zeros(h.trailingPadding);
  return w.finish();
}

/** A UE4 header's own name map: the strings, then their hashes (computed where the header has none). */
function writeUe4NameMap(w: ByteWriter, h: ContainerHeader): void {
  const strings = serializeNameStrings(h.nameMap.names);
  w.u32(strings.length);
  w.bytes(strings);
  const hashes = serializeNameHashes(h.nameMap.hashes.length === h.nameMap.names.length ? h.nameMap.hashes : h.nameMap.names.map(nameHash));
  w.u32(hashes.length);
  w.bytes(hashes);
}

/** A segment's package ids, then its store entries as one sized blob. */
function writeStorePackages(w: ByteWriter, h: ContainerHeader, packages: readonly ContainerPackage[], what: string): void {
  w.u32(packages.length, `${what} count`);
  for (const p of packages) w.u64(p.packageId, `${what} id`);
  const buf = serializeStoreEntries(packages, storeLayout(h.version), h.shaderMapHashSize);
  w.u32(buf.length);
  w.bytes(buf);
}

/** After a UE4 header's store entries: the culture package map, then the redirects (ids only). */
function writeUe4Tail(w: ByteWriter, h: ContainerHeader): void {
  w.u32(h.culturePackageMap.length);
  for (const c of h.culturePackageMap) {
    w.bytes(encodeFString(c.culture));
    w.u32(c.packages.length);
    for (const p of c.packages) {
      w.u64(p.sourcePackageId, 'culture source package id');
      w.u64(p.localizedPackageId, 'culture localized package id');
    }
  }
  w.u32(h.packageRedirects.length);
  for (const p of h.packageRedirects) {
    w.u64(p.sourcePackageId, 'redirect source package id');
    w.u64(p.targetPackageId, 'redirect target package id');
  }
}

/**
 * After a UE5 header's store entries: the redirects' name map, the localized packages (from LocalizedPackages), the
 * redirects with their names, and the soft package references of the versions that have them.
 */
function writeUe5Tail(w: ByteWriter, h: ContainerHeader, rank: number): void {
  const version = h.version;
  if (h.culturePackageMap.length > 0) throw new IoStoreError('USAGE', `a ${version} container header has no culture package map`);
  writeNameBatch(w, h.nameMap, 'redirects name map');
  if (rank >= containerHeaderVersionRank('LocalizedPackages')) {
    w.u32(h.localizedPackages.length);
    for (const p of h.localizedPackages) {
      w.u64(p.sourcePackageId, 'localized source package id');
      writeMappedName(w, p.sourcePackageName);
    }
  } else if (h.localizedPackages.length > 0) {
    throw new IoStoreError('USAGE', `a ${version} container header has no localized package list`);
  }
  w.u32(h.packageRedirects.length);
  for (const p of h.packageRedirects) {
    w.u64(p.sourcePackageId, 'redirect source package id');
    w.u64(p.targetPackageId, 'redirect target package id');
    writeMappedName(w, p.sourcePackageName ?? { index: 0, type: 0, number: 0 });
  }
  if (version === 'SoftPackageReferences') {
    writeSoftReferences(w, h.softPackageReferences ?? { contains: false, packageIds: [], packageIndices: new Uint8Array(0) });
  } else if (version === 'SoftPackageReferencesOffset') {
    // Where the references start and how long they are, patched once written (zeros when there are none).
    const infoAt = w.length;
    w.zeros(16);
    if (h.softPackageReferences) {
      const start = w.length;
      writeSoftReferences(w, h.softPackageReferences);
      w.patchI64n(infoAt, start);
      w.patchI64n(infoAt + 8, w.length - start);
    }
  } else if (h.softPackageReferences) {
    throw new IoStoreError('USAGE', `a ${version} container header has no soft package references`);
  }
}

function writeSoftReferences(w: ByteWriter, s: SoftPackageReferences): void {
  w.u32(s.contains ? 1 : 0);
  if (!s.contains) return;
  w.u32(s.packageIds.length);
  for (const id of s.packageIds) w.u64(id, 'soft package reference id');
  w.u32(s.packageIndices.length);
  w.bytes(s.packageIndices);
}

/** The packages of a header by package id (main segment first, then optional segment). */
export function packagesById(h: ContainerHeader): Map<bigint, ContainerPackage> {
  const m = new Map<bigint, ContainerPackage>();
  for (const p of h.optionalSegmentPackages) m.set(p.packageId, p);
  for (const p of h.packages) m.set(p.packageId, p);
  return m;
}

/** The store entry of a package, or undefined (a linear search; use packagesById for many lookups). */
export function findStoreEntry(h: ContainerHeader, packageId: bigint): ContainerPackage | undefined {
  return h.packages.find((p) => p.packageId === packageId) ?? h.optionalSegmentPackages.find((p) => p.packageId === packageId);
}

/** Per-package soft references: for package i of `packageCount`, indices into SoftPackageReferences.packageIds. */
export function decodeSoftPackageIndices(s: SoftPackageReferences, packageCount: number, source = 'soft package references'): number[][] {
  const r = new ByteReader(s.packageIndices, source);
  r.needArray(packageCount, 8, 'soft package reference views');
  const out: number[][] = [];
  for (let i = 0; i < packageCount; i++) {
    const at = i * 8;
    const num = r.view.getUint32(at, true);
    const start = at + r.view.getUint32(at + 4, true);
    if (num === 0) {
      out.push([]);
      continue;
    }
    if (start + num * 4 > s.packageIndices.length) r.fail('BAD_VALUE', `soft package reference view ${i}: ${num} indices run past the buffer`, at);
    const list: number[] = new Array(num);
    for (let k = 0; k < num; k++) list[k] = r.view.getUint32(start + k * 4, true);
    out.push(list);
  }
  return out;
}
