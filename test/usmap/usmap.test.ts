import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isIoStoreError } from '../../src/errors.js';
import { parseUsmap, usmapPropertyAt, usmapStruct, type Usmap } from '../../src/usmap/index.js';
import { corpusPath } from '../corpus.js';

const MAPPINGS = 'ue5.8-cue4parse/mappings';
const read = (name: string) => readFileSync(corpusPath(MAPPINGS, name));
/** Mappings as JSON text (maps as entry lists, bigints as decimal strings). */
const text = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (x instanceof Map ? [...x] : typeof x === 'bigint' ? x.toString() : x));

describe('usmap', () => {
  const plain = parseUsmap(read('CUE4ParseFixtures-Uncompressed.usmap'), { source: 'Uncompressed.usmap' });

  it.each([
    ['CUE4ParseFixtures-Oodle.usmap', 'Oodle'],
    ['CUE4ParseFixtures-Brotli.usmap', 'Brotli'],
    ['CUE4ParseFixtures-Zstandard.usmap', 'Zstandard'],
  ])('%s decodes to the same mappings as the uncompressed file', (file, compression) => {
    const m = parseUsmap(read(file), { source: file });
    expect(m.compression).toBe(compression);
    expect(m.version).toBe(4);
    // Compared as text: the runner's deep equality takes seconds on 9,000 structs.
    expect(m.names.length).toBe(plain.names.length);
    expect(text(m.names) === text(plain.names)).toBe(true);
    expect(text(m.enums) === text(plain.enums)).toBe(true);
    expect(text(m.structs) === text(plain.structs)).toBe(true);
  });

  it('holds the fixture schemas CUE4Parse checks', () => {
    expect(plain.compression).toBe('None');
    expect([plain.names.length, plain.enums.size, plain.structs.size]).toEqual([40567, 1833, 8991]);
    const data = usmapStruct(plain, 'ParserFixtureData')!;
    expect(data.superType).toBe('ParserFixtureBaseData');
    // FixedIntegerArray takes three consecutive schema indices.
    expect(data.propertyCount).toBe(63);
    const byName = (s: string) => data.properties.find((p) => p?.name.toLowerCase() === s.toLowerCase())!;
    expect(byName('FixedIntegerArray').arraySize).toBe(3);
    expect(byName('AnsiString').type).toEqual({ type: 'AnsiStrProperty' });
    expect(byName('PresentOptional').type).toEqual({ type: 'OptionalProperty', inner: { type: 'IntProperty' } });
    expect(byName('StructMap').type).toEqual({
      type: 'MapProperty',
      inner: { type: 'NameProperty' },
      value: { type: 'StructProperty', structType: 'FixtureNestedStruct' },
    });
    expect(byName('Enum').type).toEqual({ type: 'EnumProperty', inner: { type: 'ByteProperty' }, enumName: 'EFixtureEnum' });
    const row = usmapStruct(plain, 'fixturetablerow')!;
    expect(row.superType).toBe('TableRowBase');
    expect(row.properties.map((p) => p?.name)).toEqual(['Number', 'LargeNumber', 'Message', 'Kind', 'Nested', 'Values']);
    // Past its own 63 indices, a class's schema continues with its super's.
    expect(usmapPropertyAt(plain, data, 63)?.property.name).toBe('BaseMarker');
    expect(usmapPropertyAt(plain, data, 33)).toMatchObject({ property: { name: 'FixedIntegerArray' }, arrayIndex: 2 });
    const e = plain.enums.get('EFixtureEnum')!;
    // Version 4 stores each value: the fixture enum's are not 0, 1, 2.
    expect([...e.values]).toEqual([[0n, 'None'], [7n, 'Alpha'], [42n, 'Beta'], [255n, 'Maximum'], [256n, 'EFixtureEnum_MAX']]);
  });

  it('reads version 0 and Zstandard-compressed version 3 dumps of games', () => {
    const v0 = parseUsmap(readFileSync(corpusPath('legacy-games/ue5.3-readyornot/ReadyOrNot.usmap')));
    expect([v0.version, v0.compression, v0.structs.size]).toEqual([0, 'None', 8912]);
    const v3 = parseUsmap(readFileSync(corpusPath('legacy-games/ue5.4-joy/5.4.3-34507850+++UE5+Release-5.4-JOY.usmap')));
    expect([v3.version, v3.compression, v3.structs.size]).toEqual([3, 'Zstandard', 7686]);
    expect(usmapStruct(v3, 'Actor')?.properties.length).toBeGreaterThan(50);
  });

  it('names the file and offset of bad input', () => {
    const bytes = read('CUE4ParseFixtures-Uncompressed.usmap');
    const fail = (b: Uint8Array): string => {
      try {
        parseUsmap(b, { source: 'm.usmap' });
      } catch (e) {
        expect(isIoStoreError(e)).toBe(true);
        return (e as Error).message;
      }
      throw new Error('parsed');
    };
    expect(fail(bytes.subarray(0, 1000))).toMatch(/^m\.usmap at offset 0x10: compressed mappings needs/);
    const badMagic = Uint8Array.from(bytes.subarray(0, 64));
    badMagic[0] = 0;
    expect(fail(badMagic)).toMatch(/^m\.usmap at offset 0x0: not a \.usmap file/);
    const badMethod = Uint8Array.from(bytes);
    badMethod[7] = 9;
    expect(fail(badMethod)).toMatch(/offset 0x7: unknown compression method 9/);
    const badZstd = Uint8Array.from(read('CUE4ParseFixtures-Zstandard.usmap').subarray(0, 200));
    badZstd[8] = 100; // stored size past the end
    expect(fail(badZstd)).toMatch(/compressed mappings needs/);
  });
});

export type { Usmap };
