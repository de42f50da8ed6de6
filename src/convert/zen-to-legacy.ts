import { IoStoreError } from '../errors.js';
import type { LegacyDataResource } from '../legacy/data-resources.js';
import type { LegacyExport, LegacyImport, LegacyName } from '../legacy/package.js';
import { cookedImportsHavePackageName, objectVersionsOfEngine, PackageFlags, UE5_LEGACY_VERSION, type LegacyObjectVersions } from '../legacy/versions.js';
import { taggedPropertiesEnd } from '../legacy/tagged-properties.js';
import { buildUexp, exportsHaveScriptOffsets, writeLegacyPackage, type LegacyPackageSpec } from '../legacy/write.js';
import type { EngineVersion } from '../toc/engine.js';
import { bytesEqual, toHex } from '../util/bytes.js';
import type { CustomVersion } from '../zen/package-summary.js';
import type { LegacyCustomVersion } from '../legacy/summary.js';
import { NULL_OBJECT_INDEX, objectIndexKind } from '../zen/object-index.js';
import { exportChunkOffsets, parseZenPackage, type ZenPackage } from '../zen/zen-package.js';
import { nameText, objectRefPath, refKey, splitName, type NamePart, type ObjectRef, ZenResolver } from './naming.js';

export interface ZenToLegacyOptions {
  source?: string;
  /** Engine release, for unversioned packages (settles the legacy layout). */
  engine?: EngineVersion;
  /** Names imports: script objects and the packages at hand. */
  resolver?: ZenResolver;
  /** An already parsed header of `bytes` (saves parsing it twice). */
  parsed?: ZenPackage;
}

export interface ZenToLegacyResult {
  packageName: string;
  uasset: Uint8Array;
  uexp: Uint8Array;
  /** Imports whose names or classes could not be settled (one warning line per package is built from these). */
  unnamed: string[];
  /** Object versions the legacy package was laid out with. */
  versions: LegacyObjectVersions;
}

const CORE = '/Script/CoreUObject';
const RF_PUBLIC = 0x1;
const RF_CLASS_DEFAULT_OBJECT = 0x10;
const RF_DEFAULT_SUB_OBJECT = 0x40000;
/** EBulkDataFlags: the payload is stored inside the export data. */
const BULKDATA_FORCE_INLINE_PAYLOAD = 0x40;

/** The object versions a zen package is converted with: its own, the caller's engine, or what its layout implies. */
export function legacyVersionsFor(z: ZenPackage, engine: EngineVersion | undefined, source: string): { versions: LegacyObjectVersions; unversioned: boolean } {
  const v = z.versioningInfo;
  if (v) return { versions: { fileVersionUE4: v.fileVersionUE4, fileVersionUE5: v.fileVersionUE5 }, unversioned: false };
  if (engine) return { versions: objectVersionsOfEngine(engine), unversioned: true };
  const l = z.layout;
  if (l.format === 'UE4') return { versions: objectVersionsOfEngine('UE4_27'), unversioned: true };
  if (l.cellMaps) {
    throw new IoStoreError('UNSUPPORTED', 'the package is unversioned and its layout fits UE 5.6 to 6.0, whose legacy layouts differ: give the engine version (--version)', { file: source, offset: 0 });
  }
  if (l.summarySize === 44) return { versions: objectVersionsOfEngine(l.bulkDataMap === 'none' ? 'UE5_1' : 'UE5_2'), unversioned: true };
  return { versions: objectVersionsOfEngine(l.bulkDataMap === 'padded' ? 'UE5_5' : 'UE5_3'), unversioned: true };
}

/** A name map that keeps the zen names at their indices and appends the others, sorted as the engine sorts them. */
class NameTable {
  readonly names: string[];
  private readonly exact = new Map<string, number>();
  private readonly added = new Set<string>();

  constructor(zenNames: readonly string[]) {
    this.names = [...zenNames];
    this.names.forEach((n, i) => {
      if (!this.exact.has(n)) this.exact.set(n, i);
    });
  }

  want(base: string): void {
    if (!this.exact.has(base)) this.added.add(base);
  }

