import { beforeAll, describe, expect, it } from 'vitest';
import { applyZenProps, readZenProps, type PackagePropsJson, type PropJson } from '../../src/props/index.js';
import { corpusPath } from '../corpus.js';
import { containerPackages } from './helpers.js';

/** Native structs of the ue5.8 fixture project (tagged, binary-serialized): their values, and an edit through them. */
let zen: Awaited<ReturnType<typeof containerPackages>>;
beforeAll(async () => {
  zen = await containerPackages(corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'), corpusPath('ue5.8-cue4parse/global/global.utoc'));
});
const options = (tail: string) => ({ source: tail, publicExportPath: zen.publicExportPath, ...(zen.scriptObjects ? { scriptObjects: zen.scriptObjects } : {}) });

/** Every property (at any depth) of a document whose struct type names `struct`. */
function propsOfStruct(json: PackagePropsJson, struct: string): PropJson[] {
  const out: PropJson[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      const p = v as PropJson;
      if (typeof p.type === 'string' && p.type.includes(`(${struct}(`)) out.push(p);
      Object.values(v).forEach(walk);
    }
  };
  walk(json.exports);
  return out;
}

describe('native structs of the fixture project', () => {
  it('MovieSceneFloatChannel: keys, tangents and tick resolution, and an edited key writes back', () => {
    const tail = 'Sequences/LS_Fixture.uasset';
    const bytes = zen.get(tail);
    const json = readZenProps(bytes, options(tail)).json;
    const channels = propsOfStruct(json, 'MovieSceneFloatChannel');
    expect(channels.length).toBeGreaterThanOrEqual(5);
    expect(channels.every((c) => c.raw === undefined)).toBe(true);
    const curve = channels.find((c) => c.name === 'ParameterCurve')!;
    const v = curve.value as { Times: number[]; Values: { Value: number }[]; TickResolution: { Numerator: number; Denominator: number } };
    expect(v.Times).toEqual([0, 12000, 24000]);
    expect(v.Values.map((k) => k.Value)).toEqual([0.125, 0.75, -0.25]);
    expect(v.TickResolution).toEqual({ Numerator: 60000, Denominator: 1 });
    v.Values[1]!.Value = 0.5;
    const back = applyZenProps(bytes, json, options(tail));
    expect(back.bytes.length).toBe(bytes.length);
    const again = propsOfStruct(readZenProps(back.bytes, options(tail)).json, 'MovieSceneFloatChannel').find((c) => c.name === 'ParameterCurve')!;
    expect((again.value as { Values: { Value: number }[] }).Values.map((k) => k.Value)).toEqual([0.125, 0.5, -0.25]);
  });

  it('MovieSceneTimeWarpVariant (a play rate), FontCharacter, Niagara variables (name, type definition, offset) and DeprecateSlateVector2D read typed', () => {
    const nested = readZenProps(zen.get('Sequences/LS_Nested.uasset'), options('LS_Nested')).json;
    const warp = propsOfStruct(nested, 'MovieSceneTimeWarpVariant');
    expect(warp.map((p) => p.value)).toContainEqual({ PlayRate: 0.5 });
    const font = readZenProps(zen.get('Fonts/Font_Fixture.uasset'), options('Font_Fixture')).json;
    const chars = propsOfStruct(font, 'FontCharacter')[0]!;
    expect(chars.raw).toBeUndefined();
    expect((chars.value as unknown[]).length).toBeGreaterThan(0);
    const ns = readZenProps(zen.get('Effects/NS_Fixture.uasset'), options('NS_Fixture')).json;
    const offsets = propsOfStruct(ns, 'NiagaraVariableWithOffset').find((p) => p.name === 'SortedParameterOffsets')!;
    const first = (offsets.value as Array<{ Name: string; TypeDef: PropJson[]; Offset: number }>)[0]!;
    expect([first.Name, first.Offset, first.TypeDef.find((p) => p.name === 'ClassStructOrEnum')?.value]).toEqual(['User.FixtureScale', 0, '/Script/Niagara.NiagaraFloat']);
    expect(propsOfStruct(ns, 'NiagaraVariableBase').every((p) => p.raw === undefined)).toBe(true);
    const rig = readZenProps(zen.get('ControlRig/CR_Fixture.uasset'), options('CR_Fixture')).json;
    expect(propsOfStruct(rig, 'DeprecateSlateVector2D').map((p) => p.value)).toContainEqual({ X: 0, Y: 0 });
  });
});
