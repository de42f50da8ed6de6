import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeShaderLibrary } from '../../src/shaders/describe.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { cli } from '../cli-helper.js';

const PAIR = 'ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6';
const file = (name: string) => corpusPath('zen-assets', 'UE5.4', name);

describe.skipIf(!hasCorpus)('shader library summary', () => {
  it('the UE 5.4 pair: both forms count the same maps, shaders, frequencies and uncompressed bytes', () => {
    const zen = describeShaderLibrary(new Uint8Array(readFileSync(file(`${PAIR}.uzenshaderbytecode`))));
    const legacy = describeShaderLibrary(new Uint8Array(readFileSync(file(`${PAIR}.ushaderbytecode`))));
    expect(zen).toMatchObject({ form: 'zen', version: 1, shaderMaps: 988, shaders: 29285, groups: 2423, shaderIndices: 69340, storedRaw: 0 });
    expect(legacy).toMatchObject({ form: 'legacy', version: 2, shaderMaps: 988, shaders: 29285, shaderIndices: 69340, preloadEntries: 14426, hasCode: false });
    // The groups' uncompressed sizes add up to the shaders' own: one library in two layouts.
    expect(zen.uncompressedBytes).toBe(1628472351);
    expect(legacy.uncompressedBytes).toBe(zen.uncompressedBytes);
    expect(legacy.frequencies).toEqual(zen.frequencies);
    expect(Object.values(zen.frequencies).reduce((a, b) => a + b, 0)).toBe(29285);
    expect(zen.firstShaderMaps).toEqual(legacy.firstShaderMaps);
    expect(zen.groupChunkIds).toHaveLength(2423);
  });

  it('inspect shows a shader library as text and JSON; a damaged one is one line', async () => {
    const text = await cli('inspect', file('ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6.ushaderbytecode'));
    expect(text.code).toBe(0);
    expect(text.out).toContain('IoStore form (ShaderCodeLibrary chunk), version 1');
    expect(text.out).toMatch(/Groups: +535 /);
    const json = await cli('inspect', file(`${PAIR}.ushaderbytecode`), '--json');
    expect(JSON.parse(json.out)).toMatchObject({ form: 'legacy', shaders: 29285, hasCode: false });
  });

  it('a truncated library is a typed error naming the offset', () => {
    const bytes = new Uint8Array(readFileSync(file(`${PAIR}.uzenshaderbytecode`))).subarray(0, 5000);
    expect(() => describeShaderLibrary(bytes, 'cut.uzenshaderbytecode')).toThrow(/cut\.uzenshaderbytecode.*offset/);
    expect(() => describeShaderLibrary(new Uint8Array([7, 0, 0, 0, 0, 0, 0, 0]), 'x.ushaderbytecode')).toThrow(/neither 1 .* nor 2/);
  });
});