  /** Appends the wanted names (case-insensitive order); call once, before `ref`. */
  seal(): void {
    const extra = [...this.added]
      .map((n) => ({ n, lower: n.toLowerCase() }))
      .sort((a, b) => (a.lower < b.lower ? -1 : a.lower > b.lower ? 1 : a.n < b.n ? -1 : a.n > b.n ? 1 : 0))
      .map((x) => x.n);
    for (const n of extra) {
      this.exact.set(n, this.names.length);
      this.names.push(n);
    }
  }

  ref(n: NamePart): LegacyName {
    const index = this.exact.get(n.base);
    if (index === undefined) throw new IoStoreError('USAGE', `name "${n.base}" was not added to the name map`);
    return { index, number: n.number };
  }
}

interface ImportPlan {
  ref?: ObjectRef;
  cls?: ObjectRef;
  /** Filled for zen Null slots: a package import whose package is settled later. */
  nullSlot?: boolean;
}

const pkgRef = (name: string): ObjectRef => ({ packageName: name, chain: [] });
const coreClass = (name: string): ObjectRef => ({ packageName: CORE, chain: [{ base: name, number: 0 }] });

/** The class of a script object, from the global table and the shapes of script object paths. */
function scriptClass(resolver: ZenResolver, index: bigint, ref: ObjectRef, use: ImportUse): ObjectRef | undefined {
  const script = resolver.script!;
  if (ref.chain.length === 0) return coreClass('Package');
  const last = nameText(ref.chain[ref.chain.length - 1]!);
  const cdoClass = script.cdoClass(index);
  if (cdoClass !== undefined && last.startsWith('Default__')) return script.ref(cdoClass);
  if (use.asClass || script.isClass(index)) return coreClass('Class');
  if (use.asSuper) return use.asSuper;
  const outer = script.outer(index);
  if (last.endsWith('__DelegateSignature')) return coreClass('Function');
  if (outer !== undefined && ref.chain.length >= 2 && script.isClass(outer)) return coreClass('Function');
  if (ref.chain.length === 1) return coreClass(/^E[A-Z]/.test(last) ? 'Enum' : 'ScriptStruct');
  return undefined;
}

/** How this package's exports use an import: as a class, as a super (with the class that implies), as a template. */
interface ImportUse {
  asClass?: boolean;
  asSuper?: ObjectRef;
  /** The class of an export made from this template. */
  templateOf?: bigint;
}

/**
 * Converts one zen package (its whole ExportBundleData chunk) to the legacy `.uasset` + `.uexp` pair. The export data
 * is copied unchanged; the name map keeps the zen names at their indices; imports are named through `resolver`.
 */
export function zenToLegacy(bytes: Uint8Array, options: ZenToLegacyOptions = {}): ZenToLegacyResult {
  const source = options.source ?? 'zen package';
  const z = options.parsed ?? parseZenPackage(bytes, { source, ...(options.engine ? { engine: options.engine } : {}) });
  const resolver = options.resolver ?? new ZenResolver(undefined, undefined);
  const { versions, unversioned } = legacyVersionsFor(z, options.engine, source);
  const ue5 = versions.fileVersionUE5;
  if (z.cellExports.length > 0 || z.cellImports.length > 0) {
    throw new IoStoreError('UNSUPPORTED', `the package has Verse cells (${z.cellExports.length} exports, ${z.cellImports.length} imports), which to-legacy does not convert`, { file: source, offset: 0 });
  }
  checkZenReferences(z, source);
  const c: Conversion = { z, resolver, source, unnamed: [] };

  const plans = nameImports(c, importUses(c));
  const { byKey, pending } = namePackageImports(c, plans);
  const all = addOuterImports(c, plans, byKey, pending);
  const { names, imports } = buildNameMapAndImports(z, all);
  const { exports, data } = convertExports(c, bytes, ue5);
  if (exportsHaveScriptOffsets(ue5, z.packageFlags)) addScriptSpans(exports, data, z, ue5);
  const preloadDependencies = preloadDependenciesOf(c, exports, imports);
  const dataResources = dataResourcesOf(c, exports, ue5);

  const spec: LegacyPackageSpec = {
    fileVersionUE4: versions.fileVersionUE4,
    fileVersionUE5: ue5,
    fileVersionLicenseeUE4: z.versioningInfo?.licenseeVersion ?? 0,
    unversioned,
    customVersions: legacyCustomVersions(z.versioningInfo?.customVersions ?? []),
    packageName: z.packageName,
    packageFlags: z.packageFlags,
    names: names.names,
    namesReferencedFromExportDataCount: z.names.length,
    imports,
    exports,
    preloadDependencies,
    dataResources,
  };
  // UE 5.7 and 5.8 write the same object version; only 5.8+ cooked imports name their package.
  const importPackageNames = cookedImportsHavePackageName(options.engine);
  if (importPackageNames !== undefined && (z.packageFlags & PackageFlags.FilterEditorOnly) !== 0) spec.importPackageNames = importPackageNames;
  const { uasset } = writeLegacyPackage(spec);
  return { packageName: z.packageName, uasset, uexp: buildUexp(data), unnamed: c.unnamed, versions };
}

