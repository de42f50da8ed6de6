import type { LegacyEditorTablesView } from '../../legacy/describe-editor.js';
import { escapeControl } from '../../util/quote.js';
import { renderTable } from '../format.js';

/** Text from a file shown on one line: controls escaped, long values cut. */
const one = (s: string, max = 100): string => {
  const e = escapeControl(s);
  return e.length > max ? `${e.slice(0, max - 1)}…` : e;
};

function thumbnails(v: NonNullable<LegacyEditorTablesView['thumbnails']>): string {
  const image = (t: (typeof v)[number]) => (t.format === 'empty' ? 'empty' : t.image ? `${t.format.toUpperCase()} ${t.image.width}x${t.image.height}${t.image.matchesTable ? '' : ' (not the table\'s size)'}` : t.format);
  return renderTable(
    ['#', 'class', 'object', 'size', 'image', 'bytes', 'offset'],
    v.map((t) => [String(t.index), one(t.objectClass), one(t.objectPath), `${t.width}x${t.height}`, image(t), String(t.size), String(t.dataOffset)]),
    ['right', 'left', 'left', 'right', 'left', 'right', 'right'],
  );
}

function assetRegistry(a: NonNullable<LegacyEditorTablesView['assetRegistry']>): string {
  const lines: string[] = [];
  for (const o of a.objects) {
    lines.push(`  ${one(o.objectPath)} (${one(o.objectClass)}), ${Object.keys(o.tags).length} tags`);
    for (const [k, val] of Object.entries(o.tags)) lines.push(`    ${one(k, 40)} = ${one(val)}`);
  }
  const d = a.dependencies;
  if (d) {
    const extra = d.extraPackageDependencies ? `, ${d.extraPackageDependencies.length} extra package dependencies` : '';
    lines.push(`  used in game: ${d.importsUsedInGame} of ${d.imports} imports, ${d.softPackagesUsedInGame} of ${d.softPackageReferences} soft package references${extra}`);
  }
  return `${lines.join('\n')}\n`;
}

function trailer(t: NonNullable<LegacyEditorTablesView['trailer']>): string {
  const head = `  version ${t.version} at ${t.offset}, ${t.size} bytes: ${t.payloadCount} payloads, ${t.payloadDataSize} bytes of payload data\n`;
  if (t.payloads.length === 0) return head;
  return `${head}${renderTable(
    ['hash', 'access', 'offset', 'stored', 'raw', 'method'],
    t.payloads.map((p) => [p.hash, p.accessMode, String(p.offset), String(p.compressedSize), String(p.rawSize), p.method === undefined ? '' : String(p.method)]),
    ['left', 'left', 'right', 'right', 'right', 'left'],
  )}`;
}

/** The editor tables of `inspect` of a legacy package, one section per table the package has. */
export function renderLegacyEditorTables(v: LegacyEditorTablesView): string {
  const out: string[] = [];
  const section = (title: string, body: string) => out.push(`\n${title}\n${body}`);
  if (v.tableErrors) section(`Tables that did not parse (${v.tableErrors.length}):`, `${v.tableErrors.map((e) => `  ${e.table} at ${e.offset}: ${e.message}`).join('\n')}\n`);
  if (v.thumbnails) section(`Thumbnails (${v.thumbnails.length}):`, v.thumbnails.length === 0 ? '' : thumbnails(v.thumbnails));
  if (v.gatherableText) {
    const rows = v.gatherableText.flatMap((g) => (g.sites.length === 0 ? [{ g, key: '', site: '' }] : g.sites.map((s) => ({ g, key: s.key, site: s.site }))));
    section(`Gatherable text (${v.gatherableText.length}):`, rows.length === 0 ? '' : renderTable(['namespace', 'key', 'source string', 'site'], rows.map((r) => [one(r.g.namespace, 40), one(r.key, 40), one(r.g.sourceString, 60), one(r.site)]), ['left', 'left', 'left', 'left']));
  }
  if (v.softObjectPaths) section(`Soft object paths (${v.softObjectPaths.length}):`, v.softObjectPaths.map((p, i) => `  ${i}  ${one(p, 200)}\n`).join(''));
  if (v.metaData) {
    const values = v.metaData.objects.reduce((n, o) => n + Object.keys(o.values).length, 0);
    section(`Package metadata (${v.metaData.objects.length} objects, ${values} values, ${Object.keys(v.metaData.root).length} package values):`, v.metaData.objects.map((o) => `  ${one(o.object, 200)}: ${Object.keys(o.values).map((k) => one(k, 40)).join(', ')}\n`).join(''));
  }
  if (v.searchableNames) section(`Searchable names (${v.searchableNames.length}):`, v.searchableNames.map((s) => `  ${one(s.object, 200)}: ${s.names.map((n) => one(n, 60)).join(', ')}\n`).join(''));
  if (v.softPackageReferences) section(`Soft package references (${v.softPackageReferences.length}):`, v.softPackageReferences.map((n) => `  ${one(n, 200)}\n`).join(''));
  if (v.depends) section(`Depends map: ${v.depends.length} exports, ${v.depends.reduce((n, d) => n + d.dependsOn.length, 0)} dependencies`, '');
  if (v.assetRegistry) section(`Asset registry (${v.assetRegistry.objects.length} objects):`, assetRegistry(v.assetRegistry));
  if (v.worldTileInfo) {
    const w = v.worldTileInfo;
    section('World tile info:', `  position ${w.position.join(', ')}, bounds ${w.bounds.min.join(', ')} to ${w.bounds.max.join(', ')}, layer ${one(w.layer.name, 60)}${w.layer.streamingDistance === undefined ? '' : ` (streaming distance ${w.layer.streamingDistance})`}${w.parentTilePackageName ? `, parent ${one(w.parentTilePackageName, 60)}` : ''}${w.lodList ? `, ${w.lodList.length} LODs` : ''}${w.zOrder === undefined ? '' : `, Z order ${w.zOrder}`}\n`);
  }
  if (v.trailer) section('Package trailer:', trailer(v.trailer));
  return out.join('');
}
