import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../src/util/bytes.js';
import {
  ClassicVersion,
  describeClassicPackage,
  encodeCompactIndex,
  isClassicPackage,
  parseClassicPackage,
  readCompactIndex,
  type ClassicPackage,
} from '../../src/classic/index.js';
import { IoStoreError } from '../../src/errors.js';
import { buildClassicPackage, readUe1, tinyPackage, ue1Files } from './helpers.js';

const parse = (name: string): ClassicPackage => parseClassicPackage(readUe1(name), { source: name });

function thrown(f: () => unknown): IoStoreError {
  try {
    f();
  } catch (e) {
    if (e instanceof IoStoreError) return e;
    throw e;
  }
  throw new Error('expected an IoStoreError');
}

describe('classic packages of the corpus (UT99, file version 69)', () => {
  it('holds the five files the tests expect', () => {
    expect(ue1Files).toEqual(['1HH-TestBox-Large.unr', 'DeveloperMutator.u', 'ECM.u', 'EnergySword.u', 'XC_Orb.utx']);
  });

  // name, names, imports, exports, file size
  it.each([
    ['1HH-TestBox-Large.unr', 283, 74, 119, 286699],
    ['DeveloperMutator.u', 63, 29, 34, 6044],
    ['ECM.u', 90, 40, 69, 12181],
    ['EnergySword.u', 198, 89, 112, 33954],
    ['XC_Orb.utx', 60, 13, 16, 11788],
  ])('%s: header, names, export data, imports and exports follow one another without a gap', (name, names, imports, exports, size) => {
    const bytes = readUe1(name);
    expect(isClassicPackage(bytes)).toBe(true);
    const p = parseClassicPackage(bytes, { source: name });
    const s = p.summary;
    expect([s.fileVersion, s.licenseeVersion, s.packageFlags]).toEqual([69, 0, 1]);
    expect([p.names.length, p.imports.length, p.exports.length, bytes.length]).toEqual([names, imports, exports, size]);
    expect(s.generations).toEqual([{ exportCount: exports, nameCount: names }]);
    expect(s.guid).toMatch(/^[0-9a-f]{32}$/);
    expect(s.headerSize).toBe(64);
    // Layout: header | names | export data (in export-offset order, back to back) | imports | exports | end.
    expect(p.extents.names.offset).toBe(s.headerSize);
    const data = p.exports.map((e) => [e.serialOffset!, e.serialOffset! + e.serialSize] as const).sort((a, b) => a[0] - b[0]);
    expect(p.exports.every((e) => e.serialSize > 0 && e.serialOffset !== null)).toBe(true);
    expect(data[0]![0]).toBe(p.extents.names.end);
    for (let i = 1; i < data.length; i++) expect(data[i]![0]).toBe(data[i - 1]![1]);
    expect(data.at(-1)![1]).toBe(p.extents.imports.offset);
    expect(p.extents.imports.end).toBe(p.extents.exports.offset);
    expect(p.extents.exports.end).toBe(bytes.length);
    expect(p.names[0]).toEqual({ name: 'None', flags: 0x04070410 });
    // Every import chain ends in a package (Core.Package with no outer).
    for (const i of p.imports) if (i.outerRef === 0) expect([i.classPackage, i.className]).toEqual(['Core', 'Package']);
  });

  it('DeveloperMutator.u: one class, its functions and properties, with paths from the package name', () => {
    const p = parse('DeveloperMutator.u');
    expect(p.packageName).toBe('DeveloperMutator');
    expect(p.names.slice(0, 4).map((n) => n.name)).toEqual(['None', 'DeveloperMutator', 'BotMomentumMultiplier', 'BotDamageReduction']);
    expect(p.imports.slice(0, 3).map((i) => [i.classPackage, i.className, i.path])).toEqual([
      ['Core', 'Package', 'Engine'],
      ['Core', 'Package', 'Core'],
      ['Core', 'Class', 'Engine.PlayerPawn'],
    ]);
    expect(p.imports.find((i) => i.path === 'Engine.PlayerPawn.myHUD')?.className).toBe('ObjectProperty');
    const cls = p.exports[32]!;
    expect(cls).toMatchObject({ classRef: 0, name: 'DeveloperMutator', path: 'DeveloperMutator.DeveloperMutator', serialSize: 235, serialOffset: 4850, flags: 0x000f0004 });
    expect(p.objectPath(cls.superRef)).toBe('Engine.Mutator');
    expect(p.exports[31]).toMatchObject({ path: 'DeveloperMutator.DeveloperMutator.ScriptText', serialSize: 3119, serialOffset: 1731 });
    expect(p.objectPath(p.exports[31]!.classRef)).toBe('Core.TextBuffer');
    const fn = p.exports[33]!;
    expect([fn.path, p.objectPath(fn.classRef), p.objectPath(fn.superRef), fn.serialSize]).toEqual([
      'DeveloperMutator.DeveloperMutator.MutatorTakeDamage', 'Core.Function', 'Engine.Mutator.MutatorTakeDamage', 275,
    ]);
    expect(p.exports[0]!.path).toBe('DeveloperMutator.DeveloperMutator.MutatorTakeDamage.actualDamage');
    expect(p.exports.filter((e) => e.outerRef === 0)).toEqual([cls]); // only the class sits at the top
  });

  it('XC_Orb.utx: palettes and fire textures in a group, texture imports from another package', () => {
    const p = parse('XC_Orb.utx');
    const v = describeClassicPackage(p);
    expect(v.imports.filter((i) => i.className === 'Texture').map((i) => `${i.classPackage}.${i.className} ${i.path}`)).toEqual([
      'Engine.Texture genfluid.lava.SHlava3',
      'Engine.Texture genfluid.sky.Skytst8',
    ]);
    expect(v.exports.filter((e) => e.className === 'Engine.Palette').map((e) => e.serialSize)).toEqual(Array(7).fill(1027));
    expect(v.exports.filter((e) => e.className === 'Fire.FireTexture')).toHaveLength(7);
    expect(v.exports.at(-1)).toEqual({ className: 'Core.Package', superName: null, outer: null, name: 'XC_Orb', flags: '0x00070004', serialSize: 1, serialOffset: 11449, path: 'XC_Orb.XC_Orb' });
    expect(v.exports[0]).toMatchObject({ name: 'BerserkAmp', outer: 'XC_Orb.XC_Orb', path: 'XC_Orb.XC_Orb.BerserkAmp', serialOffset: 913 });
  });

  it('the map: actors, brushes and the level; classes imported from the mods it uses', () => {
    const p = parse('1HH-TestBox-Large.unr');
    const importClasses = new Map<string, number>();
    for (const i of p.imports) importClasses.set(i.className, (importClasses.get(i.className) ?? 0) + 1);
    expect(Object.fromEntries(importClasses)).toEqual({ Package: 22, Class: 38, Texture: 10, ScriptedTexture: 1, Sound: 1, Animation: 1, LodMesh: 1 });
    const byClass = (c: string) => p.exports.filter((e) => p.objectPath(e.classRef) === c);
    expect(byClass('Engine.Level').map((e) => e.path)).toEqual(['1HH-TestBox-Large.MyLevel']);
    expect(byClass('Engine.InventorySpot')).toHaveLength(22);
    expect(p.exports.every((e) => e.outerRef === 0)).toBe(true); // actors, brushes, models and the level: all top level
    expect(byClass('Engine.Model')).toHaveLength(13);
    const model1 = p.exports.find((e) => e.path === '1HH-TestBox-Large.Model1')!;
    expect([model1.serialSize, model1.serialOffset]).toEqual([148307, 128254]);
    expect(p.imports.find((i) => i.name === 'AmmoLed')?.path).toBe('Botpack.Ammocount.AmmoLed');
  });

  it('a class the map imports from EnergySword is the class EnergySword.u exports', () => {
    const map = parse('1HH-TestBox-Large.unr');
    const sword = parse('EnergySword.u');
    const imported = map.imports.find((i) => i.path === 'EnergySword.EnergySword')!;
    expect([imported.classPackage, imported.className]).toEqual(['Core', 'Class']);
    const cls = sword.exports.find((e) => e.path === 'EnergySword.EnergySword')!;
    expect([cls.classRef, sword.objectPath(cls.superRef), cls.serialSize]).toEqual([0, 'Botpack.TournamentWeapon', 1174]);
    expect(sword.exports.filter((e) => sword.objectPath(e.classRef) === 'Core.State')).toHaveLength(8);
  });

  it('ECM.u: two classes, each with its script text', () => {
    const p = parse('ECM.u');
    const classes = p.exports.filter((e) => e.classRef === 0);
    expect(classes.map((e) => [e.path, p.objectPath(e.superRef), e.serialSize])).toEqual([
      ['ECM.ECM_Element', 'Engine.Actor', 200],
      ['ECM.ECM', 'Engine.Actor', 828],
    ]);
    const script = (path: string) => p.exports.find((e) => e.path === path)?.serialSize;
    expect([script('ECM.ECM_Element.ScriptText'), script('ECM.ECM.ScriptText')]).toEqual([989, 4976]);
  });
});

