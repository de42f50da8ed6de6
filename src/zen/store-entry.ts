import { IoStoreError } from '../errors.js';
import { ByteReader, toHex } from '../util/bytes.js';
import { ByteWriter } from './byte-writer.js';

/**
 * The fixed part of an FFilePackageStoreEntry differs by container-header version:
 * - `UE4` (4.26/4.27, 32 B): u64 ExportBundlesSize, i32 ExportCount, i32 ExportBundleCount, u32 LoadOrder, u32 Pad,
 *   view ImportedPackages;
 * - `PreInitial` (some 4.26/4.27 titles, 16 B): i32 ExportCount, i32 ExportBundleCount, view ImportedPackages;
 * - `UE5WithExportInfo` (UE5 versions 0-2, 24 B): i32 ExportCount, i32 ExportBundleCount, view ImportedPackages,
 *   view ShaderMapHashes;
 * - `UE5` (version 3+, 16 B): view ImportedPackages, view ShaderMapHashes.
 * A view is {u32 ArrayNum, u32 OffsetToDataFromThis}, the offset counted from the first byte of the view itself.
 * The array data of all entries follows the fixed parts, packed in entry order.
 */
export type StoreEntryLayout = 'UE4' | 'PreInitial' | 'UE5WithExportInfo' | 'UE5';

interface LayoutInfo {
  size: number;
  importsView: number;
  shaderView: number | null;
  exportInfo: number | null;
  bundlesSize: boolean;
}

const LAYOUTS: Record<StoreEntryLayout, LayoutInfo> = {
  UE4: { size: 32, importsView: 24, shaderView: null, exportInfo: 8, bundlesSize: true },
  PreInitial: { size: 16, importsView: 8, shaderView: null, exportInfo: 0, bundlesSize: false },
  UE5WithExportInfo: { size: 24, importsView: 8, shaderView: 16, exportInfo: 0, bundlesSize: false },
  UE5: { size: 16, importsView: 0, shaderView: 8, exportInfo: null, bundlesSize: false },
};

export function storeEntrySize(layout: StoreEntryLayout): number {
  return LAYOUTS[layout].size;
}

/** One package's store entry. Fields a layout does not have are absent. */
export interface StoreEntry {
  /** UE4: size of the package's ExportBundleData chunk. */
  exportBundlesSize?: number;
  /** UE4: global load-order hint. */
  loadOrder?: number;
  /** UE4, PreInitial and UE5 versions 0-2. */
  exportCount?: number;
  exportBundleCount?: number;
  /** Package ids the package imports, in the order of its import map's imported-package index. */
  importedPackages: bigint[];
  /** UE5: shader-map hashes (20 bytes each; 8 in some 5.8 builds). */
  shaderMapHashes: Uint8Array[];
}

/** Shader-map hash sizes seen: 20 (FSHAHash) and 8 (reported for some 5.8 builds). */
export type ShaderMapHashSize = 20 | 8;

export interface StoreEntriesResult {
  entries: StoreEntry[];
  shaderMapHashSize: ShaderMapHashSize;
}

interface View {
  num: number;
  /** Offset of the data within the buffer. */
  start: number;
  at: number;
}

/**
 * Decodes a store-entries buffer holding `count` entries. `base` is the absolute offset of `buf[0]` (for errors).
 * The shader-map hash size is taken from `hashSize` or inferred from how the array data fills the buffer.
 */
