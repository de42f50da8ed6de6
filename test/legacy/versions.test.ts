import { describe, expect, it } from 'vitest';
import {
  legacyPackageSpec,
  objectVersionsOfEngine,
  parseLegacyEngineRelease,
  parseLegacyPackage,
  writeLegacyPackage,
  type LegacyExport,
  type LegacyPackage,
} from '../../src/legacy/index.js';
import { hasCorpus } from '../corpus.js';
import { readCorpus } from './helpers.js';

/**
 * The summary and entry layouts of every UE4 object version and legacy file version a release wrote, beyond the
 * corpus's: a real UE 4.23 package is written back as each (legacy file versions -2 to -7, object versions 342 to
 * 522 at every threshold a field depends on), then read, versioned and unversioned without a hint.
 */
const LEGACY_VERSIONS = [-2, -3, -4, -5, -6, -7];
/** Each version a summary or entry field starts at, and the one before it. */
const UE4_VERSIONS = [342, 364, 365, 383, 384, 443, 444, 458, 459, 484, 485, 503, 504, 506, 507, 508, 509, 510, 511, 515, 516, 517, 518, 519, 520, 522];

/** The export fields a version stores (the others read as their defaults); serial offsets from the header's end. */
function stored(e: LegacyExport, ue4: number, header: number): Partial<LegacyExport> {
  return {
    classIndex: e.classIndex, superIndex: e.superIndex, outerIndex: e.outerIndex, objectName: e.objectName, objectFlags: e.objectFlags,
    serialSize: e.serialSize, serialOffset: e.serialOffset - header, forcedExport: e.forcedExport, notForClient: e.notForClient, notForServer: e.notForServer,
    packageGuid: e.packageGuid, packageFlags: e.packageFlags,
    ...(ue4 >= 508 ? { templateIndex: e.templateIndex } : {}),
    ...(ue4 >= 365 ? { notAlwaysLoadedForEditorGame: e.notAlwaysLoadedForEditorGame } : {}),
    ...(ue4 >= 485 ? { isAsset: e.isAsset } : {}),
    ...(ue4 >= 507 ? { firstExportDependency: e.firstExportDependency, createBeforeCreateDependencies: e.createBeforeCreateDependencies } : {}),
  };
}

describe.skipIf(!hasCorpus)('legacy layouts of every UE4 object version and legacy file version', () => {
  const base = parseLegacyPackage(readCorpus('legacy-games/ue4.23-astroneer/LargeResourceCanister_IT.uasset'), { engine: 'UE4_23', packageName: '/Game/Items/LargeResourceCanister_IT' });

  function asVersion(p: LegacyPackage, legacyFileVersion: number, ue4: number, unversioned: boolean): Uint8Array {
    const spec = legacyPackageSpec(p);
    // Written in the cooked layout: only the summary's versions and the entries' shapes change.
    delete spec.regions;
    spec.fileVersionUE4 = ue4;
    spec.unversioned = unversioned;
    spec.summary = { ...spec.summary!, legacyFileVersion };
    spec.customVersions = legacyFileVersion <= -2 ? [{ key: legacyFileVersion === -2 ? '01020304' : '00112233445566778899aabbccddeeff', version: 7, ...(legacyFileVersion >= -5 && legacyFileVersion <= -3 ? { friendlyName: 'Dev-Test' } : {}) }] : [];
    return writeLegacyPackage(spec).uasset;
  }

  it('writes and reads back each: summary fields, names, imports and the export fields each version stores', () => {
    let n = 0;
    for (const legacy of LEGACY_VERSIONS) {
      // Every object version with -7; the older legacy file versions (their own first fields) with a few.
      for (const ue4 of legacy === -7 ? UE4_VERSIONS : [342, 459, 510]) {
        const bytes = asVersion(base, legacy, ue4, false);
        const p = parseLegacyPackage(bytes, { source: `${legacy}/${ue4}` });
        const what = `legacy ${legacy}, UE4 ${ue4}`;
        expect([p.summary.legacyFileVersion, p.summary.fileVersionUE4, p.summary.summarySize], what).toEqual([legacy, ue4, p.summary.nameOffset]);
        expect(p.summary.customVersions.length, what).toBe(1);
        if (legacy >= -5 && legacy <= -3) expect(p.summary.customVersions[0]!.friendlyName, what).toBe('Dev-Test');
        expect(p.names.map((x) => x.name), what).toEqual(base.names.map((x) => x.name));
        expect(p.imports, what).toEqual(base.imports);
        expect(p.exports.map((e) => stored(e, ue4, p.summary.totalHeaderSize)), what).toEqual(base.exports.map((e) => stored(e, ue4, base.summary.totalHeaderSize)));
        expect(p.layout.exportEntrySize, what).toBe((ue4 >= 511 ? 104 : 96) - (ue4 < 508 ? 4 : 0) - (ue4 < 507 ? 20 : 0) - (ue4 < 485 ? 4 : 0) - (ue4 < 365 ? 4 : 0));
        n++;
      }
    }
    expect(n).toBe((LEGACY_VERSIONS.length - 1) * 3 + UE4_VERSIONS.length);
  });

  it('an unversioned package of each version reads without a hint: the tables its bytes fit are its own', () => {
    for (const ue4 of UE4_VERSIONS) {
      const bytes = asVersion(base, -7, ue4, true);
      const p = parseLegacyPackage(bytes, { source: `unversioned ${ue4}` });
      expect(p.summary.summarySize, `UE4 ${ue4}`).toBe(p.summary.nameOffset);
      expect(p.exports.map((e) => stored(e, ue4, p.summary.totalHeaderSize)), `UE4 ${ue4}`).toEqual(base.exports.map((e) => stored(e, ue4, base.summary.totalHeaderSize)));
      expect(p.names.map((x) => x.name), `UE4 ${ue4}`).toEqual(base.names.map((x) => x.name));
      // And with the version given, exactly that one.
      expect(parseLegacyPackage(bytes, { versions: { fileVersionUE4: ue4, fileVersionUE5: 0 } }).summary.fileVersionUE4).toBe(ue4);
    }
  });

  it('names every release from 4.0 to 6.0 with its object versions', () => {
    expect(['UE4_0', '4.3', 'ue4.14', 'UE_4_18', 'UE4_24', 'UE4_27', 'UE5_6', '5.7', 'UE6_0'].map((r) => objectVersionsOfEngine(parseLegacyEngineRelease(r)))).toEqual([
      { fileVersionUE4: 342, fileVersionUE5: 0 },
      { fileVersionUE4: 382, fileVersionUE5: 0 },
      { fileVersionUE4: 508, fileVersionUE5: 0 },
      { fileVersionUE4: 514, fileVersionUE5: 0 },
      { fileVersionUE4: 518, fileVersionUE5: 0 },
      { fileVersionUE4: 522, fileVersionUE5: 0 },
      { fileVersionUE4: 522, fileVersionUE5: 1017 },
      { fileVersionUE4: 522, fileVersionUE5: 1018 },
      { fileVersionUE4: 522, fileVersionUE5: 1018 },
    ]);
    expect(() => parseLegacyEngineRelease('UE3_0')).toThrow(/unknown engine version "UE3_0"/);
  });
});
