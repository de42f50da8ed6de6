import { cityHash64 } from '../hash/cityhash.js';
import { lowerAscii, utf16leBytes } from '../hash/names.js';
import { concatBytes } from '../toc/directory-index.js';
import { nameHash } from './name-batch.js';
import { NULL_OBJECT_INDEX } from './object-index.js';
import { PACKAGE_FILE_TAG } from './zen-layout.js';
import { serializeZenPackageHeader } from './zen-package-writer.js';
import { scriptImportIndex } from './script-objects.js';
import type { ZenPackage } from './zen-package.js';
import type { ExportMapEntry } from './export-map.js';

/** One object of a package to build. */
export interface ExportSpec {
  name: string;
  /** Script class path, e.g. `/Script/Engine/DataAsset`. */
  className: string;
  data: Uint8Array;
}

export interface PackageSpec {
  /** Long package name, e.g. `/Game/Demo/Hello`. */
  name: string;
  exports: ExportSpec[];
  /** UE5 object version the package claims (1012 = 5.4 ... 1018 = 5.8); decides the layout (default 1012). */
  fileVersionUE5?: number;
}

/**
 * Builds a whole zen package chunk (UE 5.3+ layout: header, export data, package tag) whose exports are instances
 * of script classes: enough for the samples and for tests that need packages of their own instead of game content.
 */
export function buildZenPackage(spec: PackageSpec): Uint8Array {
  const ue5 = spec.fileVersionUE5 ?? 1012;
  const names: string[] = [];
  const nameIndex = (n: string) => {
    let i = names.indexOf(n);
    if (i < 0) i = names.push(n) - 1;
    return { index: i, type: 0, number: 0 };
  };
  const packageName = nameIndex(spec.name);
  const imports: bigint[] = [];
  const importOf = (path: string) => {
    const v = scriptImportIndex(path);
    if (!imports.includes(v)) imports.push(v);
    return v;
  };
  let offset = 0;
  const exports: ExportMapEntry[] = spec.exports.map((e) => {
    const cls = e.className;
    const pkgPath = cls.slice(0, cls.lastIndexOf('/'));
    importOf(pkgPath);
    const classIndex = importOf(cls);
    const templateIndex = importOf(`${pkgPath}/Default__${cls.slice(cls.lastIndexOf('/') + 1)}`);
    const entry: ExportMapEntry = {
      cookedSerialOffset: offset,
      cookedSerialSize: e.data.length,
      objectName: nameIndex(e.name),
      outerIndex: NULL_OBJECT_INDEX,
      classIndex,
      superIndex: NULL_OBJECT_INDEX,
      templateIndex,
      publicExportHash: cityHash64(utf16leBytes(lowerAscii(e.name))),
      objectFlags: 0x1 | 0x2 | 0x8, // Public | Standalone | Transactional
      filterFlags: 0,
    };
    offset += e.data.length;
    return entry;
  });
  const pkg: ZenPackage = {
    layout: { format: 'UE5', summarySize: 52, cellMaps: ue5 >= 1015, bulkDataMap: ue5 >= 1012 ? 'padded' : 'plain' },
    summary: null,
    ue4Summary: null,
    headerSize: 0,
    name: packageName,
    packageName: spec.name,
    packageFlags: 0x80000000,
    cookedHeaderSize: 0,
    versioningInfo: { zenVersion: 3, fileVersionUE4: 522, fileVersionUE5: ue5, licenseeVersion: 0, customVersions: [] },
    names,
    nameHashes: names.map(nameHash),
    bulkData: [],
    importedPublicExportHashes: [],
    imports,
    exports,
    cellImports: [],
    cellExports: [],
    exportBundleEntries: spec.exports.flatMap((_, i) => [{ localExportIndex: i, commandType: 0 }, { localExportIndex: i, commandType: 1 }]),
    exportBundles: [],
    referencedPackages: [],
    internalArcs: [],
    externalArcs: [],
    dependencyBundleHeaders: spec.exports.map(() => ({ firstEntryIndex: -1, createBeforeCreate: 0, serializeBeforeCreate: 0, createBeforeSerialize: 0, serializeBeforeSerialize: 0 })),
    dependencyBundleEntries: [],
    importedPackageNames: { batch: { names: [], hashes: [] }, numbers: [] },
    sections: [],
    exportDataSize: offset,
  };
  // Names are final only after the export map took its entries, so hashes are taken from the final list.
  pkg.nameHashes = names.map(nameHash);
  const header = serializeZenPackageHeader(pkg);
  const tag = new Uint8Array(4);
  new DataView(tag.buffer).setUint32(0, PACKAGE_FILE_TAG, true);
  return concatBytes([header, ...spec.exports.map((e) => e.data), tag]);
}
