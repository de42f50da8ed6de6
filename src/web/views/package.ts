/** The package tab: a zen or legacy package's summary, exports, imports and names (a legacy one's thumbnails and editor tables too). */
import type { LegacyPackageView } from '../../legacy/describe.js';
import { facts, fmtInt, h, objectCell, table, wrappingText } from '../dom.js';
import { isLegacyView, type AnyPackageView } from '../package-view.js';
import { editorTableNodes, thumbnailNodes } from './editor-tables.js';
import type { SubjectView } from './view.js';

export const packageTab: SubjectView = {
  id: 'package',
  label: 'Package',
  applies: (s) => s.isPackage,
  async render(s, cx) {
    const v = await s.packageView();
    cx.show(...(typeof v === 'string' ? [h('div', { class: 'warn' }, v)] : packageNodes(v)));
  },
};

export function packageNodes(v: AnyPackageView): Node[] {
  if (isLegacyView(v)) return legacyNodes(v);
  return [
    h('h3', { class: 'pkg-name' }, wrappingText(v.packageName)),
    facts([
      ['format', `${v.format} zen package, header ${fmtInt(v.headerSize)} bytes, export data ${fmtInt(v.exportDataSize)} bytes`],
      ['package flags', v.packageFlags],
      ['versioning', v.versioning ? `UE4 ${v.versioning.fileVersionUE4}, UE5 ${v.versioning.fileVersionUE5}, licensee ${v.versioning.licenseeVersion}` : 'unversioned'],
    ], 'summary'),
    h('h4', {}, `Exports (${v.exports.length})`),
    table(['#', 'name / class', 'outer', 'size'], v.exports.map((e) => [String(e.index), objectCell(e.name, e.class ?? ''), e.outer ? wrappingText(e.outer) : '', fmtInt(e.serialSize)]), 'exports', [0, 3]),
    h('h4', {}, `Imports (${v.imports.length})`),
    table(['#', 'object', 'kind'], v.imports.map((i) => [String(i.index), objectCell(i.resolved ?? i.value, ''), i.kind]), 'imports', [0]),
    h('h4', {}, `Imported packages (${v.importedPackages.length})`),
    ...(v.importedPackages.length ? [table(['#', 'package'], v.importedPackages.map((p, i) => [String(i), wrappingText(p, 'path')]), 'imported', [0])] : []),
    h('h4', {}, `Names (${v.nameCount})`),
    h('pre', { class: 'names', tabindex: '0', 'aria-label': 'Names' }, v.names.join('\n')),
  ];
}

function legacyNodes(v: LegacyPackageView): Node[] {
  const ver = v.versioning;
  const inline = v.exportData.in === 'uasset' ? `none needed: the export data is in the .uasset, ${fmtInt(v.exportData.size)} bytes after the header${v.exportData.ok ? ', every export inside it' : `: ${v.exportData.error}`}` : undefined;
  const uexp = inline ?? (v.uexp ? (v.uexp.ok ? `${fmtInt(v.uexp.size)} bytes, every export inside it` : `${fmtInt(v.uexp.size)} bytes: ${v.uexp.error}`) : 'not found beside the package: drop it with the .uasset');
  return [
    h('h3', { class: 'pkg-name' }, wrappingText(v.packageName)),
    facts([
      ['format', `legacy package (legacy file version ${v.legacyFileVersion}), header ${fmtInt(v.totalHeaderSize)} bytes`],
      ['versions', `${ver.unversioned ? 'unversioned, read as ' : ''}UE4 ${ver.fileVersionUE4}, UE5 ${ver.fileVersionUE5}, licensee ${ver.licensee}, ${ver.customVersions} custom versions`],
      ['package flags', v.packageFlags],
      ['preload deps', fmtInt(v.preloadDependencies)],
      ['data resources', fmtInt(v.dataResources)],
      ['.uexp', uexp],
    ], 'summary'),
    ...thumbnailNodes(v),
    h('h4', {}, `Exports (${v.exports.length})`),
    table(['#', 'object / class', 'size', 'offset', 'flags'], v.exports.map((e) => [String(e.index), objectCell(e.path, e.class), fmtInt(e.serialSize), fmtInt(e.serialOffset), e.objectFlags.replace(/^0x0*(?=.)/, '0x')]), 'exports', [0, 2, 3, 4]),
    h('h4', {}, `Imports (${v.imports.length})`),
    table(['#', 'object / class'], v.imports.map((i) => [String(i.index), objectCell(i.path, `${i.classPackage}.${i.class}`)]), 'imports', [0]),
    ...editorTableNodes(v),
    h('h4', {}, `Names (${v.nameCount})`),
    h('pre', { class: 'names', tabindex: '0', 'aria-label': 'Names' }, v.names.join('\n')),
  ];
}