describe('compact indices', () => {
  const decode = (bytes: number[]) => readCompactIndex(new ByteReader(Uint8Array.from(bytes), 't'), 'value');
  it.each([
    [0, [0x00]], [1, [0x01]], [63, [0x3f]], [-1, [0x81]], [64, [0x40, 0x01]], [-64, [0xc0, 0x01]],
    [8191, [0x7f, 0x7f]], [8192, [0x40, 0x80, 0x01]], [0x7ffffff, [0x7f, 0xff, 0xff, 0x7f]],
    [0x8000000, [0x40, 0x80, 0x80, 0x80, 0x01]], [0x7fffffff, [0x7f, 0xff, 0xff, 0xff, 0x0f]], [-0x7fffffff, [0xff, 0xff, 0xff, 0xff, 0x0f]],
  ])('%d <-> %j', (value, bytes) => {
    expect([...encodeCompactIndex(value)]).toEqual(bytes);
    expect(decode(bytes)).toBe(value);
  });
  it('reads the corpus bytes: the name table length prefix of "None" is one byte, 5', () => {
    const b = readUe1('ECM.u');
    expect(decode([...b.subarray(0x40, 0x41)])).toBe(5);
  });
  it('rejects a fifth byte that would carry more than 32 bits (or continue past five bytes)', () => {
    const e = thrown(() => decode([0xff, 0xff, 0xff, 0xff, 0x80]));
    expect(e.code).toBe('BAD_VALUE');
    expect(e.message).toMatch(/^t at offset 0x0: value: compact index longer than five bytes/);
    expect(thrown(() => decode([0x40, 0x80])).code).toBe('TRUNCATED');
    expect(decode([0x80])).toBe(0); // "-0" is zero, not -0
    expect(Object.is(decode([0x80]), 0)).toBe(true);
  });
});