/** One package's conversion: what every step reads, and the warnings they collect (in step order). */
interface Conversion {
  z: ZenPackage;
  resolver: ZenResolver;
  source: string;
  unnamed: string[];
}

/** How the exports use each import settles some classes: a class, a super (a struct's super is a struct), a template. */
function importUses({ z, resolver }: Conversion): Map<bigint, ImportUse> {
  const uses = new Map<bigint, ImportUse>();
  const use = (v: bigint): ImportUse => {
    let u = uses.get(v);
    if (!u) uses.set(v, (u = {}));
    return u;
  };
  for (const e of z.exports) {
    use(e.classIndex).asClass = true;
    if (e.templateIndex !== NULL_OBJECT_INDEX) use(e.templateIndex).templateOf ??= e.classIndex;
  }
  for (const e of z.exports) {
    if (e.superIndex === NULL_OBJECT_INDEX) continue;
    const cls = resolver.resolve(z, e.classIndex).ref;
    const last = cls?.chain[cls.chain.length - 1];
    const kind = !last ? 'Class' : /Function$/.test(last.base) ? 'Function' : /Struct$/.test(last.base) ? 'ScriptStruct' : 'Class';
    use(e.superIndex).asSuper ??= coreClass(kind);
  }
  return uses;
}

/** Step 1: names every zen import (same slots, same order as the legacy import map the engine cooked) and its class. */
function nameImports({ z, resolver, unnamed }: Conversion, uses: Map<bigint, ImportUse>): ImportPlan[] {
  return z.imports.map((v, i) => {
    if (objectIndexKind(v) === 'Null') return { nullSlot: true };
    const r = resolver.resolve(z, v);
    if (!r.ref) {
      unnamed.push(`import ${i}: ${r.missing ?? 'unknown'}`);
      return {};
    }
    let cls: ObjectRef | undefined;
    const u = uses.get(v) ?? {};
    if (objectIndexKind(v) === 'ScriptImport') cls = scriptClass(resolver, v, r.ref, u);
    else if (r.owner && r.exportIndex !== undefined) {
      const c = r.owner.exports[r.exportIndex]!.classIndex;
      cls = resolver.resolve(r.owner, c).ref;
    }
    if (!cls && u.templateOf !== undefined) cls = resolver.resolve(z, u.templateOf).ref;
    if (!cls && u.asClass) cls = coreClass('Class');
    if (!cls) {
      // A class default object's class is the object of the same name without the prefix, beside it.
      const last = r.ref.chain[r.ref.chain.length - 1]!;
      if (r.ref.chain.length === 1 && last.base.startsWith('Default__')) cls = { packageName: r.ref.packageName, chain: [{ base: last.base.slice(9), number: last.number }] };
    }
    if (!cls) {
      unnamed.push(`import ${i} (${objectRefPath(r.ref)}): class`);
      cls = coreClass('Object');
    }
    return { ref: r.ref, cls };
  });
}

/**
 * Step 2: package imports. The zen map keeps them as Null slots; the packages needed are the roots of the others,
 * given to the slots in case-insensitive order. Returns each named import's slot by its key, and the packages left over.
 */
