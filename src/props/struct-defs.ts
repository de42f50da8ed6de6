import type { UsmapProperty, UsmapPropertyType, UsmapStruct } from '../usmap/usmap.js';
import { customVersionKey, hasCustomVersion } from './context.js';
import { PropsReadError, type Rd } from './io.js';
import { nameText, type Session } from './prims.js';
import { objectNameOf } from './refs.js';

/**
 * Structs and classes a package defines itself (Blueprint classes, user-defined structs): their layout is in the
 * export that defines them, after its own properties: UStruct's super struct, children and, since UE 4.25, its
 * properties as FField records (type name, name, flags, array size, and what each property type adds). Unversioned
 * data of their instances and class defaults is read by that layout, as by a struct of the mappings, so a package
 * whose classes the `.usmap` does not list still reads.
 */

const FrameworkObjectVersion = customVersionKey(0xcffc743f, 0x43b04480, 0x939114df, 0x171d2073);
/** FFrameworkObjectVersion: UField stops storing Next; UStruct stores its children as an array. */
const RemoveUFieldNext = 29;
const CoreObjectVersion = customVersionKey(0x375ec13c, 0x06e448fb, 0xb50084f0, 0x262a717e);
/** FCoreObjectVersion: properties become FFields stored in their struct (UE 4.25). */
const FPropertiesVersion = 4;

/** Exports of these classes define a struct (their object name is the struct's name). */
export function definesStruct(className: string): boolean {
  return className.endsWith('GeneratedClass') || className === 'UserDefinedStruct' || className === 'Class' || className === 'ScriptStruct';
}

const MAX_FIELDS = 65536;
const MAX_NESTING = 16;

/** A name read as its text (type names, property names). */
function nameString(rd: Rd, S: Session, what: string): string {
  const at = rd.pos;
  const index = rd.i32(what);
  const number = rd.i32(what);
  const base = S.P.names[index];
  if (base === undefined || number < 0) throw new PropsReadError(`${what}: name ${index} is outside the ${S.P.names.length}-entry name map`, at);
  return nameText(base, number);
}

/** The object name an FPackageIndex refers to ('' for none). */
function refName(rd: Rd, S: Session, what: string): string {
  const i = rd.i32(what);
  return i === 0 ? '' : objectNameOf(S.P.objectPath(i));
}

