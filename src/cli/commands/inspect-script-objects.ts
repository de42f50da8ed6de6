import { renderJson, renderTable } from '../format.js';
import { plural } from '../plural.js';

/**
 * `inspect` of what a global container holds: the engine's script objects (`/Script/...` classes, structs, enums,
 * functions and their default objects), which name the script imports of every package. From `global.utoc` or
 * from its ScriptObjects chunk as unpack writes it.
 */
export function inspectScriptObjects(file: string, objects: ReadonlyMap<bigint, string>, json: boolean, what: 'global container' | 'chunk'): string {
  const rows = [...objects].map(([index, path]) => ({ globalIndex: `0x${index.toString(16).padStart(16, '0')}`, path }));
  const packages = new Set(rows.map((r) => /^\/Script\/[^/.:]+/.exec(r.path)?.[0]).filter((p) => p !== undefined)).size;
  if (json) return renderJson({ kind: 'script-objects', file, count: rows.length, scriptPackages: packages, objects: rows });
  const head = [
    what === 'global container'
      ? 'Global container: the engine\'s script objects (/Script/... classes, structs, enums and their defaults); it holds no packages'
      : 'ScriptObjects chunk: the global container\'s script objects (/Script/... classes, structs, enums and their defaults)',
    `Script objects:   ${plural(rows.length, 'object')} in ${plural(packages, '/Script package')}`,
    `Use it to name the script imports of packages: --global ${file}`,
    '',
  ].join('\n');
  return `${head}\n${renderTable(['global index', 'path'], rows.map((r) => [r.globalIndex, r.path]), ['left', 'left'])}`;
}
