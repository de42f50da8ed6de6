import { IoStoreError } from '../errors.js';
import { ByteReader } from '../util/bytes.js';
import { ByteWriter } from './byte-writer.js';
import { readMappedName, writeMappedName, type MappedName } from './mapped-name.js';

/** Size of the UE 4.26/4.27 FPackageSummary. */
export const UE4_SUMMARY_SIZE = 64;
/** FZenPackageSummary sizes: 5.0-5.2 (graph data) and 5.3+ (dependency bundles). */
export const UE5_SUMMARY_SIZE_GRAPH = 44;
export const UE5_SUMMARY_SIZE_BUNDLES = 52;

/** UE 4.26/4.27 FPackageSummary (64 bytes). Offsets are from the start of the package chunk. */
export interface Ue4PackageSummary {
  name: MappedName;
  /** Differs from `name` for localized packages (`/Game/L10N/<culture>/...`). */
  sourceName: MappedName;
  packageFlags: number;
  /** Size of the legacy .uasset the package was made from. */
  cookedHeaderSize: number;
  nameMapNamesOffset: number;
  nameMapNamesSize: number;
  nameMapHashesOffset: number;
  nameMapHashesSize: number;
  importMapOffset: number;
  exportMapOffset: number;
  exportBundlesOffset: number;
  graphDataOffset: number;
  graphDataSize: number;
}

/** UE5 FZenPackageSummary (44 bytes in 5.0-5.2, 52 from 5.3). Offsets are from the start of the package chunk. */
export interface Ue5PackageSummary {
  hasVersioningInfo: boolean;
  /** Size of the whole zen header; export data starts here. */
  headerSize: number;
  name: MappedName;
  packageFlags: number;
  cookedHeaderSize: number;
  importedPublicExportHashesOffset: number;
  importMapOffset: number;
  exportMapOffset: number;
  exportBundleEntriesOffset: number;
  /** 5.0-5.2. */
  graphDataOffset?: number;
  /** 5.3+. */
  dependencyBundleHeadersOffset?: number;
  dependencyBundleEntriesOffset?: number;
  importedPackageNamesOffset?: number;
}

export function readUe4Summary(r: ByteReader): Ue4PackageSummary {
  r.need(UE4_SUMMARY_SIZE, 'package summary (UE4)');
  const name = readMappedName(r, 'package name');
  const sourceName = readMappedName(r, 'source package name');
  const packageFlags = r.u32('package flags');
  const cookedHeaderSize = r.u32('cooked header size');
  const offsets = ['nameMapNamesOffset', 'nameMapNamesSize', 'nameMapHashesOffset', 'nameMapHashesSize', 'importMapOffset', 'exportMapOffset', 'exportBundlesOffset', 'graphDataOffset', 'graphDataSize'] as const;
  const s: Partial<Ue4PackageSummary> = { name, sourceName, packageFlags, cookedHeaderSize };
  for (const k of offsets) {
    const at = r.pos;
    const v = r.i32(k);
    if (v < 0) r.fail('BAD_VALUE', `package summary ${k} is negative (${v})`, at);
    s[k] = v;
  }
  const padAt = r.pos;
  const pad = r.u32('summary padding');
  if (pad !== 0) r.fail('BAD_VALUE', `package summary padding is 0x${pad.toString(16)}, not 0`, padAt);
  return s as Ue4PackageSummary;
}

export function writeUe4Summary(w: ByteWriter, s: Ue4PackageSummary): void {
  writeMappedName(w, s.name, 'package name');
  writeMappedName(w, s.sourceName, 'source package name');
  w.u32(s.packageFlags, 'package flags');
  w.u32(s.cookedHeaderSize, 'cooked header size');
  w.i32(s.nameMapNamesOffset);
  w.i32(s.nameMapNamesSize);
  w.i32(s.nameMapHashesOffset);
  w.i32(s.nameMapHashesSize);
  w.i32(s.importMapOffset);
  w.i32(s.exportMapOffset);
  w.i32(s.exportBundlesOffset);
  w.i32(s.graphDataOffset);
  w.i32(s.graphDataSize);
  w.u32(0);
}