function namePackageImports({ z, resolver, unnamed }: Conversion, plans: ImportPlan[]): { byKey: Map<string, number>; pending: string[] } {
  const byKey = new Map<string, number>();
  plans.forEach((p, i) => {
    if (p.ref && !byKey.has(refKey(p.ref))) byKey.set(refKey(p.ref), i);
  });
  const needed = new Set<string>();
  for (const p of plans) {
    if (!p.ref) continue;
    if (p.ref.chain.length > 0 && !byKey.has(refKey(pkgRef(p.ref.packageName)))) needed.add(p.ref.packageName);
  }
  for (const name of resolverImportedPackages(resolver, z)) if (!byKey.has(refKey(pkgRef(name)))) needed.add(name);
  const pending = [...needed].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0));
  plans.forEach((p, i) => {
    if (!p.nullSlot) return;
    const name = pending.shift();
    if (name === undefined) {
      unnamed.push(`import ${i}: a package import with no package left to name it`);
      return;
    }
    p.ref = pkgRef(name);
    p.cls = coreClass('Package');
    byKey.set(refKey(p.ref), i);
  });
  return { byKey, pending };
}

/**
 * Step 3: outers. Each import's parent must be an import too; missing ones are appended (zen indices stay put).
 * Returns every import with its outer index (a package index: minus the slot, minus one).
 */
function addOuterImports({ unnamed }: Conversion, plans: ImportPlan[], byKey: Map<string, number>, pending: readonly string[]): OuterPlan[] {
  const all: OuterPlan[] = plans.map((p) => ({ ...p, outer: 0 }));
  const outerOf = (ref: ObjectRef): number => {
    if (ref.chain.length === 0) return 0;
    const parent: ObjectRef = { packageName: ref.packageName, chain: ref.chain.slice(0, -1) };
    const k = refKey(parent);
    let at = byKey.get(k);
    if (at === undefined) {
      at = all.length;
      byKey.set(k, at);
      all.push({ ref: parent, cls: parent.chain.length === 0 ? coreClass('Package') : coreClass('Object'), outer: 0 });
      if (parent.chain.length > 0) unnamed.push(`import ${at} (${objectRefPath(parent)}, added as an outer): class`);
    }
    return -(at + 1);
  };
  for (let i = 0; i < all.length; i++) {
    const p = all[i]!;
    if (p.ref) p.outer = outerOf(p.ref);
  }
  for (const name of pending) unnamed.push(`package ${name} is imported but has no slot in the import map`);
  return all;
}

interface OuterPlan extends ImportPlan {
  outer: number;
}

/** Step 4: the name map (zen names first, then what the import table needs) and the legacy import table. */
function buildNameMapAndImports(z: ZenPackage, all: readonly OuterPlan[]): { names: NameTable; imports: LegacyImport[] } {
  const names = new NameTable(z.names);
  names.want(splitName(z.packageName).base);
  if (all.some((p) => !p.ref || !p.cls)) names.want('None');
  const wantRef = (r: ObjectRef | undefined) => {
    if (!r) return;
    names.want(splitName(r.packageName).base);
    if (r.chain.length > 0) names.want(r.chain[r.chain.length - 1]!.base);
  };
  for (const p of all) {
    wantRef(p.ref);
    wantRef(p.cls);
  }
  names.seal();
  const none = (): LegacyName => names.ref({ base: 'None', number: 0 });
  const lastName = (r: ObjectRef | undefined): LegacyName => {
    if (!r) return none();
    return names.ref(r.chain.length === 0 ? splitName(r.packageName) : r.chain[r.chain.length - 1]!);
  };
  const imports: LegacyImport[] = all.map((p) => ({
    classPackage: p.cls ? names.ref(splitName(p.cls.packageName)) : none(),
    className: p.cls ? lastName(p.cls) : none(),
    outerIndex: p.outer,
    objectName: lastName(p.ref),
    importOptional: false,
  }));
  return { names, imports };
}

