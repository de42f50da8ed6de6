import { legacyVersionsFor } from '../convert/zen-to-legacy.js';
import { IoStoreError } from '../errors.js';
import { parseLegacyPackage, type LegacyPackage, type ParseLegacyOptions } from '../legacy/package.js';
import { legacyObjectPath, legacyPackageName, legacyExportClassPath, legacyNameText } from '../legacy/paths.js';
import type { EngineVersion } from '../toc/engine.js';
import type { Usmap } from '../usmap/usmap.js';
import { objectIndexKind } from '../zen/object-index.js';
import { objectIndexValue, packageImportParts } from '../zen/object-index.js';
import { scriptImportIndex } from '../zen/script-objects.js';
import { exportChunkOffsets, exportName, importedPackageNameStrings, parseZenPackage, type ZenPackage } from '../zen/zen-package.js';
import type { PropsPackage } from './context.js';
import { isClassDefaultFlags, readExportProps, type ExportInfo, type ExportPropsJson } from './export-props.js';
import { Rd } from './io.js';
import { Session } from './prims.js';
import { readSoftPath } from './prims.js';
import { ObjectRefs, objectNameOf } from './refs.js';
import { definesStruct, readStructDef } from './struct-defs.js';

/** The JSON form of a package's properties (docs/props-json.md). */
export interface PackagePropsJson {
  format: 'iostore-props';
  version: 1;
  package: string;
  /** `legacy` (.uasset/.uexp) or `zen` (IoStore): the tables FName and object indices refer to. */
  form: 'legacy' | 'zen';
  serialization: 'tagged' | 'unversioned';
  exports: ExportPropsJson[];
}

export interface PackagePropsResult {
  json: PackagePropsJson;
  /** One line per export that could not be read (it is kept as bytes). */
  warnings: string[];
  /** Bytes of export data read. */
  bytes: number;
}

export interface ReadPropsOptions {
  /** Type mappings: needed for unversioned packages. */
  mappings?: Usmap;
  /** Engine release of unversioned packages (legacy summaries and zen object versions). */
  engine?: EngineVersion;
  /** Zen: script object paths by global import index (from the global container). */
  scriptObjects?: ReadonlyMap<bigint, string>;
  /**
   * Zen: the object path of another package's public export, by that package's name and the export's hash (see
   * zenPublicExports); without it such imports show as `<package>:0x<hash>`.
   */
  publicExportPath?: (packageName: string, exportHash: bigint) => string | undefined;
  /** Name used in messages. */
  source?: string;
  /** UE4 legacy packages store no name: the caller's (e.g. from the file path). */
  packageName?: string;
}

const PACKAGE_FLAG_UNVERSIONED = 0x2000;
const PACKAGE_FLAG_COOKED = 0x80000000;

/** The props view of a legacy package: its name map, object paths, versions and soft object path table. */
export function legacyPropsPackage(pkg: LegacyPackage, uasset: Uint8Array, o: ReadPropsOptions = {}): PropsPackage {
  const s = pkg.summary;
  const entries: [number, string | undefined][] = [];
  const path = (i: number) => {
    try {
      return legacyObjectPath(pkg, i);
    } catch {
      return undefined;
    }
  };
  for (let i = 0; i < pkg.exports.length; i++) entries.push([i + 1, path(i + 1)]);
  for (let i = 0; i < pkg.imports.length; i++) entries.push([-i - 1, path(-i - 1)]);
  const refs = new ObjectRefs(entries);
  const P: PropsPackage = {
    source: o.source ?? pkg.source,
    names: pkg.names.map((n) => n.name),
    objectPath: (i) => refs.path(i),
    objectIndex: (p) => refs.index(p),
    fileVersionUE4: s.fileVersionUE4,
    fileVersionUE5: s.fileVersionUE5,
    customVersions: new Map(s.customVersions.map((c) => [c.key.toLowerCase(), c.version])),
    unversioned: (s.packageFlags & PACKAGE_FLAG_UNVERSIONED) !== 0,
    cooked: (s.packageFlags >>> 0 & PACKAGE_FLAG_COOKED) !== 0,
  };
  if (o.mappings) P.mappings = o.mappings;
  if (s.softObjectPathsCount > 0 && s.softObjectPathsOffset > 0 && s.softObjectPathsOffset < uasset.length) {
    const S = new Session(P);
    const rd = new Rd(uasset, s.softObjectPathsOffset, s.totalHeaderSize > 0 ? Math.min(uasset.length, s.totalHeaderSize) : uasset.length);
    const paths: string[] = [];
    try {
      for (let i = 0; i < s.softObjectPathsCount; i++) paths.push(String(readSoftPath(rd, S)));
      P.softObjectPaths = paths;
    } catch {
      // Without the table, soft references read as indices fail and those exports stay raw.
    }
  }
  return P;
}

