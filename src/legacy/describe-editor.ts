import { readImageHeader } from './editor-tables/image-size.js';
import type { LegacyEditorTables, LegacyLocMetadata, LegacyLocMetadataValue, LegacySoftObjectPathRef } from './editor-tables/index.js';
import type { LegacySoftObjectPath } from './editor-tables/soft-object-paths.js';
import { readCompressedBufferHeader, trailerPayloadSpan } from './editor-tables/trailer.js';
import type { LegacyName, LegacyPackage } from './package.js';
import { legacyNameText, legacyObjectPath } from './paths.js';

/** A thumbnail as inspect shows it: the object, the size the table states, and what the image's own header says. */
export interface LegacyThumbnailView {
  index: number;
  objectClass: string;
  objectPath: string;
  width: number;
  height: number;
  /** The image kind the bytes are ('png', 'jpeg'), 'empty' for no image, 'unknown' for other bytes. */
  format: 'png' | 'jpeg' | 'empty' | 'unknown';
  /** Compressed image bytes. */
  size: number;
  /** Where the image bytes start in the `.uasset`. */
  dataOffset: number;
  /** The image's own header: its kind and size, and whether they agree with the table. */
  image?: { width: number; height: number; matchesTable: boolean };
}

/** The editor tables of a package view; a table the package does not have is absent. */
export interface LegacyEditorTablesView {
  thumbnails?: LegacyThumbnailView[];
  gatherableText?: Array<{ namespace: string; sourceString: string; sites: Array<{ key: string; site: string; editorOnly: boolean; optional: boolean }>; metaData?: unknown }>;
  softObjectPaths?: string[];
  /** UE5 1014+ editor packages: the package metadata, values by object. */
  metaData?: { objects: Array<{ object: string; values: Record<string, string> }>; root: Record<string, string> };
  searchableNames?: Array<{ object: string; names: string[] }>;
  softPackageReferences?: string[];
  /** One entry per export: the objects it depends on. */
  depends?: Array<{ export: string; dependsOn: string[] }>;
  assetRegistry?: {
    objects: Array<{ objectPath: string; objectClass: string; tags: Record<string, string> }>;
    /** Editor packages: how many imports and soft package references the game uses, and the extra dependencies. */
    dependencies?: { imports: number; importsUsedInGame: number; softPackageReferences: number; softPackagesUsedInGame: number; extraPackageDependencies?: Array<{ packageName: string; flags: number }> };
  };
  worldTileInfo?: LegacyEditorTables['worldTileInfo'];
  trailer?: {
    offset: number;
    size: number;
    version: number;
    payloadCount: number;
    payloadDataSize: number;
    payloads: Array<{
      hash: string;
      accessMode: string;
      /** Local payloads: where the payload's bytes lie in the `.uasset`; referenced: the offset in the other file. */
      offset: number;
      compressedSize: number;
      rawSize: number;
      flags: number;
      filterFlags: number;
      /** Local payloads: the method of the compressed buffer the bytes hold. */
      method?: string | number;
    }>;
  };
  /** Tables that did not parse, each with its offset and the error. */
  tableErrors?: Array<{ table: string; offset: number; message: string }>;
}

function nameOf(pkg: LegacyPackage, n: LegacyName): string {
  try {
    return legacyNameText(pkg, n);
  } catch {
    return `<name ${n.index} outside the name map>`;
  }
}

function objectOf(path: (packageIndex: number) => string, i: number): string {
  try {
    return i === 0 ? '' : path(i);
  } catch {
    return `<package index ${i} outside the maps>`;
  }
}

/** FSoftObjectPath as the engine prints it: `/Game/Pkg.Asset:Sub.Path` (no asset: the package alone). */
export function legacySoftObjectPathText(pkg: LegacyPackage, p: LegacySoftObjectPath): string {
  const packageName = nameOf(pkg, p.packageName);
  const asset = nameOf(pkg, p.assetName);
  const top = packageName === 'None' ? '' : asset === 'None' ? packageName : `${packageName}.${asset}`;
  return p.subPath === '' ? top : `${top}:${p.subPath}`;
}

function softRef(pkg: LegacyPackage, ref: LegacySoftObjectPathRef): string {
  if (typeof ref !== 'number') return legacySoftObjectPathText(pkg, ref);
  const p = pkg.editorTables.softObjectPaths?.[ref];
  return p ? legacySoftObjectPathText(pkg, p) : `<soft object path ${ref} outside the list>`;
}

function metadataJson(m: LegacyLocMetadata): Record<string, unknown> {
  const value = (v: LegacyLocMetadataValue): unknown => (v.type === 'array' ? v.value.map(value) : v.type === 'object' ? metadataJson(v.value) : v.value);
  return Object.fromEntries(m.map((e) => [e.key, value(e.value)]));
}

