import { describe, expect, it } from 'vitest';
import {
  decodeSoftPackageIndices,
  nameHash,
  parseContainerHeader,
  parseContainerHeaderVersionName,
  parseZenPackage,
  serializeContainerHeader,
  serializeZenPackageHeader,
  type ContainerHeader,
  type ContainerHeaderVersionName,
  type ContainerPackage,
  type ZenPackage,
} from '../../src/zen/index.js';
import { read } from './helpers.js';

const sha = (b: number, n = 20) => new Uint8Array(n).fill(b);

function header(version: ContainerHeaderVersionName, extra: Partial<ContainerHeader> = {}): ContainerHeader {
  const ue4 = version === 'Initial' || version === 'PreInitial';
  const exportInfo = ['Initial', 'PreInitial', 'UE5Initial', 'LocalizedPackages', 'OptionalSegmentPackages'].includes(version);
  const pkg = (id: bigint, imports: bigint[], hashes: Uint8Array[]): ContainerPackage => ({
    packageId: id,
    importedPackages: imports,
    shaderMapHashes: ue4 ? [] : hashes,
    ...(exportInfo ? { exportCount: 3, exportBundleCount: 1 } : {}),
    ...(version === 'Initial' ? { exportBundlesSize: 1234, loadOrder: 7 } : {}),
  });
  return {
    version,
    containerId: 0x1122334455667788n,
    packages: [pkg(1n, [5n, 6n], [sha(1)]), pkg(2n, [], []), pkg(3n, [1n], [sha(2), sha(3)])],
    optionalSegmentPackages: [],
    nameMap: { names: ['/Game/Foo', '/Game/Bar'], hashes: [nameHash('/Game/Foo'), nameHash('/Game/Bar')] },
    localizedPackages: [],
    packageRedirects: [],
    culturePackageMap: [],
    softPackageReferences: null,
    shaderMapHashSize: 20,
    trailingPadding: 0,
    ...extra,
  };
}

function roundTrip(h: ContainerHeader, options: { version?: ContainerHeaderVersionName } = {}): ContainerHeader {
  const bytes = serializeContainerHeader(h);
  const back = parseContainerHeader(bytes, options);
  expect(back).toEqual(h);
  expect(Buffer.from(serializeContainerHeader(back)).equals(Buffer.from(bytes))).toBe(true);
  return back;
}

describe('container headers of every version (built, written, read back)', () => {
  it('UE4 Initial with names, a culture map and redirects', () => {
    roundTrip(
      header('Initial', {
        culturePackageMap: [
          { culture: 'en', packages: [{ sourcePackageId: 1n, localizedPackageId: 9n }] },
          { culture: 'zh-Hans', packages: [] },
        ],
        packageRedirects: [{ sourcePackageId: 4n, targetPackageId: 1n }],
      }),
    );
  });

  it('PreInitial (16-byte entries) is recognised without being named', () => {
    const back = roundTrip(header('PreInitial', { nameMap: { names: [], hashes: [] } }));
    expect(back.version).toBe('PreInitial');
  });

  it('UE5Initial: magic, version 0, package count, 24-byte entries, no localized list', () => {
    const h = header('UE5Initial', { packageRedirects: [{ sourcePackageId: 4n, targetPackageId: 1n, sourcePackageName: { index: 1, type: 1, number: 0 } }] });
    const bytes = serializeContainerHeader(h);
    expect(new DataView(bytes.buffer).getUint32(4, true)).toBe(0);
    roundTrip(h);
  });

  it('LocalizedPackages (5.0) with localized packages', () => {
    roundTrip(header('LocalizedPackages', { localizedPackages: [{ sourcePackageId: 1n, sourcePackageName: { index: 0, type: 1, number: 0 } }] }));
  });

  it('OptionalSegmentPackages (5.1/5.2) with optional segment packages', () => {
    const h = header('OptionalSegmentPackages');
    h.optionalSegmentPackages = [{ packageId: 2n, exportCount: 1, exportBundleCount: 1, importedPackages: [1n], shaderMapHashes: [] }];
    roundTrip(h);
  });

  it('NoExportInfo (5.3/5.4): 16-byte entries', () => {
    roundTrip(header('NoExportInfo'));
  });

  it('SoftPackageReferences (5.5): the block follows the redirects', () => {
    const indices = new Uint8Array(3 * 8 + 8);
    const v = new DataView(indices.buffer);
    v.setUint32(0, 2, true);
    v.setUint32(4, 24, true);
    v.setUint32(24, 1, true);
    v.setUint32(28, 0, true);
    const h = roundTrip(header('SoftPackageReferences', { softPackageReferences: { contains: true, packageIds: [10n, 11n], packageIndices: indices } }));
    expect(decodeSoftPackageIndices(h.softPackageReferences!, 3)).toEqual([[1, 0], [], []]);
    roundTrip(header('SoftPackageReferences', { softPackageReferences: { contains: false, packageIds: [], packageIndices: new Uint8Array(0) } }));
  });

  it('SoftPackageReferencesOffset (5.6+): serial info points at the block; size 0 means no block', () => {
    const h = header('SoftPackageReferencesOffset', { softPackageReferences: { contains: true, packageIds: [10n], packageIndices: new Uint8Array(8) } });
    const bytes = serializeContainerHeader(h);
    roundTrip(h);
    // The block is 4 + 4 + 8 + 4 + 8 bytes and ends the header.
    const v = new DataView(bytes.buffer);
    const infoAt = bytes.length - 28 - 16;
    expect(v.getBigInt64(infoAt, true)).toBe(BigInt(infoAt + 16));
    expect(v.getBigInt64(infoAt + 8, true)).toBe(28n);
    roundTrip(header('SoftPackageReferencesOffset', { softPackageReferences: null }));
  });

  it('8-byte shader map hashes are inferred from the entry data', () => {
    const h = header('NoExportInfo', { shaderMapHashSize: 8 });
    h.packages = h.packages.map((p) => ({ ...p, shaderMapHashes: p.shaderMapHashes.map((s) => s.subarray(0, 8).slice()) }));
    expect(roundTrip(h).shaderMapHashSize).toBe(8);
  });

  it('zero padding after the header is kept', () => {
    roundTrip(header('NoExportInfo', { trailingPadding: 12 }));
  });

  it('version names parse case-insensitively, with the CUE4Parse alias for the UE4 layout', () => {
    expect(parseContainerHeaderVersionName('noexportinfo')).toBe('NoExportInfo');
    expect(parseContainerHeaderVersionName('BeforeVersionWasAdded')).toBe('Initial');
    expect(() => parseContainerHeaderVersionName('v9')).toThrow(/unknown container header version/);
  });

  it('an explicit version settles a header without magic', () => {
    const bytes = serializeContainerHeader(header('Initial'));
    expect(parseContainerHeader(bytes, { version: 'Initial' }).version).toBe('Initial');
    expect(() => parseContainerHeader(bytes, { version: 'NoExportInfo' })).toThrow(/signature/);
  });
});

