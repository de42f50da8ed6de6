
import { hasHexField, hexFieldBytes, PropsReadError, Rd, sameBytes, setHexField, Wr } from './io.js';
import { nativeStruct, setNestedStructs } from './native-structs.js';
import {
  isObject,
  jsonBigInt,
  jsonBool,
  jsonInt,
  PropsWriteError,
  readBool32,
  readBool8,
  readCounted,
  readF32,
  readF64,
  readGuid,
  readName,
  readRef,
  readSoftPath,
  readStr,
  writeCounted,
  writeF32,
  writeF64,
  writeFail,
  writeGuid,
  writeName,
  writeRef,
  writeSoftPath,
  writeStr,
  type Json,
  type JsonObject,
  type Session,
} from './prims.js';
import { readText, writeText } from './text.js';
import { type Ty } from './types.js';
import { readTaggedProps, writeTaggedProps } from './tagged-props.js';
import { readUnversionedProps, writeUnversionedProps } from './unversioned-props.js';

/**
 * Property values and structs: reading to the JSON form and writing it back (a struct's properties are a tagged list,
 * tagged-props.ts, or an unversioned block, unversioned-props.ts, which read their values through here). Readers
 * throw PropsReadError at the offending offset; writers throw PropsWriteError naming what was wrong.
 */

/** One property as the JSON form holds it. */
export interface PropJson {
  name: Json;
  type: string;
  /** Element of a fixed-size array (C-style `int32 X[3]`): each element is its own property. */
  arrayIndex?: number;
  value?: Json;
  /** Hex of a value the toolkit does not read (kept as it was). */
  raw?: string;
  /** Tagged: property GUID. */
  guid?: string;
  /** Tagged: hex of the tag's extension bytes (overridable-serialization data). */
  ext?: string;
  /** Tagged, UE 5.4+: the flags byte when it differs from what the other fields imply. */
  tagFlags?: number;
  /** Tagged, before 5.4: the struct GUID of a struct tag. */
  structGuid?: string;
  /** Tagged, before 5.4: the tag an array of structs stores before its elements. */
  innerTag?: JsonObject;
  /** Tagged, UE 5.4+: serialized with the type's own (binary/native) code. */
  binary?: true;
  /** Tagged, UE 5.4+: the value was skipped (no bytes). */
  skipped?: true;
  /** Unversioned: the value is all zero (no bytes; `value` shows the zero value). */
  zero?: true;
}

export type Mode = 'tagged' | 'unversioned';

/** Reading state for one block of properties. */
export interface Ctx {
  S: Session;
  mode: Mode;
  /** Struct nesting: readStruct counts it up and down again. */
  depth: number;
  /**
   * Check each value by writing it back as it is read (values that do not give their bytes back keep them as
   * `raw`). Off in the first pass of an export, whose whole write-back checks every value at once.
   */
  verify: boolean;
}

const MAX_DEPTH = 48;

/** Where a value sits: a property of its own (top), or an element of an array, set, map or optional. */
type Where = 'top' | 'elem';

function enumText(S: Session, enumName: string | undefined, value: bigint): Json {
  const e = enumName === undefined ? undefined : S.P.mappings?.enums.get(enumName);
  const member = e?.values.get(value);
  if (member === undefined) return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  return member.includes('::') ? member : `${enumName}::${member}`;
}

function enumValue(S: Session, enumName: string | undefined, v: Json | undefined): bigint {
  if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v))) return jsonBigInt(v, 'enum value');
  const e = enumName === undefined ? undefined : S.P.mappings?.enums.get(enumName);
  if (typeof v === 'string' && e) {
    for (const [value, member] of e.values) if (member === v || `${enumName}::${member}` === v) return value;
  }
  return writeFail(`enum ${enumName ?? '?'} has no value`, v);
}

const INT_TYPES: Record<string, [(rd: Rd) => bigint, (w: Wr, x: bigint) => void]> = {
  ByteProperty: [(rd) => BigInt(rd.u8()), (w, x) => w.u8(Number(x))],
  Int8Property: [(rd) => BigInt(rd.i8()), (w, x) => w.u8(Number(x))],
  Int16Property: [(rd) => BigInt(rd.i16()), (w, x) => w.i16(Number(x))],
  UInt16Property: [(rd) => BigInt(rd.u16()), (w, x) => w.u16(Number(x))],
  IntProperty: [(rd) => BigInt(rd.i32()), (w, x) => w.i32(Number(x))],
  UInt32Property: [(rd) => BigInt(rd.u32()), (w, x) => w.u32(Number(x))],
  Int64Property: [(rd) => rd.i64(), (w, x) => w.i64(x)],
  UInt64Property: [(rd) => rd.u64(), (w, x) => w.u64(x)],
};

