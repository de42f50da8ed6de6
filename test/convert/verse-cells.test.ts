import { describe, expect, it } from 'vitest';
import { legacyToZen } from '../../src/convert/legacy-to-zen.js';
import { zenToLegacy } from '../../src/convert/index.js';
import { IoStoreError } from '../../src/errors.js';
import { cityHash64 } from '../../src/hash/cityhash.js';
import { packageIdFromName } from '../../src/hash/names.js';
import { isLegacyPackage, parseLegacyPackage } from '../../src/legacy/index.js';
import { buildUexp, writeLegacyPackage, type LegacyPackageSpec } from '../../src/legacy/write.js';
import { makePackageImport, makeScriptImport } from '../../src/zen/object-index.js';
import { parseZenPackage } from '../../src/zen/index.js';
import { hasCorpus } from '../corpus.js';
import { pakFiles } from '../legacy/helpers.js';

const utf8Hash = (s: string) => cityHash64(new TextEncoder().encode(s));
const n = (index: number) => ({ index, number: 0 });

/**
 * A 5.6 package with Verse cells, made by the project's own legacy writer: one export, one cell export (its data after
 * the export's in the .uexp), a cell import of another package's cell and one of a native cell. The export waits for
 * the cell export's creation before serializing; the cell export waits for the other package's cell.
 */
function cellPackage(): { spec: LegacyPackageSpec; uexp: Uint8Array } {
  const names = ['/Game/Verse/Cells', 'Cells', '/Script/CoreUObject', 'Package', 'Class', 'Object', '/Game/Other', '/Script/Verse', 'VPackage'];
  const imp = (classPackage: number, className: number, outerIndex: number, objectName: number) => ({ classPackage: n(classPackage), className: n(className), outerIndex, objectName: n(objectName), importOptional: false });
  const exportData = new Uint8Array(8).fill(0x11);
  const cellData = new Uint8Array(12).fill(0x22);
  const spec: LegacyPackageSpec = {
    fileVersionUE4: 522,
    fileVersionUE5: 1016,
    unversioned: false,
    packageName: '/Game/Verse/Cells',
    packageFlags: (0x80000200 | 0x2000) >>> 0,
    names,
    imports: [imp(2, 3, 0, 2), imp(2, 4, -1, 5), imp(2, 3, 0, 6), imp(2, 3, 0, 7)],
    exports: [
      {
        classIndex: -2, superIndex: 0, templateIndex: 0, outerIndex: 0, objectName: n(1), objectFlags: 0x1 | 0x8, serialSize: 8, serialOffset: 0,
        forcedExport: false, notForClient: false, notForServer: false, isInheritedInstance: false, packageFlags: 0, notAlwaysLoadedForEditorGame: false,
        isAsset: true, generatePublicHash: false, firstExportDependency: 1, serializationBeforeSerializationDependencies: 0,
        createBeforeSerializationDependencies: 1, serializationBeforeCreateDependencies: 0, createBeforeCreateDependencies: 0,
      },
    ],
    cellImports: [
      { packageIndex: -3, versePath: '(/Game/Other:)Thing' },
      { packageIndex: -4, versePath: '(/Verse.org/Native:)Intrinsic' },
    ],
    cellExports: [
      { cppClassInfo: n(8), versePath: '(/Game/Verse:)Cells', serialOffset: 8, serialLayoutSize: 4, serialSize: 12, firstExportDependency: 0, serializationBeforeSerializationDependencies: 0, createBeforeSerializationDependencies: 1 },
    ],
    // Cell export 0 waits for cell import 0 (index -(4 imports + 1) - 0); export 0 for cell export 0 (index 1 export + 1).
    preloadDependencies: [-5, 2],
  };
  const uexp = buildUexp([exportData, cellData]);
  return { spec, uexp };
}