describe('zen package layouts without engine-made samples (built, written, read back)', () => {
  const base = (): ZenPackage => parseZenPackage(read('zen-assets/UE5.5/SM_Cube.uzenasset'));

  it('5.0-5.2 (44-byte summary, graph data) with and without the store entry', () => {
    const p = base();
    const q: ZenPackage = {
      ...p,
      layout: { format: 'UE5', summarySize: 44, cellMaps: false, bulkDataMap: 'none' },
      bulkData: [],
      dependencyBundleHeaders: [],
      dependencyBundleEntries: [],
      importedPackageNames: null,
      exportBundleEntries: [
        ...p.exports.map((_, i) => ({ localExportIndex: i, commandType: 0 })),
        ...p.exports.map((_, i) => ({ localExportIndex: i, commandType: 1 })),
      ],
      exportBundles: [
        { serialOffset: 0n, firstEntryIndex: 0, entryCount: p.exports.length },
        { serialOffset: 100n, firstEntryIndex: p.exports.length, entryCount: p.exports.length },
      ],
      internalArcs: [{ fromExportBundleIndex: 0, toExportBundleIndex: 1 }],
      externalArcs: [[{ fromImportIndex: 2, fromCommandType: 1, toExportBundleIndex: 0 }], []],
    };
    const bytes = serializeZenPackageHeader(q);
    for (const hints of [{}, { containerHeaderVersion: 'LocalizedPackages' as const }, { storeEntry: { exportBundleCount: 2, importedPackages: [7n, 8n], shaderMapHashes: [] } }]) {
      const back = parseZenPackage(bytes, hints);
      expect(back.layout).toEqual(q.layout);
      expect(back.exportBundles).toEqual(q.exportBundles);
      expect(back.internalArcs).toEqual(q.internalArcs);
      expect(back.externalArcs).toEqual(q.externalArcs);
      expect(back.exports).toEqual(q.exports);
      expect(back.headerSize).toBe(bytes.length);
      expect(Buffer.from(serializeZenPackageHeader(back)).equals(Buffer.from(bytes))).toBe(true);
    }
    // 5.2: the same with a plain bulk-data map.
    const r: ZenPackage = { ...q, layout: { ...q.layout, bulkDataMap: 'plain' }, bulkData: p.bulkData };
    const rb = serializeZenPackageHeader(r);
    const rback = parseZenPackage(rb);
    expect(rback.layout).toEqual(r.layout);
    expect(rback.bulkData).toEqual(p.bulkData);
  });

  it('5.3 (52-byte summary, plain bulk-data map)', () => {
    const p = base();
    const q: ZenPackage = { ...p, layout: { ...p.layout, bulkDataMap: 'plain' } };
    const bytes = serializeZenPackageHeader(q);
    const back = parseZenPackage(bytes);
    expect(back.layout).toEqual(q.layout);
    expect(back.bulkData).toEqual(p.bulkData);
    expect(parseZenPackage(bytes, { engine: 'UE5_3' }).layout).toEqual(q.layout);
  });

  it('5.6+ with non-empty cell maps and versioning info', () => {
    const p = base();
    const q: ZenPackage = {
      ...p,
      layout: { ...p.layout, cellMaps: true },
      versioningInfo: { zenVersion: 3, fileVersionUE4: 522, fileVersionUE5: 1018, licenseeVersion: 0, customVersions: [{ key: new Uint8Array(16).fill(7), version: 3 }] },
      cellImports: [0x4000000000000001n],
      cellExports: [{ cookedSerialOffset: 1, cookedSerialLayoutSize: 2, cookedSerialSize: 3, cppClassInfo: { index: 1, type: 0, number: 0 }, publicExportHash: 99n }],
    };
    const bytes = serializeZenPackageHeader(q);
    const back = parseZenPackage(bytes);
    expect(back.layout).toEqual(q.layout);
    expect(back.cellImports).toEqual(q.cellImports);
    expect(back.cellExports).toEqual(q.cellExports);
    expect(back.exports).toEqual(q.exports);
    expect(back.versioningInfo).toEqual(q.versioningInfo);
  });
});
