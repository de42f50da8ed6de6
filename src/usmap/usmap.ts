import { brotliDecompress } from '../codecs/brotli.js';
import { oodleDecompress } from '../codecs/oodle/index.js';
import { zstdDecompress } from '../codecs/zstd-js.js';
import { IoStoreError } from '../errors.js';
import { ByteReader } from '../util/bytes.js';

/**
 * `.usmap` type mappings: the names, enums and struct layouts (property names and types in schema order) that
 * unversioned property data leaves out. Written by mapping dumpers from a running game; versions 0-4 of the format.
 */

export const USMAP_MAGIC = 0x30c4;

/** EUsmapVersion: each adds one thing to the layout. */
export const UsmapVersion = {
  Initial: 0,
  /** A flag, then (when set) the package file versions, custom versions and net CL after the header. */
  PackageVersioning: 1,
  /** Name lengths become u16. */
  LongFName: 2,
  /** Enum value counts become u16. */
  LargeEnums: 3,
  /** Each enum value carries its u64 value before its name. */
  ExplicitEnumValues: 4,
} as const;
const LATEST_VERSION = 4;

export const USMAP_COMPRESSION = ['None', 'Oodle', 'Brotli', 'Zstandard'] as const;
export type UsmapCompression = (typeof USMAP_COMPRESSION)[number];

/** The property types of the format, by their stored byte (EPropertyType). */
export const USMAP_PROPERTY_TYPES = [
  'ByteProperty', 'BoolProperty', 'IntProperty', 'FloatProperty', 'ObjectProperty', 'NameProperty', 'DelegateProperty',
  'DoubleProperty', 'ArrayProperty', 'StructProperty', 'StrProperty', 'TextProperty', 'InterfaceProperty',
  'MulticastDelegateProperty', 'WeakObjectProperty', 'LazyObjectProperty', 'AssetObjectProperty', 'SoftObjectProperty',
  'UInt64Property', 'UInt32Property', 'UInt16Property', 'Int64Property', 'Int16Property', 'Int8Property', 'MapProperty',
  'SetProperty', 'EnumProperty', 'FieldPathProperty', 'OptionalProperty', 'Utf8StrProperty', 'AnsiStrProperty',
  'ClassProperty', 'MulticastInlineDelegateProperty', 'SoftClassProperty', 'VerseStringProperty',
  'VerseDynamicProperty', 'VerseFunctionProperty',
] as const;

/** A property's type: the type name, and what it is made of (struct, enum, inner and value types). */
export interface UsmapPropertyType {
  type: string;
  /** StructProperty: the struct's name. */
  structType?: string;
  /** EnumProperty (and ByteProperty as enum): the enum's name. */
  enumName?: string;
  /** Array, Set, Optional: the element type; Map: the key type; EnumProperty: the underlying integer type. */
  inner?: UsmapPropertyType;
  /** Map: the value type. */
  value?: UsmapPropertyType;
}

export interface UsmapProperty {
  name: string;
  /** Schema index of the first element (fixed arrays take `arraySize` consecutive indices). */
  schemaIndex: number;
  arraySize: number;
  type: UsmapPropertyType;
}

export interface UsmapStruct {
  name: string;
  superType?: string;
  /** Schema indices this struct adds (its super's follow after them). */
  propertyCount: number;
  /** By schema index, [0, propertyCount); holes are properties the dump left out. */
  properties: (UsmapProperty | undefined)[];
}

export interface UsmapEnum {
  name: string;
  /** Value → name (the name as dumped, with or without the `Enum::` prefix). */
  values: Map<bigint, string>;
}

export interface Usmap {
  version: number;
  compression: UsmapCompression;
  /** Version 1+: the object versions and custom versions of the game, when the dump recorded them. */
  packageVersions?: { fileVersionUE4: number; fileVersionUE5: number; customVersions: { key: string; version: number }[]; netCL: number };
  names: string[];
  enums: Map<string, UsmapEnum>;
  /** By lower-cased name (FNames compare without case). */
  structs: Map<string, UsmapStruct>;
}

export interface ParseUsmapOptions {
  /** Name used in error messages. */
  source?: string;
}

/** The largest decoded size accepted: mappings of the biggest games are tens of MB. */
const MAX_DECODED = 512 << 20;