export function readValue(rd: Rd, c: Ctx, ty: Ty, where: Where, byteAsName = false): Json {
  const S = c.S;
  switch (ty.t) {
    case 'BoolProperty':
      return readBool8(rd, 'bool');
    case 'ByteProperty':
      if (byteAsName || (c.mode === 'tagged' && where === 'top' && ty.enumName !== undefined && ty.enumName !== 'None')) return readName(rd, S, 'enum value');
      return rd.u8('byte');
    case 'Int8Property':
      return rd.i8();
    case 'Int16Property':
      return rd.i16();
    case 'UInt16Property':
      return rd.u16();
    case 'IntProperty':
      return rd.i32();
    case 'UInt32Property':
      return rd.u32();
    case 'Int64Property':
      return rd.i64().toString();
    case 'UInt64Property':
      return rd.u64().toString();
    case 'FloatProperty':
      return readF32(rd);
    case 'DoubleProperty':
      return readF64(rd);
    case 'StrProperty':
    case 'VerseStringProperty':
      return readStr(rd);
    case 'Utf8StrProperty':
      return readCounted(rd, 'utf8', 'UTF-8 string');
    case 'AnsiStrProperty':
      return readCounted(rd, 'latin1', 'ANSI string');
    case 'NameProperty':
      return readName(rd, S);
    case 'TextProperty':
      return readText(rd, S);
    case 'ObjectProperty':
    case 'ClassProperty':
    case 'WeakObjectProperty':
    case 'InterfaceProperty':
      return readRef(rd, S);
    case 'LazyObjectProperty':
      return readGuid(rd, 'lazy object GUID');
    case 'SoftObjectProperty':
    case 'SoftClassProperty':
    case 'AssetObjectProperty':
    case 'AssetClassProperty':
      return readSoftPath(rd, S);
    case 'DelegateProperty':
      return { object: readRef(rd, S), function: readName(rd, S, 'delegate function') };
    case 'MulticastDelegateProperty':
    case 'MulticastInlineDelegateProperty':
    case 'MulticastSparseDelegateProperty': {
      const n = rd.count('delegate count', 12);
      const out: Json[] = [];
      for (let i = 0; i < n; i++) out.push({ object: readRef(rd, S), function: readName(rd, S, 'delegate function') });
      return out;
    }
    case 'FieldPathProperty': {
      const n = rd.count('field path length', 8);
      const path: Json[] = [];
      for (let i = 0; i < n; i++) path.push(readName(rd, S, 'field path'));
      // UE 4.25+ (every release this reads) stores the owner after the path.
      return { path, owner: readRef(rd, S, 'field path owner') };
    }
    case 'EnumProperty':
      if (c.mode === 'tagged') return readName(rd, S, 'enum value');
      return enumText(S, ty.enumName, (INT_TYPES[ty.inner?.t ?? 'ByteProperty'] ?? INT_TYPES.ByteProperty!)[0](rd));
    case 'StructProperty':
      return readStruct(rd, c, ty.struct);
    case 'ArrayProperty':
      return readArray(rd, c, ty);
    case 'SetProperty': {
      const inner = ty.inner ?? fail(rd, 'set has no element type');
      const removed = readElements(rd, c, inner, 'removed set element');
      const items = readElements(rd, c, inner, 'set element');
      return removed.length ? { removed, items } : items;
    }
    case 'MapProperty': {
      const k = ty.inner ?? fail(rd, 'map has no key type');
      const v = ty.value ?? fail(rd, 'map has no value type');
      const removed = readElements(rd, c, k, 'removed map key');
      const n = rd.count('map entry count');
      const entries: Json[] = [];
      for (let i = 0; i < n; i++) entries.push([readValue(rd, c, k, 'elem'), readValue(rd, c, v, 'elem')]);
      return removed.length ? { removed, entries } : entries;
    }
    case 'OptionalProperty': {
      const inner = ty.inner ?? fail(rd, 'optional has no value type');
      return readBool32(rd, 'optional is set') ? { value: readValue(rd, c, inner, 'elem') } : null;
    }
  }
  return fail(rd, `property type ${ty.t} is not known`);
}

export function fail(rd: Rd, message: string): never {
  throw new PropsReadError(message, rd.pos);
}

