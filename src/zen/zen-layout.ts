import { IoStoreError } from '../errors.js';
import { ENGINE_VERSIONS, type EngineVersion } from '../toc/engine.js';
import { containerHeaderVersionRank, type ContainerHeaderVersionName } from './container-header.js';
import { NAME_HASH_ALGORITHM_ID } from './name-batch.js';
import { UE4_SUMMARY_SIZE, UE5_SUMMARY_SIZE_BUNDLES, UE5_SUMMARY_SIZE_GRAPH } from './package-summary.js';
import type { StoreEntry } from './store-entry.js';

/** How the bulk-data map is stored: absent (before 5.2), plain (5.2, 5.3), or after alignment padding (5.4+). */
export type BulkDataMapForm = 'none' | 'plain' | 'padded';

/** The shape of a zen package header; everything else follows from the offsets it stores. */
export interface ZenPackageLayout {
  /** `UE4`: FPackageSummary of 4.26/4.27; `UE5`: FZenPackageSummary. */
  format: 'UE4' | 'UE5';
  /** 64 (UE4), 44 (5.0-5.2, graph data) or 52 (5.3+, dependency bundles). */
  summarySize: 64 | 44 | 52;
  /** 5.6+: Verse cell import/export map offsets follow the versioning info. */
  cellMaps: boolean;
  bulkDataMap: BulkDataMapForm;
}

/** What a caller may know about a package when its bytes cannot tell. */
export interface ZenPackageHints {
  /** Engine release the package was cooked with. */
  engine?: EngineVersion;
  /** Version of the container header of the container holding the package. */
  containerHeaderVersion?: ContainerHeaderVersionName;
  /** UE5 object version (EUnrealEngineObjectUE5Version) for unversioned packages. */
  fileVersionUE5?: number;
  /**
   * The package's store entry: its ExportBundleCount and ImportedPackages size the UE4 export bundles and the
   * 5.0-5.2 graph data (which are inferred from the bytes without it).
   */
  storeEntry?: StoreEntry;
}

/** UE5 object versions the layout depends on. */
export const UE5_OBJECT_VERSION = { DataResources: 1009, PropertyTagCompleteTypeName: 1012, VerseCells: 1015 } as const;

/** The parts of a layout that hints settle; undefined parts are detected from the bytes. */
export interface PartialLayout {
  format?: 'UE4' | 'UE5';
  summarySize?: 64 | 44 | 52;
  cellMaps?: boolean;
  /** Forms still possible. */
  bulkDataMap?: BulkDataMapForm[];
}

const engineRank = (e: EngineVersion): number => ENGINE_VERSIONS.indexOf(e);

function merge(into: PartialLayout, from: PartialLayout, source: string): void {
  const clash = (what: string, a: unknown, b: unknown): never => {
    throw new IoStoreError('USAGE', `${source}: conflicting hints for the zen layout (${what}: ${String(a)} vs ${String(b)})`);
  };
  if (from.format !== undefined) {
    if (into.format !== undefined && into.format !== from.format) clash('format', into.format, from.format);
    into.format = from.format;
  }
  if (from.summarySize !== undefined) {
    if (into.summarySize !== undefined && into.summarySize !== from.summarySize) clash('summary size', into.summarySize, from.summarySize);
    into.summarySize = from.summarySize;
  }
  if (from.cellMaps !== undefined) {
    if (into.cellMaps !== undefined && into.cellMaps !== from.cellMaps) clash('cell maps', into.cellMaps, from.cellMaps);
    into.cellMaps = from.cellMaps;
  }
  if (from.bulkDataMap !== undefined) {
    const both = into.bulkDataMap === undefined ? from.bulkDataMap : into.bulkDataMap.filter((f) => from.bulkDataMap!.includes(f));
    if (both.length === 0) clash('bulk data map', into.bulkDataMap, from.bulkDataMap);
    into.bulkDataMap = both;
  }
}

export function layoutFromEngine(e: EngineVersion): PartialLayout {
  const rank = engineRank(e);
  if (e.startsWith('UE4')) return { format: 'UE4', summarySize: 64, cellMaps: false, bulkDataMap: ['none'] };
  const at = (v: EngineVersion) => rank >= engineRank(v);
  return {
    format: 'UE5',
    summarySize: at('UE5_3') ? 52 : 44,
    cellMaps: at('UE5_6'),
    bulkDataMap: [at('UE5_4') ? 'padded' : at('UE5_2') ? 'plain' : 'none'],
  };
}