/** Step 5: the exports, in the same order with the same names (zen indices), referring through the import slots. */
function convertExports(c: Conversion, bytes: Uint8Array, ue5: number): { exports: LegacyExport[]; data: Uint8Array[] } {
  const { z, source } = c;
  const toPackageIndex = packageIndexOf(c);
  const isClassy = classyExports(c);
  const offsets = exportChunkOffsets(z);
  const data: Uint8Array[] = [];
  const ue55 = ue5 >= UE5_LEGACY_VERSION.AssetRegistryPackageBuildDependencies;
  const exports = z.exports.map((e, i): LegacyExport => {
    const at = offsets[i]!;
    if (at < 0 || at + e.cookedSerialSize > bytes.length) {
      throw new IoStoreError('BAD_VALUE', `export ${i} (${e.cookedSerialSize} bytes at ${at}) lies outside the ${bytes.length}-byte package`, { file: source, offset: Math.max(0, at) });
    }
    data.push(bytes.subarray(at, at + e.cookedSerialSize));
    const outerIndex = toPackageIndex(e.outerIndex, 'outer', i);
    const outerExport = outerIndex > 0 ? z.exports[outerIndex - 1] : undefined;
    const inherited = (e.objectFlags & RF_DEFAULT_SUB_OBJECT) !== 0 && !!outerExport && (outerExport.objectFlags & RF_CLASS_DEFAULT_OBJECT) !== 0;
    let classy = false;
    for (let k: number | undefined = i, steps = 0; k !== undefined && steps <= z.exports.length; steps++) {
      if (isClassy(k)) classy = true;
      const o: bigint = z.exports[k]!.outerIndex;
      k = objectIndexKind(o) === 'Export' ? Number(o & 0xffffffffn) : undefined;
    }
    return {
      classIndex: toPackageIndex(e.classIndex, 'class', i),
      superIndex: toPackageIndex(e.superIndex, 'super', i),
      templateIndex: toPackageIndex(e.templateIndex, 'template', i),
      outerIndex,
      objectName: { index: e.objectName.index, number: e.objectName.number },
      objectFlags: e.objectFlags,
      serialSize: e.cookedSerialSize,
      serialOffset: 0,
      forcedExport: false,
      notForClient: e.filterFlags === 1,
      notForServer: e.filterFlags === 2,
      isInheritedInstance: inherited,
      packageFlags: 0,
      // What the engine stores here changed in 5.5 (seen on the corpus pairs); neither is kept by zen.
      notAlwaysLoadedForEditorGame: inherited || (ue55 && !classy),
      isAsset: e.outerIndex === NULL_OBJECT_INDEX && (e.objectFlags & RF_PUBLIC) !== 0 && (e.objectFlags & RF_CLASS_DEFAULT_OBJECT) === 0 && (ue55 || !classy),
      generatePublicHash: false,
      firstExportDependency: -1,
      serializationBeforeSerializationDependencies: 0,
      createBeforeSerializationDependencies: 0,
      serializationBeforeCreateDependencies: 0,
      createBeforeCreateDependencies: 0,
    };
  });
  return { exports, data };
}

/** A zen object index as a legacy package index: exports by number, imports through their first import-map slot. */
function packageIndexOf({ z, unnamed }: Conversion): (v: bigint, what: string, i: number) => number {
  const slotOf = new Map<bigint, number>();
  z.imports.forEach((v, i) => {
    if (objectIndexKind(v) !== 'Null' && !slotOf.has(v)) slotOf.set(v, i);
  });
  return (v, what, i) => {
    switch (objectIndexKind(v)) {
      case 'Null':
        return 0;
      case 'Export':
        return Number(v & 0xffffffffn) + 1;
      default: {
        const slot = slotOf.get(v);
        if (slot === undefined) {
          unnamed.push(`export ${i} ${what}: 0x${v.toString(16)} is not in the import map`);
          return 0;
        }
        return -(slot + 1);
      }
    }
  };
}

/** Whether an export is a class, function, struct or class default object (memoized: outer chains are walked often). */
function classyExports({ z, resolver }: Conversion): (i: number) => boolean {
  const memo: (boolean | undefined)[] = new Array(z.exports.length);
  return (i) => {
    const known = memo[i];
    if (known !== undefined) return known;
    const e = z.exports[i]!;
    let v = (e.objectFlags & RF_CLASS_DEFAULT_OBJECT) !== 0;
    if (!v) {
      const c = resolver.resolve(z, e.classIndex).ref;
      const last = c?.chain[c.chain.length - 1];
      v = !!last && /(Class|Function|Struct)$/.test(last.base);
    }
    memo[i] = v;
    return v;
  };
}

/**
 * 1010+ tagged-property packages: the span of the tagged properties in each export (zen does not keep it). Exports
 * whose data does not start with a tag stream (natively serialized classes) get their whole data.
 */
