import { cityHash64 } from '../hash/cityhash.js';
import { lowerAscii, packageIdFromName, utf16leBytes } from '../hash/names.js';
import type { MappedName } from '../zen/mapped-name.js';
import { NULL_OBJECT_INDEX, objectIndexKind, packageImportParts } from '../zen/object-index.js';
import type { ScriptObjects } from '../zen/script-objects.js';
import { importedPackageNameStrings, type ZenPackage } from '../zen/zen-package.js';

/** One FName: a base string and the number (0 none, k = `_<k-1>`). */
export interface NamePart {
  base: string;
  number: number;
}

/** An object named in full: its package and the object names below it (empty for the package itself). */
export interface ObjectRef {
  packageName: string;
  chain: NamePart[];
}

export const nameText = (n: NamePart): string => (n.number === 0 ? n.base : `${n.base}_${n.number - 1}`);

/** `/Script/Engine.Default__Character:CharMoveComp`: `.` before the top object, `:` before its subobjects, `.` below. */
export function objectRefPath(o: ObjectRef): string {
  let s = o.packageName;
  o.chain.forEach((n, depth) => {
    s += (depth === 1 ? ':' : '.') + nameText(n);
  });
  return s;
}

export const refKey = (o: ObjectRef): string => lowerAscii(`${o.packageName}|${o.chain.map(nameText).join('/')}`);

function mapped(names: readonly string[], n: MappedName): NamePart | undefined {
  const base = names[n.index];
  return base === undefined ? undefined : { base, number: n.number };
}

/** Splits `Name_3` into base `Name` and number 4, as FName does (no leading zeros, number < 2^31). */
export function splitName(s: string): NamePart {
  const m = /^(.*)_(0|[1-9][0-9]{0,9})$/.exec(s);
  if (m && m[1] !== '' && Number(m[2]) < 0x7fffffff) return { base: m[1]!, number: Number(m[2]) + 1 };
  return { base: s, number: 0 };
}

/** The global script objects by their FPackageObjectIndex, with the facts the legacy import map needs. */
export class ScriptObjectIndex {
  // Keyed by the low 32 bits of each index (read as numbers from the typed array, no bigint arithmetic), checked
  // against the full index: a Map of 60,000 bigint keys costs more to build than converting a small container.
  private readonly keys: BigUint64Array;
  private readonly byLow = new Map<number, number>();
  private readonly collisions: number[] = [];
  private readonly classKeys: BigUint64Array;
  private readonly refs = new Map<bigint, ObjectRef | null>();

  constructor(private readonly so: ScriptObjects) {
    const n = so.objects.length;
    this.keys = new BigUint64Array(n);
    for (let i = 0; i < n; i++) this.keys[i] = so.objects[i]!.globalIndex;
    const words = new Uint32Array(this.keys.buffer);
    for (let i = 0; i < n; i++) {
      const low = words[2 * i]!;
      if (this.byLow.has(low)) this.collisions.push(i);
      else this.byLow.set(low, i);
    }
    const classes: bigint[] = [];
    for (const o of so.objects) if (o.cdoClassIndex !== NULL_OBJECT_INDEX && o.cdoClassIndex !== 0n) classes.push(o.cdoClassIndex);
    this.classKeys = BigUint64Array.from(classes).sort();
  }

  private at(index: bigint): number | undefined {
    const i = this.byLow.get(Number(index & 0xffffffffn));
    if (i !== undefined && this.keys[i] === index) return i;
    for (const c of this.collisions) if (this.keys[c] === index) return c;
    return undefined;
  }

  get size(): number {
    return this.so.objects.length;
  }

  has(index: bigint): boolean {
    return this.at(index) !== undefined;
  }

  /** The object's package and chain, or undefined when it is not a known script object. */
  ref(index: bigint): ObjectRef | undefined {
    const known = this.refs.get(index);
    if (known !== undefined) return known ?? undefined;
    const chain: NamePart[] = [];
    let i = index;
    let pkg: string | undefined;
    for (let steps = 0; steps <= this.so.objects.length; steps++) {
      const at = this.at(i);
      if (at === undefined) break;
      const o = this.so.objects[at]!;
      const n = mapped(this.so.names, o.objectName);
      if (!n) break;
      if (o.outerIndex === NULL_OBJECT_INDEX) {
        pkg = nameText(n);
        break;
      }
      chain.push(n);
      i = o.outerIndex;
    }
    const r = pkg === undefined ? null : { packageName: pkg, chain: chain.reverse() };
    this.refs.set(index, r);
    return r ?? undefined;
  }

  /** The class of a class default object, from the global table. */
  cdoClass(index: bigint): bigint | undefined {
    const at = this.at(index);
    if (at === undefined) return undefined;
    const c = this.so.objects[at]!.cdoClassIndex;
    return c === NULL_OBJECT_INDEX || c === 0n ? undefined : c;
  }

