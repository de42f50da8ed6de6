import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLegacyPackage } from '../../src/legacy/package.js';
import { applyLegacyProps, readLegacyProps, type ExportPropsJson, type PackagePropsJson, type PropJson } from '../../src/props/index.js';
import { corpusPath } from '../corpus.js';
import { legacyPak, pakFiles } from '../legacy/helpers.js';

/**
 * Reading proves each export by writing it back: one write of the whole export when every value gives its bytes
 * back, else a second reading that checks value by value, keeping as bytes only what does not write back. Kept
 * bytes (tails, raw values) stay bytes until someone reads their hex.
 */
const CURVE = 'legacy-games/ue4.23-astroneer/ResourceProgressCurve.uasset';
const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function rawProps(props: PropJson[] | undefined, out: string[] = []): string[] {
  for (const p of props ?? []) {
    if (own(p, 'raw')) out.push(String(p.name));
    else if (Array.isArray(p.value) && (p.value[0] as { type?: unknown } | undefined)?.type !== undefined) rawProps(p.value as unknown as PropJson[], out);
  }
  return out;
}

/** Offset of the inner tag's size of the struct array `name` (pre-5.4 tags: count, name, type, size). */
function innerTagSizeAt(uasset: Uint8Array, name: string): number {
  const names = parseLegacyPackage(uasset, { source: CURVE, engine: 'UE4_23' }).names.map((n) => n.name);
  const v = new DataView(uasset.buffer, uasset.byteOffset, uasset.length);
  const [n, s] = [names.indexOf(name), names.indexOf('StructProperty')];
  for (let at = 0; at + 24 <= uasset.length; at++) {
    if (v.getInt32(at + 4, true) === n && v.getInt32(at + 8, true) === 0 && v.getInt32(at + 12, true) === s && v.getInt32(at + 16, true) === 0) return at + 20;
  }
  throw new Error(`no inner tag of ${name}`);
}

const keysOf = (json: PackagePropsJson): PropJson => (json.exports[0]!.properties![0]!.value as unknown as PropJson[])[0]!;

describe('props verification', () => {
  it('an array of structs of a UE 4.x tag reads and writes back with its inner tag (name, type, size)', () => {
    const uasset = new Uint8Array(readFileSync(corpusPath(CURVE)));
    const r = readLegacyProps(uasset, undefined, { source: CURVE, engine: 'UE4_23' });
    const keys = keysOf(r.json);
    expect(keys.name).toBe('Keys');
    expect(own(keys, 'raw')).toBe(false);
    expect(keys.innerTag).toMatchObject({ name: 'Keys', type: 'StructProperty(RichCurveKey)' });
    const values = keys.value as { InterpMode: number; Time: number; Value: number }[];
    expect(values.map((k) => k.InterpMode)).toEqual([2, 2, 2]);
    expect(values.map((k) => Math.round(k.Time * 1e4))).toEqual([0, 5004, 10000]);
    const back = applyLegacyProps(uasset, undefined, JSON.parse(JSON.stringify(r.json)), { source: CURVE, engine: 'UE4_23' });
    expect(Buffer.compare(back.uasset, uasset)).toBe(0);
    expect(back.changed).toEqual([]);
  });

  it('an export with a value that does not write back stays typed; only that value keeps its bytes', () => {
    // An inner tag whose size disagrees with its elements (as another writer might leave it): the elements read,
    // but written back the size is recomputed, so the value keeps its bytes and the rest of the export stays typed.
    const uasset = new Uint8Array(readFileSync(corpusPath(CURVE)));
    const at = innerTagSizeAt(uasset, 'Keys');
    const v = new DataView(uasset.buffer, uasset.byteOffset, uasset.length);
    v.setInt32(at, v.getInt32(at, true) - 1, true);
    const r = readLegacyProps(uasset, undefined, { source: CURVE, engine: 'UE4_23' });
    const curve = r.json.exports[0]!;
    expect(curve.serialization).toBe('tagged');
    expect(curve.properties![0]!.name).toBe('FloatCurve');
    expect(rawProps(curve.properties)).toEqual(['Keys']);
    expect(r.warnings).toEqual([]);
    const back = applyLegacyProps(uasset, undefined, JSON.parse(JSON.stringify(r.json)), { source: CURVE, engine: 'UE4_23' });
    expect(Buffer.compare(back.uasset, uasset)).toBe(0);
  });

  it('kept bytes turn into hex only when read, and an assigned hex replaces them', () => {
    const files = pakFiles(legacyPak('ue5.8'));
    const uasset = files.get('Textures/T_BC6H.uasset')!;
    const uexp = files.get('Textures/T_BC6H.uexp')!;
    const r = readLegacyProps(uasset, uexp, { source: 'T_BC6H' });
    const tex = r.json.exports.find((e) => e.tail !== undefined && e.serialization === 'tagged') as ExportPropsJson;
    expect(tex).toBeDefined();
    const tail = tex.tail!;
    expect(Object.getOwnPropertyDescriptor(tail, 'hex')?.get).toBeDefined();
    const text = tail.hex;
    expect(text).toMatch(/^[0-9a-f]+$/);
    expect(JSON.parse(JSON.stringify(tail))).toEqual({ offset: tail.offset, hex: text });
    // Editing the hex edits the bytes written.
    const flipped = (text[0] === '0' ? '1' : '0') + text.slice(1);
    tail.hex = flipped;
    expect(tail.hex).toBe(flipped);
    const back = applyLegacyProps(uasset, uexp, r.json, { source: 'T_BC6H' });
    expect(back.changed).toEqual([tex.index]);
    const again = readLegacyProps(back.uasset, back.uexp, { source: 'T_BC6H' }).json.exports[tex.index]!;
    expect(again.tail!.hex).toBe(flipped);
  });
});
