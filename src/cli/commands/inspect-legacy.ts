import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { LegacyPackageView } from '../../legacy/describe.js';
import { describeLegacyPackage } from '../../legacy/describe.js';
import { parseLegacyPackage } from '../../legacy/package.js';
import { packageNameFromContentPath } from '../../legacy/paths.js';
import type { LegacyEngineRelease } from '../../legacy/versions.js';
import { renderJson, renderTable } from '../format.js';
import { escapeControl } from '../../util/quote.js';
import { renderLegacyEditorTables } from './inspect-legacy-tables.js';
import { writeLegacyThumbnails, type ThumbnailFile } from './inspect-thumbnails.js';

/** How a legacy package is read and shown: the release of an unversioned one, its folder, where thumbnails go. */
export interface LegacyInspectOptions {
  engine?: LegacyEngineRelease;
  /** Long package path of the package's folder (UE4 summaries name no package). */
  mount?: string;
  /** Folder to write each thumbnail into, as the image file it is. */
  thumbnails?: string;
}

/**
 * `inspect` of a legacy .uasset/.umap: the package and, when it is beside it, its .uexp; with `thumbnails`, each
 * thumbnail written as an image file into that folder (listed in the output).
 */
export function inspectLegacy(file: string, bytes: Uint8Array, json: boolean, o: LegacyInspectOptions = {}): string {
  const uexpPath = file.replace(/\.[^./\\]+$/, '.uexp');
  const uexp = existsSync(uexpPath) ? new Uint8Array(readFileSync(uexpPath)) : undefined;
  return inspectLegacyBytes(file, bytes, uexp, json, o);
}

/** The same for a package read from elsewhere (a .pak): `file` names it and places it (its Content folder). */
export function inspectLegacyBytes(file: string, bytes: Uint8Array, uexp: Uint8Array | undefined, json: boolean, o: LegacyInspectOptions = {}): string {
  // UE4 summaries store `None` for the package name: a path under a Content folder gives it (`/Game/...`), or the
  // folder's long package path.
  const stem = basename(file).replace(/\.[^.]+$/, '');
  const packageName = packageNameFromContentPath(file) ?? (o.mount === undefined ? undefined : `${o.mount.replace(/\/+$/, '')}/${stem}`);
  const pkg = parseLegacyPackage(bytes, { source: file, ...(o.engine ? { engine: o.engine } : {}), ...(packageName ? { packageName } : {}) });
  const view: LegacyPackageView & { thumbnailFiles?: ThumbnailFile[] } = describeLegacyPackage(pkg, uexp);
  if (o.thumbnails !== undefined) view.thumbnailFiles = writeLegacyThumbnails(pkg, o.thumbnails);
  return json ? renderJson(view) : renderLegacy(view) + (view.thumbnailFiles ? thumbnailLines(view.thumbnailFiles, o.thumbnails!) : '');
}

function thumbnailLines(files: ThumbnailFile[], dir: string): string {
  const written = files.filter((f) => f.file !== undefined);
  const lines = [`\nThumbnails written to ${escapeControl(dir)}: ${written.length} of ${files.length}`];
  for (const f of files) lines.push(`  ${escapeControl(f.objectPath)}: ${f.file === undefined ? '' : escapeControl(f.file)}${f.skipped ? `${f.file === undefined ? '' : ' '}(${f.skipped})` : ''}`);
  return `${lines.join('\n')}\n`;
}

function exportDataLine(v: LegacyPackageView): string {
  const d = v.exportData;
  if (d.in === 'missing') return v.exports.length === 0 ? 'none (no exports)' : 'not at hand: no .uexp beside the package, and the .uasset ends with its header';
  const where = d.in === 'uexp' ? `.uexp, ${d.size} bytes` : `in the .uasset, ${d.size} bytes after the header`;
  return d.ok ? `${where}, exports inside${d.in === 'uexp' ? ', closing tag present' : ''}` : `${where}: ${d.error}`;
}

const fieldText = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

function renderLegacy(v: LegacyPackageView): string {
  const ver = v.versioning;
  const head = [
    `Package:          ${v.packageName}${v.packageName.startsWith('/') ? '' : ' (the summary names no package and the path lies below no Content folder: --mount /Game/<its folder> gives it)'}`,
    `Format:           legacy package (legacy file version ${v.legacyFileVersion}), header ${v.totalHeaderSize} bytes`,
    `Versioning:       ${ver.unversioned ? `unversioned, read as ${v.engine ? `${v.engine}: ` : ''}` : ''}UE4 ${ver.fileVersionUE4}, UE5 ${ver.fileVersionUE5}, licensee ${ver.licensee}, ${ver.customVersions} custom versions`,
    `Package flags:    ${v.packageFlags}`,
    `Entries:          imports ${v.importEntrySize} bytes, exports ${v.exportEntrySize} bytes`,
    `Preload deps:     ${v.preloadDependencies}`,
    `Data resources:   ${v.dataResources}`,
    `Export data:      ${exportDataLine(v)}`,
    '',
    'Summary:',
    ...Object.entries(v.summary).map(([k, x]) => `  ${k.padEnd(36)}${fieldText(x)}`),
    '',
    'Tables:',
  ].join('\n');
  const out = [head, '\n'];
  out.push(renderTable(['table', 'offset', 'size', 'kept'], v.tables.map((t) => [t.table, String(t.offset), String(t.size), t.kept]), ['left', 'right', 'right', 'left']));
  out.push(`\nImports (${v.imports.length}):\n`);
  out.push(renderTable(['#', 'class', 'path'], v.imports.map((i) => [String(i.index), `${i.classPackage}.${i.class}`, i.path]), ['right', 'left', 'left']));
  out.push(`\nExports (${v.exports.length}):\n`);
  out.push(renderTable(['#', 'class', 'path', 'flags', 'offset', 'size'], v.exports.map((e) => [String(e.index), e.class, e.path, e.objectFlags, String(e.serialOffset), String(e.serialSize)]), ['right', 'left', 'left', 'left', 'right', 'right']));
  out.push(renderLegacyEditorTables(v));
  out.push(`\nNames (${v.nameCount}):\n${v.names.map((n, i) => `  ${i}  ${n}`).join('\n')}\n`);
  return out.join('');
}
