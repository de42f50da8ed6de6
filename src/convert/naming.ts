import { cityHash64 } from '../hash/cityhash.js';
import { lowerAscii, lowerUtf16leBytes, packageIdFromName } from '../hash/names.js';
import type { MappedName } from '../zen/mapped-name.js';
import { NULL_OBJECT_INDEX, objectIndexKind, packageImportParts } from '../zen/object-index.js';
import { SCRIPT_OBJECT_WORDS, scriptImportIndex, scriptObjectTable, type ScriptObjects, type ScriptObjectTable } from '../zen/script-objects.js';
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

/** A case-insensitive key of an object reference (memoized: the same references are keyed many times per package). */
export function refKey(o: ObjectRef): string {
  let k = refKeys.get(o);
  if (k === undefined) {
    k = foldedPart(o.packageName) + '|';
    for (let d = 0; d < o.chain.length; d++) k += (d === 0 ? '' : '/') + foldedPart(nameText(o.chain[d]!));
    refKeys.set(o, k);
  }
  return k;
}
const refKeys = new WeakMap<ObjectRef, string>();

/**
 * One part of a key folded as `lowerAscii` folds it. Keys are built from the same package paths and object names
 * over and over (every package imports /Script/Engine): each part is folded once.
 */
function foldedPart(s: string): string {
  let f = folded.get(s);
  if (f === undefined) {
    if (folded.size >= FOLDED_MAX) folded.clear();
    folded.set(s, (f = lowerAscii(s)));
  }
  return f;
}
const folded = new Map<string, string>();
const FOLDED_MAX = 1 << 15;

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

/**
 * An open-addressed table (power-of-two size, at least twice the entries) of the script object entries by the
 * 64-bit index at word `field` of each entry; a slot holds entry + 1. Built in one pass over typed arrays: a Map of
 * 37,000 keys costs more than converting a small container.
 */
function slotTable(words: Uint32Array, field: number, count: number): Int32Array {
  let size = 16;
  while (size < count * 2) size *= 2;
  const slots = new Int32Array(size);
  const mask = size - 1;
  for (let i = 0; i < count; i++) {
    const at = i * SCRIPT_OBJECT_WORDS + field;
    const lo = words[at]!;
    const hi = words[at + 1]!;
    let h = Math.imul(lo ^ hi, 0x9e3779b1) >>> 0;
    for (;;) {
      const k = h & mask;
      const e = slots[k]! - 1;
      if (e < 0) {
        slots[k] = i + 1;
        break;
      }
      // The first entry with a given index keeps its slot.
      if (words[e * SCRIPT_OBJECT_WORDS + field] === lo && words[e * SCRIPT_OBJECT_WORDS + field + 1] === hi) break;
      h = k + 1;
    }
  }
  return slots;
}

/** The entry whose 64-bit field equals hi:lo, or -1. */
function findSlot(slots: Int32Array, words: Uint32Array, field: number, lo: number, hi: number): number {
  const mask = slots.length - 1;
  let h = Math.imul(lo ^ hi, 0x9e3779b1) >>> 0;
  for (;;) {
    const k = h & mask;
    const e = slots[k]! - 1;
    if (e < 0) return -1;
    if (words[e * SCRIPT_OBJECT_WORDS + field] === lo && words[e * SCRIPT_OBJECT_WORDS + field + 1] === hi) return e;
    h = k + 1;
  }
}

/** The global script objects by their FPackageObjectIndex, with the facts the legacy import map needs. */
export class ScriptObjectIndex {
  // Entries stay in the chunk's own word layout and are found through a hash table of entry numbers: no bigint per
  // entry, no name decoded until a package asks for it.
  private readonly words: Uint32Array;
  private readonly names: ScriptObjectTable['names'];
  /** Entries by their own index. */
  private readonly slots: Int32Array;
  private readonly classes = new Map<bigint, boolean>();
  private readonly refs = new Map<bigint, ObjectRef | null>();
  readonly size: number;

