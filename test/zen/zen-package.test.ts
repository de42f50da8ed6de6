import { describe, expect, it } from 'vitest';
import { packageIdFromName } from '../../src/index.js';
import {
  bigintToHex,
  dependencyCount,
  exportChunkOffsets,
  importedPackageNameStrings,
  nameHashMismatches,
  objectIndexKind,
  packageImportParts,
  parseContainerHeader,
  parseZenPackage,
  serializeZenPackageHeader,
  toJsonFriendly,
  type ContainerPackage,
  type ZenPackage,
} from '../../src/zen/index.js';
import { corpusFiles } from '../corpus.js';
import { chunksOfType, isLegacyPackage, legacySummary, rawContainers, read } from './helpers.js';

const TAG = 0x9e2a83c1;
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
const u32At = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at, true);

/** Checks every invariant of a parsed package against its chunk bytes; returns a list of failures. */
function checkPackage(p: ZenPackage, bytes: Uint8Array): string[] {
  const bad: string[] = [];
  if (nameHashMismatches({ names: p.names, hashes: p.nameHashes }).length > 0) bad.push('name hashes');
  // Sections tile [0, headerSize).
  let at = 0;
  for (const s of p.sections) {
    if (s.offset !== at) bad.push(`section ${s.name} at ${s.offset}, expected ${at}`);
    at = s.offset + s.size;
  }
  if (at !== p.headerSize) bad.push(`sections end at ${at}, header size ${p.headerSize}`);
  // Export data adds up to the chunk.
  const exportsEnd = p.headerSize + p.exportDataSize;
  if (p.layout.format === 'UE4') {
    if (exportsEnd !== bytes.length) bad.push(`UE4 header + exports = ${exportsEnd}, chunk ${bytes.length}`);
  } else if (exportsEnd + 4 !== bytes.length || u32At(bytes, bytes.length - 4) !== TAG) {
    bad.push(`UE5 header + exports + tag = ${exportsEnd + 4}, chunk ${bytes.length}`);
  }
  // Two bundle entries (Create, Serialize) per export.
  if (p.exportBundleEntries.length !== 2 * p.exports.length) bad.push('bundle entries');
  const seen = new Set(p.exportBundleEntries.map((e) => e.localExportIndex * 2 + e.commandType));
  if (seen.size !== 2 * p.exports.length) bad.push('bundle entries not one Create + one Serialize per export');
  if (p.layout.summarySize === 52) {
    // 5.3+: exports are contiguous from 0 relative to the header end, and one dependency header per export.
    const sorted = [...p.exports].sort((a, b) => a.cookedSerialOffset - b.cookedSerialOffset);
    let o = 0;
    for (const e of sorted) {
      if (e.cookedSerialOffset !== o) bad.push(`export at ${e.cookedSerialOffset}, expected ${o}`);
      o += e.cookedSerialSize;
    }
    if (p.dependencyBundleHeaders.length !== p.exports.length) bad.push('dependency headers');
    const deps = p.dependencyBundleHeaders.reduce((a, h) => a + dependencyCount(h), 0);
    if (deps !== p.dependencyBundleEntries.length) bad.push('dependency entries');
    // Package imports point into the imported packages and public export hashes.
    const importedCount = p.importedPackageNames?.batch.names.length ?? 0;
    for (const i of p.imports) {
      if (objectIndexKind(i) !== 'PackageImport') continue;
      const { importedPackageIndex, publicExportHashIndex } = packageImportParts(i);
      if (importedPackageIndex >= importedCount || publicExportHashIndex >= p.importedPublicExportHashes.length) bad.push(`import ${i}`);
    }
    if (p.importedPackageNames && nameHashMismatches(p.importedPackageNames.batch).length > 0) bad.push('imported package name hashes');
  }
  if (!same(serializeZenPackageHeader(p), bytes.subarray(0, p.headerSize))) bad.push('header does not write back byte for byte');
  return bad;
}

