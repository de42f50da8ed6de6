/**
 * The editor tables of a legacy package in the package tab: its thumbnails as pictures, then the other tables the
 * summary points at as lists (gatherable text, asset registry tags, soft object paths, metadata, searchable names,
 * soft package references, world tile info, the trailer's payloads, tables that did not parse).
 */
import type { LegacyPackageView } from '../../legacy/describe.js';
import { fmtInt, h, table, wrappingText } from '../dom.js';
import { legacyThumbnailImages } from '../legacy-viewer.js';

const MIME = { png: 'image/png', jpeg: 'image/jpeg' } as const;

/** Each thumbnail with an image as an <img> of its own bytes (PNG or JPEG), captioned with its object and size. */
export function thumbnailNodes(v: LegacyPackageView): Node[] {
  if (!v.thumbnails || v.thumbnails.length === 0) return [];
  const images = legacyThumbnailImages(v);
  const figures = v.thumbnails.map((t, i) => {
    const caption = h('figcaption', {}, wrappingText(t.objectPath), h('br'), h('span', { class: 'cls' }, `${t.objectClass}, ${t.width}×${t.height} ${t.format === 'empty' ? '(empty)' : t.format.toUpperCase()}`));
    const bytes = images[i];
    if (t.format !== 'png' && t.format !== 'jpeg') return h('figure', { class: 'thumb' }, h('div', { class: 'thumb-empty' }, t.format === 'empty' ? 'no image' : 'not PNG or JPEG'), caption);
    const url = bytes ? URL.createObjectURL(new Blob([bytes as BlobPart], { type: MIME[t.format] })) : '';
    const img = h('img', { src: url, alt: `Thumbnail of ${t.objectPath}`, width: String(t.width), height: String(t.height), 'data-object': t.objectPath });
    // The picture is decoded once: the URL is not needed after that.
    const done = () => URL.revokeObjectURL(url);
    img.addEventListener('load', done, { once: true });
    img.addEventListener('error', done, { once: true });
    return h('figure', { class: 'thumb' }, img, caption);
  });
  return [h('h4', {}, `Thumbnails (${v.thumbnails.length})`), h('div', { class: 'thumbs' }, ...figures)];
}

/** A list that may be long, under a heading with its count; folded when it has more than `open` entries. */
function section(title: string, count: number, body: () => Node, open = 12): Node[] {
  const head = `${title} (${fmtInt(count)})`;
  if (count === 0) return [h('h4', {}, head)];
  if (count <= open) return [h('h4', {}, head), body()];
  const d = h('details', { class: 'table-list' }, h('summary', {}, h('h4', {}, head)));
  // Built when opened: a package can hold thousands of entries.
  d.addEventListener('toggle', () => d.open && d.childElementCount === 1 && d.append(body()), { once: false });
  return [d];
}

export function editorTableNodes(v: LegacyPackageView): Node[] {
  const out: Node[] = [];
  if (v.tableErrors) {
    out.push(h('h4', {}, `Tables that did not parse (${v.tableErrors.length})`), ...v.tableErrors.map((e) => h('div', { class: 'warn' }, `${e.table} at ${fmtInt(e.offset)}: ${e.message}`)));
  }
  if (v.assetRegistry) {
    const a = v.assetRegistry;
    const rows = a.objects.flatMap((o) => [
      [h('strong', {}, wrappingText(o.objectPath)), h('span', { class: 'cls' }, wrappingText(o.objectClass))],
      ...Object.entries(o.tags).map(([k, val]) => [k, wrappingText(val.length > 300 ? `${val.slice(0, 299)}…` : val)]),
    ]);
    out.push(...section('Asset registry', a.objects.length, () => table(['tag', 'value'], rows, 'asset-registry'), 4));
    if (a.dependencies) out.push(h('div', { class: 'muted' }, `used in game: ${fmtInt(a.dependencies.importsUsedInGame)} of ${fmtInt(a.dependencies.imports)} imports, ${fmtInt(a.dependencies.softPackagesUsedInGame)} of ${fmtInt(a.dependencies.softPackageReferences)} soft package references`));
  }
  if (v.gatherableText) {
    const rows = v.gatherableText.flatMap((g) => (g.sites.length === 0 ? [{ g, key: '', site: '' }] : g.sites.map((s) => ({ g, key: s.key, site: s.site }))));
    out.push(...section('Gatherable text', v.gatherableText.length, () => table(['namespace', 'key', 'source string', 'site'], rows.map((r) => [r.g.namespace, r.key, r.g.sourceString, wrappingText(r.site)]), 'gatherable-text')));
  }
  if (v.softObjectPaths) out.push(...section('Soft object paths', v.softObjectPaths.length, () => table(['#', 'path'], v.softObjectPaths!.map((p, i) => [String(i), wrappingText(p, 'path')]), 'soft-object-paths', [0])));
  if (v.metaData) {
    const rows = v.metaData.objects.flatMap((o) => Object.entries(o.values).map(([k, val]) => [wrappingText(o.object, 'path'), k, val]));
    for (const [k, val] of Object.entries(v.metaData.root)) rows.push(['(package)', k, val]);
    out.push(...section('Package metadata', rows.length, () => table(['object', 'key', 'value'], rows, 'metadata')));
  }
  if (v.searchableNames) out.push(...section('Searchable names', v.searchableNames.length, () => table(['object', 'names'], v.searchableNames!.map((s) => [wrappingText(s.object, 'path'), s.names.join(', ')]), 'searchable-names')));
  if (v.softPackageReferences) out.push(...section('Soft package references', v.softPackageReferences.length, () => table(['package'], v.softPackageReferences!.map((p) => [wrappingText(p, 'path')]), 'soft-package-references')));
  if (v.worldTileInfo) {
    const w = v.worldTileInfo;
    out.push(h('h4', {}, 'World tile info'), table(['', ''], [
      ['position', w.position.join(', ')],
      ['bounds', `${w.bounds.min.join(', ')} to ${w.bounds.max.join(', ')}`],
      ['layer', `${w.layer.name}${w.layer.streamingDistance === undefined ? '' : `, streaming distance ${w.layer.streamingDistance}`}`],
      ...(w.parentTilePackageName ? [['parent', w.parentTilePackageName]] : []),
    ], 'world-tile'));
  }
  if (v.trailer) {
    const t = v.trailer;
    out.push(h('h4', {}, `Package trailer: ${fmtInt(t.payloadCount)} payloads`), h('div', { class: 'muted' }, `version ${t.version} at ${fmtInt(t.offset)}, ${fmtInt(t.size)} bytes, ${fmtInt(t.payloadDataSize)} bytes of payload data`));
    if (t.payloads.length > 0) {
      out.push(table(['hash', 'access', 'offset', 'stored', 'raw'], t.payloads.map((p) => [p.hash, p.accessMode, fmtInt(p.offset), fmtInt(p.compressedSize), fmtInt(p.rawSize)]), 'trailer', [2, 3, 4]));
    }
  }
  return out;
}
