import { describe, expect, it } from 'vitest';
import { IoStoreError } from '../../src/errors.js';
import {
  isLegacyPackage,
  legacyExportClassPath,
  legacyExportData,
  legacyNameText,
  legacyObjectPath,
  casePreservingNameHash,
  nonCasePreservingNameHash,
  parseLegacyPackage,
  writeLegacyPackage,
  type LegacyPackage,
  type LegacyPackageSpec,
} from '../../src/legacy/index.js';
import { cityHash64 } from '../../src/index.js';
import { hasCorpus } from '../corpus.js';
import { LEGACY_PAK_VARIANTS, legacyPak, pakFiles, readCorpus } from './helpers.js';

const exportPaths = (p: LegacyPackage) => p.exports.map((_, i) => legacyObjectPath(p, i + 1));
const importPaths = (p: LegacyPackage) => p.imports.map((_, i) => legacyObjectPath(p, -i - 1));

function expectError(f: () => unknown, code: string): IoStoreError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(IoStoreError);
    expect((e as IoStoreError).code).toBe(code);
    return e as IoStoreError;
  }
  throw new Error('expected an IoStoreError');
}

/** Checks that hold for every engine-written cooked package: the tables tile the header and the .uexp. */
function checkConsistent(p: LegacyPackage, uasset: Uint8Array, uexp: Uint8Array): void {
  const s = p.summary;
  expect(s.nameOffset).toBe(s.summarySize);
  expect(s.totalHeaderSize).toBe(uasset.length);
  expect(s.exportOffset - s.importOffset).toBe(s.importCount * p.layout.importEntrySize);
  const data = legacyExportData(p, uexp);
  // Exports follow one another from the start of the .uexp; the package tag (and inline bulk data) close it.
  let at = s.totalHeaderSize;
  p.exports.forEach((e, i) => {
    expect(e.serialOffset).toBe(at);
    expect(data[i]!.length).toBe(e.serialSize);
    at += e.serialSize;
  });
  expect(at - s.totalHeaderSize).toBeLessThanOrEqual(uexp.length - 4);
}