/** One FField (a property) after its type name; returns its mappings type and name. */
function readField(rd: Rd, S: Session, typeName: string, depth: number): { name: string; arraySize: number; type: UsmapPropertyType } {
  if (depth > MAX_NESTING) throw new PropsReadError(`property types nest more than ${MAX_NESTING} levels`, rd.pos);
  const name = nameString(rd, S, 'property name');
  rd.u32('field flags');
  if (!S.P.cooked) {
    // Editor packages keep each field's metadata (a map of names to strings).
    if (rd.i32('has metadata') !== 0) {
      const n = rd.count('metadata count', 12);
      for (let i = 0; i < n; i++) {
        nameString(rd, S, 'metadata key');
        rd.fstring('metadata value');
      }
    }
  }
  const arraySize = rd.i32('array size');
  if (arraySize < 1 || arraySize > 0xffff) throw new PropsReadError(`property ${name} has array size ${arraySize}`, rd.pos - 4);
  rd.i32('element size');
  rd.u64('property flags');
  rd.u16('replication index');
  nameString(rd, S, 'replication notify function');
  rd.u8('replication condition');
  const type: UsmapPropertyType = { type: typeName };
  const inner = (what: string): UsmapPropertyType => {
    const t = nameString(rd, S, what);
    if (t === 'None') throw new PropsReadError(`property ${name} has no ${what}`, rd.pos - 8);
    return readField(rd, S, t, depth + 1).type;
  };
  switch (typeName) {
    case 'ByteProperty': {
      const e = refName(rd, S, 'enum');
      if (e !== '') type.enumName = e;
      break;
    }
    case 'EnumProperty': {
      const e = refName(rd, S, 'enum');
      if (e !== '') type.enumName = e;
      type.inner = inner('underlying type');
      break;
    }
    case 'StructProperty':
      type.structType = refName(rd, S, 'struct');
      break;
    case 'ObjectProperty':
    case 'ObjectPtrProperty':
    case 'WeakObjectProperty':
    case 'LazyObjectProperty':
    case 'SoftObjectProperty':
    case 'InterfaceProperty':
    case 'DelegateProperty':
    case 'MulticastDelegateProperty':
    case 'MulticastInlineDelegateProperty':
    case 'MulticastSparseDelegateProperty':
    case 'VerseFunctionProperty':
      rd.i32('class or signature');
      break;
    case 'ClassProperty':
    case 'ClassPtrProperty':
    case 'SoftClassProperty':
      rd.i32('property class');
      rd.i32('meta class');
      break;
    case 'FieldPathProperty':
      nameString(rd, S, 'field class');
      break;
    case 'ArrayProperty':
    case 'SetProperty':
    case 'OptionalProperty':
    case 'VerseStringProperty':
      type.inner = inner('element type');
      break;
    case 'MapProperty':
      type.inner = inner('key type');
      type.value = inner('value type');
      break;
    case 'BoolProperty':
      // Field size, byte offset, byte mask, field mask, bool size, native bool.
      rd.bytes(6, 'bool layout');
      break;
    case 'Int8Property':
    case 'Int16Property':
    case 'IntProperty':
    case 'Int64Property':
    case 'UInt16Property':
    case 'UInt32Property':
    case 'UInt64Property':
    case 'FloatProperty':
    case 'DoubleProperty':
    case 'NameProperty':
    case 'StrProperty':
    case 'Utf8StrProperty':
    case 'AnsiStrProperty':
    case 'TextProperty':
    case 'VerseDynamicProperty':
      break;
    default:
      throw new PropsReadError(`property ${name} has a type this release does not know (${typeName})`, rd.pos);
  }
  // Mappings name object-pointer properties by their serialized type.
  if (type.type === 'ObjectPtrProperty') type.type = 'ObjectProperty';
  if (type.type === 'ClassPtrProperty') type.type = 'ClassProperty';
  return { name, arraySize, type };
}

/**
 * The layout of the struct an export defines, read from its UStruct data (`rd` at the data after the export's own
 * properties and object GUID). Its properties take schema indices in the order stored; the super struct's follow.
 */
export function readStructDef(rd: Rd, S: Session, name: string): UsmapStruct {
  const superName = refName(rd, S, 'super struct');
  if (!hasCustomVersion(S.P, FrameworkObjectVersion, RemoveUFieldNext)) {
    throw new PropsReadError(`struct ${name} stores its fields as a linked list (before UE 4.18): its layout is not read`, rd.pos);
  }
  const children = rd.count('children count', 4);
  rd.bytes(children * 4, 'children');
  if (!hasCustomVersion(S.P, CoreObjectVersion, FPropertiesVersion)) {
    throw new PropsReadError(`struct ${name} keeps its properties as separate exports (before UE 4.25): its layout is not read`, rd.pos);
  }
  const count = rd.count('property count', 16);
  if (count > MAX_FIELDS) throw new PropsReadError(`struct ${name} has ${count} properties`, rd.pos - 4);
  const properties: (UsmapProperty | undefined)[] = [];
  for (let i = 0; i < count; i++) {
    const typeName = nameString(rd, S, 'property type');
    const f = readField(rd, S, typeName, 0);
    const p: UsmapProperty = { name: f.name, schemaIndex: properties.length, arraySize: f.arraySize, type: f.type };
    for (let k = 0; k < f.arraySize; k++) properties.push(p);
  }
  const s: UsmapStruct = { name, propertyCount: properties.length, properties };
  if (superName !== '') s.superType = superName;
  return s;
}
