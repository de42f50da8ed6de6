import { schemaOf, type Schema } from './schema.js';
import { ObjectVersion } from './context.js';
import { hasHexField, hex, hexFieldBytes, PropsReadError, Rd, sameBytes, setHexField, unhex, Wr } from './io.js';
import { nativeStruct, setNestedStructs } from './native-structs.js';
import {
  isObject,
  jsonBigInt,
  jsonBool,
  jsonInt,
  nameJsonText,
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
import { formatTypeNode, parsedType, tyOfNode, type Ty, type TypeNode } from './types.js';

/**
 * Property values, tagged property lists and unversioned property blocks: reading to the JSON form and writing it
 * back. Readers throw PropsReadError at the offending offset; writers throw PropsWriteError naming what was wrong.
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
interface Ctx {
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

// ---------------------------------------------------------------------------------------------------------------
// Values

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

function fail(rd: Rd, message: string): never {
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
function relabel(err: unknown, from: string, to: string): unknown {
  if (err instanceof Error && !(err instanceof PropsReadError) && err.message.startsWith(from)) return new PropsWriteError(to + err.message.slice(from.length));
  return err;
}

/** The label of a property in write errors until one is thrown (then it becomes `property "<name>"`). */
const PROPERTY = '\u0001property';
const propertyLabel = (name: Json) => `property ${JSON.stringify(name)}`;

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

// ---------------------------------------------------------------------------------------------------------------
// Tagged properties

/** What a tag says about its property, read from either layout. */
interface Tag {
  prop: PropJson;
  node: TypeNode;
  ty: Ty;
  size: number;
  flags: number;
  boolValue: boolean;
}

function nodeName(rd: Rd, S: Session): string {
  const at = rd.pos;
  const n = readName(rd, S, 'type name');
  if (typeof n !== 'string') throw new PropsReadError('a type name has no plain text', at);
  return n;
}

/** A complete type name as read from a 5.4+ tag, kept per package by its bytes (a package repeats few types). */
export interface TagType {
  bytes: Uint8Array;
  node: TypeNode;
  ty: Ty;
  type: string;
}

/** The complete type name of a 5.4+ tag: its nodes in pre-order, each a name and the count of its parameters. */
function readTypeNew(rd: Rd, S: Session): TagType {
  // Find where the type ends (12 bytes a node) and a hash of its bytes; anything odd is left to the full read.
  const start = rd.pos;
  const v = rd.v;
  let at = start;
  let pending = 1;
  let h = 0x811c9dc5;
  for (let nodes = 0; pending > 0 && nodes <= 256 && at + 12 <= rd.end; nodes++) {
    const inner = v.getInt32(at + 8, true);
    if (inner < 0 || inner > 256) break;
    h = Math.imul(h ^ v.getInt32(at, true), 0x01000193);
    h = Math.imul(h ^ v.getInt32(at + 4, true), 0x01000193);
    h = Math.imul(h ^ inner, 0x01000193);
    pending += inner - 1;
    at += 12;
  }
  const bucket = pending === 0 ? S.tagTypes.get(h) : undefined;
  if (bucket) {
    const b = rd.b;
    for (const t of bucket) {
      const tb = t.bytes;
      if (tb.length !== at - start) continue;
      let i = 0;
      while (i < tb.length && tb[i] === b[start + i]) i++;
      if (i === tb.length) {
        rd.pos = at;
        return t;
      }
    }
  }
  const flat: { name: string; inner: number }[] = [];
  pending = 1;
  while (pending > 0) {
    if (flat.length > 256) fail(rd, 'type name has more than 256 nodes');
    const n = nodeName(rd, S);
    const countAt = rd.pos;
    const inner = rd.i32('type parameter count');
    if (inner < 0 || inner > 256) throw new PropsReadError(`type parameter count ${inner} is invalid`, countAt);
    flat.push({ name: n, inner });
    pending += inner - 1;
  }
  let k = 0;
  const build = (): TypeNode => {
    const f = flat[k++]!;
    const params: TypeNode[] = [];
    for (let i = 0; i < f.inner; i++) params.push(build());
    return { name: f.name, params };
  };
  const node = build();
  const t: TagType = { bytes: rd.b.slice(start, rd.pos), node, ty: tyOfNode(node), type: formatTypeNode(node) };
  if (rd.pos === at) {
    if (bucket) bucket.push(t);
    else S.tagTypes.set(h, [t]);
  }
  return t;
}

function readTagNew(rd: Rd, S: Session, name: Json): Tag {
  const { node, ty, type } = readTypeNew(rd, S);
  const sizeAt = rd.pos;
  const size = rd.i32('property size');
  if (size < 0) throw new PropsReadError(`property size ${size} is negative`, sizeAt);
  const flags = rd.u8('tag flags');
  const prop: PropJson = { name, type };
  if (flags & 0x01) prop.arrayIndex = rd.i32('array index');
  if (flags & 0x02) prop.guid = readGuid(rd, 'property GUID');
  if (flags & 0x04) prop.ext = readExtension(rd);
  if (flags & 0x08) prop.binary = true;
  if (flags & 0x20) prop.skipped = true;
  if (flags & 0xc0) throw new PropsReadError(`tag flags 0x${flags.toString(16)} hold unknown bits`, sizeAt + 4);
  return { prop, node, ty, size, flags, boolValue: (flags & 0x10) !== 0 };
}

/** The tag extension byte and what its bits add (the overridable operation and a 32-bit flag). */
function readExtension(rd: Rd): string {
  const start = rd.pos;
  const ext = rd.u8('tag extension');
  if (ext & 0x02) {
    rd.u8('overridable operation');
    rd.u32('experimental overridable logic');
  }
  if (ext & ~0x02) throw new PropsReadError(`tag extension 0x${ext.toString(16)} holds unknown bits`, start);
  return hex(rd.b.subarray(start, rd.pos));
}

function readTagOld(rd: Rd, S: Session, name: Json): Tag {
  const type = nodeName(rd, S);
  const sizeAt = rd.pos;
  const size = rd.i32('property size');
  if (size < 0) throw new PropsReadError(`property size ${size} is negative`, sizeAt);
  const arrayIndex = rd.i32('array index');
  let p0: string | undefined;
  let p1: string | undefined;
  let boolValue = false;
  let structGuid: string | undefined;
  switch (type) {
    case 'StructProperty':
      p0 = nodeName(rd, S);
      if (S.ue4 >= ObjectVersion.StructGuidInPropertyTag || S.ue5 > 0) structGuid = readGuid(rd, 'struct GUID');
      break;
    case 'BoolProperty':
      boolValue = readBool8(rd, 'bool value');
      break;
    case 'ByteProperty':
    case 'EnumProperty':
    case 'ArrayProperty':
    case 'SetProperty':
    case 'OptionalProperty':
      p0 = nodeName(rd, S);
      break;
    case 'MapProperty':
      p0 = nodeName(rd, S);
      p1 = nodeName(rd, S);
      break;
  }
  const { node, ty, type: typeText } = oldTagType(type, p0, p1);
  const prop: PropJson = { name, type: typeText };
  if (arrayIndex !== 0) prop.arrayIndex = arrayIndex;
  if (structGuid !== undefined && structGuid !== '00000000000000000000000000000000') prop.structGuid = structGuid;
  if (S.ue4 >= ObjectVersion.PropertyGuidInPropertyTag || S.ue5 > 0) {
    if (readBool8(rd, 'has property GUID')) prop.guid = readGuid(rd, 'property GUID');
  }
  if (S.ue5 >= ObjectVersion.PropertyTagExtension) {
    const e = readExtension(rd);
    if (e !== '00') prop.ext = e;
  }
  return { prop, node, ty, size, flags: 0, boolValue };
}

/** Types of pre-5.4 tags (a type name and up to two parameter names), made once: a package repeats few. Shared: never modify. */
const oldTagTypes = new Map<string, { node: TypeNode; ty: Ty; type: string }>();

function oldTagType(type: string, p0: string | undefined, p1: string | undefined): { node: TypeNode; ty: Ty; type: string } {
  const key = p0 === undefined ? type : p1 === undefined ? `${type}\u0000${p0}` : `${type}\u0000${p0}\u0000${p1}`;
  let t = oldTagTypes.get(key);
  if (t === undefined) {
    const params: TypeNode[] = [];
    if (p0 !== undefined) params.push({ name: p0, params: [] });
    if (p1 !== undefined) params.push({ name: p1, params: [] });
    const node: TypeNode = { name: type, params };
    t = { node, ty: tyOfNode(node), type: formatTypeNode(node) };
    // Bounded: types are few, but packages are input.
    if (oldTagTypes.size >= 4096) oldTagTypes.clear();
    oldTagTypes.set(key, t);
  }
  return t;
}

function newLayout(S: Session): boolean {
  return S.ue5 >= ObjectVersion.PropertyTagCompleteTypeName;
}

/** Flags a tag gets from its JSON fields (UE 5.4+ layout). */
function derivedFlags(p: PropJson, boolValue: boolean): number {
  return (p.arrayIndex ? 0x01 : 0) | (p.guid ? 0x02 : 0) | (p.ext ? 0x04 : 0) | (p.binary ? 0x08 : 0) | (boolValue ? 0x10 : 0) | (p.skipped ? 0x20 : 0);
}

export interface TaggedBlock {
  props: PropJson[];
  /** Objects of UE5 1011+: hex of the serialization-control byte(s) before the first tag. */
  control?: string;
}

/**
 * A tagged property list up to its `None` terminator. Each value is decoded inside its tag's size; one that does not
 * read there (a type or struct layout the toolkit does not know) keeps its bytes as hex instead, and so does one that
 * does not write back to its bytes when the context asks for each value to be checked (`verify`).
 */
export function readTaggedProps(rd: Rd, c: Ctx, isObject: boolean): TaggedBlock {
  const S = c.S;
  const block: TaggedBlock = { props: [] };
  if (isObject && S.ue5 >= ObjectVersion.PropertyTagExtension) {
    const start = rd.pos;
    const control = rd.u8('serialization control');
    if (control & 0x02) rd.u8('overridable operation');
    if (control & ~0x03) throw new PropsReadError(`serialization control 0x${control.toString(16)} holds unknown bits`, start);
    block.control = hex(rd.b.subarray(start, rd.pos));
  }
  for (let count = 0; ; count++) {
    if (count > 100_000) fail(rd, 'more than 100000 properties');
    const tagAt = rd.pos;
    const name = readName(rd, S, 'property name');
    if (name === 'None') break;
    const tag = newLayout(S) ? readTagNew(rd, S, name) : readTagOld(rd, S, name);
    const start = rd.pos;
    if (tag.size > rd.left) throw new PropsReadError(`property ${JSON.stringify(name)} of ${tag.size} bytes runs past the end (${rd.left} bytes left)`, tagAt);
    const end = start + tag.size;
    const prop = tag.prop;
    if (tag.ty.t === 'BoolProperty' && tag.size === 0) {
      prop.value = tag.boolValue;
    } else if (!prop.skipped || tag.size > 0) {
      readTaggedValue(rd, c, tag, start, end);
    }
    if (newLayout(S)) {
      const derived = derivedFlags(prop, tag.ty.t === 'BoolProperty' && tag.size === 0 ? tag.boolValue : false);
      if (derived !== tag.flags) prop.tagFlags = tag.flags;
    }
    rd.pos = end;
    block.props.push(prop);
  }
  return block;
}

const KNOWN_TYPES = new Set([
  'BoolProperty', 'ByteProperty', 'Int8Property', 'Int16Property', 'UInt16Property', 'IntProperty', 'UInt32Property', 'Int64Property',
  'UInt64Property', 'FloatProperty', 'DoubleProperty', 'StrProperty', 'VerseStringProperty', 'Utf8StrProperty', 'AnsiStrProperty',
  'NameProperty', 'TextProperty', 'ObjectProperty', 'ClassProperty', 'WeakObjectProperty', 'InterfaceProperty', 'LazyObjectProperty',
  'SoftObjectProperty', 'SoftClassProperty', 'AssetObjectProperty', 'AssetClassProperty', 'DelegateProperty', 'MulticastDelegateProperty',
  'MulticastInlineDelegateProperty', 'MulticastSparseDelegateProperty', 'FieldPathProperty', 'EnumProperty', 'StructProperty',
  'ArrayProperty', 'SetProperty', 'MapProperty', 'OptionalProperty',
]);

function readTaggedValue(rd: Rd, c: Ctx, tag: Tag, start: number, end: number): void {
  const prop = tag.prop;
  if (!KNOWN_TYPES.has(tag.ty.t)) {
    c.S.notes.push(`${c.S.current} property ${JSON.stringify(prop.name)} at offset 0x${start.toString(16)}: unknown property type ${tag.ty.t}; its ${end - start} bytes are kept as they are`);
  }
  // The value is read inside its tag's size: the reader's end moves there for it (no reader made per value).
  const outerEnd = rd.end;
  rd.pos = start;
  rd.end = end;
  let value: Json | undefined;
  let innerTag: JsonObject | undefined;
  try {
    if (tag.ty.t === 'StructProperty') value = readStruct(rd, c, tag.ty.struct, prop.binary === true);
    else if (tag.ty.t === 'ArrayProperty' && !newLayout(c.S) && tag.ty.inner?.t === 'StructProperty' && (c.S.ue4 >= ObjectVersion.InnerArrayTagInfo || c.S.ue5 > 0)) {
      const r = readOldStructArray(rd, c);
      value = r.value;
      innerTag = r.innerTag;
    } else value = readValue(rd, c, tag.ty, 'top');
    if (rd.pos !== end) value = undefined;
  } catch {
    value = undefined;
  }
  rd.end = outerEnd;
  if (value !== undefined && c.verify) {
    // Written back, the value must give the same bytes, or it stays raw.
    try {
      const w = new Wr(end - start + 16);
      const trial: PropJson = { ...prop, value };
      if (innerTag) trial.innerTag = innerTag;
      writeTaggedValue(w, c, trial, tag.ty);
      if (!sameBytes(w.view(), rd.b.subarray(start, end))) value = undefined;
    } catch {
      value = undefined;
    }
  }
  if (value === undefined) setHexField(prop, 'raw', rd.b.subarray(start, end));
  else {
    prop.value = value;
    if (innerTag) prop.innerTag = innerTag;
  }
}

/** Before UE 5.4, an array of structs stores one tag for its elements (with the struct's name) after the count. */
function readOldStructArray(rd: Rd, c: Ctx): { value: Json; innerTag: JsonObject } {
  const S = c.S;
  const n = rd.count('array count');
  const name = readName(rd, S, 'inner tag name');
  const tag = readTagOld(rd, S, name);
  if (tag.size > rd.left) fail(rd, `array inner tag of ${tag.size} bytes runs past the end`);
  const innerTag: JsonObject = { name, type: tag.prop.type };
  for (const k of ['arrayIndex', 'structGuid', 'guid', 'ext'] as const) if (tag.prop[k] !== undefined) innerTag[k] = tag.prop[k]!;
  const out: Json[] = [];
  for (let i = 0; i < n; i++) out.push(readStruct(rd, c, tag.ty.struct));
  return { value: out, innerTag };
}

/** Writes a tagged value; its messages name the property `PROPERTY` (the caller puts the name in). */
function writeTaggedValue(w: Wr, c: Ctx, p: PropJson, ty: Ty): void {
  const what = PROPERTY;
  if (hasHexField(p, 'raw')) {
    w.bytes(hexFieldBytes(p, 'raw', what));
    return;
  }
  if (ty.t === 'StructProperty') return writeStruct(w, c, ty.struct, p.value);
  if (ty.t === 'ArrayProperty' && !newLayout(c.S) && ty.inner?.t === 'StructProperty' && (c.S.ue4 >= ObjectVersion.InnerArrayTagInfo || c.S.ue5 > 0)) {
    if (!Array.isArray(p.value)) return writeFail(`${what} is not an array`, p.value);
    const it = p.innerTag ?? { name: p.name, type: 'StructProperty' };
    const { node } = parsedType(String(it.type));
    w.i32(p.value.length);
    const innerName = it.name ?? p.name;
    writeName(w, c.S, innerName, 'inner tag name');
    const sizeAt = writeTagOld(w, c.S, { ...(it as unknown as PropJson), name: innerName }, node, false);
    const start = w.len;
    for (const e of p.value) writeStruct(w, c, node.params[0]?.name, e);
    w.patchI32(sizeAt, w.len - start);
    return;
  }
  writeValue(w, c, ty, p.value, 'top', what);
}

/** Writes a pre-5.4 tag; returns where its size goes. */
function writeTagOld(w: Wr, S: Session, p: PropJson, node: TypeNode, boolValue: boolean): number {
  writeName(w, S, node.name, 'type name');
  const sizeAt = w.slot();
  w.i32(p.arrayIndex ?? 0);
  const param = (i: number) => writeName(w, S, node.params[i]?.name ?? 'None', 'type name');
  switch (node.name) {
    case 'StructProperty':
      param(0);
      if (S.ue4 >= ObjectVersion.StructGuidInPropertyTag || S.ue5 > 0) writeGuid(w, p.structGuid ?? '00000000000000000000000000000000');
      break;
    case 'BoolProperty':
      w.u8(boolValue ? 1 : 0);
      break;
    case 'ByteProperty':
    case 'EnumProperty':
    case 'ArrayProperty':
    case 'SetProperty':
    case 'OptionalProperty':
      param(0);
      break;
    case 'MapProperty':
      param(0);
      param(1);
      break;
  }
  if (S.ue4 >= ObjectVersion.PropertyGuidInPropertyTag || S.ue5 > 0) {
    w.u8(p.guid ? 1 : 0);
    if (p.guid) writeGuid(w, p.guid);
  }
  if (S.ue5 >= ObjectVersion.PropertyTagExtension) w.bytes(p.ext ? unhex(p.ext, 'tag extension') : ZERO_BYTE);
  return sizeAt;
}
const ZERO_BYTE = new Uint8Array(1);

function writeTagNew(w: Wr, S: Session, p: PropJson, node: TypeNode, boolValue: boolean): number {
  // The type's bytes depend only on the name map: made once per type and package.
  let bytes = S.typeBytes.get(p.type);
  if (bytes === undefined) {
    const t = new Wr(64);
    const walk = (n: TypeNode) => {
      writeName(t, S, n.name, 'type name');
      t.i32(n.params.length);
      n.params.forEach(walk);
    };
    walk(node);
    bytes = t.done();
    S.typeBytes.set(p.type, bytes);
  }
  w.bytes(bytes);
  const sizeAt = w.slot();
  const flags = p.tagFlags ?? derivedFlags(p, boolValue);
  w.u8(flags);
  if (flags & 0x01) w.i32(p.arrayIndex ?? 0);
  if (flags & 0x02) writeGuid(w, p.guid ?? '00000000000000000000000000000000');
  if (flags & 0x04) w.bytes(unhex(p.ext ?? '00', 'tag extension'));
  return sizeAt;
}

export function writeTaggedProps(w: Wr, c: Ctx, props: readonly PropJson[], isObject: boolean, control?: string): void {
  const S = c.S;
  if (isObject && S.ue5 >= ObjectVersion.PropertyTagExtension) w.bytes(unhex(control ?? '00', 'serialization control'));
  for (const p of props) {
    if (p === null || typeof p !== 'object' || typeof p.type !== 'string') writeFail('property is not an object with a type', p as unknown as Json);
    let node: TypeNode;
    let ty: Ty;
    try {
      ({ node, ty } = parsedType(p.type));
    } catch (e) {
      throw new PropsWriteError(`${propertyLabel(p.name)}: ${(e as Error).message}`);
    }
    try {
      writeName(w, S, p.name, 'property name');
      const hasRaw = hasHexField(p, 'raw');
      const inTag = ty.t === 'BoolProperty' && !hasRaw;
      const boolValue = inTag ? jsonBool(p.value ?? false, PROPERTY) : false;
      const sizeAt = newLayout(S) ? writeTagNew(w, S, p, node, boolValue) : writeTagOld(w, S, p, node, boolValue);
      const start = w.len;
      if (!inTag && !(p.skipped && p.value === undefined && !hasRaw)) writeTaggedValue(w, c, p, ty);
      w.patchI32(sizeAt, w.len - start);
    } catch (err) {
      throw relabel(err, PROPERTY, propertyLabel(p.name));
    }
  }
  writeName(w, S, 'None', 'property name');
}

// ---------------------------------------------------------------------------------------------------------------
// Unversioned properties

export interface UnversionedBlock {
  props: PropJson[];
  /** Hex of the header when the engine's header of these properties would not be the same bytes. */
  header?: string;
}

/** Header entries as numbers: the schema index times two, plus one when the value is zero (its mask bit set). */
type HeaderEntry = number;

function readHeader(rd: Rd): HeaderEntry[] {
  const start = rd.pos;
  let maskBits = 0;
  for (let n = 0; ; n++) {
    if (n > 65536) fail(rd, 'unversioned header has too many fragments');
    const x = rd.u16('unversioned header fragment');
    if (x & 0x80) maskBits += x >>> 9;
    if (x & 0x100) break;
  }
  const fragsEnd = rd.pos;
  let mask: Uint8Array | undefined;
  if (maskBits > 0) mask = rd.bytes(maskBits <= 8 ? 1 : maskBits <= 16 ? 2 : Math.ceil(maskBits / 32) * 4, 'unversioned zero mask');
  const out: HeaderEntry[] = [];
  let index = 0;
  let bit = 0;
  for (let at = start; at < fragsEnd; at += 2) {
    const x = rd.v.getUint16(at, true);
    index += x & 0x7f;
    const values = x >>> 9;
    for (let i = 0; i < values; i++) {
      let zero = 0;
      if (mask !== undefined && x & 0x80) {
        zero = (mask[bit >> 3]! >> (bit & 7)) & 1;
        bit++;
      }
      out.push(index++ * 2 + zero);
    }
  }
  return out;
}

/**
 * The header the engine writes for these (sorted) entries: fragments of up to 127 skipped and 127 stored indices.
 * With no entries at all, the engine's one fragment skips the schema's first `schemaSize` indices (at most 127).
 */
function writeHeader(w: Wr, entries: readonly HeaderEntry[], schemaSize: number | undefined): void {
  if (entries.length === 0) {
    w.u16(Math.min(schemaSize ?? 0, 127) | 0x100);
    return;
  }
  // Fragment k: skip[k] indices skipped, count[k] stored, the first at bits[first[k]]; zeros[k] if any is zero.
  const skip = [0];
  const count = [0];
  const zeros = [false];
  const first = [0];
  const bits: number[] = [];
  let k = 0;
  let next = 0;
  const fragment = () => {
    k++;
    skip.push(0);
    count.push(0);
    zeros.push(false);
    first.push(bits.length);
  };
  for (const e of entries) {
    const index = Math.floor(e / 2);
    while (next < index) {
      if (count[k]! > 0 || skip[k] === 127) fragment();
      skip[k]!++;
      next++;
    }
    if (count[k] === 127) fragment();
    count[k]!++;
    if (e & 1) zeros[k] = true;
    bits.push(e & 1);
    next++;
  }
  while (k > 0 && count[k] === 0) k--;
  let maskBits = 0;
  for (let i = 0; i <= k; i++) {
    w.u16(skip[i]! | (zeros[i] ? 0x80 : 0) | (i === k ? 0x100 : 0) | (count[i]! << 9));
    if (zeros[i]) maskBits += count[i]!;
  }
  if (maskBits > 0) {
    const mask = new Uint8Array(maskBits <= 8 ? 1 : maskBits <= 16 ? 2 : Math.ceil(maskBits / 32) * 4);
    let b = 0;
    for (let i = 0; i <= k; i++) {
      if (!zeros[i]) continue;
      for (let j = first[i]!; j < first[i]! + count[i]!; j++, b++) if (bits[j]) mask[b >> 3]! |= 1 << (b & 7);
    }
    w.bytes(mask);
  }
}

function structSchema(c: Ctx, name: string, rd?: Rd): Schema {
  const s = c.S.structDef(name);
  if (!s) {
    const message = c.S.P.mappings ? `the mappings have no struct or class ${name}` : `unversioned properties of ${name} need type mappings (a .usmap)`;
    throw rd ? new PropsReadError(message, rd.pos) : new PropsWriteError(message);
  }
  return schemaOf(c.S, s);
}

/** How many indices the schema has, when all of its supers are known. */
const schemaSize = (schema: Schema): number | undefined => (schema.missingSuper === undefined ? schema.slots.length : undefined);

export function readUnversionedProps(rd: Rd, c: Ctx, structName: string): UnversionedBlock {
  const S = c.S;
  const schema = structSchema(c, structName, rd);
  const headerStart = rd.pos;
  const entries = readHeader(rd);
  const headerEnd = rd.pos;
  const props: PropJson[] = new Array(entries.length);
  for (let k = 0; k < entries.length; k++) {
    const e = entries[k]!;
    const index = Math.floor(e / 2);
    const slot = schema.slots[index];
    if (!slot) {
      if (schema.missingSuper !== undefined && index >= schema.slots.length) throw new PropsReadError(`schema index ${index} of ${structName} lies in its super struct ${schema.missingSuper}, which neither the package nor the mappings describe`, rd.pos);
      throw new PropsReadError(`the mappings of ${structName} have no property at schema index ${index}`, rd.pos);
    }
    const p: PropJson = { name: slot.property.name, type: slot.type };
    if (slot.property.arraySize > 1) p.arrayIndex = slot.arrayIndex;
    if (e & 1) {
      p.zero = true;
      p.value = zeroValue(S, slot.ty);
    } else {
      try {
        p.value = readValue(rd, c, slot.ty, 'top');
      } catch (err) {
        if (err instanceof PropsReadError) throw new PropsReadError(`property ${slot.property.name} of ${structName}: ${err.message}`, err.at);
        throw err;
      }
    }
    props[k] = p;
  }
  const block: UnversionedBlock = { props };
  // The JSON keeps the header only when the engine would not write the same one for these properties.
  const w = c.S.scratch();
  writeHeader(w, entries, schemaSize(schema));
  const headerBytes = rd.b.subarray(headerStart, headerEnd);
  if (!sameBytes(w.view(), headerBytes)) block.header = hex(headerBytes);
  return block;
}

export function writeUnversionedProps(w: Wr, c: Ctx, structName: string, props: readonly PropJson[], header?: string): void {
  const S = c.S;
  const schema = structSchema(c, structName);
  const items = props.map((p) => {
    const text = nameJsonText(p.name);
    if (text === undefined) writeFail('property name', p.name);
    const arrayIndex = p.arrayIndex ?? 0;
    const first = schema.byName.get(text.toLowerCase());
    const slot = first === undefined ? undefined : schema.slots[first];
    if (!slot || !Number.isInteger(arrayIndex) || arrayIndex < 0 || arrayIndex >= slot.property.arraySize) throw new PropsWriteError(`${structName} has no property ${text}${p.arrayIndex ? `[${p.arrayIndex}]` : ''} in the mappings`);
    const zero = p.zero === true && (p.value === undefined || JSON.stringify(p.value) === JSON.stringify(zeroValue(S, slot.ty)));
    return { p, index: first! + arrayIndex, ty: slot.ty, zero };
  });
  items.sort((a, b) => a.index - b.index);
  for (let i = 1; i < items.length; i++) if (items[i]!.index === items[i - 1]!.index) throw new PropsWriteError(`${structName}: property ${JSON.stringify(items[i]!.p.name)} appears twice`);
  const entries = items.map((x) => x.index * 2 + (x.zero ? 1 : 0));
  if (header !== undefined) {
    const stored = unhex(header, 'unversioned header');
    const check = readHeader(new Rd(stored));
    if (check.length === entries.length && check.every((e, i) => e === entries[i])) w.bytes(stored);
    else writeHeader(w, entries, schemaSize(schema));
  } else writeHeader(w, entries, schemaSize(schema));
  for (const x of items) {
    if (x.zero) continue;
    try {
      if (hasHexField(x.p, 'raw')) w.bytes(hexFieldBytes(x.p, 'raw', PROPERTY));
      else writeValue(w, c, x.ty, x.p.value, 'top', PROPERTY);
    } catch (err) {
      throw relabel(err, PROPERTY, propertyLabel(x.p.name));
    }
  }
}

export function newCtx(S: Session, mode: Mode, verify: boolean): Ctx {
  return { S, mode, depth: 0, verify };
}
export type { Ctx };

// Native structs that hold a property-serialized struct (a Niagara type definition) read it through these.
setNestedStructs((rd, c, name) => readStruct(rd, c as Ctx, name), (w, c, name, v) => writeStruct(w, c as Ctx, name, v));