describe('detection', () => {
  const head = (tag: number, word: number) => {
    const b = new Uint8Array(16);
    new DataView(b.buffer).setUint32(0, tag, true);
    new DataView(b.buffer).setInt32(4, word, true);
    return b;
  };
  it('needs the tag and a classic file version, not the tag alone', () => {
    expect(isClassicPackage(head(0x9e2a83c1, 69))).toBe(true);
    expect(isClassicPackage(head(0x9e2a83c1, 128 | (29 << 16)))).toBe(true); // UT2004: licensee 29
    expect(isClassicPackage(head(0x9e2a83c1, 61))).toBe(true);
    expect(isClassicPackage(head(0x9e2a83c1, -7))).toBe(false); // UE4/UE5 legacy file version
    expect(isClassicPackage(head(0x9e2a83c1, 868))).toBe(false); // UE3
    expect(isClassicPackage(head(0x9e2a83c1, 60))).toBe(false);
    expect(isClassicPackage(head(0x9e2a83c1, 130))).toBe(false);
    expect(isClassicPackage(head(0xc1832a9e, 69))).toBe(false);
    expect(isClassicPackage(head(0x9e2a83c1, 69).subarray(0, 7))).toBe(false);
    expect(ClassicVersion.UT99).toBe(69);
  });
});

