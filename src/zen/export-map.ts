import type { ByteReader } from '../util/bytes.js';
import type { ByteWriter } from './byte-writer.js';
import { readMappedName, writeMappedName, type MappedName } from './mapped-name.js';

export const EXPORT_MAP_ENTRY_SIZE = 72;
export const CELL_EXPORT_MAP_ENTRY_SIZE = 40;
export const EXPORT_BUNDLE_ENTRY_SIZE = 8;
export const DEPENDENCY_BUNDLE_HEADER_SIZE = 20;
export const BULK_DATA_MAP_ENTRY_SIZE = 32;

/** FExportMapEntry (72 bytes). Object indices are FPackageObjectIndex values. */
export interface ExportMapEntry {
  /** UE5.3+: offset from the end of the zen header; UE4: offset in the legacy .uasset+.uexp. */
  cookedSerialOffset: number;
  cookedSerialSize: number;
  objectName: MappedName;
  outerIndex: bigint;
  classIndex: bigint;
  superIndex: bigint;
  templateIndex: bigint;
  /** UE5: public export hash (0 when not public); UE4: GlobalImportIndex (Null when not public). */
  publicExportHash: bigint;
  objectFlags: number;
  /** 0 None, 1 NotForClient, 2 NotForServer. */
  filterFlags: number;
}

function u64n(r: ByteReader, what: string): number {
  return r.u64n(what);
}

function checkPad(r: ByteReader, n: number, what: string): void {
  const at = r.pos;
  const b = r.bytesView(n, what);
  for (let i = 0; i < n; i++) if (b[i] !== 0) r.fail('BAD_VALUE', `${what} is not zero`, at + i);
}

export function readExportMapEntry(r: ByteReader, i: number): ExportMapEntry {
  const what = `export ${i}`;
  const e: ExportMapEntry = {
    cookedSerialOffset: u64n(r, `${what} cooked serial offset`),
    cookedSerialSize: u64n(r, `${what} cooked serial size`),
    objectName: readMappedName(r, `${what} object name`),
    outerIndex: r.u64(),
    classIndex: r.u64(),
    superIndex: r.u64(),
    templateIndex: r.u64(),
    publicExportHash: r.u64(),
    objectFlags: r.u32(),
    filterFlags: r.u8(),
  };
  checkPad(r, 3, `${what} padding`);
  return e;
}

export function writeExportMapEntry(w: ByteWriter, e: ExportMapEntry): void {
  w.u64n(e.cookedSerialOffset, 'cooked serial offset');
  w.u64n(e.cookedSerialSize, 'cooked serial size');
  writeMappedName(w, e.objectName);
  w.u64(e.outerIndex, 'outer index');
  w.u64(e.classIndex, 'class index');
  w.u64(e.superIndex, 'super index');
  w.u64(e.templateIndex, 'template index');
  w.u64(e.publicExportHash, 'public export hash');
  w.u32(e.objectFlags, 'object flags');
  w.u8(e.filterFlags, 'filter flags');
  w.zeros(3);
}

/** 5.6+ FCellExportMapEntry (40 bytes). */
export interface CellExportMapEntry {
  cookedSerialOffset: number;
  cookedSerialLayoutSize: number;
  cookedSerialSize: number;
  cppClassInfo: MappedName;
  publicExportHash: bigint;
}

export function readCellExportMapEntry(r: ByteReader, i: number): CellExportMapEntry {
  const what = `cell export ${i}`;
  return {
    cookedSerialOffset: u64n(r, `${what} cooked serial offset`),
    cookedSerialLayoutSize: u64n(r, `${what} cooked serial layout size`),
    cookedSerialSize: u64n(r, `${what} cooked serial size`),
    cppClassInfo: readMappedName(r, `${what} class info`),
    publicExportHash: r.u64(),
  };
}

export function writeCellExportMapEntry(w: ByteWriter, e: CellExportMapEntry): void {
  w.u64n(e.cookedSerialOffset, 'cell cooked serial offset');
  w.u64n(e.cookedSerialLayoutSize, 'cell cooked serial layout size');
  w.u64n(e.cookedSerialSize, 'cell cooked serial size');
  writeMappedName(w, e.cppClassInfo);
  w.u64(e.publicExportHash, 'cell public export hash');
}

