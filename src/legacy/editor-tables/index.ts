/**
 * The tables of a legacy package's header beyond its names, imports and exports, that the summary points at: what
 * the editor saves with a package (thumbnails, gatherable text, soft object paths, package metadata, searchable
 * names, asset registry data, world tile info, the package trailer and its payloads) and the depends map and soft
 * package references every package has. Each table is read on its own: one that does not parse is reported with
 * its offset, and the others are still read. Each can be written back; the legacy writer makes them from these
 * values (so offsets inside them follow a header that changed size).
 */
import { IoStoreError, type IoStoreErrorCode } from '../../errors.js';
import { ByteReader, bytesEqual } from '../../util/bytes.js';
import { ByteWriter } from '../../zen/byte-writer.js';
import type { LegacyName, LegacyPackage } from '../package.js';
import type { LegacyTable } from '../regions.js';
import { summaryShape, type LegacyPackageSummary } from '../summary.js';
import type { LegacyEngineRelease } from '../versions.js';
import { readAssetRegistryData, writeAssetRegistryData, type LegacyAssetRegistryData } from './asset-registry.js';
import { editorTableFormat, FORTNITE_MAIN, type EditorTableFormat } from './format.js';
import { readGatherableText, writeGatherableText, type LegacyGatherableText } from './gatherable-text.js';
import { readPackageMetaData, writePackageMetaData, type LegacyPackageMetaData } from './package-metadata.js';
import { readDependsMap, readNameList, readSearchableNames, writeDependsMap, writeNameList, writeSearchableNames, type LegacySearchableNames } from './references.js';
import { readSoftObjectPaths, writeSoftObjectPath, type LegacySoftObjectPath } from './soft-object-paths.js';
import { readThumbnails, thumbnailImagesSpan, writeThumbnailImages, writeThumbnailIndex, type LegacyThumbnail } from './thumbnails.js';
import { readPackageTrailer, writePackageTrailer, type LegacyPackageTrailer } from './trailer.js';
import { readWorldTileInfo, writeWorldTileInfo, type LegacyWorldTileInfo } from './world-tile-info.js';

export type { EditorTableFormat } from './format.js';

/** A table that did not parse: which, where it starts, and what was wrong (the message names the offset). */
export interface LegacyTableError {
  table: LegacyTable;
  offset: number;
  code: IoStoreErrorCode;
  message: string;
}

/** Where a table that was read lies in the `.uasset`. */
export interface LegacyTablePlace {
  table: LegacyTable;
  offset: number;
  size: number;
}

/**
 * The tables read. A table the package does not have (by its versions, or an offset of 0) is absent; one it has
 * empty is an empty list. Names are FNames (indices into the name map: legacyNameText gives their text).
 */
export interface LegacyEditorTables {
  /** UE5 1008+: the soft object paths the export data (and the metadata) refer to by index. */
  softObjectPaths?: LegacySoftObjectPath[];
  /** UE4 459+: localizable texts. */
  gatherableText?: LegacyGatherableText[];
  /** UE5 1014+ editor packages: the package metadata. */
  metaData?: LegacyPackageMetaData;
  /** Per export, the package indices it depends on. */
  depends?: number[][];
  /** UE4 384+: packages the export data refers to softly. */
  softPackageReferences?: LegacyName[];
  /** UE4 510+. */
  searchableNames?: LegacySearchableNames[];
  thumbnails?: LegacyThumbnail[];
  assetRegistry?: LegacyAssetRegistryData;
  /** World composition levels. */
  worldTileInfo?: LegacyWorldTileInfo;
  /** UE5: the package trailer (bulk data payloads by hash). */
  trailer?: LegacyPackageTrailer;
  /** Where each table read lies (`thumbnailImages`: the images before the thumbnail index), in file order. */
  places: LegacyTablePlace[];
  errors: LegacyTableError[];
  /** The layout the tables were read with (and are written with when the summary does not settle it). */
  format: EditorTableFormat;
}

/** The tables legacyEditorTable... reads and the writer can make, by region name. */
export const EDITOR_TABLES: ReadonlySet<LegacyTable> = new Set<LegacyTable>([
  'softObjectPaths', 'gatherableText', 'metaData', 'depends', 'softPackageReferences', 'searchableNames',
  'thumbnailImages', 'thumbnails', 'assetRegistryData', 'worldTileInfo', 'payloadToc',
]);

/** Every offset the summary holds, for the end of the table before each. */
function summaryOffsets(s: LegacyPackageSummary, size: number): number[] {
  return [
    s.nameOffset, s.softObjectPathsOffset, s.gatherableTextDataOffset, s.importOffset, s.exportOffset, s.cellImportOffset, s.cellExportOffset,
    s.metaDataOffset, s.dependsOffset, s.softPackageReferencesOffset, s.searchableNamesOffset, s.thumbnailTableOffset, s.importTypeHierarchiesOffset,
    s.assetRegistryDataOffset, s.worldTileInfoDataOffset, s.preloadDependencyOffset, s.dataResourceOffset, s.totalHeaderSize, s.bulkDataStartOffset,
    s.payloadTocOffset, size,
  ].filter((o) => o > 0 && o <= size);
}

