import { usmapPropertyAt, usmapStruct, type UsmapStruct } from '../usmap/usmap.js';
import { ObjectVersion } from './context.js';
import { hex, PropsReadError, Rd, sameBytes, unhex, Wr } from './io.js';
import { nativeStruct } from './native-structs.js';
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
import { formatTypeNode, nodeOfTy, parseTypeNode, tyOfNode, tyOfUsmap, type Ty, type TypeNode } from './types.js';

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
  depth: number;
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
  if (c.depth > MAX_DEPTH) fail(rd, `structs nest more than ${MAX_DEPTH} levels`);
  const native = nativeStruct(name);
  if (native) return native.read(rd, c.S);
  if (name === 'InstancedStruct') return readInstancedStruct(rd, c);
  if (binary) fail(rd, `struct ${name} is serialized natively and the toolkit does not know its layout`);
  const inner = { ...c, depth: c.depth + 1 };
  if (c.mode === 'tagged') return readTaggedProps(rd, inner, false).props as unknown as Json;
  if (name === undefined) fail(rd, 'struct has no name');
  const block = readUnversionedProps(rd, inner, name);
  return block.header === undefined ? (block.props as unknown as Json) : ({ header: block.header, properties: block.props } as unknown as Json);
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
    return size === 0 ? { struct } : { struct, raw: hex(rd.b.subarray(start, end)) };
  }
  const sub = new Rd(rd.b, start, end);
  let value: Json | undefined;
  try {
    value = readStruct(sub, { ...c, depth: c.depth + 1 }, objectNameOfPath(struct));
    if (sub.pos !== end) value = undefined;
  } catch {
    value = undefined;
  }
  if (value !== undefined) {
    const w = new Wr(size + 16);
    try {
      writeStruct(w, { ...c, depth: c.depth + 1 }, objectNameOfPath(struct), value);
      if (!sameBytes(w.view(), rd.b.subarray(start, end))) value = undefined;
    } catch {
      value = undefined;
    }
  }
  rd.pos = end;
  return value === undefined ? { struct, raw: hex(rd.b.subarray(start, end)) } : { struct, value };
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
      v.forEach((e, i) => writeValue(w, c, inner, e, 'elem', `${what}[${i}]`));
      return;
    }
    case 'SetProperty': {
      const inner = ty.inner ?? writeFail(`${what} has no element type`, undefined);
      const removed = isObject(v) && Array.isArray(v.removed) ? v.removed : [];
      const items = Array.isArray(v) ? v : isObject(v) && Array.isArray(v.items) ? v.items : writeFail(`${what} is not an array`, v);
      w.i32(removed.length);
      removed.forEach((e, i) => writeValue(w, c, inner, e, 'elem', `${what}.removed[${i}]`));
      w.i32(items.length);
      items.forEach((e, i) => writeValue(w, c, inner, e, 'elem', `${what}[${i}]`));
      return;
    }
    case 'MapProperty': {
      const k = ty.inner ?? writeFail(`${what} has no key type`, undefined);
      const vt = ty.value ?? writeFail(`${what} has no value type`, undefined);
      const removed = isObject(v) && Array.isArray(v.removed) ? v.removed : [];
      const entries = Array.isArray(v) ? v : isObject(v) && Array.isArray(v.entries) ? v.entries : writeFail(`${what} is not an array of [key, value] pairs`, v);
      w.i32(removed.length);
      removed.forEach((e, i) => writeValue(w, c, k, e, 'elem', `${what}.removed[${i}]`));
      w.i32(entries.length);
      entries.forEach((e, i) => {
        if (!Array.isArray(e) || e.length !== 2) writeFail(`${what}[${i}] is not a [key, value] pair`, e);
        writeValue(w, c, k, e[0], 'elem', `${what}[${i}] key`);
        writeValue(w, c, vt, e[1], 'elem', `${what}[${i}] value`);
      });
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

export function writeStruct(w: Wr, c: Ctx, name: string | undefined, v: Json | undefined): void {
  const native = nativeStruct(name);
  if (native) return native.write(w, c.S, v);
  if (name === 'InstancedStruct') {
    if (!isObject(v)) return writeFail('instanced struct is not an object', v);
    writeRef(w, c.S, v.struct ?? '', 'instanced struct type');
    const slot = w.slot();
    const start = w.len;
    if (typeof v.raw === 'string') w.bytes(unhex(v.raw, 'instanced struct'));
    else if (v.value !== undefined && typeof v.struct === 'string' && v.struct !== '') writeStruct(w, { ...c, depth: c.depth + 1 }, objectNameOfPath(v.struct), v.value);
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

function readTagNew(rd: Rd, S: Session, name: Json): Tag {
  // The complete type name: its nodes in pre-order, each with the count of its parameters.
  const flat: { name: string; inner: number }[] = [];
  let pending = 1;
  while (pending > 0) {
    if (flat.length > 256) fail(rd, 'type name has more than 256 nodes');
    const n = nodeName(rd, S);
    const at = rd.pos;
    const inner = rd.i32('type parameter count');
    if (inner < 0 || inner > 256) throw new PropsReadError(`type parameter count ${inner} is invalid`, at);
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
  const sizeAt = rd.pos;
  const size = rd.i32('property size');
  if (size < 0) throw new PropsReadError(`property size ${size} is negative`, sizeAt);
  const flags = rd.u8('tag flags');
  const prop: PropJson = { name, type: formatTypeNode(node) };
  if (flags & 0x01) prop.arrayIndex = rd.i32('array index');
  if (flags & 0x02) prop.guid = readGuid(rd, 'property GUID');
  if (flags & 0x04) prop.ext = readExtension(rd);
  if (flags & 0x08) prop.binary = true;
  if (flags & 0x20) prop.skipped = true;
  if (flags & 0xc0) throw new PropsReadError(`tag flags 0x${flags.toString(16)} hold unknown bits`, sizeAt + 4);
  return { prop, node, ty: tyOfNode(node), size, flags, boolValue: (flags & 0x10) !== 0 };
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
  const params: TypeNode[] = [];
  let boolValue = false;
  let structGuid: string | undefined;
  switch (type) {
    case 'StructProperty':
      params.push({ name: nodeName(rd, S), params: [] });
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
      params.push({ name: nodeName(rd, S), params: [] });
      break;
    case 'MapProperty':
      params.push({ name: nodeName(rd, S), params: [] }, { name: nodeName(rd, S), params: [] });
      break;
  }
  const node: TypeNode = { name: type, params };
  const prop: PropJson = { name, type: formatTypeNode(node) };
  if (arrayIndex !== 0) prop.arrayIndex = arrayIndex;
  if (structGuid !== undefined && structGuid !== '00000000000000000000000000000000') prop.structGuid = structGuid;
  if (S.ue4 >= ObjectVersion.PropertyGuidInPropertyTag || S.ue5 > 0) {
    if (readBool8(rd, 'has property GUID')) prop.guid = readGuid(rd, 'property GUID');
  }
  if (S.ue5 >= ObjectVersion.PropertyTagExtension) {
    const e = readExtension(rd);
    if (e !== '00') prop.ext = e;
  }
  return { prop, node, ty: tyOfNode(node), size, flags: 0, boolValue };
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
 * A tagged property list up to its `None` terminator. Each value is decoded inside its tag's size and then written
 * back: a value that does not reproduce its bytes (a type or struct layout the toolkit does not know) keeps them as
 * hex instead.
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
  const bytes = rd.b.subarray(start, end);
  const sub = new Rd(rd.b, start, end);
  let value: Json | undefined;
  let innerTag: JsonObject | undefined;
  try {
    if (tag.ty.t === 'StructProperty') value = readStruct(sub, { ...c, depth: c.depth + 1 }, tag.ty.struct, prop.binary === true);
    else if (tag.ty.t === 'ArrayProperty' && !newLayout(c.S) && tag.ty.inner?.t === 'StructProperty' && (c.S.ue4 >= ObjectVersion.InnerArrayTagInfo || c.S.ue5 > 0)) {
      const r = readOldStructArray(sub, c);
      value = r.value;
      innerTag = r.innerTag;
    } else value = readValue(sub, c, tag.ty, 'top');
    if (sub.pos !== end) value = undefined;
  } catch {
    value = undefined;
  }
  if (value !== undefined) {
    // Written back, the value must give the same bytes, or it stays raw.
    try {
      const w = new Wr(bytes.length + 16);
      const trial: PropJson = { ...prop, value };
      if (innerTag) trial.innerTag = innerTag;
      writeTaggedValue(w, c, trial, tag.ty);
      if (!sameBytes(w.view(), bytes)) value = undefined;
    } catch {
      value = undefined;
    }
  }
  if (value === undefined) prop.raw = hex(bytes);
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
  for (let i = 0; i < n; i++) out.push(readStruct(rd, { ...c, depth: c.depth + 1 }, tag.ty.struct));
  return { value: out, innerTag };
}

function writeTaggedValue(w: Wr, c: Ctx, p: PropJson, ty: Ty): void {
  const what = `property ${JSON.stringify(p.name)}`;
  if (p.raw !== undefined) {
    w.bytes(unhex(p.raw, what));
    return;
  }
  if (ty.t === 'StructProperty') return writeStruct(w, { ...c, depth: c.depth + 1 }, ty.struct, p.value);
  if (ty.t === 'ArrayProperty' && !newLayout(c.S) && ty.inner?.t === 'StructProperty' && (c.S.ue4 >= ObjectVersion.InnerArrayTagInfo || c.S.ue5 > 0)) {
    if (!Array.isArray(p.value)) return writeFail(`${what} is not an array`, p.value);
    const it = p.innerTag ?? { name: p.name, type: 'StructProperty' };
    const node = parseTypeNode(String(it.type));
    w.i32(p.value.length);
    const sizeAt = writeTagOld(w, c.S, { ...(it as unknown as PropJson), name: it.name ?? p.name }, node, false);
    const start = w.len;
    for (const e of p.value) writeStruct(w, { ...c, depth: c.depth + 1 }, node.params[0]?.name, e);
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
  const walk = (n: TypeNode) => {
    writeName(w, S, n.name, 'type name');
    w.i32(n.params.length);
    n.params.forEach(walk);
  };
  walk(node);
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
    const what = `property ${JSON.stringify(p.name)}`;
    let node: TypeNode;
    try {
      node = parseTypeNode(p.type);
    } catch (e) {
      throw new PropsWriteError(`${what}: ${(e as Error).message}`);
    }
    const ty = tyOfNode(node);
    writeName(w, S, p.name, 'property name');
    const inTag = ty.t === 'BoolProperty' && p.raw === undefined;
    const boolValue = inTag ? jsonBool(p.value ?? false, what) : false;
    const sizeAt = newLayout(S) ? writeTagNew(w, S, p, node, boolValue) : writeTagOld(w, S, p, node, boolValue);
    const start = w.len;
    if (!inTag && !(p.skipped && p.value === undefined && p.raw === undefined)) writeTaggedValue(w, c, p, ty);
    w.patchI32(sizeAt, w.len - start);
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

interface HeaderEntry {
  index: number;
  zero: boolean;
}

function readHeader(rd: Rd): HeaderEntry[] {
  const frags: { skip: number; zeros: boolean; values: number; last: boolean }[] = [];
  let maskBits = 0;
  for (;;) {
    if (frags.length > 65536) fail(rd, 'unversioned header has too many fragments');
    const x = rd.u16('unversioned header fragment');
    const f = { skip: x & 0x7f, zeros: (x & 0x80) !== 0, values: x >>> 9, last: (x & 0x100) !== 0 };
    frags.push(f);
    if (f.zeros) maskBits += f.values;
    if (f.last) break;
  }
  let mask: Uint8Array = new Uint8Array(0);
  if (maskBits > 0) {
    const bytes = maskBits <= 8 ? 1 : maskBits <= 16 ? 2 : Math.ceil(maskBits / 32) * 4;
    mask = rd.bytes(bytes, 'unversioned zero mask');
  }
  const out: HeaderEntry[] = [];
  let index = 0;
  let bit = 0;
  for (const f of frags) {
    index += f.skip;
    for (let i = 0; i < f.values; i++) {
      let zero = false;
      if (f.zeros) {
        zero = ((mask[bit >> 3]! >> (bit & 7)) & 1) === 1;
        bit++;
      }
      out.push({ index: index++, zero });
    }
  }
  return out;
}

/** The header the engine writes for these (sorted) schema indices. */
function writeHeader(w: Wr, entries: readonly HeaderEntry[]): void {
  type Frag = { skip: number; values: number; zeros: boolean; bits: boolean[] };
  const frags: Frag[] = [{ skip: 0, values: 0, zeros: false, bits: [] }];
  let next = 0;
  const last = () => frags[frags.length - 1]!;
  for (const e of entries) {
    while (next < e.index) {
      const f = last();
      if (f.values > 0 || f.skip === 127) frags.push({ skip: 0, values: 0, zeros: false, bits: [] });
      last().skip++;
      next++;
    }
    if (last().values === 127) frags.push({ skip: 0, values: 0, zeros: false, bits: [] });
    const f = last();
    f.values++;
    f.zeros ||= e.zero;
    f.bits.push(e.zero);
    next++;
  }
  while (frags.length > 1 && last().values === 0) frags.pop();
  const bits: boolean[] = [];
  frags.forEach((f, i) => {
    w.u16(f.skip | (f.zeros ? 0x80 : 0) | (i === frags.length - 1 ? 0x100 : 0) | (f.values << 9));
    if (f.zeros) bits.push(...f.bits);
  });
  if (bits.length > 0) {
    const bytes = bits.length <= 8 ? 1 : bits.length <= 16 ? 2 : Math.ceil(bits.length / 32) * 4;
    const mask = new Uint8Array(bytes);
    bits.forEach((b, i) => {
      if (b) mask[i >> 3]! |= 1 << (i & 7);
    });
    w.bytes(mask);
  }
}

function schemaOf(c: Ctx, name: string, rd?: Rd): UsmapStruct {
  const m = c.S.P.mappings;
  if (!m) throw rd ? new PropsReadError(`unversioned properties of ${name} need type mappings (a .usmap)`, rd.pos) : new PropsWriteError(`unversioned properties of ${name} need type mappings (a .usmap)`);
  const s = usmapStruct(m, name);
  if (!s) throw rd ? new PropsReadError(`the mappings have no struct or class ${name}`, rd.pos) : new PropsWriteError(`the mappings have no struct or class ${name}`);
  return s;
}

export function readUnversionedProps(rd: Rd, c: Ctx, structName: string): UnversionedBlock {
  const S = c.S;
  const schema = schemaOf(c, structName, rd);
  const headerStart = rd.pos;
  const entries = readHeader(rd);
  const headerBytes = rd.b.subarray(headerStart, rd.pos);
  const props: PropJson[] = [];
  const m = S.P.mappings!;
  for (const e of entries) {
    const found = usmapPropertyAt(m, schema, e.index);
    if (!found) throw new PropsReadError(`the mappings of ${structName} have no property at schema index ${e.index}`, rd.pos);
    const { property, arrayIndex } = found;
    const ty = tyOfUsmap(property.type);
    const p: PropJson = { name: property.name, type: formatTypeNode(nodeOfTy(ty)) };
    if (property.arraySize > 1) p.arrayIndex = arrayIndex;
    if (e.zero) {
      p.zero = true;
      p.value = zeroValue(S, ty);
    } else {
      try {
        p.value = readValue(rd, c, ty, 'top');
      } catch (err) {
        if (err instanceof PropsReadError) throw new PropsReadError(`property ${property.name} of ${structName}: ${err.message}`, err.at);
        throw err;
      }
    }
    props.push(p);
  }
  const block: UnversionedBlock = { props };
  const w = new Wr(headerBytes.length + 8);
  writeHeader(w, entries);
  if (!sameBytes(w.view(), headerBytes)) block.header = hex(headerBytes);
  return block;
}

/** The schema index of a property (and fixed-array element) in a struct and its supers. */
function schemaIndexOf(c: Ctx, schema: UsmapStruct, name: string, arrayIndex: number): { index: number; ty: Ty } | undefined {
  const m = c.S.P.mappings!;
  const want = name.toLowerCase();
  let base = 0;
  let cur: UsmapStruct | undefined = schema;
  for (let depth = 0; cur && depth < 256; depth++) {
    for (const p of cur.properties) {
      if (p && p.name.toLowerCase() === want && arrayIndex < p.arraySize) return { index: base + p.schemaIndex + arrayIndex, ty: tyOfUsmap(p.type) };
    }
    base += cur.propertyCount;
    cur = cur.superType === undefined ? undefined : usmapStruct(m, cur.superType);
  }
  return undefined;
}

export function writeUnversionedProps(w: Wr, c: Ctx, structName: string, props: readonly PropJson[], header?: string): void {
  const S = c.S;
  const schema = schemaOf(c, structName);
  const items = props.map((p) => {
    const text = nameJsonText(p.name);
    if (text === undefined) writeFail('property name', p.name);
    const at = schemaIndexOf(c, schema, text, p.arrayIndex ?? 0);
    if (!at) throw new PropsWriteError(`${structName} has no property ${text}${p.arrayIndex ? `[${p.arrayIndex}]` : ''} in the mappings`);
    const zero = p.zero === true && (p.value === undefined || JSON.stringify(p.value) === JSON.stringify(zeroValue(S, at.ty)));
    return { p, ...at, zero };
  });
  items.sort((a, b) => a.index - b.index);
  for (let i = 1; i < items.length; i++) if (items[i]!.index === items[i - 1]!.index) throw new PropsWriteError(`${structName}: property ${JSON.stringify(items[i]!.p.name)} appears twice`);
  const entries = items.map((x) => ({ index: x.index, zero: x.zero }));
  if (header !== undefined) {
    const stored = unhex(header, 'unversioned header');
    const check = readHeader(new Rd(stored));
    if (check.length === entries.length && check.every((e, i) => e.index === entries[i]!.index && e.zero === entries[i]!.zero)) w.bytes(stored);
    else writeHeader(w, entries);
  } else writeHeader(w, entries);
  for (const x of items) {
    if (x.zero) continue;
    const what = `property ${JSON.stringify(x.p.name)}`;
    if (x.p.raw !== undefined) w.bytes(unhex(x.p.raw, what));
    else writeValue(w, c, x.ty, x.p.value, 'top', what);
  }
}

export function newCtx(S: Session, mode: Mode): Ctx {
  return { S, mode, depth: 0 };
}
export type { Ctx };