/** Each export's data in a legacy package (from the .uexp, or from the .uasset of packages without one). */
export function legacyExportBytes(pkg: LegacyPackage, uasset: Uint8Array, uexp: Uint8Array | undefined): Uint8Array[] {
  const header = pkg.summary.totalHeaderSize;
  return pkg.exports.map((e, i) => {
    const inUexp = uexp !== undefined && e.serialOffset >= header;
    const src = inUexp ? uexp! : uasset;
    const at = inUexp ? e.serialOffset - header : e.serialOffset;
    if (at < 0 || e.serialSize < 0 || at + e.serialSize > src.length) {
      throw new IoStoreError('BAD_VALUE', `export ${i} (offset ${e.serialOffset}, ${e.serialSize} bytes) lies outside the package's data`, { file: pkg.source });
    }
    return src.subarray(at, at + e.serialSize);
  });
}

function legacyExportName(pkg: LegacyPackage, i: number): string {
  try {
    return legacyNameText(pkg, pkg.exports[i]!.objectName);
  } catch {
    return `export ${i}`;
  }
}

/** What the export reader needs of each export of a legacy package. */
export function legacyExportInfos(pkg: LegacyPackage): ExportInfo[] {
  return pkg.exports.map((e, i) => {
    let classPath = '';
    try {
      classPath = legacyExportClassPath(pkg, i);
    } catch {
      classPath = '';
    }
    return { index: i, name: legacyExportName(pkg, i), classPath, isClassDefault: isClassDefaultFlags(e.objectFlags) };
  });
}

/**
 * Reads exports on demand, each once: an export that defines a struct (a Blueprint class) may be read first, for
 * its layout, while another export's data needs it.
 */
function exportReader(S: Session, datas: readonly Uint8Array[], infos: readonly ExportInfo[]): (i: number) => ExportPropsJson {
  const done: ExportPropsJson[] = [];
  return (i) => {
    let json = done[i];
    if (json === undefined) {
      const current = S.current;
      json = done[i] = readExportProps(datas[i]!, S, infos[i]!);
      S.current = current;
    }
    return json;
  };
}

/**
 * Lets the session use the layout of each struct and class the package defines (unversioned data needs it for
 * the defaults and instances of Blueprint classes the mappings do not list). `read` gives an export's JSON.
 */
export function defineLocalStructs(S: Session, datas: readonly Uint8Array[], infos: readonly ExportInfo[], read: (i: number) => ExportPropsJson = exportReader(S, datas, infos)): void {
  if (!S.P.unversioned) return;
  infos.forEach((info, i) => {
    if (!definesStruct(objectNameOf(info.classPath))) return;
    S.defineStruct(info.name, () => {
      const json = read(i);
      // The struct's own data follows the export's properties (and object GUID): where the tail starts.
      if (json.serialization === 'raw' || json.tail === undefined) return undefined;
      return readStructDef(new Rd(datas[i]!, json.tail.offset), S, info.name);
    });
  });
}

/** Reads the exports of a package in order (with the structs it defines at hand). */
function readExports(S: Session, datas: readonly Uint8Array[], infos: readonly ExportInfo[]): { exports: ExportPropsJson[]; warnings: string[]; bytes: number } {
  const read = exportReader(S, datas, infos);
  defineLocalStructs(S, datas, infos, read);
  const exports: ExportPropsJson[] = [];
  const warnings: string[] = [];
  let bytes = 0;
  for (let i = 0; i < datas.length; i++) {
    const json = read(i);
    if (json.error) warnings.push(json.error);
    exports.push(json);
    bytes += datas[i]!.length;
  }
  warnings.push(...S.notes);
  return { exports, warnings, bytes };
}