function addScriptSpans(exports: LegacyExport[], data: readonly Uint8Array[], z: ZenPackage, ue5: number): void {
  exports.forEach((e, i) => {
    const end = taggedPropertiesEnd(data[i]!, z.names, ue5);
    e.scriptSerializationStartOffset = 0;
    e.scriptSerializationEndOffset = end ?? e.serialSize;
  });
}

/** 5.3+ keeps each export's dependencies; 5.0-5.2 keeps arcs to export bundles (UE4's zen form: neither). */
function preloadDependenciesOf({ z, resolver }: Conversion, exports: LegacyExport[], imports: LegacyImport[]) {
  const runs = z.dependencyBundleHeaders.length > 0 ? runsFromDependencyBundles(z) : z.layout.format === 'UE5' ? runsFromExternalArcs(z) : null;
  // A user-defined struct's legacy export lists no dependencies at all (S_Fixture in the 5.8 and 6.0 corpus cooks).
  const isStruct = (i: number) => /Struct$/.test(resolver.resolve(z, z.exports[i]!.classIndex).ref?.chain.at(-1)?.base ?? '');
  return runs ? rebuildPreloadDependencies(z, exports, imports, runs, isStruct) : [];
}

/**
 * Step 6: bulk data. The zen bulk data map is the legacy data resource table without raw sizes and owners. Owners (5.5+
 * store them) are inferred: inline payloads lie inside their export's data, in export order; others belong to the asset.
 */
function dataResourcesOf({ z, source }: Conversion, exports: readonly LegacyExport[], ue5: number): LegacyDataResource[] {
  const asset = Math.max(1, exports.findIndex((e) => e.isAsset) + 1);
  let lastOwner = 0;
  const dataResources: LegacyDataResource[] = z.bulkData.map((b) => {
    let outerIndex = 0;
    if (ue5 >= UE5_LEGACY_VERSION.AssetRegistryPackageBuildDependencies) {
      outerIndex = asset;
      if (b.flags & BULKDATA_FORCE_INLINE_PAYLOAD) {
        const end = Number(b.serialOffset + b.serialSize);
        const fits = (k: number) => end <= exports[k]!.serialSize;
        let k = exports.findIndex((_, j) => j > lastOwner - 1 && j !== lastOwner - 1 && fits(j));
        if (k < 0) k = exports.findIndex((_, j) => j >= lastOwner - 1 && fits(j));
        if (k >= 0) outerIndex = lastOwner = k + 1;
      }
    }
    return {
      flags: 0,
      cookedIndex: b.cookedIndex,
      serialOffset: Number(b.serialOffset),
      duplicateSerialOffset: Number(b.duplicateSerialOffset),
      serialSize: Number(b.serialSize),
      rawSize: Number(b.serialSize),
      outerIndex,
      legacyBulkDataFlags: b.flags,
    };
  });
  if (dataResources.length > 0 && ue5 < UE5_LEGACY_VERSION.DataResources) {
    throw new IoStoreError('UNSUPPORTED', `the package has a bulk data map but is converted with UE5 version ${ue5}, which has no data resource table`, { file: source, offset: 0 });
  }
  return dataResources;
}

/**
 * The custom versions in the legacy form (hex keys). Every package of a cook carries the same table, so the last
 * one converted is reused when it matches (a byte comparison costs less than a hundred hex strings per package).
 */
function legacyCustomVersions(cvs: readonly CustomVersion[]): LegacyCustomVersion[] {
  const last = lastCustomVersions;
  if (last && last.from.length === cvs.length && cvs.every((c, i) => c.version === last.from[i]!.version && bytesEqual(c.key, last.from[i]!.key))) return last.to;
  const to = cvs.map((c) => ({ key: toHex(c.key), version: c.version }));
  lastCustomVersions = { from: cvs.map((c) => ({ key: c.key.slice(), version: c.version })), to };
  return to;
}
let lastCustomVersions: { from: CustomVersion[]; to: LegacyCustomVersion[] } | undefined;

