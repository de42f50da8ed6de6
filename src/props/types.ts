import type { UsmapPropertyType } from '../usmap/usmap.js';

/**
 * A property's type, as the JSON form writes it: `IntProperty`, `StructProperty(Vector)`,
 * `ArrayProperty(StructProperty(FixtureNestedStruct(/Script/CUE4ParseFixtures)))`, `MapProperty(NameProperty,IntProperty)`.
 * UE 5.4+ tags store this tree (FPropertyTypeName: a name and its parameters); older tags store the same facts in
 * fixed fields, and mappings in their own tree. One grammar serves all three.
 */
export interface TypeNode {
  name: string;
  params: TypeNode[];
}

/** What reading a value needs to know about its type. */
export interface Ty {
  t: string;
  /** StructProperty: the struct's name. */
  struct?: string;
  /** ByteProperty, EnumProperty: the enum's name (absent or `None` for a plain byte). */
  enumName?: string;
  /** Array, Set, Optional: element; Map: key; EnumProperty: the underlying integer type. */
  inner?: Ty;
  /** Map: value. */
  value?: Ty;
}

const SPECIAL = /[\\(),]/g;

export function formatTypeNode(n: TypeNode): string {
  const name = n.name.replace(SPECIAL, (c) => `\\${c}`);
  return n.params.length === 0 ? name : `${name}(${n.params.map(formatTypeNode).join(',')})`;
}

export function parseTypeNode(s: string): TypeNode {
  let i = 0;
  const node = (depth: number): TypeNode => {
    if (depth > 64) throw new Error(`type ${JSON.stringify(s)} nests too deeply`);
    let name = '';
    while (i < s.length) {
      const c = s[i]!;
      if (c === '\\' && i + 1 < s.length) {
        name += s[i + 1];
        i += 2;
        continue;
      }
      if (c === '(' || c === ')' || c === ',') break;
      name += c;
      i++;
    }
    const params: TypeNode[] = [];
    if (s[i] === '(') {
      i++;
      for (;;) {
        params.push(node(depth + 1));
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] !== ')') throw new Error(`type ${JSON.stringify(s)} is missing a ')'`);
        i++;
        break;
      }
    }
    if (name === '') throw new Error(`type ${JSON.stringify(s)} has an empty name`);
    return { name, params };
  };
  const n = node(0);
  if (i !== s.length) throw new Error(`type ${JSON.stringify(s)} has text after its end`);
  return n;
}

/** The reading facts of a type tree (either tag layout). */
export function tyOfNode(n: TypeNode): Ty {
  const t: Ty = { t: n.name };
  const p0 = n.params[0];
  switch (n.name) {
    case 'StructProperty':
      if (p0) t.struct = p0.name;
      break;
    case 'ByteProperty':
      if (p0) t.enumName = p0.name;
      break;
    case 'EnumProperty':
      if (p0) t.enumName = p0.name;
      if (n.params[1]) t.inner = tyOfNode(n.params[1]);
      break;
    case 'ArrayProperty':
    case 'SetProperty':
    case 'OptionalProperty':
      if (p0) t.inner = tyOfNode(p0);
      break;
    case 'MapProperty':
      if (p0) t.inner = tyOfNode(p0);
      if (n.params[1]) t.value = tyOfNode(n.params[1]);
      break;
  }
  return t;
}

/** A mappings type as reading facts. */
export function tyOfUsmap(u: UsmapPropertyType): Ty {
  const t: Ty = { t: u.type };
  if (u.structType !== undefined) t.struct = u.structType;
  if (u.enumName !== undefined) t.enumName = u.enumName;
  if (u.inner) t.inner = tyOfUsmap(u.inner);
  if (u.value) t.value = tyOfUsmap(u.value);
  return t;
}

/** A mappings type as the JSON form's type string (no module paths: mappings have none). */
export function nodeOfTy(t: Ty): TypeNode {
  const params: TypeNode[] = [];
  switch (t.t) {
    case 'StructProperty':
      if (t.struct !== undefined) params.push({ name: t.struct, params: [] });
      break;
    case 'ByteProperty':
      if (t.enumName !== undefined) params.push({ name: t.enumName, params: [] });
      break;
    case 'EnumProperty':
      params.push({ name: t.enumName ?? 'None', params: [] });
      if (t.inner) params.push(nodeOfTy(t.inner));
      break;
    case 'ArrayProperty':
    case 'SetProperty':
    case 'OptionalProperty':
      if (t.inner) params.push(nodeOfTy(t.inner));
      break;
    case 'MapProperty':
      if (t.inner) params.push(nodeOfTy(t.inner));
      if (t.value) params.push(nodeOfTy(t.value));
      break;
  }
  return { name: t.t, params };
}

const parsedTypes = new Map<string, { node: TypeNode; ty: Ty }>();

/** A type string's tree and reading facts, parsed once (a document repeats few types). Shared: never modify. */
export function parsedType(s: string): { node: TypeNode; ty: Ty } {
  let t = parsedTypes.get(s);
  if (t === undefined) {
    const node = parseTypeNode(s);
    t = { node, ty: tyOfNode(node) };
    // Bounded: types are few, but documents are input.
    if (parsedTypes.size >= 4096) parsedTypes.clear();
    parsedTypes.set(s, t);
  }
  return t;
}