function readElements(rd: Rd, c: Ctx, ty: Ty, what: string): Json[] {
  const n = rd.count(`${what} count`);
  const out: Json[] = [];
  for (let i = 0; i < n; i++) out.push(readValue(rd, c, ty, 'elem'));
  return out;
}

function readArray(rd: Rd, c: Ctx, ty: Ty): Json {
  const inner = ty.inner ?? fail(rd, 'array has no element type');
  const n = rd.count('array count');
  if (n === 0) return [];
  // Bytes of a tagged array are enum names when each element takes more than a byte.
  const byteAsName = c.mode === 'tagged' && inner.t === 'ByteProperty' && (rd.left / n > 1 || (inner.enumName !== undefined && inner.enumName !== 'None' && rd.left / n >= 8));
  const out: Json[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = readValue(rd, c, inner, 'elem', byteAsName);
  return out;
}

/** The struct name of an InstancedStruct's type reference (the object name at the end of its path). */
function objectNameOfPath(path: string): string {
  const m = /[.:]([^.:/]+)$/.exec(path);
  return m ? m[1]! : path.slice(path.lastIndexOf('/') + 1);
}

export function readStruct(rd: Rd, c: Ctx, name: string | undefined, binary = false): Json {
  const native = nativeStruct(name);
  if (native) return native.read(rd, c.S, c);
  if (c.depth >= MAX_DEPTH) fail(rd, `structs nest more than ${MAX_DEPTH} levels`);
  c.depth++;
  try {
    if (name === 'InstancedStruct') return readInstancedStruct(rd, c);
    if (binary) fail(rd, `struct ${name} is serialized natively and the toolkit does not know its layout`);
    if (c.mode === 'tagged') return readTaggedProps(rd, c, false).props as unknown as Json;
    if (name === undefined) fail(rd, 'struct has no name');
    const block = readUnversionedProps(rd, c, name);
    return block.header === undefined ? (block.props as unknown as Json) : ({ header: block.header, properties: block.props } as unknown as Json);
  } finally {
    c.depth--;
  }
}

function readInstancedStruct(rd: Rd, c: Ctx): Json {
  const struct = readRef(rd, c.S, 'instanced struct type');
  const at = rd.pos;
  const size = rd.i32('instanced struct size');
  if (size < 0 || size > rd.left) throw new PropsReadError(`instanced struct of ${size} bytes does not fit the ${rd.left} bytes left`, at);
  const start = rd.pos;
  const end = start + size;
  if (struct === '' || typeof struct !== 'string') {
    rd.pos = end;
    return size === 0 ? { struct } : setHexField({ struct }, 'raw', rd.b.subarray(start, end));
  }
  const sub = rd.sub(start, end);
  let value: Json | undefined;
  try {
    value = readStruct(sub, c, objectNameOfPath(struct));
    if (sub.pos !== end) value = undefined;
  } catch {
    value = undefined;
  }
  if (value !== undefined && c.verify) {
    const w = new Wr(size + 16);
    try {
      writeStruct(w, c, objectNameOfPath(struct), value);
      if (!sameBytes(w.view(), rd.b.subarray(start, end))) value = undefined;
    } catch {
      value = undefined;
    }
  }
  rd.pos = end;
  return value === undefined ? setHexField({ struct }, 'raw', rd.b.subarray(start, end)) : { struct, value };
}

export function writeValue(w: Wr, c: Ctx, ty: Ty, v: Json | undefined, where: Where, what: string): void {
  const S = c.S;
  switch (ty.t) {
    case 'BoolProperty':
      return w.u8(jsonBool(v, what) ? 1 : 0);
    case 'ByteProperty':
      if (typeof v === 'string' || isObject(v)) return writeName(w, S, v, what);
      return w.u8(jsonInt(v, what, 0, 255));
    case 'Int8Property':
      return w.u8(jsonInt(v, what, -128, 127));
    case 'Int16Property':
      return w.i16(jsonInt(v, what, -32768, 32767));
    case 'UInt16Property':
      return w.u16(jsonInt(v, what, 0, 65535));
    case 'IntProperty':
      return w.i32(jsonInt(v, what, -0x80000000, 0x7fffffff));
    case 'UInt32Property':
      return w.u32(jsonInt(v, what, 0, 0xffffffff));
    case 'Int64Property':
      return w.i64(jsonBigInt(v, what));
    case 'UInt64Property':
      return w.u64(jsonBigInt(v, what));
    case 'FloatProperty':
      return writeF32(w, v, what);
    case 'DoubleProperty':
      return writeF64(w, v, what);
    case 'StrProperty':
    case 'VerseStringProperty':
      return writeStr(w, v, what);
    case 'Utf8StrProperty':
      return writeCounted(w, v, 'utf8', what);
    case 'AnsiStrProperty':
      return writeCounted(w, v, 'latin1', what);
    case 'NameProperty':
      return writeName(w, S, v, what);
    case 'TextProperty':
      return writeText(w, S, v);
    case 'ObjectProperty':
    case 'ClassProperty':
    case 'WeakObjectProperty':
    case 'InterfaceProperty':
      return writeRef(w, S, v, what);
    case 'LazyObjectProperty':
      return writeGuid(w, v, what);
    case 'SoftObjectProperty':
    case 'SoftClassProperty':
    case 'AssetObjectProperty':
    case 'AssetClassProperty':
      return writeSoftPath(w, S, v, what);
    case 'DelegateProperty':
      if (!isObject(v)) return writeFail(`${what} is not a delegate`, v);
      writeRef(w, S, v.object, what);
      return writeName(w, S, v.function, what);
    case 'MulticastDelegateProperty':
    case 'MulticastInlineDelegateProperty':
    case 'MulticastSparseDelegateProperty': {
      if (!Array.isArray(v)) return writeFail(`${what} is not an array of delegates`, v);
      w.i32(v.length);
      for (const d of v) {
        if (!isObject(d)) return writeFail(`${what} element is not a delegate`, d);
        writeRef(w, S, d.object, what);
        writeName(w, S, d.function, what);
      }
      return;
    }
    case 'FieldPathProperty': {
      if (!isObject(v) || !Array.isArray(v.path)) return writeFail(`${what} is not a field path`, v);
      w.i32(v.path.length);
      for (const n of v.path) writeName(w, S, n, what);
      return writeRef(w, S, v.owner ?? '', what);
    }
    case 'EnumProperty': {
      if (c.mode === 'tagged') return writeName(w, S, v, what);
      const x = enumValue(S, ty.enumName, v);
      return (INT_TYPES[ty.inner?.t ?? 'ByteProperty'] ?? INT_TYPES.ByteProperty!)[1](w, x);
    }
    case 'StructProperty':
      return writeStruct(w, c, ty.struct, v);
    case 'ArrayProperty': {
      if (!Array.isArray(v)) return writeFail(`${what} is not an array`, v);
      w.i32(v.length);
      const inner = ty.inner ?? writeFail(`${what} has no element type`, undefined);
      writeElements(w, c, inner, v, what, '');
      return;
    }
    case 'SetProperty': {
      const inner = ty.inner ?? writeFail(`${what} has no element type`, undefined);
      const removed = isObject(v) && Array.isArray(v.removed) ? v.removed : [];
      const items = Array.isArray(v) ? v : isObject(v) && Array.isArray(v.items) ? v.items : writeFail(`${what} is not an array`, v);
      w.i32(removed.length);
      writeElements(w, c, inner, removed, what, '.removed');
      w.i32(items.length);
      writeElements(w, c, inner, items, what, '');
      return;
    }
    case 'MapProperty': {
      const k = ty.inner ?? writeFail(`${what} has no key type`, undefined);
      const vt = ty.value ?? writeFail(`${what} has no value type`, undefined);
      const removed = isObject(v) && Array.isArray(v.removed) ? v.removed : [];
      const entries = Array.isArray(v) ? v : isObject(v) && Array.isArray(v.entries) ? v.entries : writeFail(`${what} is not an array of [key, value] pairs`, v);
      w.i32(removed.length);
      writeElements(w, c, k, removed, what, '.removed');
      w.i32(entries.length);
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        if (!Array.isArray(e) || e.length !== 2) writeFail(`${what}[${i}] is not a [key, value] pair`, e);
        try {
          writeValue(w, c, k, e[0], 'elem', what);
          writeValue(w, c, vt, e[1], 'elem', what);
        } catch (err) {
          throw relabel(err, what, `${what}[${i}]`);
        }
      }
      return;
    }
    case 'OptionalProperty': {
      const inner = ty.inner ?? writeFail(`${what} has no value type`, undefined);
      if (v === null || v === undefined) return w.u32(0);
      if (!isObject(v) || !('value' in v)) return writeFail(`${what} is not null or {value}`, v);
      w.u32(1);
      return writeValue(w, c, inner, v.value, 'elem', what);
    }
  }
  void where;
  throw new PropsWriteError(`${what}: property type ${ty.t} is not known`);
}