/** Names of the packages a zen package imports, when they are known. */
function resolverImportedPackages(resolver: ZenResolver, z: ZenPackage): string[] {
  const out: string[] = [];
  if (z.importedPackageNames) {
    for (const name of resolver.importedPackageNames(z)) if (name && !name.startsWith('/Script/')) out.push(name);
    return out;
  }
  const ids = resolver.packages?.importedPackageIds(z)?.length ?? 0;
  for (let i = 0; i < ids; i++) {
    const p = resolver.importedPackage(z, i);
    if (p?.name && !p.name.startsWith('/Script/')) out.push(p.name);
  }
  return out;
}

/**
 * The legacy preload dependencies from each export's zen dependency runs (5.3+ bundles, 5.0-5.2 arcs). Zen keeps them in the order create-before-create,
 * serialize-before-create, create-before-serialize, serialize-before-serialize and leaves out script imports (always
 * loaded); legacy lists the reverse order and, as the engine's cooks show, names the script class and template (and the
 * template's script subobjects) before creation and a script super before creation. Those are put back; script
 * imports that export data alone needs cannot be, and stay out.
 */
function rebuildPreloadDependencies(z: ZenPackage, exports: LegacyExport[], imports: readonly LegacyImport[], runs: DependencyRuns[], isStruct: (i: number) => boolean): number[] {
  const isScript = (pi: number) => pi < 0 && -pi - 1 < z.imports.length && objectIndexKind(z.imports[-pi - 1]!) === 'ScriptImport';
  const out: number[] = [];
  runs.forEach(({ cbc, sbc, cbs, sbs }, i) => {
    const e = exports[i]!;
    const merge = (wanted: number[], zen: number[]): number[] => {
      const list: number[] = [];
      for (const w of wanted) if (w !== 0 && !list.includes(w) && (zen.includes(w) || isScript(w))) list.push(w);
      for (const x of zen) if (!list.includes(x)) list.push(x);
      return list;
    };
    const templateSubobjects: number[] = [];
    if (isScript(e.templateIndex)) {
      z.imports.forEach((_, k) => {
        if (imports[k]!.outerIndex === e.templateIndex) templateSubobjects.push(-(k + 1));
      });
    }
    if (cbc.length + sbc.length + cbs.length + sbs.length === 0 && isStruct(i)) return;
    const sbcAll = merge([e.classIndex, e.templateIndex, ...templateSubobjects], sbc);
    const cbcAll = merge([e.outerIndex, e.superIndex], cbc);
    e.firstExportDependency = out.length;
    e.serializationBeforeSerializationDependencies = sbs.length;
    e.createBeforeSerializationDependencies = cbs.length;
    e.serializationBeforeCreateDependencies = sbcAll.length;
    e.createBeforeCreateDependencies = cbcAll.length;
    out.push(...sbs, ...cbs, ...sbcAll, ...cbcAll);
  });
  return out;
}

/** An export's zen dependency runs: create/serialize before create, create/serialize before serialize. */
interface DependencyRuns {
  cbc: number[];
  sbc: number[];
  cbs: number[];
  sbs: number[];
}

/** The runs of each export as the 5.3+ dependency bundles hold them. */
function runsFromDependencyBundles(z: ZenPackage): DependencyRuns[] {
  return z.dependencyBundleHeaders.map((h) => {
    let at = h.firstEntryIndex < 0 ? 0 : h.firstEntryIndex;
    const take = (n: number) => {
      const s = z.dependencyBundleEntries.slice(at, at + n);
      at += n;
      return s;
    };
    const cbc = take(h.createBeforeCreate);
    const sbc = take(h.serializeBeforeCreate);
    const cbs = take(h.createBeforeSerialize);
    const sbs = take(h.serializeBeforeSerialize);
    return { cbc, sbc, cbs, sbs };
  });
}

/**
 * The runs of each export from UE 5.0-5.2 graph data, which keeps per imported package arcs from an imported object's
 * create or serialize command to one of this package's export bundles: the bundle waits for it from its first
 * command on. That is the dependency "<create|serialize> before <the first command's kind>" of the export of the
 * bundle's first command; converting back to zen gives the same arc. Which export's data refers to the import is
 * not kept.
 */
