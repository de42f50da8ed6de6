import { legacyExportSpans, checkUexpTag } from './export-data.js';
import type { LegacyPackage } from './package.js';
import { legacyNameText, legacyObjectPath, legacyPackageName } from './paths.js';

/** A readable view of a legacy package: the summary and the tables with object paths resolved. */
export interface LegacyPackageView {
  packageName: string;
  format: 'legacy';
  legacyFileVersion: number;
  versioning: { fileVersionUE4: number; fileVersionUE5: number; licensee: number; unversioned: boolean; customVersions: number };
  packageFlags: string;
  totalHeaderSize: number;
  importEntrySize: number;
  exportEntrySize: number;
  nameCount: number;
  names: string[];
  imports: Array<{ index: number; path: string; class: string; classPackage: string; outer: string; packageName?: string }>;
  exports: Array<{
    index: number;
    path: string;
    class: string;
    super: string;
    template: string;
    outer: string;
    objectFlags: string;
    serialOffset: number;
    serialSize: number;
    isAsset: boolean;
  }>;
  preloadDependencies: number;
  dataResources: number;
  /** Set when the `.uexp` was given: its size and whether every export lies inside it before the closing tag. */
  uexp?: { size: number; ok: boolean; error?: string };
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

export function describeLegacyPackage(pkg: LegacyPackage, uexp?: Uint8Array): LegacyPackageView {
  const s = pkg.summary;
  const view: LegacyPackageView = {
    packageName: legacyPackageName(pkg),
    format: 'legacy',
    legacyFileVersion: s.legacyFileVersion,
    versioning: { fileVersionUE4: s.fileVersionUE4, fileVersionUE5: s.fileVersionUE5, licensee: s.fileVersionLicenseeUE4, unversioned: s.unversioned, customVersions: s.customVersions.length },
    packageFlags: hex(s.packageFlags),
    totalHeaderSize: s.totalHeaderSize,
    importEntrySize: pkg.layout.importEntrySize,
    exportEntrySize: pkg.layout.exportEntrySize,
    nameCount: pkg.names.length,
    names: pkg.names.map((n) => n.name),
    imports: pkg.imports.map((imp, i) => ({
      index: i,
      path: legacyObjectPath(pkg, -i - 1),
      class: legacyNameText(pkg, imp.className),
      classPackage: legacyNameText(pkg, imp.classPackage),
      outer: legacyObjectPath(pkg, imp.outerIndex),
      ...(imp.packageName ? { packageName: legacyNameText(pkg, imp.packageName) } : {}),
    })),
    exports: pkg.exports.map((e, i) => ({
      index: i,
      path: legacyObjectPath(pkg, i + 1),
      class: legacyObjectPath(pkg, e.classIndex),
      super: legacyObjectPath(pkg, e.superIndex),
      template: legacyObjectPath(pkg, e.templateIndex),
      outer: legacyObjectPath(pkg, e.outerIndex),
      objectFlags: hex(e.objectFlags),
      serialOffset: e.serialOffset,
      serialSize: e.serialSize,
      isAsset: e.isAsset,
    })),
    preloadDependencies: pkg.preloadDependencies.length,
    dataResources: pkg.dataResources.length,
  };
  if (uexp) {
    try {
      checkUexpTag(uexp, `${pkg.source} (.uexp)`);
      legacyExportSpans(pkg, uexp.length);
      view.uexp = { size: uexp.length, ok: true };
    } catch (e) {
      view.uexp = { size: uexp.length, ok: false, error: (e as Error).message };
    }
  }
  return view;
}
