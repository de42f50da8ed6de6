import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageIdFromName } from '../../src/index.js';
import {
  containerHeaderFromJson,
  containerHeaderToJson,
  parseContainerHeader,
  parseZenPackage,
  serializeContainerHeader,
  type ContainerHeader,
  type ContainerPackage,
} from '../../src/zen/index.js';
import { corpusFiles, corpusPath } from '../corpus.js';
import { chunksOfType, jsonU64Array, rawContainers, read } from './helpers.js';

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
const parsed = new Map<string, ContainerHeader>();
/** Each corpus header is parsed once per file run. */
const headerOf = (rel: string): ContainerHeader => {
  let h = parsed.get(rel);
  if (!h) parsed.set(rel, (h = parseContainerHeader(read(rel), { source: rel })));
  return h;
};
const sortedUnique = (ids: bigint[]) => ids.every((id, i) => i === 0 || ids[i - 1]! < id);

describe('ContainerHeader_1.bin files of zen-assets', () => {
  const files = corpusFiles('ContainerHeader_1.bin');
  const expected: Record<string, { version: string; packages: number; shaderHashes: number }> = {
    'zen-assets/UE4.27/ContainerHeader_1.bin': { version: 'Initial', packages: 52583, shaderHashes: 0 },
    'zen-assets/UE5.0/ContainerHeader_1.bin': { version: 'LocalizedPackages', packages: 22559, shaderHashes: 2126 },
  };

  it('are the UE 4.27 and 5.0 headers', () => {
    expect(files).toEqual(Object.keys(expected).sort());
  });

  it.each(files)('%s parses, detects its version and writes back byte for byte', (rel) => {
    const bytes = read(rel);
    const h = headerOf(rel);
    const e = expected[rel]!;
    expect(h.version).toBe(e.version);
    expect(h.packages.length).toBe(e.packages);
    expect(h.packages.reduce((a, p) => a + p.shaderMapHashes.length, 0)).toBe(e.shaderHashes);
    expect(sortedUnique(h.packages.map((p) => p.packageId))).toBe(true);
    expect(same(serializeContainerHeader(h), bytes)).toBe(true);
    // The same with the version given explicitly.
    expect(parseContainerHeader(bytes, { source: rel, version: h.version }).packages.length).toBe(e.packages);
  });

  it('UE 4.27: 32-byte store entries with bundle size, counts and load order; the name batch holds only its algorithm id', () => {
    const bytes = read('zen-assets/UE4.27/ContainerHeader_1.bin');
    const h = headerOf('zen-assets/UE4.27/ContainerHeader_1.bin');
    expect(h.nameMap.names).toEqual([]);
    expect(h.culturePackageMap).toEqual([]);
    expect(h.packageRedirects).toEqual([]);
    // Fixed parts 32 B each, then the imported ids packed behind them (checked against the raw buffer size).
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const idsAt = 8 + 4 + 4 + 0 + 4 + 8 + 4;
    const bufSizeAt = idsAt + h.packages.length * 8;
    const imports = h.packages.reduce((a, p) => a + p.importedPackages.length, 0);
    expect(view.getUint32(bufSizeAt, true)).toBe(h.packages.length * 32 + imports * 8);
    const odd = h.packages.filter((p) => !(p.exportBundlesSize! > 0 && p.exportCount! >= 0 && p.exportBundleCount! >= 1 && p.shaderMapHashes.length === 0));
    expect(odd).toEqual([]);
  });

  it('UE 5.0: 24-byte entries with 20-byte shader map hashes', () => {
    const h = headerOf('zen-assets/UE5.0/ContainerHeader_1.bin');
    expect(h.shaderMapHashSize).toBe(20);
    expect(h.packages.every((p) => p.shaderMapHashes.every((s) => s.length === 20))).toBe(true);
    expect(h.packages.every((p) => p.exportBundlesSize === undefined && p.exportCount !== undefined)).toBe(true);
  });

  it('round-trips through its JSON form', () => {
    for (const rel of ['zen-assets/UE5.0/ContainerHeader_1.bin']) {
      const bytes = read(rel);
      const h = headerOf(rel);
      const json = JSON.parse(JSON.stringify(containerHeaderToJson(h))) as unknown;
      expect(same(serializeContainerHeader(containerHeaderFromJson(json)), bytes)).toBe(true);
    }
    const j = containerHeaderToJson(headerOf('zen-assets/UE5.0/ContainerHeader_1.bin'));
    expect(j.containerId).toMatch(/^0x[0-9a-f]{16}$/);
    expect(j.packages[0]!.packageId).toMatch(/^0x[0-9a-f]{16}$/);
  });
});

