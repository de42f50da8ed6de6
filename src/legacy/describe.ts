import { legacyExportSpans, checkUexpTag } from './export-data.js';
import type { LegacyPackage } from './package.js';
import { IoStoreError } from '../errors.js';
import { legacyNameText, legacyObjectPath, legacyPackageName, legacyRef } from './paths.js';

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
  const objectPath = shownObjectPaths(pkg);
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
      path: objectPath(-i - 1),
      class: legacyNameText(pkg, imp.className),
      classPackage: legacyNameText(pkg, imp.classPackage),
      outer: objectPath(imp.outerIndex),
      ...(imp.packageName ? { packageName: legacyNameText(pkg, imp.packageName) } : {}),
    })),
    exports: pkg.exports.map((e, i) => ({
      index: i,
      path: objectPath(i + 1),
      class: objectPath(e.classIndex),
      super: objectPath(e.superIndex),
      template: objectPath(e.templateIndex),
      outer: objectPath(e.outerIndex),
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

/** Outer levels an object path shows; a deeper one shows its root, how many levels were left out, and the innermost. */
export const SHOWN_OUTER_LEVELS = 32;

/**
 * Object paths for display, each at most SHOWN_OUTER_LEVELS levels long. Every object of a package whose exports
 * form one long outer chain has a path as long as the chain: written out in full, 3,000 exports made 130 MB of
 * text. The levels of each object are counted once (memoized), so a long chain costs linear time.
 */
function shownObjectPaths(pkg: LegacyPackage): (packageIndex: number) => string {
  const levels = new Map<number, number>();
  const roots = new Map<number, string>();
  const limit = pkg.imports.length + pkg.exports.length;
  const loops = (start: number): never => {
    throw new IoStoreError('BAD_VALUE', `the outer chain of ${start} loops`, { file: pkg.source });
  };
  /** The entry `i` refers to and its outer (0: none). */
  const entry = (i: number): { outer: number; name: string; isImport: boolean } => {
    const ref = legacyRef(i);
    if (ref.kind === 'null') return loops(i);
    const e = ref.kind === 'import' ? pkg.imports[ref.index] : pkg.exports[ref.index];
    if (!e) throw new IoStoreError('BAD_VALUE', `${ref.kind} ${ref.index} is outside the ${ref.kind} map`, { file: pkg.source });
    return { outer: e.outerIndex, name: legacyNameText(pkg, e.objectName), isImport: ref.kind === 'import' };
  };
  // Levels below the root, and the root (a top-level import names itself; exports hang under the package).
  const measure = (start: number): void => {
    const walked: number[] = [];
    let i = start;
    while (!levels.has(i)) {
      if (walked.length > limit) loops(start);
      const e = entry(i);
      if (e.outer === 0) {
        levels.set(i, e.isImport ? 0 : 1);
        roots.set(i, e.isImport ? e.name : legacyPackageName(pkg));
        break;
      }
      walked.push(i);
      i = e.outer;
    }
    for (let k = walked.length - 1; k >= 0; k--) {
      const outer = k === walked.length - 1 ? i : walked[k + 1]!;
      levels.set(walked[k]!, levels.get(outer)! + 1);
      roots.set(walked[k]!, roots.get(outer)!);
    }
  };
  return (packageIndex) => {
    if (packageIndex === 0) return '';
    measure(packageIndex);
    const depth = levels.get(packageIndex)!;
    if (depth <= SHOWN_OUTER_LEVELS) return legacyObjectPath(pkg, packageIndex);
    const inner: string[] = [];
    for (let i = packageIndex; inner.length < SHOWN_OUTER_LEVELS - 1; ) {
      const e = entry(i);
      inner.push(e.name);
      i = e.outer;
    }
    return `${roots.get(packageIndex)!}:…(${depth - inner.length} levels)….${inner.reverse().join('.')}`;
  };
}
