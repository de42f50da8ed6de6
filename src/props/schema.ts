import type { UsmapProperty, UsmapStruct } from '../usmap/usmap.js';
import { formatTypeNode, nodeOfTy, tyOfUsmap, type Ty } from './types.js';

/**
 * The unversioned schema of a struct or class: its properties and its supers' in schema order (a struct's own
 * indices first, then its super's), each with its reading facts and its type as the JSON form writes it. Made once
 * per struct and kept: every export of a class, and every element of an array of structs, reads by it.
 */
export interface SchemaSlot {
  property: UsmapProperty;
  /** The element of a fixed-size array. */
  arrayIndex: number;
  ty: Ty;
  /** The type string of the JSON form. */
  type: string;
}

export interface Schema {
  /** By schema index; undefined for indices the mappings leave out. */
  slots: (SchemaSlot | undefined)[];
  /** Schema index of the first element of each property, by lower-cased name (FNames compare without case). */
  byName: Map<string, number>;
  /** A super struct neither the package nor the mappings describe: indices past `slots` are unknown. */
  missingSuper?: string;
}

/** Where structs are looked up by name, and where their schemas are kept. */
export interface SchemaSource {
  structDef(name: string): UsmapStruct | undefined;
  /** Schemas made from this source (one per package when the package defines structs, else shared). */
  readonly schemas: WeakMap<UsmapStruct, Schema>;
}

/** Schemas of structs the mappings alone describe: the same in every package read with those mappings. */
export const sharedSchemas = new WeakMap<UsmapStruct, Schema>();

const slotTypes = new WeakMap<UsmapProperty, { ty: Ty; type: string }>();

/** The schema of a struct, walking its supers (at most 256: more is a loop in the mappings). */
export function schemaOf(src: SchemaSource, s: UsmapStruct): Schema {
  let schema = src.schemas.get(s);
  if (schema) return schema;
  schema = { slots: [], byName: new Map() };
  let base = 0;
  let cur: UsmapStruct | undefined = s;
  for (let depth = 0; cur && depth < 256; depth++) {
    for (let i = 0; i < cur.propertyCount; i++) {
      const p = cur.properties[i];
      if (!p) {
        schema.slots.push(undefined);
        continue;
      }
      let t = slotTypes.get(p);
      if (!t) {
        const ty = tyOfUsmap(p.type);
        t = { ty, type: formatTypeNode(nodeOfTy(ty)) };
        slotTypes.set(p, t);
      }
      schema.slots.push({ property: p, arrayIndex: i - p.schemaIndex, ty: t.ty, type: t.type });
      const key = p.name.toLowerCase();
      // A struct's own property hides a super's of the same name (the first found, as the writer always took).
      if (i === p.schemaIndex && !schema.byName.has(key)) schema.byName.set(key, base + i);
    }
    base += cur.propertyCount;
    const superType: string | undefined = cur.superType;
    cur = superType === undefined ? undefined : src.structDef(superType);
    if (superType !== undefined && cur === undefined) schema.missingSuper = superType;
  }
  src.schemas.set(s, schema);
  return schema;
}
