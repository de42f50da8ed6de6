import { CustomVersions, hasCustomVersion, ObjectVersion, type PropsPackage } from './context.js';
import { usmapStruct, type UsmapStruct } from '../usmap/usmap.js';
import { hex, PropsReadError, unhex, Wr, type Rd } from './io.js';
import { sharedSchemas, type Schema } from './schema.js';
import type { TagType } from './tagged-props.js';

/** A JSON value of the props form. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Thrown while writing JSON that does not say what its type needs (the message names the property path). */
export class PropsWriteError extends Error {}

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function writeFail(what: string, v: Json | undefined): never {
  throw new PropsWriteError(`${what}: ${v === undefined ? 'missing' : JSON.stringify(v)?.slice(0, 80)}`);
}

/**
 * The session of one package: its name map (with a reverse index for writing, where new names are appended) and
 * the package's lookups.
 */
export class Session {
  readonly P: PropsPackage;
  private byName: Map<string, number> | undefined;
  /** Names appended while writing. */
  added = 0;
  noneIndex = -1;
  /** Lines about values kept as bytes for a reason the user should hear (an unknown property type). */
  notes: string[] = [];
  /** The export being read, for those lines. */
  current = '';

  constructor(P: PropsPackage) {
    this.P = P;
  }

  private index(): Map<string, number> {
    if (!this.byName) {
      this.byName = new Map();
      const names = this.P.names;
      for (let i = 0; i < names.length; i++) if (!this.byName.has(names[i]!)) this.byName.set(names[i]!, i);
    }
    return this.byName;
  }

  /** The name-map index of `base`, appending it when absent. */
  nameIndex(base: string): number {
    const m = this.index();
    let i = m.get(base);
    if (i === undefined) {
      i = this.P.names.length;
      this.P.names.push(base);
      m.set(base, i);
      this.added++;
    }
    return i;
  }

  findName(base: string): number | undefined {
    return this.index().get(base);
  }

  /** Takes back names appended after the first `n` (by a trial write). */
  truncateNames(n: number): void {
    const names = this.P.names;
    if (names.length <= n) return;
    for (let i = n; i < names.length; i++) if (this.byName?.get(names[i]!) === i) this.byName.delete(names[i]!);
    this.added -= names.length - n;
    names.length = n;
    this.nameJsons.length = Math.min(this.nameJsons.length, n);
    this.nameRefs.clear();
    this.typeBytes.clear();
  }

  /** The (index, number) of name texts written, by text. */
  readonly nameRefs = new Map<string, [number, number]>();

  /** A writer for trial writes that are compared and dropped at once (shared: their buffers would add up). */
  scratch(): Wr {
    if (scratchWr.b.length > 16 << 20) scratchWr = new Wr(1 << 16);
    scratchWr.len = 0;
    return scratchWr;
  }

  /** Type names of 5.4+ tags written, by their type string (name-map indices: dropped with appended names). */
  readonly typeBytes = new Map<string, Uint8Array>();
  /** Type names of 5.4+ tags read, by a hash of their bytes. */
  readonly tagTypes = new Map<number, TagType[]>();

  /** The JSON of names read with number 0, by name-map index (a name is read far more often than it is new). */
  readonly nameJsons: (Json | undefined)[] = [];

  /** Structs the package's own exports define, by lower-cased name: made on first use (null while being made). */
  private readonly defined = new Map<string, { make: () => UsmapStruct | undefined; made?: UsmapStruct | null }>();

  /** Lets unversioned data use the layout of a struct or class an export of the package defines. */
  defineStruct(name: string, make: () => UsmapStruct | undefined): void {
    this.defined.set(name.toLowerCase(), { make });
  }

  private ownSchemas: WeakMap<UsmapStruct, Schema> | undefined;

  /** Unversioned schemas: per package when it defines structs of its own, else shared by every package. */
  get schemas(): WeakMap<UsmapStruct, Schema> {
    if (this.defined.size === 0) return sharedSchemas;
    return (this.ownSchemas ??= new WeakMap());
  }

  /**
   * The layout of a struct or class for unversioned data: the package's own definition when it has one (the
   * package is its truth), else the mappings'. A definition that cannot be read falls back to the mappings, with a
   * note saying why.
   */
  structDef(name: string): UsmapStruct | undefined {
    const d = this.defined.get(name.toLowerCase());
    if (d !== undefined) {
      if (d.made === undefined) {
        d.made = null;
        try {
          d.made = d.make() ?? null;
        } catch (e) {
          this.notes.push(`${this.P.source}: the layout of ${name} in the package could not be read (${(e as Error).message})`);
        }
      }
      if (d.made) return d.made;
    }
    return this.P.mappings ? usmapStruct(this.P.mappings, name) : undefined;
  }

