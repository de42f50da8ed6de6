import { schemaOf, type Schema } from './schema.js';
import { hasHexField, hex, hexFieldBytes, PropsReadError, Rd, sameBytes, unhex, Wr } from './io.js';
import { nameJsonText, PropsWriteError, writeFail } from './prims.js';
import { fail, PROPERTY, propertyLabel, readValue, relabel, writeValue, zeroValue, type Ctx, type PropJson } from './values.js';

/**
 * Unversioned property blocks (a header of schema-index fragments and a zero mask, then the values in schema order):
 * reading to the JSON form and writing back.
 */

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
