import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyLegacyProps, readLegacyProps } from '../../src/props/index.js';
import { corpusPath } from '../corpus.js';
import { legacyPak, pakFiles } from '../legacy/helpers.js';

/** Bad property data: one line naming the package, export, property and offset; the export's bytes stay as they were. */
describe('props on bad input', () => {
  const pak = pakFiles(legacyPak('ue5.8'));
  const uasset = pak.get('DataTables/DT_AllProperties.uasset')!;
  const uexp = pak.get('DataTables/DT_AllProperties.uexp')!;

  it('a tag whose size runs past its export', () => {
    const bad = Uint8Array.from(uexp);
    // Control byte, the name (8), the type node ObjectProperty (8 + 4): then the size.
    new DataView(bad.buffer).setInt32(1 + 8 + 12, 0x7fff0000, true);
    const r = readLegacyProps(uasset, bad, { source: 'DT.uasset' });
    expect(r.warnings).toEqual([expect.stringMatching(/^DT\.uasset: export 0 \(DT_AllProperties\) at offset 0x1: property "RowStruct" of 2147418112 bytes runs past the end \(\d+ bytes left\); its bytes are kept as they are$/)]);
    const e = r.json.exports[0]!;
    expect(e.serialization).toBe('raw');
    expect(e.tail!.hex.length / 2).toBe(bad.length - 4);
    const back = applyLegacyProps(uasset, bad, r.json);
    expect(Buffer.compare(back.uexp!, bad)).toBe(0);
  });

  it('an unknown property type', () => {
    const bad = Uint8Array.from(uasset);
    const at = Buffer.from(bad).indexOf('ObjectProperty\0');
    expect(at).toBeGreaterThan(0);
    bad.set(Buffer.from('ObjectPropertX'), at);
    const r = readLegacyProps(bad, uexp, { source: 'DT.uasset' });
    expect(r.warnings).toEqual([expect.stringMatching(/^DT\.uasset: export 0 \(DT_AllProperties\) property "RowStruct" at offset 0x[0-9a-f]+: unknown property type ObjectPropertX; its 4 bytes are kept as they are$/)]);
    const p = r.json.exports[0]!.properties!.find((q) => q.name === 'RowStruct')!;
    expect(p.raw).toMatch(/^[0-9a-f]{8}$/);
    // The rows after it still read.
    expect(r.json.exports[0]!.data?.kind).toBe('DataTable');
    const back = applyLegacyProps(bad, uexp, r.json);
    expect(Buffer.compare(back.uexp!, uexp)).toBe(0);
  });

  it('unversioned properties without mappings', () => {
    const dir = 'legacy-games/ue5.4-joy/';
    const a = new Uint8Array(readFileSync(corpusPath(dir, 'BP_GameMode_Base.uasset')));
    const x = new Uint8Array(readFileSync(corpusPath(dir, 'BP_GameMode_Base.uexp')));
    const r = readLegacyProps(a, x, { source: 'BP_GameMode_Base.uasset', engine: 'UE5_4' });
    expect(r.warnings.length).toBe(r.json.exports.length);
    expect(r.warnings[0]).toMatch(/^BP_GameMode_Base\.uasset: export 0 \(\w+\) at offset 0x0: unversioned properties of \w+ need type mappings \(a \.usmap\); its bytes are kept as they are$/);
    expect(r.json.exports.every((e) => e.serialization === 'raw')).toBe(true);
    const back = applyLegacyProps(a, x, r.json, { engine: 'UE5_4' });
    expect(Buffer.compare(back.uexp!, x)).toBe(0);
    expect(Buffer.compare(back.uasset, a)).toBe(0);
  });
});