  get ue4(): number {
    return this.P.fileVersionUE4;
  }
  get ue5(): number {
    return this.P.fileVersionUE5;
  }
  get lwc(): boolean {
    return this.P.fileVersionUE5 >= ObjectVersion.LargeWorldCoordinates;
  }
}

let scratchWr = new Wr(1 << 16);

/** Splits an FName's text as the engine does: a `_<digits>` suffix without a leading zero is its number. */
export function splitName(text: string): { base: string; number: number } {
  const m = /^(.*)_(0|[1-9]\d{0,9})$/s.exec(text);
  if (m) {
    const n = Number(m[2]);
    if (n < 0x7fffffff && m[1]!.length > 0) return { base: m[1]!, number: n + 1 };
  }
  return { base: text, number: 0 };
}

export function nameText(base: string, number: number): string {
  return number === 0 ? base : `${base}_${number - 1}`;
}

/** An FName as JSON: its text, or {name, number, index} when the text would not write back to the same entry. */
export function readName(rd: Rd, S: Session, what = 'name'): Json {
  const at = rd.pos;
  const index = rd.i32(what);
  const number = rd.i32(what);
  return nameJson(S, index, number, at);
}

export function nameJson(S: Session, index: number, number: number, at = 0): Json {
  if (number === 0) {
    const known = S.nameJsons[index];
    if (known !== undefined) return known;
  }
  const base = S.P.names[index];
  if (base === undefined || number < 0) throw new PropsReadError(`name ${index} is outside the ${S.P.names.length}-entry name map`, at);
  const text = nameText(base, number);
  const split = splitName(text);
  if (split.base === base && split.number === number && S.findName(base) === index) {
    if (number === 0) S.nameJsons[index] = text;
    return text;
  }
  const o: JsonObject = { name: base, number };
  if (S.findName(base) !== index) o.index = index;
  return o;
}

/** The (index, number) of an FName given as JSON, appending its entry to the name map when needed. */
export function nameRef(S: Session, v: Json | undefined, what = 'name'): [number, number] {
  if (typeof v === 'string') {
    let r = S.nameRefs.get(v);
    if (r === undefined) {
      const { base, number } = splitName(v);
      r = [S.nameIndex(base), number];
      S.nameRefs.set(v, r);
    }
    return r;
  }
  if (isObject(v) && typeof v.name === 'string') {
    const number = typeof v.number === 'number' ? v.number : 0;
    if (typeof v.index === 'number' && S.P.names[v.index] === v.name) return [v.index, number];
    return [S.nameIndex(v.name), number];
  }
  return writeFail(`${what} is not a name`, v);
}

export function writeName(w: Wr, S: Session, v: Json | undefined, what = 'name'): void {
  const [i, n] = nameRef(S, v, what);
  w.i32(i);
  w.i32(n);
}

/** The text of a name JSON, for lookups (struct names, enum names). */
export function nameJsonText(v: Json | undefined): string | undefined {
  if (typeof v === 'string') return v;
  if (isObject(v) && typeof v.name === 'string') return nameText(v.name, typeof v.number === 'number' ? v.number : 0);
  return undefined;
}

/** FPackageIndex as an object path. */
export function readRef(rd: Rd, S: Session, what = 'object reference'): Json {
  return S.P.objectPath(rd.i32(what));
}

export function writeRef(w: Wr, S: Session, v: Json | undefined, what = 'object reference'): void {
  if (v === '' || v === null) {
    w.i32(0);
    return;
  }
  if (typeof v !== 'string') writeFail(`${what} is not an object path`, v);
  const i = S.P.objectIndex(v);
  if (i === undefined) throw new PropsWriteError(`${what}: the package has no import or export ${JSON.stringify(v)} (add it to the package first)`);
  w.i32(i);
}

/** FString as JSON: the text when the engine would store it the same way, else {text, wide} or {hex}. */
export function readStr(rd: Rd, what = 'string'): Json {
  const start = rd.pos;
  const s = rd.fstring(what);
  if (s.canonical) return s.text;
  const probe = { text: s.text, wide: s.wide } as JsonObject;
  const len = rd.pos - start;
  // A form that writes back differently (an unterminated or odd encoding) keeps its bytes.
  if (s.text.includes('\0') || (s.wide ? len !== 4 + 2 * (s.text.length + 1) : len !== 4 + s.text.length + 1)) return { hex: hex(rd.b.subarray(start, rd.pos)) };
  return probe;
}