  /** From parsed entries, or from a table read with `readScriptObjectTable` (which is how to-legacy reads a global). */
  constructor(so: ScriptObjects | ScriptObjectTable) {
    const t = 'words' in so ? so : scriptObjectTable(so.names, so.objects);
    this.words = t.words;
    this.names = t.names;
    this.size = t.count;
    this.slots = slotTable(this.words, 2, t.count);
  }

  private at(index: bigint): number | undefined {
    const i = findSlot(this.slots, this.words, 2, Number(index & 0xffffffffn), Number(index >> 32n));
    return i < 0 ? undefined : i;
  }

  /** Index field `field` (4 outer, 6 CDO class) of entry `at`; undefined when Null. */
  private field(at: number, field: number): bigint | undefined {
    const lo = this.words[at * SCRIPT_OBJECT_WORDS + field]!;
    const hi = this.words[at * SCRIPT_OBJECT_WORDS + field + 1]!;
    if (lo === 0xffffffff && hi === 0xffffffff) return undefined;
    return (BigInt(hi) << 32n) | BigInt(lo);
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
    for (let steps = 0; steps <= this.size; steps++) {
      const at = this.at(i);
      if (at === undefined) break;
      const base = this.names.name(this.words[at * SCRIPT_OBJECT_WORDS]! & 0x3fffffff);
      if (base === undefined) break;
      const n = { base, number: this.words[at * SCRIPT_OBJECT_WORDS + 1]! };
      const outer = this.field(at, 4);
      if (outer === undefined) {
        pkg = nameText(n);
        break;
      }
      chain.push(n);
      i = outer;
    }
    const r = pkg === undefined ? null : { packageName: pkg, chain: chain.reverse() };
    this.refs.set(index, r);
    return r ?? undefined;
  }

  /** The class of a class default object, from the global table. */
  cdoClass(index: bigint): bigint | undefined {
    const at = this.at(index);
    if (at === undefined) return undefined;
    const c = this.field(at, 6);
    return c === 0n ? undefined : c;
  }

  /**
   * True when some class default object names this object as its class. A class's CDO is `Default__<Class>` beside
   * it (checked on every entry of the five corpus globals, 170,000 entries: no exception), so its index is hashed from
   * that path rather than found by a second table over every entry's CDO class.
   */
  isClass(index: bigint): boolean {
    if (index === 0n || index === NULL_OBJECT_INDEX) return false;
    let known = this.classes.get(index);
    if (known === undefined) {
      const ref = this.ref(index);
      known = false;
      if (ref && ref.chain.length === 1) {
        const cdo = scriptImportIndex(`${ref.packageName}/Default__${nameText(ref.chain[0]!)}`);
        known = this.cdoClass(cdo) === index;
      }
      this.classes.set(index, known);
    }
    return known;
  }

  outer(index: bigint): bigint | undefined {
    const at = this.at(index);
    return at === undefined ? undefined : this.field(at, 4);
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
  return cityHash64(lowerUtf16leBytes(relativePath));
}

/** Resolves zen object indices of a package to object references, with the packages at hand and the script objects. */
export class ZenResolver {
  private readonly exportsByHash = new WeakMap<ZenPackage, Map<bigint, number>>();
  /** Imported package names of a package (with numbers applied), built once per package. */
  private readonly importedNames = new WeakMap<ZenPackage, string[]>();
  /** Package ids by name: the same few packages are imported by most packages, and a CityHash per lookup adds up. */
  private readonly idsByName = new Map<string, bigint>();

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

  /** The names of the packages `pkg` imports, in order (5.3+ packages carry them; empty before). */
  importedPackageNames(pkg: ZenPackage): readonly string[] {
    let names = this.importedNames.get(pkg);
    if (!names) this.importedNames.set(pkg, (names = importedPackageNameStrings(pkg)));
    return names;
  }

  /** The name of the package a PackageImport points into, and its id. */
  importedPackage(pkg: ZenPackage, importedPackageIndex: number): { id: bigint; name?: string } | undefined {
    const names = this.importedPackageNames(pkg);
    if (names.length > 0) {
      const name = names[importedPackageIndex];
      if (name === undefined) return undefined;
      let id = this.idsByName.get(name);
      if (id === undefined) this.idsByName.set(name, (id = packageIdFromName(name)));
      return { id, name };
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