export function readUe5Summary(r: ByteReader, withBundles: boolean): Ue5PackageSummary {
  r.need(withBundles ? UE5_SUMMARY_SIZE_BUNDLES : UE5_SUMMARY_SIZE_GRAPH, 'package summary (UE5)');
  const flagAt = r.pos;
  const hv = r.u32('has versioning info');
  if (hv > 1) r.fail('BAD_VALUE', `bHasVersioningInfo holds ${hv}`, flagAt);
  const headerSize = r.u32('header size');
  const name = readMappedName(r, 'package name');
  const packageFlags = r.u32('package flags');
  const cookedHeaderSize = r.u32('cooked header size');
  const off = (what: string): number => {
    const at = r.pos;
    const v = r.i32(what);
    if (v < 0) r.fail('BAD_VALUE', `package summary ${what} is negative (${v})`, at);
    return v;
  };
  const s: Ue5PackageSummary = {
    hasVersioningInfo: hv === 1,
    headerSize,
    name,
    packageFlags,
    cookedHeaderSize,
    importedPublicExportHashesOffset: off('ImportedPublicExportHashesOffset'),
    importMapOffset: off('ImportMapOffset'),
    exportMapOffset: off('ExportMapOffset'),
    exportBundleEntriesOffset: off('ExportBundleEntriesOffset'),
  };
  if (withBundles) {
    s.dependencyBundleHeadersOffset = off('DependencyBundleHeadersOffset');
    s.dependencyBundleEntriesOffset = off('DependencyBundleEntriesOffset');
    s.importedPackageNamesOffset = off('ImportedPackageNamesOffset');
  } else {
    s.graphDataOffset = off('GraphDataOffset');
  }
  return s;
}

export function writeUe5Summary(w: ByteWriter, s: Ue5PackageSummary, withBundles: boolean): void {
  w.u32(s.hasVersioningInfo ? 1 : 0);
  w.u32(s.headerSize, 'header size');
  writeMappedName(w, s.name, 'package name');
  w.u32(s.packageFlags, 'package flags');
  w.u32(s.cookedHeaderSize, 'cooked header size');
  w.i32(s.importedPublicExportHashesOffset);
  w.i32(s.importMapOffset);
  w.i32(s.exportMapOffset);
  w.i32(s.exportBundleEntriesOffset);
  if (withBundles) {
    w.i32(s.dependencyBundleHeadersOffset ?? 0);
    w.i32(s.dependencyBundleEntriesOffset ?? 0);
    w.i32(s.importedPackageNamesOffset ?? 0);
  } else {
    w.i32(s.graphDataOffset ?? 0);
  }
}

/** A custom version of the versioning info: the FGuid key as its 16 stored bytes, and the version. */
export interface CustomVersion {
  key: Uint8Array;
  version: number;
}

/** FZenPackageVersioningInfo (present when bHasVersioningInfo). */
export interface ZenVersioningInfo {
  /** EZenPackageVersion: 0 Initial, 1 DataResourceTable, 2 ImportedPackageNames, 3 ExportDependencies. */
  zenVersion: number;
  fileVersionUE4: number;
  fileVersionUE5: number;
  licenseeVersion: number;
  customVersions: CustomVersion[];
}

export function readVersioningInfo(r: ByteReader): ZenVersioningInfo {
  const zenVersion = r.u32('zen version');
  const fileVersionUE4 = r.i32('file version UE4');
  const fileVersionUE5 = r.i32('file version UE5');
  const licenseeVersion = r.i32('licensee version');
  const n = r.u32('custom version count');
  r.needArray(n, 20, 'custom versions');
  const customVersions: CustomVersion[] = new Array(n);
  // The keys are views of one copy of the table: a buffer per 16-byte key (a hundred per package) costs more in
  // allocation and collection than reading the whole package.
  const table = r.bytesView(n * 20, 'custom versions').slice();
  const view = new DataView(table.buffer);
  for (let i = 0; i < n; i++) customVersions[i] = { key: table.subarray(i * 20, i * 20 + 16), version: view.getInt32(i * 20 + 16, true) };
  return { zenVersion, fileVersionUE4, fileVersionUE5, licenseeVersion, customVersions };
}

export function writeVersioningInfo(w: ByteWriter, v: ZenVersioningInfo): void {
  w.u32(v.zenVersion, 'zen version');
  w.i32(v.fileVersionUE4, 'file version UE4');
  w.i32(v.fileVersionUE5, 'file version UE5');
  w.i32(v.licenseeVersion, 'licensee version');
  w.u32(v.customVersions.length);
  for (const c of v.customVersions) {
    if (c.key.length !== 16) throw new IoStoreError('USAGE', `custom version key has ${c.key.length} bytes, not 16`);
    w.bytes(c.key);
    w.i32(c.version, 'custom version');
  }
}