function thumbnails(t: NonNullable<LegacyEditorTables['thumbnails']>): LegacyThumbnailView[] {
  return t.map((th, index) => {
    const header = readImageHeader(th.data);
    const format = th.data.length === 0 ? 'empty' : (header?.type ?? 'unknown');
    const view: LegacyThumbnailView = { index, objectClass: th.objectClass, objectPath: th.objectPath, width: th.width, height: th.height, format, size: th.data.length, dataOffset: th.offset + 12 };
    if (header) view.image = { width: header.width, height: header.height, matchesTable: header.width === th.width && header.height === th.height };
    return view;
  });
}

function trailer(pkg: LegacyPackage, t: NonNullable<LegacyEditorTables['trailer']>): NonNullable<LegacyEditorTablesView['trailer']> {
  const at = pkg.summary.payloadTocOffset;
  const place = pkg.editorTables.places.find((p) => p.table === 'payloadToc');
  return {
    offset: at,
    size: place?.size ?? pkg.uasset.length - at,
    version: t.version,
    payloadCount: t.payloads.length,
    payloadDataSize: t.payloadData.length,
    payloads: t.payloads.map((p) => {
      const span = trailerPayloadSpan(t, p, at);
      const out: NonNullable<LegacyEditorTablesView['trailer']>['payloads'][number] = {
        hash: p.hash,
        accessMode: p.accessMode,
        offset: span ? span.offset : p.offsetInFile,
        compressedSize: p.compressedSize,
        rawSize: p.rawSize,
        flags: p.flags,
        filterFlags: p.filterFlags,
      };
      if (span) {
        const buffer = readCompressedBufferHeader(pkg.uasset.subarray(span.offset, span.offset + span.size));
        if (buffer) out.method = buffer.method;
      }
      return out;
    }),
  };
}

const count = (bits: readonly boolean[]) => bits.reduce((n, b) => n + (b ? 1 : 0), 0);

/**
 * The editor tables of a parsed package as inspect shows them: names and object paths resolved (by `objectPath`:
 * describeLegacyPackage passes its shortened, memoized paths, which keep a long outer chain linear).
 */
export function describeLegacyEditorTables(pkg: LegacyPackage, objectPath: (packageIndex: number) => string = (i) => legacyObjectPath(pkg, i)): LegacyEditorTablesView {
  const t = pkg.editorTables;
  const v: LegacyEditorTablesView = {};
  if (t.thumbnails) v.thumbnails = thumbnails(t.thumbnails);
  if (t.gatherableText) {
    v.gatherableText = t.gatherableText.map((g) => ({
      namespace: g.namespace,
      sourceString: g.sourceString,
      sites: g.sites.map((s) => ({ key: s.key, site: s.siteDescription, editorOnly: s.editorOnly, optional: s.optional })),
      ...(g.sourceMetaData.length > 0 ? { metaData: metadataJson(g.sourceMetaData) } : {}),
    }));
  }
  if (t.softObjectPaths) v.softObjectPaths = t.softObjectPaths.map((p) => legacySoftObjectPathText(pkg, p));
  if (t.metaData) {
    const values = (list: ReadonlyArray<{ key: LegacyName; value: string }>) => Object.fromEntries(list.map((e) => [nameOf(pkg, e.key), e.value]));
    v.metaData = { objects: t.metaData.objects.map((o) => ({ object: softRef(pkg, o.object), values: values(o.values) })), root: values(t.metaData.root) };
  }
  if (t.searchableNames) v.searchableNames = t.searchableNames.map((s) => ({ object: objectOf(objectPath, s.object), names: s.names.map((n) => nameOf(pkg, n)) }));
  if (t.softPackageReferences) v.softPackageReferences = t.softPackageReferences.map((n) => nameOf(pkg, n));
  if (t.depends) v.depends = t.depends.map((deps, i) => ({ export: objectOf(objectPath, i + 1), dependsOn: deps.map((d) => objectOf(objectPath, d)) }));
  if (t.assetRegistry) {
    const a = t.assetRegistry;
    v.assetRegistry = { objects: a.objects.map((o) => ({ objectPath: o.objectPath, objectClass: o.objectClass, tags: Object.fromEntries(o.tags.map((x) => [x.key, x.value])) })) };
    if (a.dependencies) {
      const d = a.dependencies;
      v.assetRegistry.dependencies = {
        imports: d.importUsedInGame.length,
        importsUsedInGame: count(d.importUsedInGame),
        softPackageReferences: d.softPackageUsedInGame.length,
        softPackagesUsedInGame: count(d.softPackageUsedInGame),
        ...(d.extraPackageDependencies ? { extraPackageDependencies: d.extraPackageDependencies.map((e) => ({ packageName: nameOf(pkg, e.packageName), flags: e.flags })) } : {}),
      };
    }
  }
  if (t.worldTileInfo) v.worldTileInfo = t.worldTileInfo;
  if (t.trailer) v.trailer = trailer(pkg, t.trailer);
  if (t.errors.length > 0) v.tableErrors = t.errors.map((e) => ({ table: e.table, offset: e.offset, message: e.message }));
  return v;
}