/** Reads every export of a legacy package to the JSON form. */
export function readLegacyProps(uasset: Uint8Array, uexp: Uint8Array | undefined, o: ReadPropsOptions = {}, parsed?: LegacyPackage): PackagePropsResult {
  const opts: ParseLegacyOptions = { source: o.source ?? 'package' };
  if (o.engine) opts.engine = o.engine;
  if (o.packageName) opts.packageName = o.packageName;
  const pkg = parsed ?? parseLegacyPackage(uasset, opts);
  const P = legacyPropsPackage(pkg, uasset, o);
  const S = new Session(P);
  const { exports, warnings, bytes } = readExports(S, legacyExportBytes(pkg, uasset, uexp), legacyExportInfos(pkg));
  const json: PackagePropsJson = {
    format: 'iostore-props',
    version: 1,
    package: legacyPackageName(pkg, o.packageName),
    form: 'legacy',
    serialization: P.unversioned ? 'unversioned' : 'tagged',
    exports,
  };
  return { json, warnings, bytes };
}

/**
 * A global script object path (`/Script/Engine/DataTable`, its names joined by '/') as the object path legacy
 * imports give (`/Script/Engine.DataTable`), so that JSON reads the same from both forms of a package.
 */
export function scriptObjectPath(p: string): string {
  const m = /^(\/Script\/[^/]+)\/(.+)$/.exec(p);
  if (!m) return p;
  const [first, ...rest] = m[2]!.split('/');
  return `${m[1]}.${first}${rest.map((x, i) => (i === 0 ? ':' : '.') + x).join('')}`;
}

/** The object path of each export of a zen package, by export index. */
function zenExportPaths(z: ZenPackage): (string | undefined)[] {
  const memo: (string | undefined | null)[] = z.exports.map(() => null);
  const path = (i: number, depth: number): string | undefined => {
    const known = memo[i];
    if (known !== null) return known;
    const e = z.exports[i];
    let out: string | undefined;
    const name = e && depth <= z.exports.length ? exportName(z, e) : undefined;
    if (e && name !== undefined) {
      const kind = objectIndexKind(e.outerIndex);
      if (kind === 'Null') out = `${z.packageName}.${name}`;
      else if (kind === 'Export') {
        const parent = path(Number(objectIndexValue(e.outerIndex)), depth + 1);
        // A subobject of a top-level object follows a ':', deeper ones a '.'.
        if (parent !== undefined) out = `${parent}${parent.includes(':') ? '.' : ':'}${name}`;
      }
    }
    memo[i] = out;
    return out;
  };
  return z.exports.map((_, i) => path(i, 0));
}

/** The public exports of a zen package: export hash -> object path (what other packages import it by). */
export function zenPublicExports(z: ZenPackage): Map<bigint, string> {
  const paths = zenExportPaths(z);
  const out = new Map<bigint, string>();
  z.exports.forEach((e, i) => {
    if (e.publicExportHash !== 0n && paths[i] !== undefined) out.set(e.publicExportHash, paths[i]!);
  });
  return out;
}

/**
 * Script classes known without the global container (zen script imports are hashes of their paths): the classes
 * whose data after the properties this reader knows, so that a lone zen package (unpacked, or made by to-zen) shows
 * it.
 */
const KNOWN_SCRIPT_PATHS = new Map(
  ['DataTable', 'CompositeDataTable', 'CurveTable', 'CompositeCurveTable', 'StringTable', 'UserDefinedEnum', 'UserDefinedStruct', 'CurveFloat', 'CurveVector', 'CurveLinearColor']
    .map((c) => `/Script/Engine.${c}`)
    .map((p) => [scriptImportIndex(p), p] as const),
);

function scriptPath(o: ReadPropsOptions, v: bigint): string | undefined {
  const all = o.scriptObjects;
  if (all === undefined) return KNOWN_SCRIPT_PATHS.get(v);
  // The same script classes are imported by package after package: each path is made once per global container.
  let made = scriptPaths.get(all);
  if (made === undefined) scriptPaths.set(all, (made = new Map()));
  let path = made.get(v);
  if (path === undefined) {
    const p = all.get(v);
    path = p === undefined ? (KNOWN_SCRIPT_PATHS.get(v) ?? '') : scriptObjectPath(p);
    made.set(v, path);
  }
  return path === '' ? undefined : path;
}
const scriptPaths = new WeakMap<ReadonlyMap<bigint, string>, Map<bigint, string>>();