export function writeStr(w: Wr, v: Json | undefined, what = 'string'): void {
  if (typeof v === 'string') {
    w.fstring(v);
    return;
  }
  if (isObject(v)) {
    if (typeof v.hex === 'string') {
      w.bytes(unhex(v.hex, what));
      return;
    }
    if (typeof v.text === 'string') {
      if (v.wide === true) {
        w.fstring(v.text, true);
        return;
      }
      // Latin-1 with characters past ASCII, or an empty string stored with its terminator.
      w.i32(v.text.length + 1);
      for (let i = 0; i < v.text.length; i++) w.u8(v.text.charCodeAt(i));
      w.u8(0);
      return;
    }
  }
  writeFail(`${what} is not a string`, v);
}

/** FUtf8String / FAnsiString (counted, no terminator). */
export function readCounted(rd: Rd, enc: 'utf8' | 'latin1', what: string): Json {
  const start = rd.pos;
  const s = rd.counted(what, enc);
  return s.canonical ? s.text : { hex: hex(rd.b.subarray(start, rd.pos)) };
}

export function writeCounted(w: Wr, v: Json | undefined, enc: 'utf8' | 'latin1', what: string): void {
  if (typeof v === 'string') w.counted(v, enc);
  else if (isObject(v) && typeof v.hex === 'string') w.bytes(unhex(v.hex, what));
  else writeFail(`${what} is not a string`, v);
}

/** Floats as JSON numbers; the values JSON has no number for as strings. */
export function floatJson(x: number): Json {
  if (Number.isFinite(x)) return Object.is(x, -0) ? '-0' : x;
  return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
}

export function jsonFloat(v: Json | undefined, what: string): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  if (v === '-0') return -0;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return writeFail(`${what} is not a number`, v);
}

export function readF32(rd: Rd, what = 'float'): Json {
  const at = rd.pos;
  const x = rd.f32(what);
  // NaNs other than the canonical one keep their bits.
  if (Number.isNaN(x) && rd.v.getUint32(at, true) !== 0x7fc00000) return { f32: rd.v.getUint32(at, true).toString(16) };
  return floatJson(x);
}

export function writeF32(w: Wr, v: Json | undefined, what = 'float'): void {
  if (isObject(v) && typeof v.f32 === 'string') w.u32(parseInt(v.f32, 16));
  else w.f32(jsonFloat(v, what));
}

export function readF64(rd: Rd, what = 'double'): Json {
  const at = rd.pos;
  const x = rd.f64(what);
  if (Number.isNaN(x) && rd.v.getBigUint64(at, true) !== 0x7ff8000000000000n) return { f64: rd.v.getBigUint64(at, true).toString(16) };
  return floatJson(x);
}

export function writeF64(w: Wr, v: Json | undefined, what = 'double'): void {
  if (isObject(v) && typeof v.f64 === 'string') w.u64(BigInt(`0x${v.f64}`));
  else w.f64(jsonFloat(v, what));
}

/** UE5 large-world-coordinate reals: doubles from UE5 1004, floats before. */
export function readReal(rd: Rd, S: Session, what: string): Json {
  return S.lwc ? readF64(rd, what) : readF32(rd, what);
}

export function writeReal(w: Wr, S: Session, v: Json | undefined, what: string): void {
  if (S.lwc) writeF64(w, v, what);
  else writeF32(w, v, what);
}

export function jsonBigInt(v: Json | undefined, what: string): bigint {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return writeFail(`${what} is not an integer`, v);
}

export function jsonInt(v: Json | undefined, what: string, min: number, max: number): number {
  if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v) && Number(v) >= min && Number(v) <= max) return Number(v);
  return writeFail(`${what} is not an integer in [${min}, ${max}]`, v);
}

export function readBool32(rd: Rd, what: string): boolean {
  const at = rd.pos;
  const x = rd.u32(what);
  if (x > 1) throw new PropsReadError(`${what} is ${x}, not a bool`, at);
  return x === 1;
}

export function readBool8(rd: Rd, what: string): boolean {
  const at = rd.pos;
  const x = rd.u8(what);
  if (x > 1) throw new PropsReadError(`${what} is ${x}, not a bool`, at);
  return x === 1;
}

export function jsonBool(v: Json | undefined, what: string): boolean {
  if (typeof v === 'boolean') return v;
  return writeFail(`${what} is not true or false`, v);
}

