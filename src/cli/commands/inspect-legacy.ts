import { existsSync, readFileSync } from 'node:fs';
import type { LegacyPackageView } from '../../legacy/describe.js';
import { describeLegacyPackage } from '../../legacy/describe.js';
import { parseLegacyPackage } from '../../legacy/package.js';
import { packageNameFromContentPath } from '../../legacy/paths.js';
import type { EngineVersion } from '../../toc/engine.js';
import { renderJson, renderTable } from '../format.js';

/** `inspect` of a legacy .uasset/.umap: the package and, when it is beside it, its .uexp. */
export function inspectLegacy(file: string, bytes: Uint8Array, json: boolean, engine?: EngineVersion): string {
  const uexpPath = file.replace(/\.[^./\\]+$/, '.uexp');
  const uexp = existsSync(uexpPath) ? new Uint8Array(readFileSync(uexpPath)) : undefined;
  return inspectLegacyBytes(file, bytes, uexp, json, engine);
}

/** The same for a package read from elsewhere (a .pak): `file` names it and places it (its Content folder). */
export function inspectLegacyBytes(file: string, bytes: Uint8Array, uexp: Uint8Array | undefined, json: boolean, engine?: EngineVersion): string {
  // UE4 summaries store `None` for the package name: a path under a Content folder gives it (`/Game/...`).
  const packageName = packageNameFromContentPath(file);
  const pkg = parseLegacyPackage(bytes, { source: file, ...(engine ? { engine } : {}), ...(packageName ? { packageName } : {}) });
  const view = describeLegacyPackage(pkg, uexp);
  return json ? renderJson(view) : renderLegacy(view);
}

function renderLegacy(v: LegacyPackageView): string {
  const ver = v.versioning;
  const head = [
    `Package:          ${v.packageName}`,
    `Format:           legacy package (legacy file version ${v.legacyFileVersion}), header ${v.totalHeaderSize} bytes`,
    `Versioning:       ${ver.unversioned ? 'unversioned, read as ' : ''}UE4 ${ver.fileVersionUE4}, UE5 ${ver.fileVersionUE5}, licensee ${ver.licensee}, ${ver.customVersions} custom versions`,
    `Package flags:    ${v.packageFlags}`,
    `Entries:          imports ${v.importEntrySize} bytes, exports ${v.exportEntrySize} bytes`,
    `Preload deps:     ${v.preloadDependencies}`,
    `Data resources:   ${v.dataResources}`,
    `.uexp:            ${v.uexp ? (v.uexp.ok ? `${v.uexp.size} bytes, exports inside, closing tag present` : `${v.uexp.size} bytes: ${v.uexp.error}`) : 'not beside the package'}`,
    '',
    `Imports (${v.imports.length}):`,
  ].join('\n');
  const out = [head, '\n'];
  out.push(renderTable(['#', 'class', 'path'], v.imports.map((i) => [String(i.index), `${i.classPackage}.${i.class}`, i.path]), ['right', 'left', 'left']));
  out.push(`\nExports (${v.exports.length}):\n`);
  out.push(renderTable(['#', 'class', 'path', 'flags', 'offset', 'size'], v.exports.map((e) => [String(e.index), e.class, e.path, e.objectFlags, String(e.serialOffset), String(e.serialSize)]), ['right', 'left', 'left', 'left', 'right', 'right']));
  out.push(`\nNames (${v.nameCount}):\n${v.names.map((n, i) => `  ${i}  ${n}`).join('\n')}\n`);
  return out.join('');
}
