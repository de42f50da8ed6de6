import { packageIdFromName } from '../hash/names.js';
import type { ContainerHeader } from '../zen/container-header.js';
import { objectIndexKind, objectIndexValue, packageImportParts } from '../zen/object-index.js';
import { exportName, importedPackageNameStrings, type ZenPackage } from '../zen/zen-package.js';

const hex = (v: bigint, digits = 16) => `0x${v.toString(16).padStart(digits, '0')}`;

/** What is known around a package to resolve its references into names. */
export interface ResolveContext {
  /** ScriptImport global index -> object path (from the global container's ScriptObjects). */
  scriptObjects?: ReadonlyMap<bigint, string>;
  /** Package id -> package name (e.g. from a container's directory index). */
  packageNames?: ReadonlyMap<bigint, string>;
  /** The package's store entry imports (UE5 package imports index into it). */
  importedPackageIds?: readonly bigint[];
  /**
   * The public exports of imported packages at hand (package id -> public export hash, or UE4 global import index
   * -> object path; `importedExportPaths` makes it): their imports are then named by object path.
   */
  importedExports?: ReadonlyMap<bigint, ReadonlyMap<bigint, string>>;
}

export interface PackageView {
  packageName: string;
  format: 'UE4' | 'UE5';
  headerSize: number;
  cookedHeaderSize: number;
  packageFlags: string;
  exportDataSize: number;
  versioning: { zenVersion: number; fileVersionUE4: number; fileVersionUE5: number; licenseeVersion: number } | null;
  nameCount: number;
  names: string[];
  importedPackages: string[];
  imports: Array<{ index: number; kind: string; value: string; resolved: string | null }>;
  exports: Array<{
    index: number;
    name: string;
    class: string | null;
    outer: string | null;
    super: string | null;
    template: string | null;
    serialOffset: number;
    serialSize: number;
    publicExportHash: string;
    objectFlags: string;
  }>;
  bulkData: number;
  sections: Array<{ name: string; offset: number; size: number }>;
}

/** A readable, JSON-ready view of a zen package with references resolved as far as the context allows. */
export function describePackage(pkg: ZenPackage, ctx: ResolveContext = {}): PackageView {
  const importedNames = importedPackageNameStrings(pkg);
  const importedIds = ctx.importedPackageIds ?? [];
  const pkgId = (i: number): bigint | undefined => (importedNames[i] !== undefined ? packageIdFromName(importedNames[i]!) : importedIds[i]);
  const pkgName = (i: number): string | null => {
    if (importedNames[i] !== undefined) return importedNames[i]!;
    const id = importedIds[i];
    if (id === undefined) return null;
    return ctx.packageNames?.get(id) ?? hex(id);
  };
  const resolve = (v: bigint): string | null => {
    switch (objectIndexKind(v)) {
      case 'Null':
        return null;
      case 'Export': {
        const e = pkg.exports[Number(objectIndexValue(v))];
        return e ? (exportName(pkg, e) ?? `export ${objectIndexValue(v)}`) : `export ${objectIndexValue(v)} (out of range)`;
      }
      case 'ScriptImport':
        return ctx.scriptObjects?.get(v) ?? `script ${hex(objectIndexValue(v))}`;
      case 'PackageImport': {
        if (pkg.layout.format === 'UE4') {
          // A global import index: the imported package's export that carries the same index.
          for (const exports of ctx.importedExports?.values() ?? []) {
            const path = exports.get(v);
            if (path !== undefined) return path;
          }
          return ctx.scriptObjects?.get(v) ?? `import ${hex(objectIndexValue(v))}`;
        }
        const { importedPackageIndex, publicExportHashIndex } = packageImportParts(v);
        const h = pkg.importedPublicExportHashes[publicExportHashIndex];
        const id = pkgId(importedPackageIndex);
        const path = h === undefined || id === undefined ? undefined : ctx.importedExports?.get(id)?.get(h);
        if (path !== undefined) return path;
        const p = pkgName(importedPackageIndex) ?? `package #${importedPackageIndex}`;
        return `${p}:${h === undefined ? `#${publicExportHashIndex}` : hex(h)}`;
      }
    }
  };
  const v = pkg.versioningInfo;
  return {
    packageName: pkg.packageName,
    format: pkg.layout.format,
    headerSize: pkg.headerSize,
    cookedHeaderSize: pkg.cookedHeaderSize,
    packageFlags: `0x${pkg.packageFlags.toString(16).padStart(8, '0')}`,
    exportDataSize: pkg.exportDataSize,
    versioning: v ? { zenVersion: v.zenVersion, fileVersionUE4: v.fileVersionUE4, fileVersionUE5: v.fileVersionUE5, licenseeVersion: v.licenseeVersion } : null,
    nameCount: pkg.names.length,
    names: pkg.names,
    importedPackages: (importedNames.length > 0 ? importedNames : importedIds.map((id) => ctx.packageNames?.get(id) ?? hex(id))),
    imports: pkg.imports.map((value, index) => ({ index, kind: objectIndexKind(value), value: hex(value), resolved: resolve(value) })),
    exports: pkg.exports.map((e, index) => ({
      index,
      name: exportName(pkg, e) ?? `?${index}`,
      class: resolve(e.classIndex),
      outer: resolve(e.outerIndex),
      super: resolve(e.superIndex),
      template: resolve(e.templateIndex),
      serialOffset: e.cookedSerialOffset,
      serialSize: e.cookedSerialSize,
      publicExportHash: hex(e.publicExportHash),
      objectFlags: `0x${e.objectFlags.toString(16).padStart(8, '0')}`,
    })),
    bulkData: pkg.bulkData.length,
    sections: pkg.sections.map((s) => ({ name: s.name, offset: s.offset, size: s.size })),
  };
}