describe.skipIf(!hasCorpus)('legacy packages of the corpus', () => {
  it('reads UE 5.5 T_Test (unversioned): summary, names, imports and exports as object paths', () => {
    const ua = readCorpus('zen-assets/UE5.5/T_Test.uasset');
    const p = parseLegacyPackage(ua, { source: 'T_Test.uasset' });
    expect(p.summary.legacyFileVersion).toBe(-8);
    expect(p.summary.unversioned).toBe(true);
    expect(p.summary.packageName).toBe('/Game/Textures/T_Test');
    expect(p.summary.totalHeaderSize).toBe(1194);
    expect(p.summary.bulkDataStartOffset).toBe(4248);
    expect(p.layout).toMatchObject({ importEntrySize: 32, exportEntrySize: 96, importHasPackageName: false, exportHasScriptOffsets: false });
    expect(p.names.map((n) => n.name)).toContain('PF_DXT1');
    expect(importPaths(p)).toEqual(['/Script/Engine.Texture2D', '/Script/Engine', '/Script/Engine.Default__Texture2D']);
    expect(exportPaths(p)).toEqual(['/Game/Textures/T_Test.T_Test']);
    expect(legacyExportClassPath(p, 0)).toBe('/Script/Engine.Texture2D');
    expect(p.exports[0]!.serialSize).toBe(3054);
    checkConsistent(p, ua, readCorpus('zen-assets/UE5.5/T_Test.uexp'));
  });

  it('reads the UE 5.4 and 5.5 pairs, with or without the engine version', () => {
    for (const [dir, name, engine, exports] of [
      ['UE5.4', 'BP_Table_Lamp', 'UE5_4', 9],
      ['UE5.4', 'Randy', 'UE5_4', 1],
      ['UE5.5', 'BP_ThirdPersonCharacter', 'UE5_5', 19],
      ['UE5.5', 'SM_Cube', 'UE5_5', 3],
    ] as const) {
      const ua = readCorpus(`zen-assets/${dir}/${name}.uasset`);
      const ux = readCorpus(`zen-assets/${dir}/${name}.uexp`);
      const guessed = parseLegacyPackage(ua, { source: name });
      const told = parseLegacyPackage(ua, { source: name, engine });
      expect(told.summary.fileVersionUE5).toBe(engine === 'UE5_4' ? 1012 : 1013);
      expect(exportPaths(told)).toEqual(exportPaths(guessed));
      expect(told.exports.length).toBe(exports);
      checkConsistent(told, ua, ux);
    }
    const lamp = parseLegacyPackage(readCorpus('zen-assets/UE5.4/BP_Table_Lamp.uasset'));
    expect(exportPaths(lamp)).toContain('/Game/Billiards/Blueprints/BP_Table_Lamp.BP_Table_Lamp_C:SimpleConstructionScript_0.SCS_Node_0');
    expect(legacyExportClassPath(lamp, 4)).toBe('/Script/Engine.SCS_Node');
  });

  it('reads the UE 4.27 legacy package (104-byte exports with the package GUID)', () => {
    const ua = readCorpus('zen-assets/UE4.27/TestModUI.uasset');
    const p = parseLegacyPackage(ua, { source: 'TestModUI.uasset', packageName: '/Game/_AssemblyStorm/TestMod/TestModUI' });
    expect(p.summary.legacyFileVersion).toBe(-7);
    expect(p.summary.packageName).toBe('None');
    expect([p.names.length, p.imports.length, p.exports.length]).toEqual([522, 229, 220]);
    expect(p.layout).toMatchObject({ importEntrySize: 28, exportEntrySize: 104 });
    expect(p.exports[0]!.packageGuid).toMatch(/^[0-9a-f]{32}$/);
    expect(legacyObjectPath(p, 1)).toBe('/Game/_AssemblyStorm/TestMod/TestModUI.TestModUI_C:ExecuteUbergraph_TestModUI');
    checkConsistent(p, ua, readCorpus('zen-assets/UE4.27/TestModUI.uexp'));
  });

  for (const engine of ['ue5.8', 'ue6.0'] as const) {
    it(`reads every ${engine} Legacy-Tagged package: versioned -9 summaries, 40-byte imports, 112-byte exports`, () => {
      const files = pakFiles(legacyPak(engine));
      const packages = [...files.keys()].filter((k) => /\.(uasset|umap)$/.test(k));
      expect(packages.length).toBe(5);
      for (const path of packages) {
        const ua = files.get(path)!;
        const p = parseLegacyPackage(ua, { source: path });
        expect(p.summary.legacyFileVersion).toBe(-9);
        expect([p.summary.fileVersionUE4, p.summary.fileVersionUE5, p.summary.unversioned]).toEqual([522, 1018, false]);
        expect(p.summary.savedHash).toMatch(/^[0-9a-f]{40}$/);
        expect(p.layout).toMatchObject({ importEntrySize: 40, exportEntrySize: 112, importHasPackageName: true, exportHasScriptOffsets: true });
        expect(p.summary.packageName).toBe(`/Game/Fixtures/${path.replace(/\.[^.]+$/, '')}`);
        for (const imp of p.imports) expect(legacyNameText(p, imp.packageName!)).toBe(legacyNameText(p, imp.objectName));
        for (const e of p.exports) expect(e.scriptSerializationEndOffset!).toBeLessThanOrEqual(e.serialSize);
        checkConsistent(p, ua, files.get(path.replace(/\.[^.]+$/, '.uexp'))!);
      }
      const map = parseLegacyPackage(files.get('Maps/Empty.umap')!);
      expect(exportPaths(map)).toEqual([
        '/Game/Fixtures/Maps/Empty.Empty:PersistentLevel',
        '/Game/Fixtures/Maps/Empty.Empty:PersistentLevel.Model_0',
        '/Game/Fixtures/Maps/Empty.Empty:PersistentLevel.WorldSettings.NavigationSystemModuleConfig_0',
        '/Game/Fixtures/Maps/Empty.Empty',
        '/Game/Fixtures/Maps/Empty.Empty:PersistentLevel.WorldSettings',
      ]);
      expect(map.exports.map((_, i) => legacyExportClassPath(map, i))).toEqual([
        '/Script/Engine.Level', '/Script/Engine.Model', '/Script/NavigationSystem.NavigationSystemModuleConfig', '/Script/Engine.World', '/Script/Engine.WorldSettings',
      ]);
      const dt = parseLegacyPackage(files.get('DataTables/DT_AllProperties.uasset')!);
      expect(dt.exports[0]!.serialSize).toBe(1610);
    });

    it(`reads the same bytes from the four ${engine} Legacy-Tagged paks (Zlib and Oodle decoded, AES decrypted)`, () => {
      const plain = pakFiles(legacyPak(engine));
      for (const v of LEGACY_PAK_VARIANTS.slice(1)) {
        const other = pakFiles(legacyPak(engine, v));
        expect([...other.keys()].sort()).toEqual([...plain.keys()].sort());
        for (const [k, b] of plain) expect(cityHash64(other.get(k)!)).toBe(cityHash64(b));
      }
    });
  }

  it('tells legacy packages from zen and classic ones by their bytes', () => {
    expect(isLegacyPackage(readCorpus('zen-assets/UE5.5/T_Test.uasset'))).toBe(true);
    expect(isLegacyPackage(readCorpus('zen-assets/UE4.27/TestModUI.uasset'))).toBe(true);
    expect(isLegacyPackage(readCorpus('zen-assets/UE5.5/T_Test.uzenasset'))).toBe(false);
    expect(isLegacyPackage(readCorpus('zen-assets/UE4.27/T_Emissive.uasset'))).toBe(false);
    expect(isLegacyPackage(readCorpus('ue1-packages/XC_Orb.utx'))).toBe(false);
    expect(isLegacyPackage(new Uint8Array(3))).toBe(false);
  });
});