/**
 * Elements of an array, set or map, each written with the container's label: the element's own label
 * (`what[i]`) is made only for a message, not for each element written.
 */
function writeElements(w: Wr, c: Ctx, ty: Ty, items: readonly Json[], what: string, part: string): void {
  for (let i = 0; i < items.length; i++) {
    try {
      writeValue(w, c, ty, items[i], 'elem', what);
    } catch (err) {
      throw relabel(err, what, `${what}${part}[${i}]`);
    }
  }
}

/** A write error whose message starts with the label `from`, with `to` in its place. */
export function relabel(err: unknown, from: string, to: string): unknown {
  if (err instanceof Error && !(err instanceof PropsReadError) && err.message.startsWith(from)) return new PropsWriteError(to + err.message.slice(from.length));
  return err;
}

/** The label of a property in write errors until one is thrown (then it becomes `property "<name>"`). */
export const PROPERTY = '\u0001property';
export const propertyLabel = (name: Json) => `property ${JSON.stringify(name)}`;

export function writeStruct(w: Wr, c: Ctx, name: string | undefined, v: Json | undefined): void {
  const native = nativeStruct(name);
  if (native) return native.write(w, c.S, v, c);
  if (name === 'InstancedStruct') {
    if (!isObject(v)) return writeFail('instanced struct is not an object', v);
    writeRef(w, c.S, v.struct ?? '', 'instanced struct type');
    const slot = w.slot();
    const start = w.len;
    if (hasHexField(v, 'raw')) w.bytes(hexFieldBytes(v, 'raw', 'instanced struct'));
    else if (v.value !== undefined && typeof v.struct === 'string' && v.struct !== '') writeStruct(w, c, objectNameOfPath(v.struct), v.value);
    w.patchI32(slot, w.len - start);
    return;
  }
  if (c.mode === 'tagged') {
    if (!Array.isArray(v)) return writeFail(`struct ${name ?? ''} is not an array of properties`, v);
    return writeTaggedProps(w, c, v as unknown as PropJson[], false);
  }
  if (name === undefined) throw new PropsWriteError('struct has no name');
  if (Array.isArray(v)) return writeUnversionedProps(w, c, name, v as unknown as PropJson[]);
  if (isObject(v) && Array.isArray(v.properties)) return writeUnversionedProps(w, c, name, v.properties as unknown as PropJson[], typeof v.header === 'string' ? v.header : undefined);
  return writeFail(`struct ${name} is not an array of properties`, v);
}