/** The props view of a zen package. */
export function zenPropsPackage(z: ZenPackage, o: ReadPropsOptions = {}): PropsPackage {
  const source = o.source ?? z.packageName;
  let versions;
  try {
    versions = legacyVersionsFor(z, o.engine, source).versions;
  } catch {
    // 5.6 to 6.0 differ in their legacy headers, not in property data: any of them reads the exports.
    versions = { fileVersionUE4: 522, fileVersionUE5: 1016 };
  }
  const entries: [number, string | undefined][] = [];
  zenExportPaths(z).forEach((p, i) => entries.push([i + 1, p]));
  const importedNames = importedPackageNameStrings(z);
  z.imports.forEach((v, i) => {
    const kind = objectIndexKind(v);
    if (kind === 'ScriptImport') {
      entries.push([-i - 1, scriptPath(o, v)]);
    } else if (kind === 'PackageImport' && z.layout.format === 'UE5') {
      const { importedPackageIndex, publicExportHashIndex } = packageImportParts(v);
      const pkg = importedNames[importedPackageIndex];
      const hash = z.importedPublicExportHashes[publicExportHashIndex];
      if (pkg === undefined || hash === undefined) entries.push([-i - 1, undefined]);
      else entries.push([-i - 1, o.publicExportPath?.(pkg, hash) ?? `${pkg}:0x${hash.toString(16).padStart(16, '0')}`]);
    } else entries.push([-i - 1, undefined]);
  });
  const refs = new ObjectRefs(entries);
  const v = z.versioningInfo;
  const P: PropsPackage = {
    source,
    names: [...z.names],
    objectPath: (i) => refs.path(i),
    objectIndex: (p) => refs.index(p),
    fileVersionUE4: versions.fileVersionUE4,
    fileVersionUE5: versions.fileVersionUE5,
    customVersions: new Map((v?.customVersions ?? []).map((c) => [Array.from(c.key, (b) => b.toString(16).padStart(2, '0')).join(''), c.version])),
    unversioned: (z.packageFlags & PACKAGE_FLAG_UNVERSIONED) !== 0,
    cooked: true,
  };
  if (o.mappings) P.mappings = o.mappings;
  return P;
}

/** The class path of a zen export (script classes by the global container's paths; others as a stand-in). */
function zenClassPath(z: ZenPackage, P: PropsPackage, o: ReadPropsOptions, i: number): string {
  const c = z.exports[i]!.classIndex;
  switch (objectIndexKind(c)) {
    case 'ScriptImport':
      return scriptPath(o, c) ?? `script:0x${c.toString(16)}`;
    case 'Export':
      return P.objectPath(Number(c) + 1);
    default: {
      const k = z.imports.indexOf(c);
      return k >= 0 ? P.objectPath(-k - 1) : `0x${c.toString(16)}`;
    }
  }
}

/** Each export's data in a zen package chunk. */
export function zenExportBytes(z: ZenPackage, bytes: Uint8Array): Uint8Array[] {
  const offsets = exportChunkOffsets(z);
  return z.exports.map((e, i) => {
    const at = offsets[i]!;
    if (at < 0) return new Uint8Array(0);
    if (at + e.cookedSerialSize > bytes.length) {
      throw new IoStoreError('BAD_VALUE', `export ${i} (${e.cookedSerialSize} bytes at ${at}) runs past the ${bytes.length}-byte package`, { file: z.packageName });
    }
    return bytes.subarray(at, at + e.cookedSerialSize);
  });
}

/** What the export reader needs of each export of a zen package. */
export function zenExportInfos(z: ZenPackage, P: PropsPackage, o: ReadPropsOptions = {}): ExportInfo[] {
  return z.exports.map((e, i) => ({ index: i, name: exportName(z, e) ?? `export ${i}`, classPath: zenClassPath(z, P, o, i), isClassDefault: isClassDefaultFlags(e.objectFlags) }));
}

/** Reads every export of a zen package (a package chunk: header and export data) to the JSON form. */
export function readZenProps(bytes: Uint8Array, o: ReadPropsOptions = {}, parsed?: ZenPackage): PackagePropsResult {
  const z = parsed ?? parseZenPackage(bytes, { source: o.source ?? 'package', ...(o.engine ? { engine: o.engine } : {}) });
  const P = zenPropsPackage(z, o);
  const S = new Session(P);
  const { exports, warnings, bytes: total } = readExports(S, zenExportBytes(z, bytes), zenExportInfos(z, P, o));
  const json: PackagePropsJson = {
    format: 'iostore-props',
    version: 1,
    package: z.packageName,
    form: 'zen',
    serialization: P.unversioned ? 'unversioned' : 'tagged',
    exports,
  };
  return { json, warnings, bytes: total };
}