describe.skipIf(!hasCorpus)('bad legacy packages', () => {
  const good = () => readCorpus('zen-assets/UE5.5/SM_Cube.uasset').slice();

  it('names the file and offset of a wrong tag, a classic version and a truncated header', () => {
    const b = good();
    b[0] = 0;
    expect(expectError(() => parseLegacyPackage(b, { source: 'x.uasset' }), 'BAD_MAGIC').message).toMatch(/^x\.uasset at offset 0x0: /);
    const classic = good();
    new DataView(classic.buffer).setInt32(4, 69, true);
    expectError(() => parseLegacyPackage(classic), 'UNSUPPORTED');
    for (const n of [0, 7, 30, 100, 236, 500]) {
      try {
        parseLegacyPackage(good().subarray(0, n), { source: 'cut.uasset' });
        throw new Error('expected an error');
      } catch (e) {
        expect(e).toBeInstanceOf(IoStoreError);
        expect((e as IoStoreError).message).toMatch(/^cut\.uasset at offset 0x[0-9a-f]+: /);
      }
    }
  });

  it('rejects indices outside the tables and outer loops, and never throws anything but IoStoreError', () => {
    const p = parseLegacyPackage(good());
    const outerAt = p.summary.exportOffset + 12;
    const b = good();
    new DataView(b.buffer).setInt32(outerAt, 1, true); // export 0 is its own outer
    expect(expectError(() => parseLegacyPackage(b), 'BAD_VALUE').message).toMatch(/loops/);
    const c = good();
    new DataView(c.buffer).setInt32(p.summary.importOffset + 20, 9999, true); // object name of import 0
    expect(expectError(() => parseLegacyPackage(c), 'BAD_VALUE').message).toMatch(/import 0 names entry 9999/);
    // Random byte flips: a typed error or a result, nothing else, and quickly.
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let k = 0; k < 300; k++) {
      const d = good();
      for (let j = 0; j < 4; j++) d[Math.floor(rnd() * d.length)] = Math.floor(rnd() * 256);
      try {
        const q = parseLegacyPackage(d);
        q.exports.forEach((_, i) => legacyObjectPath(q, i + 1));
      } catch (e) {
        expect(e).toBeInstanceOf(IoStoreError);
      }
    }
  });
});

describe.skipIf(!hasCorpus)('legacy writer', () => {
  /** Everything the engine stored, handed back to the writer. */
  function respec(p: LegacyPackage): LegacyPackageSpec {
    const s = p.summary;
    return {
      fileVersionUE4: s.fileVersionUE4,
      fileVersionUE5: s.fileVersionUE5,
      fileVersionLicenseeUE4: s.fileVersionLicenseeUE4,
      unversioned: s.unversioned,
      customVersions: s.customVersions,
      packageName: s.packageName,
      packageFlags: s.packageFlags,
      names: p.names.map((n) => n.name),
      namesReferencedFromExportDataCount: s.namesReferencedFromExportDataCount,
      imports: p.imports,
      exports: p.exports,
      preloadDependencies: p.preloadDependencies,
      dataResources: p.dataResources,
      ...(s.guid ? { guid: s.guid } : {}),
      ...(s.savedHash ? { savedHash: s.savedHash } : {}),
      packageSource: s.packageSource,
      savedByEngineVersion: s.savedByEngineVersion,
    };
  }

  it("writes the engine's .uasset byte for byte from its parsed contents (4.27, 5.5, 5.8, 6.0), name hashes included", () => {
    const cases: Array<[string, Uint8Array]> = [
      ['UE4.27/TestModUI', readCorpus('zen-assets/UE4.27/TestModUI.uasset')],
      ['UE5.5/T_Test', readCorpus('zen-assets/UE5.5/T_Test.uasset')],
      ['UE5.5/SM_Cube', readCorpus('zen-assets/UE5.5/SM_Cube.uasset')],
      ['UE5.5/BP_ThirdPersonCharacter', readCorpus('zen-assets/UE5.5/BP_ThirdPersonCharacter.uasset')],
    ];
    for (const engine of ['ue5.8', 'ue6.0'] as const) {
      for (const [path, bytes] of pakFiles(legacyPak(engine))) if (/\.(uasset|umap)$/.test(path)) cases.push([`${engine}/${path}`, bytes]);
    }
    expect(cases.length).toBe(14);
    for (const [name, bytes] of cases) {
      const p = parseLegacyPackage(bytes, { source: name });
      for (const n of p.names) {
        expect([nonCasePreservingNameHash(n.name), casePreservingNameHash(n.name)], `${name}: ${n.name}`).toEqual([n.nonCasePreservingHash, n.casePreservingHash]);
      }
      const { uasset, totalHeaderSize } = writeLegacyPackage(respec(p));
      expect(totalHeaderSize, name).toBe(bytes.length);
      expect(Buffer.compare(Buffer.from(uasset), Buffer.from(bytes)), name).toBe(0);
    }
  });
});