/**
 * Reads every table the summary of `pkg` points at (its `uasset` bytes, summary, export count and source). Never
 * throws for a table's bytes: each failure is one entry of `errors`.
 */
export function readLegacyEditorTables(pkg: Pick<LegacyPackage, 'uasset' | 'summary' | 'source' | 'exports'> & { engine?: LegacyEngineRelease }): LegacyEditorTables {
  const s = pkg.summary;
  const bytes = pkg.uasset;
  const shape = summaryShape(s.legacyFileVersion, s.fileVersionUE4, s.fileVersionUE5, s.packageFlags);
  const format = editorTableFormat(s, pkg.engine);
  const out: LegacyEditorTables = { places: [], errors: [], format };
  const r = new ByteReader(bytes, pkg.source);
  const offsets = summaryOffsets(s, bytes.length);
  const nextAfter = (at: number) => offsets.reduce((best, o) => (o > at && o < best ? o : best), bytes.length);
  const read = (on: boolean, table: LegacyTable, offset: number, f: () => void) => {
    if (!on || offset <= 0) return;
    try {
      if (offset < s.summarySize || offset > bytes.length) r.fail('BAD_VALUE', `the ${table} offset ${offset} lies outside the ${bytes.length}-byte file (after the ${s.summarySize}-byte summary)`, offset);
      r.pos = offset;
      f();
      if (table !== 'thumbnails') out.places.push({ table, offset, size: r.pos - offset });
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
      out.errors.push({ table, offset, code: e.code, message: e.message });
    }
  };
  read(shape.softObjectPaths, 'softObjectPaths', s.softObjectPathsOffset, () => (out.softObjectPaths = readSoftObjectPaths(r, s.softObjectPathsCount, format)));
  read(shape.gatherableText, 'gatherableText', s.gatherableTextDataOffset, () => (out.gatherableText = readGatherableText(r, s.gatherableTextDataCount)));
  read(shape.metaData, 'metaData', s.metaDataOffset, () => {
    const m = readPackageMetaData(r, format);
    out.metaData = m;
    if (!format.softObjectPathIndices || r.pos === nextAfter(s.metaDataOffset)) return;
    // The engine writes the paths as indices into the list, but a save with the mapping off writes them inline: the
    // form that ends where the next table starts is the one.
    const end = r.pos;
    try {
      r.pos = s.metaDataOffset;
      const inline = readPackageMetaData(r, { ...format, softObjectPathIndices: false });
      if (r.pos === nextAfter(s.metaDataOffset)) {
        out.metaData = inline;
        format.softObjectPathIndices = false;
        format.softObjectPathsInline = true;
        return;
      }
    } catch {
      // not that form either
    }
    r.pos = end;
  });
  read(true, 'depends', s.dependsOffset, () => (out.depends = readDependsMap(r, pkg.exports.length)));
  read(shape.softPackageReferences, 'softPackageReferences', s.softPackageReferencesOffset, () => (out.softPackageReferences = readNameList(r, s.softPackageReferencesCount, 'soft package reference')));
  read(shape.searchableNames, 'searchableNames', s.searchableNamesOffset, () => (out.searchableNames = readSearchableNames(r)));
  read(true, 'thumbnails', s.thumbnailTableOffset, () => {
    const { thumbnails, indexEnd } = readThumbnails(r, s.thumbnailTableOffset);
    out.thumbnails = thumbnails;
    // The writer makes the images and the index again only where they lie as the engine writes them.
    const images = thumbnailImagesSpan(thumbnails, s.thumbnailTableOffset);
    if (!images) return;
    if (images.size > 0) out.places.push({ table: 'thumbnailImages', offset: images.offset, size: images.size });
    out.places.push({ table: 'thumbnails', offset: s.thumbnailTableOffset, size: indexEnd - s.thumbnailTableOffset });
  });
  read(true, 'assetRegistryData', s.assetRegistryDataOffset, () => (out.assetRegistry = readAssetRegistryData(r, format)));
  read(shape.worldTileInfo, 'worldTileInfo', s.worldTileInfoDataOffset, () => {
    const { tile, position3d } = readWorldTileInfo(r, format, nextAfter(s.worldTileInfoDataOffset));
    out.worldTileInfo = tile;
    // An unversioned 4.19/4.20 tile settles the position form by its size: the writer keeps that form.
    format.fortniteMain ??= position3d ? FORTNITE_MAIN.WorldCompositionTile3DOffset : 0;
  });
  read(shape.payloadToc, 'payloadToc', s.payloadTocOffset, () => (out.trailer = readPackageTrailer(r)));
  out.places.sort((a, b) => a.offset - b.offset);
  return out;
}

/** What writing a table needs besides its values: where it goes and the layout. */
export interface EditorTableWriteContext {
  format: EditorTableFormat;
  /** The file offset of the writer's first byte (`base + w.length` is where the next byte goes). */
  base: number;
  /** Set by writing `thumbnailImages`: where each image went, for the index written after it. */
  thumbnailOffsets?: number[];
  /** The export count (the depends map has one list per export). */
  exportCount: number;
}