function decode(r: ByteReader, compression: UsmapCompression, stored: number, size: number, at: number): Uint8Array {
  const src = r.bytesView(stored, 'compressed mappings');
  if (size > MAX_DECODED) r.fail('BAD_VALUE', `decoded size ${size} is over the ${MAX_DECODED}-byte limit`, at);
  try {
    switch (compression) {
      case 'None':
        if (stored !== size) r.fail('BAD_VALUE', `uncompressed mappings store ${stored} bytes but declare ${size}`, at);
        return src;
      case 'Oodle':
        return oodleDecompress(src, size);
      case 'Brotli':
        return brotliDecompress(src, size);
      case 'Zstandard':
        return zstdDecompress(src, size);
    }
  } catch (e) {
    if (e instanceof IoStoreError && e.file !== undefined) throw e;
    r.fail('CODEC', `${compression} payload does not decode (${(e as Error).message})`, at);
  }
}

/** Parses a `.usmap` file (any version, any of its compressions). */
export function parseUsmap(bytes: Uint8Array, options: ParseUsmapOptions = {}): Usmap {
  const source = options.source ?? 'usmap';
  const r = new ByteReader(bytes, source);
  const magic = r.u16('magic');
  if (magic !== USMAP_MAGIC) r.fail('BAD_MAGIC', `not a .usmap file (magic 0x${magic.toString(16)}, expected 0x30c4)`, 0);
  const version = r.u8('version');
  if (version > LATEST_VERSION) r.fail('UNSUPPORTED', `usmap version ${version} is newer than the latest known (${LATEST_VERSION})`, 2);
  let packageVersions: Usmap['packageVersions'];
  if (version >= UsmapVersion.PackageVersioning && r.i32('versioning flag') !== 0) {
    const fileVersionUE4 = r.i32('UE4 version');
    const fileVersionUE5 = r.i32('UE5 version');
    const count = r.i32('custom version count');
    if (count < 0) r.fail('BAD_VALUE', `custom version count ${count} is negative`, r.pos - 4);
    r.needArray(count, 20, 'custom versions');
    const customVersions = [];
    for (let i = 0; i < count; i++) {
      const key = Array.from(r.bytesView(16, 'custom version key'), (b) => b.toString(16).padStart(2, '0')).join('');
      customVersions.push({ key, version: r.i32('custom version') });
    }
    packageVersions = { fileVersionUE4, fileVersionUE5, customVersions, netCL: r.u32('net CL') };
  }
  const at = r.pos;
  const method = r.u8('compression method');
  const compression = USMAP_COMPRESSION[method];
  if (compression === undefined) r.fail('UNSUPPORTED', `unknown compression method ${method}`, at);
  const stored = r.u32('compressed size');
  const size = r.u32('decompressed size');
  const data = decode(r, compression, stored, size, at);
  const body = parseBody(new ByteReader(data, `${source} (decoded mappings)`), version);
  const out: Usmap = { version, compression, ...body };
  if (packageVersions) out.packageVersions = packageVersions;
  return out;
}

const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/**
 * Names of a dump (tens of thousands, nearly all ASCII) as strings: ASCII ones as Latin-1 in one native call where
 * Node's Buffer exists, the rest as UTF-8. A decoder call per name costs several times more.
 */