/** 16 bytes (a GUID) as 32 hex digits in the engine's order (four 32-bit words, each printed big-endian). */
export function readGuid(rd: Rd, what = 'GUID'): string {
  rd.need(16, what);
  const b = rd.b;
  const at = rd.pos;
  rd.pos += 16;
  let s = '';
  for (let i = 0; i < 16; i += 4) s += HEX_UPPER[b[at + i + 3]!]! + HEX_UPPER[b[at + i + 2]!]! + HEX_UPPER[b[at + i + 1]!]! + HEX_UPPER[b[at + i]!]!;
  return s;
}
const HEX_UPPER = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));

export function writeGuid(w: Wr, v: Json | undefined, what = 'GUID'): void {
  if (typeof v !== 'string' || v.length !== 32) return writeFail(`${what} is not 32 hex digits`, v);
  for (let i = 0; i < 32; i += 8) {
    let x = 0;
    for (let j = i; j < i + 8; j++) {
      const d = hexDigit(v.charCodeAt(j));
      if (d < 0) return writeFail(`${what} is not 32 hex digits`, v);
      x = x * 16 + d;
    }
    w.u32(x);
  }
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** Soft object path (FSoftObjectPath) in each layout, as `/Package/Path.Asset[:SubPath]`. */
export function readSoftPath(rd: Rd, S: Session, what = 'soft object path'): Json {
  const P = S.P;
  if (S.ue4 > 0 && S.ue4 < 514 && S.ue5 === 0) return readStr(rd, what);
  if (P.softObjectPaths && P.softObjectPaths.length > 0 && !P.cooked && S.ue5 >= ObjectVersion.SoftObjectPathList) {
    const at = rd.pos;
    const i = rd.i32(what);
    const p = P.softObjectPaths[i];
    if (p === undefined) throw new PropsReadError(`${what} index ${i} is outside the package's ${P.softObjectPaths.length} soft object paths`, at);
    return p;
  }
  let base: string;
  if (S.ue5 >= ObjectVersion.SoftObjectPathRemoveAssetPathFNames) {
    const pkg = readName(rd, S, what);
    const asset = readName(rd, S, what);
    if (typeof pkg !== 'string' || typeof asset !== 'string') throw new PropsReadError(`${what} names an entry that has no plain text`, rd.pos - 16);
    base = pkg === 'None' ? (asset === 'None' ? '' : `.${asset}`) : asset === 'None' ? pkg : `${pkg}.${asset}`;
  } else {
    const n = readName(rd, S, what);
    if (typeof n !== 'string') throw new PropsReadError(`${what} names an entry that has no plain text`, rd.pos - 8);
    base = n === 'None' ? '' : n;
  }
  const sub = utf8SubPaths(S) ? readCounted(rd, 'utf8', `${what} sub-path`) : readStr(rd, `${what} sub-path`);
  if (typeof sub !== 'string') throw new PropsReadError(`${what} sub-path is not plain text`, rd.pos);
  return sub === '' ? base : `${base}:${sub}`;
}

function utf8SubPaths(S: Session): boolean {
  // UE 5.5 (Fortnite main 192): sub-paths became UTF-8. Unversioned packages say nothing: their object versions do.
  return hasCustomVersion(S.P, CustomVersions.FortniteMain, 192, S.ue5 >= 1013);
}

export function writeSoftPath(w: Wr, S: Session, v: Json | undefined, what = 'soft object path'): void {
  const P = S.P;
  if (S.ue4 > 0 && S.ue4 < 514 && S.ue5 === 0) return writeStr(w, v, what);
  if (typeof v !== 'string') return writeFail(`${what} is not a path`, v);
  if (P.softObjectPaths && P.softObjectPaths.length > 0 && !P.cooked && S.ue5 >= ObjectVersion.SoftObjectPathList) {
    const i = P.softObjectPaths.indexOf(v);
    if (i < 0) throw new PropsWriteError(`${what}: ${JSON.stringify(v)} is not in the package's soft object path table`);
    w.i32(i);
    return;
  }
  const colon = v.indexOf(':');
  const path = colon < 0 ? v : v.slice(0, colon);
  const sub = colon < 0 ? '' : v.slice(colon + 1);
  if (S.ue5 >= ObjectVersion.SoftObjectPathRemoveAssetPathFNames) {
    const slash = path.lastIndexOf('/');
    const dot = path.indexOf('.', slash + 1);
    const pkg = dot < 0 ? path : path.slice(0, dot);
    const asset = dot < 0 ? '' : path.slice(dot + 1);
    writeName(w, S, pkg === '' ? 'None' : pkg, what);
    writeName(w, S, asset === '' ? 'None' : asset, what);
  } else {
    writeName(w, S, path === '' ? 'None' : path, what);
  }
  if (utf8SubPaths(S)) w.counted(sub, 'utf8');
  else w.fstring(sub);
}