  /** True when some class default object names this object as its class. */
  isClass(index: bigint): boolean {
    let lo = 0;
    let hi = this.classKeys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = this.classKeys[mid]!;
      if (k === index) return true;
      if (k < index) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  outer(index: bigint): bigint | undefined {
    const at = this.at(index);
    if (at === undefined) return undefined;
    const o = this.so.objects[at]!.outerIndex;
    return o === NULL_OBJECT_INDEX ? undefined : o;
  }
}

/** What is known about the packages at hand: headers by package id, and store entries for 5.0-5.2 and UE4. */
export interface PackageDirectory {
  get(packageId: bigint): ZenPackage | undefined;
  /** The ids of the packages a package imports, in its import order (store entry); undefined when unknown. */
  importedPackageIds(pkg: ZenPackage): bigint[] | undefined;
  /** UE4: the package and export whose GlobalImportIndex is `index` (UE4 package imports are such indices). */
  globalImport?(index: bigint): { pkg: ZenPackage; exportIndex: number } | undefined;
}

/** The public export hash of an object path relative to its package (`BP_C`, `Default__BP_C/Comp`). */
export function publicExportHash(relativePath: string): bigint {
  return cityHash64(utf16leBytes(lowerAscii(relativePath)));
}

/** Resolves zen object indices of a package to object references, with the packages at hand and the script objects. */
export class ZenResolver {
  private readonly exportsByHash = new WeakMap<ZenPackage, Map<bigint, number>>();

  constructor(
    readonly script: ScriptObjectIndex | undefined,
    readonly packages: PackageDirectory | undefined,
  ) {}

  /** The chain of export `i` inside its package (outer exports first). */
  exportChain(pkg: ZenPackage, i: number): NamePart[] | undefined {
    const chain: NamePart[] = [];
    let at = i;
    for (let steps = 0; steps <= pkg.exports.length; steps++) {
      const e = pkg.exports[at];
      if (!e) return undefined;
      const n = mapped(pkg.names, e.objectName);
      if (!n) return undefined;
      chain.push(n);
      if (e.outerIndex === NULL_OBJECT_INDEX) return chain.reverse();
      if (objectIndexKind(e.outerIndex) !== 'Export') return undefined;
      at = Number(e.outerIndex & 0xffffffffn);
    }
    return undefined;
  }

  private exportByHash(pkg: ZenPackage, hash: bigint): number | undefined {
    let m = this.exportsByHash.get(pkg);
    if (!m) {
      m = new Map();
      pkg.exports.forEach((e, i) => {
        if (e.publicExportHash !== 0n) m!.set(e.publicExportHash, i);
      });
      this.exportsByHash.set(pkg, m);
    }
    return m.get(hash);
  }

  /** The name of the package a PackageImport points into, and its id. */
  importedPackage(pkg: ZenPackage, importedPackageIndex: number): { id: bigint; name?: string } | undefined {
    const names = importedPackageNameStrings(pkg);
    if (names.length > 0) {
      const name = names[importedPackageIndex];
      return name === undefined ? undefined : { id: packageIdFromName(name), name };
    }
    const ids = this.packages?.importedPackageIds(pkg);
    const id = ids?.[importedPackageIndex];
    if (id === undefined) return undefined;
    const other = this.packages?.get(id);
    return other ? { id, name: other.packageName } : { id };
  }

  /**
   * The object a zen object index of `pkg` refers to, or a reason it cannot be named. `targetPackage` reports which
   * package a PackageImport lands in, even when the object itself stays unnamed.
   */
  resolve(pkg: ZenPackage, index: bigint): { ref?: ObjectRef; owner?: ZenPackage; exportIndex?: number; packageName?: string; missing?: string } {
    switch (objectIndexKind(index)) {
      case 'Null':
        return {};
      case 'Export': {
        const i = Number(index & 0xffffffffn);
        const chain = this.exportChain(pkg, i);
        return chain ? { ref: { packageName: pkg.packageName, chain }, owner: pkg, exportIndex: i } : { missing: `export ${i}` };
      }
      case 'ScriptImport': {
        if (!this.script) return { missing: 'script object (no global container)' };
        const ref = this.script.ref(index);
        return ref ? { ref } : { missing: `script object 0x${index.toString(16)}` };
      }
      case 'PackageImport': {
        if (pkg.layout.format === 'UE4') {
          const hit = this.packages?.globalImport?.(index);
          const chain = hit ? this.exportChain(hit.pkg, hit.exportIndex) : undefined;
          if (hit && chain) return { ref: { packageName: hit.pkg.packageName, chain }, owner: hit.pkg, exportIndex: hit.exportIndex };
          return { missing: `package import 0x${index.toString(16)} (its package is not at hand)` };
        }
        const { importedPackageIndex, publicExportHashIndex } = packageImportParts(index);
        const target = this.importedPackage(pkg, importedPackageIndex);
        const hash = pkg.importedPublicExportHashes[publicExportHashIndex];
        if (!target || hash === undefined) return { missing: `package import ${importedPackageIndex}/${publicExportHashIndex} outside the tables` };
        const other = this.packages?.get(target.id);
        const packageName = target.name ?? other?.packageName;
        if (other) {
          const i = this.exportByHash(other, hash);
          const chain = i === undefined ? undefined : this.exportChain(other, i);
          if (chain) return { ref: { packageName: other.packageName, chain }, owner: other, exportIndex: i! };
        }
        if (packageName !== undefined) {
          // Not at hand: try the names an asset's exports usually have.
          const short = packageName.slice(packageName.lastIndexOf('/') + 1);
          for (const cand of [short, `${short}_C`, `Default__${short}_C`]) {
            if (publicExportHash(cand) === hash) return { ref: { packageName, chain: [splitName(cand)] }, packageName };
          }
          return { packageName, missing: `an export of ${packageName} (hash ${hash.toString(16)})` };
        }
        return { missing: `package 0x${target.id.toString(16)} (not at hand)` };
      }
    }
  }
}
