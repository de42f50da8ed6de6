import type { ByteReader } from '../util/bytes.js';
import type { LegacyExport, LegacyImport, LegacyName } from './package.js';
import type { LegacyPackageSummary } from './summary.js';
import { PackageFlags, UE4_OBJECT_VERSION as V4, UE5_LEGACY_VERSION as V5 } from './versions.js';

/** The entry sizes and optional fields of the tables. */
export interface LegacyTableLayout {
  /** 28 (UE4), 32 (UE5 1003+), 8 more with a package name. */
  importEntrySize: number;
  importHasPackageName: boolean;
  /** 68 (UE 4.0-4.2) to 104 (4.14-4.27), 108 (5.0), 96 (5.1+), 16 more with script-serialization offsets. */
  exportEntrySize: number;
  exportHasScriptOffsets: boolean;
  /** True when two 16-bit hashes follow each name (UE4 504+). */
  nameHashes: boolean;
}

/** Which optional fields an export entry has, by object version (script-serialization offsets aside). */
export interface ExportEntryShape {
  templateIndex: boolean;
  /** 64-bit serial size and offset (else 32-bit). */
  wideSerial: boolean;
  packageGuid: boolean;
  inheritedInstance: boolean;
  notAlwaysLoadedForEditorGame: boolean;
  isAsset: boolean;
  generatePublicHash: boolean;
  preloadDependencies: boolean;
}

export function exportEntryShape(ue4: number, ue5: number): ExportEntryShape {
  return {
    templateIndex: ue4 >= V4.TemplateIndexInCookedExports,
    wideSerial: ue4 >= V4.ExportMap64BitSizes,
    packageGuid: ue5 < V5.RemoveObjectExportPackageGuid,
    inheritedInstance: ue5 >= V5.TrackObjectExportIsInherited,
    notAlwaysLoadedForEditorGame: ue4 >= V4.LoadForEditorGame,
    isAsset: ue4 >= V4.PackageHasAssetFlag,
    generatePublicHash: ue5 >= V5.OptionalResources,
    preloadDependencies: ue4 >= V4.PreloadDependenciesInCookedExports,
  };
}

export function baseImportSize(ue5: number): number {
  return 28 + (ue5 >= V5.OptionalResources ? 4 : 0);
}

export function baseExportSize(ue4: number, ue5: number): number {
  const f = exportEntryShape(ue4, ue5);
  // class, super, outer, name, flags, serial size and offset, forced export, not for client/server, package flags
  let n = 4 + 4 + 4 + 8 + 4 + (f.wideSerial ? 16 : 8) + 12 + 4;
  if (f.templateIndex) n += 4;
  if (f.packageGuid) n += 16;
  if (f.inheritedInstance) n += 4;
  if (f.notAlwaysLoadedForEditorGame) n += 4;
  if (f.isAsset) n += 4;
  if (f.generatePublicHash) n += 4;
  if (f.preloadDependencies) n += 20;
  return n;
}

/** Whether imports carry a package name by the versions alone: uncooked 520+, cooked 1018+ (5.8 on; 5.7 not). */
export function importsHavePackageName(ue4: number, ue5: number, packageFlags: number, cookedWithNames = true): boolean {
  const cooked = (packageFlags & PackageFlags.FilterEditorOnly) !== 0;
  return cooked ? ue5 >= V5.ImportTypeHierarchies && cookedWithNames : ue4 >= V4.NonOuterPackageImport;
}

/** Whether exports carry script-serialization offsets by the versions alone (1010+ packages with tagged properties). */
export function exportsHaveScriptOffsets(fileVersionUE5: number, packageFlags: number): boolean {
  return fileVersionUE5 >= V5.ScriptSerializationOffset && (packageFlags & PackageFlags.UnversionedProperties) === 0;
}

/**
 * The table layout for a summary. The versions say which fields exist; two optional fields depend on more than
 * that (import package names on the release, script-serialization offsets on the flags), and where the space
 * between adjacent tables says otherwise, it decides. `cookedImportNames`: what the release says, when known (the
 * default where the space cannot tell).
 */