describe('zen packages of zen-assets', () => {
  const files = [...corpusFiles('.uzenasset'), ...corpusFiles('.uasset')].filter((f) => f.startsWith('zen-assets/') && !isLegacyPackage(read(f))).sort();

  it('are 7 UE 4.27, 3 UE 5.4 and 3 UE 5.5 packages', () => {
    expect(files.length).toBe(13);
    const versions = files.map((f) => f.split('/')[1]);
    expect(versions.filter((v) => v === 'UE4.27').length).toBe(7);
    expect(versions.filter((v) => v === 'UE5.4').length).toBe(3);
    expect(versions.filter((v) => v === 'UE5.5').length).toBe(3);
  });

  it.each(files)('%s', (rel) => {
    const bytes = read(rel);
    const p = parseZenPackage(bytes, { source: rel });
    const ue4 = rel.includes('UE4.27');
    expect(p.layout).toEqual(
      ue4 ? { format: 'UE4', summarySize: 64, cellMaps: false, bulkDataMap: 'none' } : { format: 'UE5', summarySize: 52, cellMaps: false, bulkDataMap: 'padded' },
    );
    expect(p.versioningInfo).toBeNull();
    expect(p.packageName).toMatch(/^\/(Game|Engine)\//);
    expect(checkPackage(p, bytes)).toEqual([]);
    // The hints that describe the package give the same result.
    const hinted = parseZenPackage(bytes, ue4 ? { engine: 'UE4_27', containerHeaderVersion: 'Initial' } : { engine: rel.includes('5.4') ? 'UE5_4' : 'UE5_5' });
    expect(hinted.layout).toEqual(p.layout);
    expect(hinted.sections).toEqual(p.sections);
  });

  it('export data in the zen chunk equals the legacy .uexp bytes of the same export (6 packages)', () => {
    const legacy = corpusFiles('.uexp').filter((f) => f.startsWith('zen-assets/'));
    expect(legacy.length).toBe(6);
    for (const uexpRel of legacy) {
      const zenBytes = read(uexpRel.replace(/\.uexp$/, '.uzenasset'));
      const uexp = read(uexpRel);
      const p = parseZenPackage(zenBytes);
      const offsets = exportChunkOffsets(p);
      const wrong: string[] = [];
      p.exports.forEach((e, i) => {
        // Legacy offset of an export: UE4 stores it directly; UE5 stores it relative to the legacy header.
        const legacyOffset = p.layout.format === 'UE4' ? e.cookedSerialOffset : p.cookedHeaderSize + e.cookedSerialOffset;
        const inUexp = uexp.subarray(legacyOffset - p.cookedHeaderSize, legacyOffset - p.cookedHeaderSize + e.cookedSerialSize);
        if (offsets[i]! < p.headerSize || !same(zenBytes.subarray(offsets[i]!, offsets[i]! + e.cookedSerialSize), inUexp)) wrong.push(`export ${i}`);
      });
      expect(wrong, uexpRel).toEqual([]);
      // The .uexp is the exports followed by the package tag.
      expect(uexp.length).toBe(p.exportDataSize + 4);
    }
  });

  it('has a JSON-friendly form', () => {
    const p = parseZenPackage(read('zen-assets/UE5.5/SM_Cube.uzenasset'));
    const j = JSON.parse(JSON.stringify(toJsonFriendly(p))) as { nameHashes: string[]; exports: { publicExportHash: string }[]; headerSize: number };
    expect(j.headerSize).toBe(p.headerSize);
    expect(j.nameHashes[0]).toBe(bigintToHex(p.nameHashes[0]!));
    expect(j.exports[0]!.publicExportHash).toMatch(/^0x[0-9a-f]{16}$/);
  });

  it('the UE 5.4 package carries the container-header version its metadata names', () => {
    const bytes = read('zen-assets/UE5.4/BP_Russian_pool_table.uasset');
    const p = parseZenPackage(bytes, { containerHeaderVersion: 'NoExportInfo' });
    expect(p.layout.bulkDataMap).toBe('padded');
    expect(importedPackageNameStrings(p).every((n) => n.startsWith('/'))).toBe(true);
  });

  it('the 6 legacy .uasset files beside .uzenasset files have the same export count and header size', () => {
    const legacy = corpusFiles('.uasset').filter((f) => f.startsWith('zen-assets/') && isLegacyPackage(read(f)));
    expect(legacy.length).toBe(6);
    for (const rel of legacy) {
      const zen = parseZenPackage(read(rel.replace(/\.uasset$/, '.uzenasset')));
      const summary = legacySummary(read(rel));
      expect(summary.exportCount, rel).toBe(zen.exports.length);
      expect(summary.totalHeaderSize, rel).toBe(zen.cookedHeaderSize);
      expect(summary.exportOffset).toBeLessThan(summary.totalHeaderSize);
    }
  });

  it('a UE 4.27 zen package read with its store entry gives the same bundles', () => {
    const h = parseContainerHeader(read('zen-assets/UE4.27/ContainerHeader_1.bin'));
    const bytes = read('zen-assets/UE4.27/BP_Aphid_Meat_Prop.uasset');
    const p = parseZenPackage(bytes);
    const entry = h.packages.find((e) => e.packageId === packageIdFromName(p.packageName));
    expect(entry).toBeDefined();
    const withEntry = parseZenPackage(bytes, { storeEntry: entry! });
    expect(withEntry.exportBundles).toEqual(p.exportBundles);
    expect(p.referencedPackages.map((r) => r.packageId)).toEqual(entry!.importedPackages);
  });
});

describe('zen packages (ExportBundleData chunks) of the uncompressed corpus containers', () => {
  const containers = rawContainers().filter((c) => chunksOfType(c, 'ExportBundleData').length > 0);

  it('include the two 97-package Minimal-Uncompressed fixtures', () => {
    const counts = containers.map((c) => chunksOfType(c, 'ExportBundleData').length);
    expect(counts.filter((n) => n === 97).length).toBe(2);
  });

  it.each(containers.map((c) => [c.rel, c] as const))('%s: every package parses and matches its store entry', (_rel, c) => {
    const header = parseContainerHeader(c.chunk(chunksOfType(c, 'ContainerHeader')[0]!), { source: c.rel });
    const byId = new Map<bigint, ContainerPackage>(header.packages.map((p) => [p.packageId, p]));
    const failures: string[] = [];
    for (const i of chunksOfType(c, 'ExportBundleData')) {
      const bytes = c.chunk(i);
      const where = `${c.rel} ${c.toc.chunkPath(i)}`;
      const id = c.toc.chunkId(i).id;
      const p = parseZenPackage(bytes, { source: where });
      const hinted = parseZenPackage(bytes, { source: where, containerHeaderVersion: header.version, engine: c.rel.startsWith('ue6') ? 'UE6_0' : 'UE5_8' });
      const problems = checkPackage(p, bytes);
      if (JSON.stringify(hinted.sections) !== JSON.stringify(p.sections)) problems.push('hinted parse differs');
      if (p.layout.format !== 'UE5' || p.layout.summarySize !== 52 || !p.layout.cellMaps || p.layout.bulkDataMap !== 'padded') problems.push(`layout ${JSON.stringify(p.layout)}`);
      if (p.versioningInfo?.fileVersionUE5 !== 1018 || p.versioningInfo.fileVersionUE4 !== 522) problems.push('versioning info');
      if (packageIdFromName(p.packageName) !== id) problems.push(`package name ${p.packageName} does not hash to the chunk id`);
      const entry = byId.get(id);
      const importedIds = importedPackageNameStrings(p).map(packageIdFromName);
      if (!entry) problems.push('no store entry');
      else if (JSON.stringify(importedIds.map(String)) !== JSON.stringify(entry.importedPackages.map(String))) problems.push('imported package names do not hash to the store entry');
      if (p.cellImports.length + p.cellExports.length !== 0) problems.push('cell maps not empty');
      failures.push(...problems.map((m) => `${where}: ${m}`));
    }
    expect(failures).toEqual([]);
  });
});