/** The value an unversioned zero-mask bit stands for (shown in JSON, and compared with on writing). */
export function zeroValue(S: Session, ty: Ty): Json {
  switch (ty.t) {
    case 'BoolProperty':
      return false;
    case 'Int64Property':
    case 'UInt64Property':
      return '0';
    case 'StrProperty':
    case 'Utf8StrProperty':
    case 'AnsiStrProperty':
    case 'VerseStringProperty':
    case 'ObjectProperty':
    case 'ClassProperty':
    case 'WeakObjectProperty':
    case 'InterfaceProperty':
    case 'SoftObjectProperty':
    case 'SoftClassProperty':
    case 'AssetObjectProperty':
      return '';
    case 'NameProperty':
      return 'None';
    case 'TextProperty':
      return { flags: 0, history: 'None' };
    case 'LazyObjectProperty':
      return '00000000000000000000000000000000';
    case 'DelegateProperty':
      return { object: '', function: 'None' };
    case 'FieldPathProperty':
      return { path: [], owner: '' };
    case 'MulticastDelegateProperty':
    case 'MulticastInlineDelegateProperty':
    case 'MulticastSparseDelegateProperty':
    case 'ArrayProperty':
    case 'SetProperty':
    case 'MapProperty':
      return [];
    case 'OptionalProperty':
      return null;
    case 'EnumProperty':
      return enumText(S, ty.enumName, 0n);
    case 'StructProperty': {
      const n = nativeStruct(ty.struct);
      if (n) return n.zero(S);
      if (ty.struct === 'InstancedStruct') return { struct: '' };
      return [];
    }
  }
  return 0;
}

export function newCtx(S: Session, mode: Mode, verify: boolean): Ctx {
  return { S, mode, depth: 0, verify };
}

// Native structs that hold a property-serialized struct (a Niagara type definition) read it through these.
setNestedStructs((rd, c, name) => readStruct(rd, c as Ctx, name), (w, c, name, v) => writeStruct(w, c as Ctx, name, v));
