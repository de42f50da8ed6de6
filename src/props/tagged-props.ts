import { ObjectVersion } from './context.js';
import { hasHexField, hex, hexFieldBytes, PropsReadError, Rd, sameBytes, setHexField, unhex, Wr } from './io.js';
import {
  jsonBool,
  PropsWriteError,
  readBool8,
  readGuid,
  readName,
  writeFail,
  writeGuid,
  writeName,
  type Json,
  type JsonObject,
  type Session,
} from './prims.js';
import { formatTypeNode, parsedType, tyOfNode, type Ty, type TypeNode } from './types.js';
import { fail, PROPERTY, propertyLabel, readStruct, readValue, relabel, writeStruct, writeValue, type Ctx, type PropJson } from './values.js';

/**
 * Tagged property lists (each value after a tag naming it and its type, in the pre-5.4 or the 5.4+ layout): reading
 * to the JSON form and writing back.
 */

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
