import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyLegacyProps, readLegacyProps, type PackagePropsJson } from '../../src/props/index.js';
import { parseUsmap, type Usmap } from '../../src/usmap/index.js';
import { corpusFiles, corpusPath } from '../corpus.js';

/**
 * Blueprint classes the package defines: their class defaults (unversioned) read by the class's own layout in the
 * package (the BlueprintGeneratedClass export's properties), with the mappings only for the engine's classes.
 */
const GAMES = 'legacy-games';
const read = (rel: string) => new Uint8Array(readFileSync(corpusPath(rel)));
const usmapOf = (dir: string): Usmap => parseUsmap(read(corpusFiles('.usmap').find((f) => f.startsWith(`${GAMES}/${dir}/`))!));
const without = (m: Usmap, name: string): Usmap => ({ ...m, structs: new Map([...m.structs].filter(([k]) => k !== name.toLowerCase())) });

function readBoth(dir: string, file: string, mappings: Usmap): { json: PackagePropsJson; uasset: Uint8Array; uexp: Uint8Array; o: object } {
  const uasset = read(`${GAMES}/${dir}/${file}.uasset`);
  const uexp = read(`${GAMES}/${dir}/${file}.uexp`);
  const o = { source: file, mappings, engine: 'UE5_4' as const };
  const r = readLegacyProps(uasset, uexp, o);
  expect(r.warnings).toEqual([]);
  return { json: r.json, uasset, uexp, o };
}

describe('props of Blueprint class defaults by the class defined in the package', () => {
  it('a class default whose class the mappings do not list reads (BP_Table_Lamp_C) and writes back', () => {
    const m = usmapOf('ue5.4-billiards');
    expect(m.structs.has('bp_table_lamp_c')).toBe(false);
    const { json, uasset, uexp, o } = readBoth('ue5.4-billiards', 'BP_Table_Lamp', m);
    const cdo = json.exports.find((e) => e.name === 'Default__BP_Table_Lamp_C')!;
    expect(cdo.serialization).toBe('unversioned');
    expect(cdo.properties).toEqual([]);
    // Its empty header skips the class's 3 properties and Actor's 80, as the engine writes it: no header kept.
    expect(cdo.header).toBeUndefined();
    const back = applyLegacyProps(uasset, uexp, JSON.parse(JSON.stringify(json)), o);
    expect(Buffer.compare(back.uexp!, uexp)).toBe(0);
    expect(back.changed).toEqual([]);
  });

  it.each([['ue5.4-joy', 'BP_GameMode_Base', 3]])('%s %s: the class read from the package gives what the mappings give', (dir, file, count) => {
    const m = usmapOf(dir);
    const cls = `${file}_C`;
    expect(m.structs.has(cls.toLowerCase())).toBe(true);
    const full = readBoth(dir, file, m).json;
    const local = readBoth(dir, file, without(m, cls));
    const cdo = local.json.exports.find((e) => e.name === `Default__${cls}`)!;
    expect(cdo.serialization).toBe('unversioned');
    expect(cdo.properties!.length).toBe(count);
    expect(JSON.stringify(local.json)).toBe(JSON.stringify(full));
    const back = applyLegacyProps(local.uasset, local.uexp, JSON.parse(JSON.stringify(local.json)), local.o);
    expect(Buffer.compare(back.uexp!, local.uexp)).toBe(0);
  });
});
