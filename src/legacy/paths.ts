import { IoStoreError } from '../errors.js';
import type { LegacyName, LegacyPackage } from './package.js';

/** The text of an FName: the name-map entry, with `_<number-1>` when the number is set. */
export function legacyNameText(pkg: LegacyPackage, n: LegacyName): string {
  const base = pkg.names[n.index]?.name;
  if (base === undefined) throw new IoStoreError('BAD_VALUE', `name index ${n.index} is outside the ${pkg.names.length}-entry name map`, { file: pkg.source });
  return n.number === 0 ? base : `${base}_${n.number - 1}`;
}

/** Which table a package index refers to. */
export type LegacyRef = { kind: 'null' } | { kind: 'import'; index: number } | { kind: 'export'; index: number };

export function legacyRef(packageIndex: number): LegacyRef {
  if (packageIndex === 0) return { kind: 'null' };
  return packageIndex < 0 ? { kind: 'import', index: -packageIndex - 1 } : { kind: 'export', index: packageIndex - 1 };
}

/** The object name of the import or export `packageIndex` refers to ('' for null). */
export function legacyObjectName(pkg: LegacyPackage, packageIndex: number): string {
  const ref = legacyRef(packageIndex);
  if (ref.kind === 'null') return '';
  const entry = ref.kind === 'import' ? pkg.imports[ref.index] : pkg.exports[ref.index];
  if (!entry) throw new IoStoreError('BAD_VALUE', `package index ${packageIndex} is outside the import and export maps`, { file: pkg.source });
  return legacyNameText(pkg, entry.objectName);
}

/**
 * The full object path of an import or export, as the engine prints it: the package, `.` before the top-level
 * object, `:` before a subobject of a top-level object, `.` below that (`/Script/Engine.Texture2D`,
 * `/Game/Maps/Level.Level:PersistentLevel.WorldSettings`). Exports hang under the package's own name.
 */
export function legacyObjectPath(pkg: LegacyPackage, packageIndex: number): string {
  const chain: string[] = [];
  let i = packageIndex;
  let root = '';
  for (let steps = 0; i !== 0; steps++) {
    if (steps > pkg.imports.length + pkg.exports.length) throw new IoStoreError('BAD_VALUE', `the outer chain of ${packageIndex} loops`, { file: pkg.source });
    const ref = legacyRef(i);
    if (ref.kind === 'import') {
      const imp = pkg.imports[ref.index];
      if (!imp) throw new IoStoreError('BAD_VALUE', `import ${ref.index} is outside the import map`, { file: pkg.source });
      if (imp.outerIndex === 0) {
        // A top-level import is a package, named by its object name (UE 5.8+: possibly a different package name).
        root = legacyNameText(pkg, imp.objectName);
        break;
      }
      chain.push(legacyNameText(pkg, imp.objectName));
      i = imp.outerIndex;
    } else if (ref.kind === 'export') {
      const e = pkg.exports[ref.index];
      if (!e) throw new IoStoreError('BAD_VALUE', `export ${ref.index} is outside the export map`, { file: pkg.source });
      chain.push(legacyNameText(pkg, e.objectName));
      i = e.outerIndex;
      if (i === 0) root = legacyPackageName(pkg);
    }
  }
  chain.reverse();
  let out = root;
  chain.forEach((name, depth) => {
    out += out === '' ? name : (depth === 1 ? ':' : '.') + name;
  });
  return out;
}

/**
 * The package's own name: the summary's package name when it is a path (UE5), else the caller must know it (UE4
 * stores `None`); `fallback` is used then.
 */
export function legacyPackageName(pkg: LegacyPackage, fallback = ''): string {
  const n = pkg.summary.packageName;
  return n.startsWith('/') ? n : fallback || pkg.packageNameHint || n;
}

/** The class path of an export (its class import's object path), or '' when it has none. */
export function legacyExportClassPath(pkg: LegacyPackage, exportIndex: number): string {
  const e = pkg.exports[exportIndex];
  if (!e) throw new IoStoreError('BAD_VALUE', `export ${exportIndex} is outside the export map`, { file: pkg.source });
  return e.classIndex === 0 ? '' : legacyObjectPath(pkg, e.classIndex);
}

/**
 * The package name a file path implies when the package does not store one (UE4 summaries say `None`): the part
 * under a `Content` folder, as `/Game/...`. Undefined when the path has no Content folder.
 */
export function packageNameFromContentPath(file: string): string | undefined {
  const m = /(?:^|[\\/])Content[\\/](.+)\.[^.\\/]+$/i.exec(file);
  return m ? `/Game/${m[1]!.replace(/\\/g, '/')}` : undefined;
}