function nameDecoder(bytes: Uint8Array): (at: number, n: number) => string {
  const utf8 = new TextDecoder();
  const buf = NodeBuffer?.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return (at, n) => {
    const end = at + n;
    let ascii = true;
    for (let i = at; i < end; i++) {
      if (bytes[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (buf !== undefined) return buf.toString(ascii ? 'latin1' : 'utf8', at, end);
    if (!ascii || n > 64) return utf8.decode(bytes.subarray(at, end));
    let s = '';
    for (let i = at; i < end; i++) s += String.fromCharCode(bytes[i]!);
    return s;
  };
}

function parseBody(r: ByteReader, version: number): Pick<Usmap, 'names' | 'enums' | 'structs'> {
  const nameCount = r.u32('name count');
  r.needArray(nameCount, 1, 'names');
  const names: string[] = new Array(nameCount);
  const text = nameDecoder(r.bytes);
  for (let i = 0; i < nameCount; i++) {
    const n = version >= UsmapVersion.LongFName ? r.u16('name length') : r.u8('name length');
    r.need(n, 'name');
    names[i] = text(r.pos, n);
    r.pos += n;
  }
  const name = (what: string): string | undefined => {
    const at = r.pos;
    const i = r.i32(what);
    if (i === -1) return undefined;
    if (i < 0 || i >= nameCount) r.fail('BAD_VALUE', `${what} names entry ${i} of ${nameCount}`, at);
    return names[i];
  };
  const required = (what: string): string => name(what) ?? r.fail('BAD_VALUE', `${what} is missing`, r.pos - 4);

  const enumCount = r.u32('enum count');
  r.needArray(enumCount, 5, 'enums');
  const enums = new Map<string, UsmapEnum>();
  for (let i = 0; i < enumCount; i++) {
    const enumName = required('enum name');
    const n = version >= UsmapVersion.LargeEnums ? r.u16('enum value count') : r.u8('enum value count');
    const values = new Map<bigint, string>();
    for (let j = 0; j < n; j++) {
      const value = version >= UsmapVersion.ExplicitEnumValues ? r.u64('enum value') : BigInt(j);
      values.set(value, required('enum value name'));
    }
    // Some dumps hold the same enum twice: the first one wins, as in other readers.
    if (!enums.has(enumName)) enums.set(enumName, { name: enumName, values });
  }

  const structCount = r.u32('struct count');
  r.needArray(structCount, 12, 'structs');
  const structs = new Map<string, UsmapStruct>();
  const readType = (depth: number): UsmapPropertyType => {
    if (depth > 64) r.fail('BAD_VALUE', 'property type nests more than 64 levels', r.pos);
    const at = r.pos;
    const code = r.u8('property type');
    const type = USMAP_PROPERTY_TYPES[code] ?? r.fail('UNSUPPORTED', `unknown property type ${code}`, at);
    const t: UsmapPropertyType = { type };
    switch (type) {
      case 'EnumProperty':
        t.inner = readType(depth + 1);
        t.enumName = required('enum name');
        break;
      case 'StructProperty':
        t.structType = required('struct name');
        break;
      case 'ArrayProperty':
      case 'SetProperty':
      case 'OptionalProperty':
        t.inner = readType(depth + 1);
        break;
      case 'MapProperty':
        t.inner = readType(depth + 1);
        t.value = readType(depth + 1);
        break;
    }
    return t;
  };
  for (let i = 0; i < structCount; i++) {
    const structName = required('struct name');
    const superType = name('super struct name');
    const propertyCount = r.u16('property count');
    const serializable = r.u16('serializable property count');
    const properties: (UsmapProperty | undefined)[] = new Array(propertyCount).fill(undefined);
    for (let j = 0; j < serializable; j++) {
      const at = r.pos;
      const schemaIndex = r.u16('schema index');
      const arraySize = r.u8('array size');
      const propName = required('property name');
      const type = readType(0);
      if (schemaIndex + arraySize > propertyCount) {
        r.fail('BAD_VALUE', `property ${propName} of ${structName} takes schema indices ${schemaIndex}..${schemaIndex + arraySize - 1} of ${propertyCount}`, at);
      }
      const p: UsmapProperty = { name: propName, schemaIndex, arraySize, type };
      for (let k = 0; k < arraySize; k++) properties[schemaIndex + k] = p;
    }
    const s: UsmapStruct = { name: structName, propertyCount, properties };
    if (superType !== undefined) s.superType = superType;
    structs.set(structName.toLowerCase(), s);
  }
  return { names, enums, structs };
}

/** The struct (or class) of that name, without case. */
export function usmapStruct(m: Usmap, name: string): UsmapStruct | undefined {
  return m.structs.get(name.toLowerCase());
}

/**
 * The property at a schema index of a struct, walking into super structs past the struct's own indices (a struct's
 * own properties come first, then its super's). Returns the property and its element index (fixed arrays).
 */
export function usmapPropertyAt(m: Usmap, s: UsmapStruct, index: number): { property: UsmapProperty; arrayIndex: number } | undefined {
  let cur: UsmapStruct | undefined = s;
  let i = index;
  for (let depth = 0; cur && depth < 256; depth++) {
    if (i < cur.propertyCount) {
      const p = cur.properties[i];
      return p ? { property: p, arrayIndex: i - p.schemaIndex } : undefined;
    }
    i -= cur.propertyCount;
    cur = cur.superType === undefined ? undefined : usmapStruct(m, cur.superType);
  }
  return undefined;
}