describe('Verse cells (UE 5.6+): legacy cell tables to the zen header', () => {
  it('the legacy writer and reader agree on the cell tables', () => {
    const { spec } = cellPackage();
    const { uasset, totalHeaderSize } = writeLegacyPackage(spec);
    const pkg = parseLegacyPackage(uasset, { source: 'cells.uasset' });
    expect(pkg.summary.cellImportCount).toBe(2);
    expect(pkg.summary.cellExportCount).toBe(1);
    expect(pkg.cellImports).toEqual(spec.cellImports);
    expect(pkg.cellExports).toEqual([{ ...spec.cellExports![0]!, serialOffset: totalHeaderSize + 8 }]);
  });

  it('to-zen writes the cell maps, the cells\' hashes, their bundle commands and dependency bundles', () => {
    const { spec, uexp } = cellPackage();
    const { uasset, totalHeaderSize } = writeLegacyPackage(spec);
    const pkg = parseLegacyPackage(uasset, { source: 'cells.uasset' });
    const out = legacyToZen(pkg, uasset, uexp, { engine: 'UE5_6' });
    const z = parseZenPackage(out.chunk, { engine: 'UE5_6' });
    expect(z.layout.cellMaps).toBe(true);
    // The other package's cell: imported package 0 (the only one), hash after the imports' (none here).
    expect(out.importedPackages).toEqual([packageIdFromName('/Game/Other')]);
    expect(z.importedPublicExportHashes).toEqual([utf8Hash('(/Game/Other:)Thing')]);
    expect(z.cellImports).toEqual([makePackageImport(0, 0), makeScriptImport(utf8Hash('(/Verse.org/Native:)Intrinsic'))]);
    expect(z.cellExports).toHaveLength(1);
    const c = z.cellExports[0]!;
    expect([c.cookedSerialOffset, c.cookedSerialLayoutSize, c.cookedSerialSize]).toEqual([8, 4, 12]);
    expect(z.names[c.cppClassInfo.index]).toBe('VPackage');
    expect(c.publicExportHash).toBe(utf8Hash('(/Game/Verse:)Cells'));
    expect(totalHeaderSize).toBe(pkg.summary.totalHeaderSize);
    // Commands: the public export's create first, then the cell's create its serialize waits for.
    expect(z.exportBundleEntries.map((e) => `${e.localExportIndex}${e.commandType ? 's' : 'c'}`).join(' ')).toBe('0c 1c 0s 1s');
    // One dependency bundle per export, then per cell export; entries use the extended indices.
    expect(z.dependencyBundleHeaders.map((h) => [h.createBeforeCreate, h.serializeBeforeCreate, h.createBeforeSerialize, h.serializeBeforeSerialize])).toEqual([[0, 0, 1, 0], [0, 0, 1, 0]]);
    expect(z.dependencyBundleEntries).toEqual([2, -5]);
    // The .uexp (export data, cell data, tag) follows the header unchanged.
    expect(Buffer.from(out.chunk.subarray(z.headerSize)).equals(Buffer.from(uexp))).toBe(true);
  });

  it('a cell package is one error line for a target before 5.6, and for to-legacy', () => {
    const { spec, uexp } = cellPackage();
    const { uasset } = writeLegacyPackage(spec);
    const pkg = parseLegacyPackage(uasset, { source: 'cells.uasset' });
    const ue55 = { format: 'UE5', summarySize: 52, cellMaps: false, bulkDataMap: 'padded' } as const;
    expect(() => legacyToZen(pkg, uasset, uexp, { layout: ue55 })).toThrow(/Verse cells \(1 exports, 2 imports\).*before UE 5\.6/);
    const chunk = legacyToZen(pkg, uasset, uexp, { engine: 'UE5_6' }).chunk;
    try {
      zenToLegacy(chunk, { engine: 'UE5_6' });
      throw new Error('expected an error');
    } catch (e) {
      expect(e).toBeInstanceOf(IoStoreError);
      expect((e as IoStoreError).message).toMatch(/Verse cells/);
    }
  });

  it('a cell export whose data runs past the .uexp, or a cell import that is not an import, is refused', () => {
    const { spec, uexp } = cellPackage();
    spec.cellExports![0]!.serialSize = 400;
    const { uasset } = writeLegacyPackage(spec);
    const pkg = parseLegacyPackage(uasset, { source: 'cells.uasset' });
    expect(() => legacyToZen(pkg, uasset, uexp, { engine: 'UE5_6' })).toThrow(/cell export 0 .* lies outside the .* \.uexp/);
    const bad = cellPackage().spec;
    bad.cellImports![0]!.packageIndex = 1;
    expect(() => parseLegacyPackage(writeLegacyPackage(bad).uasset, { source: 'cells.uasset' })).toThrow(/cell import 0 has package 1, not an import/);
  });
});

describe.skipIf(!hasCorpus)('Verse cells in the corpus', () => {
  it('no 5.6+ legacy package of the Legacy-Tagged paks has cells (so equality with the engine does not depend on them)', () => {
    let packages = 0;
    for (const engine of ['ue5.8', 'ue6.0']) {
      const files = pakFiles(`${engine}-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak`);
      for (const [path, bytes] of files) {
        if (!/\.(uasset|umap)$/.test(path) || !isLegacyPackage(bytes)) continue;
        const pkg = parseLegacyPackage(bytes, { source: path, engine: engine === 'ue5.8' ? 'UE5_8' : 'UE6_0' });
        expect(pkg.summary.fileVersionUE5).toBeGreaterThanOrEqual(1015);
        expect([pkg.summary.cellImportCount, pkg.summary.cellExportCount], path).toEqual([0, 0]);
        packages++;
      }
    }
    expect(packages).toBe(10);
  });
});