/** Writes one table from `tables`; throws a USAGE error when the values are not there or do not fit the package. */
export function writeEditorTable(w: ByteWriter, table: LegacyTable, tables: LegacyEditorTables, ctx: EditorTableWriteContext): void {
  const need = <T>(v: T | undefined): T => {
    if (v === undefined) throw new IoStoreError('USAGE', `the spec's editor tables hold no ${table} table to write`);
    return v;
  };
  const f = ctx.format;
  switch (table) {
    case 'softObjectPaths':
      for (const p of need(tables.softObjectPaths)) writeSoftObjectPath(w, p, f);
      return;
    case 'gatherableText':
      writeGatherableText(w, need(tables.gatherableText));
      return;
    case 'metaData':
      writePackageMetaData(w, need(tables.metaData), f);
      return;
    case 'depends': {
      const map = need(tables.depends);
      if (map.length !== ctx.exportCount) throw new IoStoreError('USAGE', `the depends map has ${map.length} lists for ${ctx.exportCount} exports (one per export)`);
      writeDependsMap(w, map);
      return;
    }
    case 'softPackageReferences':
      writeNameList(w, need(tables.softPackageReferences));
      return;
    case 'searchableNames':
      writeSearchableNames(w, need(tables.searchableNames));
      return;
    case 'thumbnailImages':
      ctx.thumbnailOffsets = writeThumbnailImages(w, need(tables.thumbnails), ctx.base);
      return;
    case 'thumbnails': {
      const list = need(tables.thumbnails);
      if (list.length > 0 && ctx.thumbnailOffsets === undefined) throw new IoStoreError('USAGE', 'the thumbnail index is written without its images (a thumbnailImages region before it)');
      writeThumbnailIndex(w, list, ctx.thumbnailOffsets ?? []);
      return;
    }
    case 'assetRegistryData':
      writeAssetRegistryData(w, need(tables.assetRegistry), f, ctx.base);
      return;
    case 'worldTileInfo':
      writeWorldTileInfo(w, need(tables.worldTileInfo), f);
      return;
    case 'payloadToc':
      writePackageTrailer(w, need(tables.trailer));
      return;
    default:
      throw new IoStoreError('USAGE', `the writer makes no "${table}" table: give its bytes`);
  }
}

const exactCache = new WeakMap<LegacyEditorTables, Set<LegacyTable>>();

/**
 * The tables of a parsed package that the writer gives back byte for byte from their values (written where they
 * were read). Any other table stays as its bytes when the package is written again: identity comes first (and
 * legacyRegionSpans keeps the bytes of one whose place overlaps another's).
 */
export function exactEditorTables(pkg: Pick<LegacyPackage, 'uasset' | 'exports'> & { editorTables: LegacyEditorTables }): ReadonlySet<LegacyTable> {
  const tables = pkg.editorTables;
  const hit = exactCache.get(tables);
  if (hit) return hit;
  const exact = new Set<LegacyTable>();
  const ctx: EditorTableWriteContext = { format: tables.format, base: 0, exportCount: pkg.exports.length };
  const w = new ByteWriter(1024);
  for (const place of tables.places) {
    w.reset();
    ctx.base = place.offset;
    try {
      writeEditorTable(w, place.table, tables, ctx);
    } catch {
      continue;
    }
    if (bytesEqual(w.written(), pkg.uasset.subarray(place.offset, place.offset + place.size))) exact.add(place.table);
  }
  // The images and their index go together: the index holds where the images are.
  if (!exact.has('thumbnails') || (tables.thumbnails!.length > 0 && !exact.has('thumbnailImages'))) {
    exact.delete('thumbnails');
    exact.delete('thumbnailImages');
  }
  exactCache.set(tables, exact);
  return exact;
}

export {
  readAssetRegistryData,
  readGatherableText,
  readPackageMetaData,
  readPackageTrailer,
  readSoftObjectPaths,
  readThumbnails,
  readWorldTileInfo,
};
export type {
  LegacyAssetRegistryData,
  LegacyGatherableText,
  LegacyPackageMetaData,
  LegacyPackageTrailer,
  LegacySearchableNames,
  LegacySoftObjectPath,
  LegacyThumbnail,
  LegacyWorldTileInfo,
};
export type { LegacyAssetRegistryObject, LegacyAssetRegistryDependencies } from './asset-registry.js';
export type { LegacyLocMetadata, LegacyLocMetadataValue, LegacyTextSourceSite } from './gatherable-text.js';
export type { LegacyMetaDataValue } from './package-metadata.js';
export type { LegacySoftObjectPathRef } from './soft-object-paths.js';
export type { LegacyTrailerPayload, LegacyPayloadAccessMode, CompressedBufferHeader } from './trailer.js';
export type { LegacyWorldTileLod } from './world-tile-info.js';
export type { ImageHeader } from './image-size.js';
export { thumbnailFileNames, thumbnailImageType } from './thumbnails.js';
export { readImageHeader, imageType } from './image-size.js';
export { readCompressedBufferHeader, trailerPayloadSpan } from './trailer.js';