export function layoutFromContainerHeaderVersion(v: ContainerHeaderVersionName): PartialLayout {
  const rank = containerHeaderVersionRank(v);
  const r = (n: ContainerHeaderVersionName) => containerHeaderVersionRank(n);
  if (rank <= r('Initial')) return { format: 'UE4', summarySize: 64, cellMaps: false, bulkDataMap: ['none'] };
  if (rank <= r('LocalizedPackages')) return { format: 'UE5', summarySize: 44, cellMaps: false, bulkDataMap: ['none'] };
  if (rank === r('OptionalSegmentPackages')) return { format: 'UE5', summarySize: 44, cellMaps: false, bulkDataMap: ['none', 'plain'] };
  if (rank === r('NoExportInfo')) return { format: 'UE5', summarySize: 52, cellMaps: false, bulkDataMap: ['plain', 'padded'] };
  if (rank === r('SoftPackageReferences')) return { format: 'UE5', summarySize: 52, cellMaps: false, bulkDataMap: ['padded'] };
  return { format: 'UE5', summarySize: 52, cellMaps: true, bulkDataMap: ['padded'] };
}

export function layoutFromObjectVersion(fileVersionUE5: number): PartialLayout {
  if (fileVersionUE5 < 1000) return {};
  return {
    format: 'UE5',
    cellMaps: fileVersionUE5 >= UE5_OBJECT_VERSION.VerseCells,
    bulkDataMap: [fileVersionUE5 >= UE5_OBJECT_VERSION.PropertyTagCompleteTypeName ? 'padded' : fileVersionUE5 >= UE5_OBJECT_VERSION.DataResources ? 'plain' : 'none'],
  };
}

export function layoutFromHints(h: ZenPackageHints, source: string): PartialLayout {
  const out: PartialLayout = {};
  if (h.engine !== undefined) merge(out, layoutFromEngine(h.engine), source);
  if (h.containerHeaderVersion !== undefined) merge(out, layoutFromContainerHeaderVersion(h.containerHeaderVersion), source);
  if (h.fileVersionUE5 !== undefined) merge(out, layoutFromObjectVersion(h.fileVersionUE5), source);
  return out;
}

export function mergeLayout(into: PartialLayout, from: PartialLayout, source: string): void {
  merge(into, from, source);
}

/** The legacy package tag; a chunk starting with it is a .uasset, not a zen package. */
export const PACKAGE_FILE_TAG = 0x9e2a83c1;

/**
 * True when the first 64 bytes read as a consistent UE4 FPackageSummary: names right after the summary, hashes at
 * the next 8-aligned offset, the import map right after them, ascending offsets inside the data.
 */
export function looksLikeUe4Summary(b: Uint8Array): boolean {
  if (b.length < UE4_SUMMARY_SIZE) return false;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const i = (at: number) => v.getInt32(at, true);
  const namesOffset = i(24), namesSize = i(28), hashesOffset = i(32), hashesSize = i(36);
  const importMap = i(40), exportMap = i(44), bundles = i(48), graph = i(52), graphSize = i(56);
  if (namesOffset !== UE4_SUMMARY_SIZE || namesSize < 0 || hashesSize < 0 || graphSize < 0) return false;
  if (hashesOffset !== Math.ceil((namesOffset + namesSize) / 8) * 8) return false;
  if (hashesSize % 8 !== 0 || importMap !== hashesOffset + hashesSize) return false;
  if (!(importMap <= exportMap && exportMap <= bundles && bundles <= graph)) return false;
  if (graph + graphSize > b.length) return false;
  return i(60) === 0;
}

/** Which UE5 summary size the stored offsets fit (see ZenPackageLayout.summarySize). */
export function detectUe5SummarySize(b: Uint8Array): 44 | 52 | undefined {
  if (b.length < UE5_SUMMARY_SIZE_GRAPH) return undefined;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const headerSize = v.getUint32(4, true);
  const bundleEntries = v.getInt32(36, true);
  if (b.length >= UE5_SUMMARY_SIZE_BUNDLES) {
    const depHeaders = v.getInt32(40, true), depEntries = v.getInt32(44, true), names = v.getInt32(48, true);
    if (bundleEntries <= depHeaders && depHeaders <= depEntries && depEntries <= names && names <= headerSize) return 52;
  }
  const graph = v.getInt32(40, true);
  if (bundleEntries <= graph && graph <= headerSize) return 44;
  return undefined;
}

/**
 * Whether two i32 cell-map offsets sit between the versioning info (ending at `at`) and the name map: the name
 * batch's hash algorithm id is 8 bytes after its start.
 */
export function detectCellMaps(b: Uint8Array, at: number): boolean | undefined {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const algoAt = (p: number) => p + 16 <= b.length && v.getBigUint64(p + 8, true) === NAME_HASH_ALGORITHM_ID && v.getUint32(p, true) > 0;
  if (algoAt(at)) return false;
  if (algoAt(at + 8)) return true;
  return undefined;
}
