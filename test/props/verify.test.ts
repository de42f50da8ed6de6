import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyLegacyProps, readLegacyProps, type ExportPropsJson, type PropJson } from '../../src/props/index.js';
import { corpusPath } from '../corpus.js';
import { legacyPak, pakFiles } from '../legacy/helpers.js';

/**
 * Reading proves each export by writing it back: one write of the whole export when every value gives its bytes
 * back, else a second reading that checks value by value, keeping as bytes only what does not write back. Kept
 * bytes (tails, raw values) stay bytes until someone reads their hex.
 */
const BLOODSTAINED = 'legacy-games/ue4.18-bloodstained/m01SIP_000_BG.umap';
const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function rawProps(props: PropJson[] | undefined, out: string[] = []): string[] {
  for (const p of props ?? []) {
    if (own(p, 'raw')) out.push(String(p.name));
    else if (Array.isArray(p.value) && (p.value[0] as { type?: unknown } | undefined)?.type !== undefined) rawProps(p.value as unknown as PropJson[], out);
  }
  return out;
}

describe('props verification', () => {
  it('an export with a value that does not write back stays typed; only that value keeps its bytes', () => {
    const uasset = new Uint8Array(readFileSync(corpusPath(BLOODSTAINED)));
    const r = readLegacyProps(uasset, undefined, { source: BLOODSTAINED, engine: 'UE4_18' });
    // BodySetup_230: its ConvexElems (FKConvexElem, serialized natively in 4.18) read as tags but do not write back.
    const body = r.json.exports[33]!;
    expect(body.name).toBe('BodySetup_230');
    expect(body.serialization).toBe('tagged');
    expect(rawProps(body.properties)).toEqual(['ConvexElems']);
    expect(body.properties!.length).toBeGreaterThan(1);
    const back = applyLegacyProps(uasset, undefined, JSON.parse(JSON.stringify(r.json)), { source: BLOODSTAINED, engine: 'UE4_18' });
    expect(Buffer.compare(back.uasset, uasset)).toBe(0);
    expect(back.changed).toEqual([]);
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