function runsFromExternalArcs(z: ZenPackage): DependencyRuns[] {
  const runs: DependencyRuns[] = z.exports.map(() => ({ cbc: [], sbc: [], cbs: [], sbs: [] }));
  for (const arcs of z.externalArcs) {
    for (const a of arcs) {
      const bundle = z.exportBundles[a.toExportBundleIndex];
      const first = bundle && bundle.entryCount > 0 ? z.exportBundleEntries[bundle.firstEntryIndex] : undefined;
      if (!first || first.localExportIndex >= runs.length || a.fromImportIndex >= z.imports.length) continue;
      const r = runs[first.localExportIndex]!;
      const list = first.commandType === 0 ? (a.fromCommandType === 0 ? r.cbc : r.sbc) : a.fromCommandType === 0 ? r.cbs : r.sbs;
      const d = -(a.fromImportIndex + 1);
      if (!list.includes(d)) list.push(d);
    }
  }
  return runs;
}

/**
 * Every reference the conversion follows must point inside the package's tables: an export index past the export
 * map, a name past the name map or an import that is not in the import map is one error naming the entry's offset.
 */
function checkZenReferences(z: ZenPackage, source: string): void {
  const mapAt = z.sections.find((x) => x.name === 'export map')?.offset ?? 0;
  const importSet = new Set(z.imports);
  const fail = (i: number, what: string): never => {
    throw new IoStoreError('BAD_VALUE', `export ${i}: ${what}`, { file: source, offset: mapAt + i * 72 });
  };
  // One check per reference, without a list of them per export: this runs for every export of every package.
  const check = (i: number, what: string, v: bigint): void => {
    const kind = objectIndexKind(v);
    if (kind === 'Export' && Number(v & 0xffffffffn) >= z.exports.length) fail(i, `its ${what} is export ${Number(v & 0xffffffffn)} of ${z.exports.length}`);
    if ((kind === 'ScriptImport' || kind === 'PackageImport') && !importSet.has(v)) fail(i, `its ${what} 0x${v.toString(16)} is not in the import map`);
  };
  for (let i = 0; i < z.exports.length; i++) {
    const e = z.exports[i]!;
    if (e.objectName.index >= z.names.length) fail(i, `its name is entry ${e.objectName.index} of a ${z.names.length}-entry name map`);
    check(i, 'outer', e.outerIndex);
    check(i, 'class', e.classIndex);
    check(i, 'super', e.superIndex);
    check(i, 'template', e.templateIndex);
    if (e.outerIndex !== NULL_OBJECT_INDEX && objectIndexKind(e.outerIndex) !== 'Export' && objectIndexKind(e.outerIndex) !== 'Null') {
      // Outers of exports are exports in every engine-written package; anything else is damage.
      fail(i, `its outer 0x${e.outerIndex.toString(16)} is not an export`);
    }
  }
  // Outer chains must end.
  z.exports.forEach((_, i) => {
    let k = i;
    for (let steps = 0; ; steps++) {
      const o = z.exports[k]!.outerIndex;
      if (objectIndexKind(o) !== 'Export') break;
      k = Number(o & 0xffffffffn);
      if (steps > z.exports.length) throw new IoStoreError('BAD_VALUE', `export ${i}: its outer chain loops`, { file: source, offset: mapAt + i * 72 });
    }
  });
  const deps = z.dependencyBundleEntries;
  for (let k = 0; k < deps.length; k++) {
    const d = deps[k]!;
    if ((d < 0 && -d - 1 >= z.imports.length) || (d > 0 && d - 1 >= z.exports.length)) {
      throw new IoStoreError('BAD_VALUE', `dependency entry ${k} (${d}) points outside the import and export maps`, { file: source, offset: z.sections.find((x) => x.name === 'dependency bundle entries')?.offset ?? 0 });
    }
  }
  z.dependencyBundleHeaders.forEach((h, i) => {
    const n = h.createBeforeCreate + h.serializeBeforeCreate + h.createBeforeSerialize + h.serializeBeforeSerialize;
    if (n > 0 && (h.firstEntryIndex < 0 || h.firstEntryIndex + n > deps.length)) {
      throw new IoStoreError('BAD_VALUE', `export ${i}'s dependencies (${n} from ${h.firstEntryIndex}) lie outside the ${deps.length} entries`, { file: source, offset: z.sections.find((x) => x.name === 'dependency bundle headers')?.offset ?? 0 });
    }
  });
}