export function parseStoreEntries(
  buf: Uint8Array,
  count: number,
  layout: StoreEntryLayout,
  source = 'store entries',
  base = 0,
  hashSize?: ShaderMapHashSize,
): StoreEntriesResult {
  const info = LAYOUTS[layout];
  const r = new ByteReader(buf, source, base);
  r.needArray(count, info.size, `store entries (${layout} layout)`);
  const readView = (at: number): View => {
    const num = r.view.getUint32(at, true);
    const off = r.view.getUint32(at + 4, true);
    return { num, start: at + off, at };
  };
  const imports: View[] = new Array(count);
  const shaders: (View | null)[] = new Array(count);
  let totalImports = 0;
  let totalHashes = 0;
  for (let i = 0; i < count; i++) {
    const e = i * info.size;
    imports[i] = readView(e + info.importsView);
    totalImports += imports[i]!.num;
    shaders[i] = info.shaderView === null ? null : readView(e + info.shaderView);
    totalHashes += shaders[i]?.num ?? 0;
  }
  let size: ShaderMapHashSize = hashSize ?? 20;
  if (hashSize === undefined && totalHashes > 0) {
    const rest = buf.length - count * info.size - totalImports * 8;
    if (rest === totalHashes * 8) size = 8;
  }
  const entries: StoreEntry[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const e = i * info.size;
    const entry: StoreEntry = { importedPackages: [], shaderMapHashes: [] };
    if (info.bundlesSize) {
      entry.exportBundlesSize = Number(r.view.getBigUint64(e, true));
      if (entry.exportBundlesSize > Number.MAX_SAFE_INTEGER) r.fail('BAD_VALUE', `store entry ${i}: ExportBundlesSize is too large`, e);
    }
    if (info.exportInfo !== null) {
      entry.exportCount = r.view.getInt32(e + info.exportInfo, true);
      entry.exportBundleCount = r.view.getInt32(e + info.exportInfo + 4, true);
      if (entry.exportCount < 0 || entry.exportBundleCount < 0) {
        r.fail('BAD_VALUE', `store entry ${i}: negative export count ${entry.exportCount} or bundle count ${entry.exportBundleCount}`, e + info.exportInfo);
      }
    }
    if (info.bundlesSize) {
      entry.loadOrder = r.view.getUint32(e + 16, true);
      const pad = r.view.getUint32(e + 20, true);
      if (pad !== 0) r.fail('BAD_VALUE', `store entry ${i}: padding field is 0x${pad.toString(16)}, not 0`, e + 20);
    }
    const iv = imports[i]!;
    checkView(r, iv, 8, count * info.size, `store entry ${i} imported packages`);
    const ids: bigint[] = new Array(iv.num);
    for (let k = 0; k < iv.num; k++) ids[k] = r.view.getBigUint64(iv.start + k * 8, true);
    entry.importedPackages = ids;
    const sv = shaders[i];
    if (sv) {
      checkView(r, sv, size, count * info.size, `store entry ${i} shader map hashes`);
      const hashes: Uint8Array[] = new Array(sv.num);
      for (let k = 0; k < sv.num; k++) hashes[k] = buf.slice(sv.start + k * size, sv.start + (k + 1) * size);
      entry.shaderMapHashes = hashes;
    }
    entries[i] = entry;
  }
  return { entries, shaderMapHashSize: size };
}

function checkView(r: ByteReader, v: View, elem: number, dataStart: number, what: string): void {
  if (v.num === 0) return;
  if (v.start < dataStart || v.start + v.num * elem > r.bytes.length) {
    r.fail('BAD_VALUE', `${what}: ${v.num} elements at buffer offset ${v.start} lie outside the array data (${dataStart}..${r.bytes.length})`, v.at);
  }
}

/** Encodes entries as a store-entries buffer: fixed parts, then every entry's arrays packed in entry order. */
export function serializeStoreEntries(entries: readonly StoreEntry[], layout: StoreEntryLayout, hashSize: ShaderMapHashSize = 20): Uint8Array {
  const info = LAYOUTS[layout];
  const fixed = entries.length * info.size;
  const w = new ByteWriter(fixed + 64);
  w.zeros(fixed);
  const views: [number, number, number][] = [];
  entries.forEach((entry, i) => {
    const e = i * info.size;
    const what = `store entry ${i}`;
    if (entry.importedPackages.length > 0) {
      views.push([e + info.importsView, entry.importedPackages.length, w.length]);
      for (const id of entry.importedPackages) w.u64(id, `${what} imported package`);
    }
    if (info.shaderView !== null && entry.shaderMapHashes.length > 0) {
      views.push([e + info.shaderView, entry.shaderMapHashes.length, w.length]);
      for (const h of entry.shaderMapHashes) {
        if (h.length !== hashSize) throw new IoStoreError('USAGE', `${what}: shader map hash ${toHex(h)} is not ${hashSize} bytes`);
        w.bytes(h);
      }
    } else if (info.shaderView === null && entry.shaderMapHashes.length > 0) {
      throw new IoStoreError('USAGE', `${what}: the ${layout} store-entry layout has no shader map hashes`);
    }
  });
  for (const [at, num, data] of views) {
    w.patchU32(at, num);
    w.patchU32(at + 4, data - at);
  }
  const out = w.finish();
  const view = new DataView(out.buffer);
  entries.forEach((entry, i) => {
    const e = i * info.size;
    const what = `store entry ${i}`;
    if (info.bundlesSize) {
      view.setBigUint64(e, BigInt(requireInt(entry.exportBundlesSize, `${what} exportBundlesSize`, Number.MAX_SAFE_INTEGER)), true);
      view.setUint32(e + 16, requireInt(entry.loadOrder, `${what} loadOrder`, 0xffffffff), true);
    }
    if (info.exportInfo !== null) {
      view.setInt32(e + info.exportInfo, requireInt(entry.exportCount, `${what} exportCount`, 0x7fffffff), true);
      view.setInt32(e + info.exportInfo + 4, requireInt(entry.exportBundleCount, `${what} exportBundleCount`, 0x7fffffff), true);
    }
  });
  return out;
}

function requireInt(v: number | undefined, what: string, max: number): number {
  if (v === undefined || !Number.isInteger(v) || v < 0 || v > max) {
    throw new IoStoreError('USAGE', `${what}: ${String(v)} is missing or out of range`);
  }
  return v;
}