/** FExportBundleEntry: an export and a command, 0 Create or 1 Serialize. */
export interface ExportBundleEntry {
  localExportIndex: number;
  commandType: number;
}

export const ExportCommandType = { Create: 0, Serialize: 1 } as const;

export function readExportBundleEntry(r: ByteReader): ExportBundleEntry {
  return { localExportIndex: r.u32('bundle entry export index'), commandType: r.u32('bundle entry command') };
}

export function writeExportBundleEntry(w: ByteWriter, e: ExportBundleEntry): void {
  w.u32(e.localExportIndex, 'bundle entry export index');
  w.u32(e.commandType, 'bundle entry command');
}

/**
 * An export bundle (UE4 and 5.0-5.2): a run of bundle entries. UE5 also stores the offset of the bundle's first
 * serialized export, relative to the end of the header (UE4 bundles are laid out in order and store none).
 */
export interface ExportBundleHeader {
  serialOffset?: bigint;
  firstEntryIndex: number;
  entryCount: number;
}

/** 5.3+: an export's dependencies, four consecutive runs in the dependency entries. */
export interface DependencyBundleHeader {
  /** Index of the first entry, or -1 when the export has none. */
  firstEntryIndex: number;
  createBeforeCreate: number;
  serializeBeforeCreate: number;
  createBeforeSerialize: number;
  serializeBeforeSerialize: number;
}

export function readDependencyBundleHeader(r: ByteReader): DependencyBundleHeader {
  return {
    firstEntryIndex: r.i32('dependency first entry'),
    createBeforeCreate: r.u32(),
    serializeBeforeCreate: r.u32(),
    createBeforeSerialize: r.u32(),
    serializeBeforeSerialize: r.u32(),
  };
}

export function writeDependencyBundleHeader(w: ByteWriter, h: DependencyBundleHeader): void {
  w.i32(h.firstEntryIndex, 'dependency first entry');
  w.u32(h.createBeforeCreate);
  w.u32(h.serializeBeforeCreate);
  w.u32(h.createBeforeSerialize);
  w.u32(h.serializeBeforeSerialize);
}

export function dependencyCount(h: DependencyBundleHeader): number {
  return h.createBeforeCreate + h.serializeBeforeCreate + h.createBeforeSerialize + h.serializeBeforeSerialize;
}

/** An arc between export bundles (UE4 graph data and 5.0-5.2 internal arcs). */
export interface BundleArc {
  fromExportBundleIndex: number;
  toExportBundleIndex: number;
}

/** 5.0-5.2: an arc from an import of another package to a bundle of this one (9 bytes stored). */
export interface ExternalArc {
  fromImportIndex: number;
  fromCommandType: number;
  toExportBundleIndex: number;
}

/** FBulkDataMapEntry (32 bytes, 5.2+). */
export interface BulkDataMapEntry {
  serialOffset: bigint;
  duplicateSerialOffset: bigint;
  serialSize: bigint;
  flags: number;
  /** 5.4+ cooked index (0 before). */
  cookedIndex: number;
}

export function readBulkDataMapEntry(r: ByteReader, i: number): BulkDataMapEntry {
  const e: BulkDataMapEntry = {
    serialOffset: r.i64(`bulk data ${i} serial offset`),
    duplicateSerialOffset: r.i64(),
    serialSize: r.i64(),
    flags: r.u32(),
    cookedIndex: r.u8(),
  };
  checkPad(r, 3, `bulk data ${i} padding`);
  return e;
}

export function writeBulkDataMapEntry(w: ByteWriter, e: BulkDataMapEntry): void {
  w.i64(e.serialOffset, 'bulk data serial offset');
  w.i64(e.duplicateSerialOffset, 'bulk data duplicate serial offset');
  w.i64(e.serialSize, 'bulk data serial size');
  w.u32(e.flags, 'bulk data flags');
  w.u8(e.cookedIndex, 'bulk data cooked index');
  w.zeros(3);
}