describe('versions the corpus lacks (synthetic packages laid out like the engine does)', () => {
  it.each([61, 63, 64, 67, 68, 69, 128])('file version %d: names, heritage or generations, paths', (version) => {
    const bytes = buildClassicPackage(tinyPackage(version));
    expect(isClassicPackage(bytes)).toBe(true);
    const p = parseClassicPackage(bytes, { source: 'Dir/MyPackage.u' });
    expect(p.names.map((n) => n.name)).toEqual(tinyPackage(version).names);
    expect(p.imports.map((i) => i.path)).toEqual(['Core', 'Engine', 'Engine.Actor', 'Core.Function']);
    expect(p.exports.map((e) => e.path)).toEqual(['MyPackage.MyClass', 'MyPackage.MyClass.MyFunction']);
    expect(p.exports[1]).toMatchObject({ serialSize: 0, serialOffset: null });
    expect(p.exports[0]!.serialSize).toBe(20);
    const v = describeClassicPackage(p);
    expect(v.exports[0]).toMatchObject({ className: 'Core.Class', superName: 'Engine.Actor', outer: null });
    expect(v.exports[1]).toMatchObject({ className: 'Core.Function', superName: null, outer: 'MyPackage.MyClass' });
    if (version < 68) {
      expect(p.summary.heritageCount).toBe(1);
      expect(p.heritage).toEqual(['f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff']);
      expect(p.summary.guid).toBe(p.heritage[0]);
      expect(p.extents.heritage!.end).toBe(bytes.length);
      expect(p.summary.headerSize).toBe(0x2c);
    } else {
      expect(p.summary.generations).toEqual([{ exportCount: 2, nameCount: 9 }]);
      expect(p.summary.guid).toBe('0102030405060708090a0b0c0d0e0f10');
      expect(p.extents.exports.end).toBe(bytes.length);
      expect(p.summary.headerSize).toBe(64);
    }
  });

  it('reads UTF-16 names (negative length) of later UE2 builds', () => {
    const base = buildClassicPackage({ version: 128, names: ['None'], imports: [], exports: [] });
    // Replace the one name entry (05 "None" 00 + 4 bytes of flags) with a UTF-16 "Né".
    const nameAt = new DataView(base.buffer).getUint32(0x10, true);
    const entry = [...encodeCompactIndex(-3), 0x4e, 0, 0xe9, 0, 0, 0, 0x10, 0, 7, 0];
    const bytes = Uint8Array.from([...base.subarray(0, nameAt), ...entry, ...base.subarray(nameAt + 10)]);
    const delta = entry.length - 10;
    const dv = new DataView(bytes.buffer);
    dv.setUint32(0x18, dv.getUint32(0x18, true) + delta, true);
    dv.setUint32(0x20, dv.getUint32(0x20, true) + delta, true);
    const p = parseClassicPackage(bytes);
    expect(p.names).toEqual([{ name: 'Né', flags: 0x00070010 }]);
    // Empty tables are empty extents at their offsets.
    expect(p.extents.imports).toEqual({ offset: p.summary.importOffset, end: p.summary.importOffset });
    expect(p.extents.exports).toEqual({ offset: p.summary.exportOffset, end: p.summary.exportOffset });
    expect(p.extents.names.end).toBe(p.summary.importOffset);
  });
});

