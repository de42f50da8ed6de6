/**
 * Names for a package's imports of other packages: a package import holds only the imported package and a hash of
 * the export, so naming it (`/Game/A/BP.BP_C`) takes the imported package itself, wherever it is at hand.
 */
import { IoStoreError } from '../errors.js';
import { packageIdFromName } from '../hash/names.js';
import type { StoreEntry } from '../zen/store-entry.js';
import { NULL_OBJECT_INDEX, objectIndexKind } from '../zen/object-index.js';
import { exportName, importedPackageNameStrings, type ZenPackage } from '../zen/zen-package.js';

/** Export `i`'s object path: the package, `.` the top object, `:` its subobject, then `.` for each deeper level. */
export function exportObjectPath(pkg: ZenPackage, i: number): string | undefined {
  const chain: string[] = [];
  for (let at = i, steps = 0; steps <= pkg.exports.length; steps++) {
    const e = pkg.exports[at];
    const name = e && exportName(pkg, e);
    if (!e || name === undefined) return undefined;
    chain.push(name);
    if (e.outerIndex === NULL_OBJECT_INDEX) return chain.reverse().reduce((s, n, depth) => s + (depth === 1 ? ':' : '.') + n, pkg.packageName);
    if (objectIndexKind(e.outerIndex) !== 'Export') return undefined;
    at = Number(e.outerIndex & 0xffffffffn);
  }
  return undefined; // an outer chain that loops
}

/**
 * A package's public exports as its importers refer to them: by public export hash (UE5), or by global import
 * index (UE4 zen packages keep it in the same field), each with its object path.
 */
export function publicExportPaths(pkg: ZenPackage): Map<bigint, string> {
  const out = new Map<bigint, string>();
  pkg.exports.forEach((e, i) => {
    if (e.publicExportHash === 0n || e.publicExportHash === NULL_OBJECT_INDEX) return;
    const path = exportObjectPath(pkg, i);
    if (path !== undefined) out.set(e.publicExportHash, path);
  });
  return out;
}

/** The ids of the packages `pkg` imports, in its import order: from its own name list (5.3+), else its store entry. */
export function importedPackageIds(pkg: ZenPackage, storeEntry?: Pick<StoreEntry, 'importedPackages'>): bigint[] {
  const names = importedPackageNameStrings(pkg);
  return names.length > 0 ? names.map(packageIdFromName) : [...(storeEntry?.importedPackages ?? [])];
}

/**
 * The public exports of every package `pkg` imports that `load` can find (package id -> hash -> object path), for
 * `describePackage` to name package imports. A package `load` cannot find or parse is left out: its imports keep
 * their package name and hash.
 */
export async function importedExportPaths(
  pkg: ZenPackage,
  storeEntry: Pick<StoreEntry, 'importedPackages'> | undefined,
  load: (packageId: bigint) => Promise<ZenPackage | undefined>,
): Promise<Map<bigint, Map<bigint, string>>> {
  const out = new Map<bigint, Map<bigint, string>>();
  for (const id of new Set(importedPackageIds(pkg, storeEntry))) {
    try {
      const other = await load(id);
      if (other) out.set(id, publicExportPaths(other));
    } catch (e) {
      // An imported package that does not parse names nothing; the import still shows its package and hash.
      if (!(e instanceof IoStoreError)) throw e;
    }
  }
  return out;
}