export interface ContainerHeaderView {
  version: string;
  containerId: string;
  packageCount: number;
  packages: Array<{ id: string; name: string | null; importedPackages: string[]; exportCount?: number; exportBundleCount?: number; shaderMapHashes: number }>;
  optionalSegmentPackages: number;
  localizedPackages: number;
  packageRedirects: number;
  softPackageReferences: number;
}

/** The engine releases that write a container-header layout, for people (the layout's name is the engine's enum). */
export function containerHeaderVersionLabel(version: string): string {
  const label = CONTAINER_HEADER_LABELS[version];
  return label ?? version;
}
const CONTAINER_HEADER_LABELS: Record<string, string> = {
  PreInitial: 'UE 4.26/4.27, 16-byte store entries',
  Initial: 'UE 4.26/4.27',
  UE5Initial: 'UE5 early access, version 0',
  LocalizedPackages: 'UE 5.0, version 1',
  OptionalSegmentPackages: 'UE 5.1/5.2, version 2',
  NoExportInfo: 'UE 5.3/5.4, version 3',
  SoftPackageReferences: 'UE 5.5, version 4',
  SoftPackageReferencesOffset: 'UE 5.6 and later, version 5',
};

export function describeContainerHeader(h: ContainerHeader, packageNames?: ReadonlyMap<bigint, string>): ContainerHeaderView {
  const name = (id: bigint) => packageNames?.get(id) ?? null;
  return {
    version: h.version,
    containerId: hex(h.containerId),
    packageCount: h.packages.length,
    packages: h.packages.map((p) => ({
      id: hex(p.packageId),
      name: name(p.packageId),
      importedPackages: p.importedPackages.map((id) => name(id) ?? hex(id)),
      ...(p.exportCount !== undefined ? { exportCount: p.exportCount } : {}),
      ...(p.exportBundleCount !== undefined ? { exportBundleCount: p.exportBundleCount } : {}),
      shaderMapHashes: p.shaderMapHashes.length,
    })),
    optionalSegmentPackages: h.optionalSegmentPackages.length,
    localizedPackages: h.localizedPackages.length,
    packageRedirects: h.packageRedirects.length,
    softPackageReferences: h.softPackageReferences ? h.softPackageReferences.packageIds.length : 0,
  };
}