describe('UE 4.27 metadata.json store entries', () => {
  const header = headerOf('zen-assets/UE4.27/ContainerHeader_1.bin');
  const byId = new Map<bigint, ContainerPackage>(header.packages.map((p) => [p.packageId, p]));
  const metas = corpusFiles('.metadata.json').filter((f) => f.startsWith('zen-assets/UE4.27/'));

  it('7 packages, 5 of them in the 4.27 container header, with identical store entries', () => {
    expect(metas.length).toBe(7);
    let matched = 0;
    for (const rel of metas) {
      const text = readFileSync(corpusPath(rel), 'utf8');
      const meta = JSON.parse(text) as { container_header_version: string; store_entry: { export_bundles_size: number; load_order: number; export_count: number; export_bundle_count: number } };
      expect(meta.container_header_version).toBe('Initial');
      const base = rel.replace(/\.metadata\.json$/, '');
      const zenRel = corpusFiles('.uzenasset').includes(`${base}.uzenasset`) ? `${base}.uzenasset` : `${base}.uasset`;
      const zenBytes = read(zenRel);
      const zen = parseZenPackage(zenBytes, { source: zenRel });
      const imported = jsonU64Array(text, 'imported_packages');
      // The zen package agrees with its store entry.
      expect(zen.exports.length).toBe(meta.store_entry.export_count);
      expect(zen.exportBundles.length).toBe(meta.store_entry.export_bundle_count);
      expect(zenBytes.length).toBe(meta.store_entry.export_bundles_size);
      const entry = byId.get(packageIdFromName(zen.packageName));
      if (!entry) continue;
      matched++;
      expect(entry.exportBundlesSize).toBe(meta.store_entry.export_bundles_size);
      expect(entry.loadOrder).toBe(meta.store_entry.load_order);
      expect(entry.exportCount).toBe(meta.store_entry.export_count);
      expect(entry.exportBundleCount).toBe(meta.store_entry.export_bundle_count);
      expect(entry.importedPackages).toEqual(imported);
      expect(entry.shaderMapHashes).toEqual([]);
    }
    expect(matched).toBe(5);
  });
});

describe('container-header chunks of the uncompressed corpus containers', () => {
  const containers = rawContainers().filter((c) => chunksOfType(c, 'ContainerHeader').length > 0);

  it('are the six cue4parse game and patch containers', () => {
    expect(containers.map((c) => c.rel).sort()).toEqual([
      'ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc',
      'ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase_0_P.utoc',
      'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc',
      'ue6.0-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc',
      'ue6.0-cue4parse/patch/CUE4ParseFixtures-PatchBase_0_P.utoc',
      'ue6.0-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc',
    ]);
  });

  it.each(containers.map((c) => [c.rel, c] as const))('%s', (_rel, c) => {
    const [hi] = chunksOfType(c, 'ContainerHeader');
    const bytes = c.chunk(hi!);
    const h: ContainerHeader = parseContainerHeader(bytes, { source: c.rel });
    expect(h.version).toBe('SoftPackageReferencesOffset');
    expect(h.containerId).toBe(c.toc.header.containerId);
    expect(c.toc.chunkId(hi!).id).toBe(h.containerId);
    expect(same(serializeContainerHeader(h), bytes)).toBe(true);
    // Engine headers end with a 4-byte soft-reference block saying "none".
    expect(h.softPackageReferences).toEqual({ contains: false, packageIds: [], packageIndices: new Uint8Array(0) });
    expect(h.trailingPadding).toBe(0);
    const ids = h.packages.map((p) => p.packageId);
    expect(sortedUnique(ids)).toBe(true);
    const chunkIds = chunksOfType(c, 'ExportBundleData').map((i) => c.toc.chunkId(i).id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(ids).toEqual(chunkIds);
    // v3+ entries have no export info.
    expect(h.packages.every((p) => p.exportCount === undefined && p.exportBundlesSize === undefined)).toBe(true);
  });
});