export function tableLayout(s: LegacyPackageSummary, cookedImportNames?: boolean): LegacyTableLayout {
  const importBase = baseImportSize(s.fileVersionUE5);
  let importHasPackageName = importsHavePackageName(s.fileVersionUE4, s.fileVersionUE5, s.packageFlags, cookedImportNames ?? true);
  if (s.importCount > 0 && s.exportOffset > s.importOffset) {
    const gap = (s.exportOffset - s.importOffset) / s.importCount;
    if (gap === importBase) importHasPackageName = false;
    else if (gap === importBase + 8) importHasPackageName = true;
  }
  const exportBase = baseExportSize(s.fileVersionUE4, s.fileVersionUE5);
  let exportHasScriptOffsets = exportsHaveScriptOffsets(s.fileVersionUE5, s.packageFlags);
  const afterExports = s.cellExportCount > 0 ? s.cellExportOffset : s.dependsOffset;
  if (s.fileVersionUE5 >= V5.ScriptSerializationOffset && s.exportCount > 0 && afterExports > s.exportOffset) {
    const gap = (afterExports - s.exportOffset) / s.exportCount;
    if (gap === exportBase) exportHasScriptOffsets = false;
    else if (gap === exportBase + 16) exportHasScriptOffsets = true;
  }
  return {
    importEntrySize: importBase + (importHasPackageName ? 8 : 0),
    importHasPackageName,
    exportEntrySize: exportBase + (exportHasScriptOffsets ? 16 : 0),
    exportHasScriptOffsets,
    nameHashes: s.fileVersionUE4 >= V4.NameHashesSerialized,
  };
}

export function readName(r: ByteReader, what: string): LegacyName {
  return { index: r.i32(what), number: r.i32(what) };
}

const bool32 = (r: ByteReader, what: string) => r.i32(what) !== 0;

function safeI64(r: ByteReader, what: string): number {
  const at = r.pos;
  const v = r.i64(what);
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) r.fail('BAD_VALUE', `${what} ${v} is out of range`, at);
  return Number(v);
}

export function readImport(r: ByteReader, ue5: number, layout: LegacyTableLayout): LegacyImport {
  const imp: LegacyImport = {
    classPackage: readName(r, 'import class package'),
    className: readName(r, 'import class name'),
    outerIndex: r.i32('import outer index'),
    objectName: readName(r, 'import object name'),
    importOptional: false,
  };
  if (layout.importHasPackageName) imp.packageName = readName(r, 'import package name');
  if (ue5 >= V5.OptionalResources) imp.importOptional = bool32(r, 'import optional');
  return imp;
}

export function readExport(r: ByteReader, f: ExportEntryShape, layout: LegacyTableLayout): LegacyExport {
  const classIndex = r.i32('export class index');
  const superIndex = r.i32('export super index');
  const templateIndex = f.templateIndex ? r.i32('export template index') : 0;
  const outerIndex = r.i32('export outer index');
  const objectName = readName(r, 'export object name');
  const objectFlags = r.u32('export object flags');
  const serialSize = f.wideSerial ? safeI64(r, 'export serial size') : r.i32('export serial size');
  const serialOffset = f.wideSerial ? safeI64(r, 'export serial offset') : r.i32('export serial offset');
  const e: LegacyExport = {
    classIndex, superIndex, templateIndex, outerIndex, objectName, objectFlags, serialSize, serialOffset,
    forcedExport: bool32(r, 'forced export'),
    notForClient: bool32(r, 'not for client'),
    notForServer: bool32(r, 'not for server'),
    isInheritedInstance: false,
    packageFlags: 0,
    notAlwaysLoadedForEditorGame: false,
    isAsset: false,
    generatePublicHash: false,
    firstExportDependency: -1,
    serializationBeforeSerializationDependencies: 0,
    createBeforeSerializationDependencies: 0,
    serializationBeforeCreateDependencies: 0,
    createBeforeCreateDependencies: 0,
  };
  if (f.packageGuid) e.packageGuid = Array.from(r.bytesView(16, 'export package guid'), (b) => b.toString(16).padStart(2, '0')).join('');
  if (f.inheritedInstance) e.isInheritedInstance = bool32(r, 'inherited instance');
  e.packageFlags = r.u32('export package flags');
  if (f.notAlwaysLoadedForEditorGame) e.notAlwaysLoadedForEditorGame = bool32(r, 'not always loaded for editor game');
  if (f.isAsset) e.isAsset = bool32(r, 'is asset');
  if (f.generatePublicHash) e.generatePublicHash = bool32(r, 'generate public hash');
  if (f.preloadDependencies) {
    e.firstExportDependency = r.i32('first export dependency');
    e.serializationBeforeSerializationDependencies = r.i32('dependency count');
    e.createBeforeSerializationDependencies = r.i32('dependency count');
    e.serializationBeforeCreateDependencies = r.i32('dependency count');
    e.createBeforeCreateDependencies = r.i32('dependency count');
  }
  if (layout.exportHasScriptOffsets) {
    e.scriptSerializationStartOffset = safeI64(r, 'script serialization start');
    e.scriptSerializationEndOffset = safeI64(r, 'script serialization end');
  }
  return e;
}