describe('bad input: one line naming the file, the offset and the table', () => {
  const good = () => buildClassicPackage(tinyPackage(69));
  const fail = (bytes: Uint8Array) => thrown(() => parseClassicPackage(bytes, { source: 'Bad.u' }));
  const dv = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

  it('a name index out of range', () => {
    const p = tinyPackage(69);
    p.imports[2] = [1, 4, -2, 99];
    const e = fail(buildClassicPackage(p));
    expect(e.code).toBe('BAD_VALUE');
    expect(e.message).toMatch(/^Bad\.u at offset 0x[0-9a-f]+: import table entry 2 object name: name index 99 is out of range \(9 names\)$/);
  });

  it('an object reference out of range', () => {
    const p = tinyPackage(69);
    p.exports[1] = [-5, 0, 1, 8, 0];
    const e = fail(buildClassicPackage(p));
    expect(e.message).toMatch(/export table entry 1 class: object reference -5 is out of range \(4 imports, 2 exports\)$/);
  });

  it('an export whose data runs past the end', () => {
    const b = good();
    const exportAt = dv(b).getUint32(0x18, true);
    // Entry 0: class 0, super -3, outer (4 bytes), name 6, flags (4), size 20, then a 2-byte offset: make it 8191.
    const sizeAt = exportAt + 1 + 1 + 4 + 1 + 4;
    expect(b[sizeAt]).toBe(20);
    expect(b[sizeAt + 1]! & 0x40).toBe(0x40);
    b[sizeAt + 1] = 0x7f;
    b[sizeAt + 2] = 0x7f;
    const e = fail(b);
    expect(e.code).toBe('TRUNCATED');
    expect(e.message).toBe(`Bad.u at offset 0x${(sizeAt + 1).toString(16)}: export table entry 0: object data at 8191 of 20 bytes runs past the end of the file (${b.length} bytes)`);
  });

  it('counts and offsets past the end', () => {
    const b = good();
    dv(b).setUint32(0x20, b.length + 1, true);
    expect(fail(b).message).toBe(`Bad.u at offset 0x20: import table: offset ${b.length + 1} is past the end of the file (${b.length} bytes)`);
    const c = good();
    dv(c).setInt32(0x0c, 0x7fffffff, true);
    const e = fail(c);
    expect(e.code).toBe('TRUNCATED');
    expect(e.message).toMatch(/^Bad\.u at offset 0x40: name table: 2147483647 entries of 5 bytes need/);
    const d = good();
    dv(d).setInt32(0x34, 0x10000000, true); // generation count, after the GUID
    expect(fail(d).message).toMatch(/header generations: 268435456 entries of 8 bytes need/);
    const n = good();
    dv(n).setInt32(0x14, -1, true);
    expect(fail(n).message).toBe('Bad.u at offset 0x14: header: negative export count -1');
  });

  it('an oversized compact index in a table', () => {
    const b = good();
    const importAt = dv(b).getUint32(0x20, true);
    const bad = Uint8Array.from([...b.subarray(0, importAt), 0xff, 0xff, 0xff, 0xff, 0xff, ...b.subarray(importAt + 5)]);
    const e = fail(bad);
    expect(e.message).toBe(`Bad.u at offset 0x${importAt.toString(16)}: import table entry 0 class package: compact index longer than five bytes or wider than 32 bits (fifth byte 0xff)`);
  });

  it('a chain of outers that loops', () => {
    const p = tinyPackage(69);
    p.exports[0] = [0, -3, 2, 6, 20];
    expect(fail(buildClassicPackage(p)).message).toMatch(/export table entry [01]: its chain of outers loops or is deeper than 64$/);
  });

  it('a chain of outers deeper than 64 (paths would grow quadratically), in either order', () => {
    const chain = (n: number, outer: (i: number) => number) =>
      buildClassicPackage({ version: 69, names: ['None', 'X'], imports: [], exports: Array.from({ length: n }, (_, i) => [0, 0, outer(i), 1, 0] as [number, number, number, number, number]) });
    expect(parseClassicPackage(chain(64, (i) => i)).exports.at(-1)!.path.split('.')).toHaveLength(65);
    for (const outer of [(i: number) => i, (i: number) => (i === 4999 ? 0 : i + 2)]) {
      expect(fail(chain(5000, outer)).message).toMatch(/export table entry \d+: its chain of outers loops or is deeper than 64$/);
    }
  });

  it('a name without its NUL, before and after v64', () => {
    const b = good();
    b[0x40 + 5] = 0x41; // "None" + 'A' instead of NUL
    expect(fail(b).message).toBe('Bad.u at offset 0x40: name table entry 0: name is not NUL-terminated');
    const old = buildClassicPackage({ version: 63, names: ['None'], imports: [], exports: [] });
    old.fill(0x41, 0x2c);
    expect(fail(old).message).toBe('Bad.u at offset 0x2c: name table entry 0: name has no terminating NUL before the end of the file');
  });

  it('not a classic package', () => {
    const b = good();
    dv(b).setInt32(4, -7, true);
    expect(fail(b).code).toBe('UNSUPPORTED');
    dv(b).setUint32(0, 0x12345678, true);
    expect(fail(b).message).toBe('Bad.u at offset 0x0: not an Unreal package (tag 0x12345678)');
  });
});
