import { IoStoreError } from '../errors.js';
import { packageIdFromName } from '../hash/names.js';
import { containerHeaderVersionRank, type ContainerHeader, type ContainerHeaderVersionName, type ContainerPackage } from '../zen/container-header.js';
import type { StoreEntry } from '../zen/store-entry.js';
import { importedPackageNameStrings, type ZenPackage } from '../zen/zen-package.js';

/**
 * The store entry the engine would write for a package: imported package ids from the package's own imported
 * package names (5.3+) or graph data (UE4), export and bundle counts where the version keeps them. `previous` is the
 * entry the game container had for the same package: it is the only source of shader-map hashes, and of imported
 * packages for 5.0-5.2 packages, whose headers do not name them.
 */
export function storeEntryFor(pkg: ZenPackage, chunkSize: number, version: ContainerHeaderVersionName, previous?: StoreEntry): { entry: StoreEntry; warning?: string } {
  let importedPackages: bigint[];
  let warning: string | undefined;
  const names = importedPackageNameStrings(pkg);
  if (pkg.importedPackageNames) importedPackages = names.map((n) => packageIdFromName(n));
  else if (previous) importedPackages = [...previous.importedPackages];
  // UE4 graph data names the imported packages (in its own order); on one real 4.27 package it named 91 where the
  // engine's entry listed 7, so the game's own entry is preferred above, and a superset only adds dependency loads.
  else if (pkg.layout.format === 'UE4') importedPackages = pkg.referencedPackages.map((r) => r.packageId);
  else {
    importedPackages = [];
    if (pkg.imports.some((v) => v >> 62n === 2n)) warning = `${pkg.packageName}: its header does not name the packages it imports (UE 5.0-5.2) and the game container has no entry for it: imported packages left empty`;
  }
  const entry: StoreEntry = { importedPackages, shaderMapHashes: previous ? [...previous.shaderMapHashes] : [] };
  const rank = containerHeaderVersionRank(version);
  if (rank < containerHeaderVersionRank('NoExportInfo')) {
    entry.exportCount = pkg.exports.length;
    entry.exportBundleCount = Math.max(1, pkg.exportBundles.length);
  }
  if (rank <= containerHeaderVersionRank('Initial')) {
    entry.exportBundlesSize = chunkSize;
    entry.loadOrder = previous?.loadOrder ?? 0;
  }
  return warning ? { entry, warning } : { entry };
}

/** A container header listing `packages` (sorted by id, as the engine writes them). */
export function buildContainerHeader(version: ContainerHeaderVersionName, containerId: bigint, packages: ContainerPackage[]): ContainerHeader {
  if (version === 'PreInitial' && packages.some((p) => p.exportBundlesSize !== undefined)) {
    throw new IoStoreError('UNSUPPORTED', 'writing PreInitial container headers is not supported');
  }
  const rank = containerHeaderVersionRank(version);
  return {
    version,
    containerId,
    packages: [...packages].sort((a, b) => (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0)),
    optionalSegmentPackages: [],
    nameMap: { names: [], hashes: [] },
    localizedPackages: [],
    packageRedirects: [],
    culturePackageMap: [],
    // The engine writes an empty soft-reference block (Has = false) from version 4 on.
    softPackageReferences: rank >= containerHeaderVersionRank('SoftPackageReferences') ? { contains: false, packageIds: [], packageIndices: new Uint8Array(0) } : null,
    shaderMapHashSize: 20,
    trailingPadding: 0,
  };
}
