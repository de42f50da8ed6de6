import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../cli-helper.js';
import { corpusPath } from '../corpus.js';
import { tempDir } from '../tmp.js';
import { ContainerReader, parseZenPackage, publicExportHash, readPak, readPakEntryData, packageNamesFromToc, findPackageChunk } from '../../src/index.js';

/** The zen package of a long package name in FIX, parsed in Node. */
async function readChunkOf(name: string) {
  const reader = await ContainerReader.open(FIX);
  try {
    const i = findPackageChunk(reader.toc, name, packageNamesFromToc(reader.toc));
    return parseZenPackage(await reader.readChunk(i));
  } finally {
    await reader.close();
  }
}

const FIX = corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
const GLOBAL = corpusPath('ue5.8-cue4parse/global/global.utoc');
const json = async (...args: string[]) => {
  const r = await cli('inspect', ...args, '--json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out);
};

describe('iostore inspect', () => {
  it('shows the container header of a .utoc with package names from its directory index', async () => {
    const h = await json(FIX);
    expect(h.version).toBe('SoftPackageReferencesOffset');
    expect(h.packageCount).toBe(97);
    expect(h.packages.every((p: { name: string | null }) => p.name?.startsWith('/Game/Fixtures/'))).toBe(true);
    const withImports = h.packages.filter((p: { importedPackages: string[] }) => p.importedPackages.length > 0);
    expect(withImports.length).toBeGreaterThan(0);
    // Imports of packages in this container resolve to names; packages elsewhere (engine content) stay ids.
    const imported = withImports.flatMap((p: { importedPackages: string[] }) => p.importedPackages);
    expect(imported.every((n: string) => n.startsWith('/Game/') || /^0x[0-9a-f]{16}$/.test(n))).toBe(true);
    expect(imported.some((n: string) => n.startsWith('/Game/'))).toBe(true);
  });

  it('shows one package with script imports resolved through the global container', async () => {
    const p = await json(FIX, 'Blueprints/S_Fixture.uasset', '--global', GLOBAL);
    expect(p.packageName).toBe('/Game/Fixtures/Blueprints/S_Fixture');
    expect(p.exports).toHaveLength(1);
    expect(p.exports[0]).toMatchObject({ name: 'S_Fixture', class: '/Script/CoreUObject/UserDefinedStruct', serialOffset: 0, serialSize: 965 });
    expect(p.imports.map((i: { resolved: string }) => i.resolved)).toContain('/Script/CoreUObject/Vector');
    expect(p.headerSize + p.exportDataSize + 4).toBe(1825); // the chunk's size: header, exports, package tag
  });

  it('names package imports by object path when the imported package is in the container, else by package and hash', async () => {
    const h = await json(FIX);
    expect(h.version).toBe('SoftPackageReferencesOffset');
    const text = await cli('inspect', FIX);
    expect(text.out.split('\n')[0]).toBe('Container header: UE 5.6 and later, version 5 (SoftPackageReferencesOffset)');
    const child = await json(FIX, '/Game/Fixtures/Blueprints/BP_ComponentsChild');
    expect(child.importedPackages).toEqual(['/Game/Fixtures/Blueprints/BP_Components']);
    const named = child.imports.filter((i: { kind: string }) => i.kind === 'PackageImport').map((i: { resolved: string }) => i.resolved);
    expect(named).toContain('/Game/Fixtures/Blueprints/BP_Components.BP_Components_C');
    expect(named).toContain('/Game/Fixtures/Blueprints/BP_Components.Default__BP_Components_C');
    expect(named).toContain('/Game/Fixtures/Blueprints/BP_Components.BP_Components_C:FixtureMesh_GEN_VARIABLE');
    // Each name is right: the engine's hash of its path inside the package is the hash the import holds.
    const bytes = await readChunkOf('/Game/Fixtures/Blueprints/BP_ComponentsChild');
    const hashes = bytes.importedPublicExportHashes;
    expect(named.map((n: string) => publicExportHash(n.slice(n.indexOf('.') + 1).replace(/[.:]/g, '/')))).toEqual(hashes.slice(0, named.length));
    // An import of a package the container does not hold keeps its package and hash.
    const mesh = await json(FIX, '/Game/Fixtures/Meshes/SK_Fixture');
    const resolved = mesh.imports.filter((i: { kind: string }) => i.kind === 'PackageImport').map((i: { resolved: string }) => i.resolved);
    expect(resolved).toContain('/Game/Fixtures/Animations/SKEL_Fixture.SKEL_Fixture');
    expect(resolved.filter((r: string) => r.startsWith('/Engine/'))).toEqual([expect.stringMatching(/^\/Engine\/EngineMaterials\/WorldGridMaterial:0x[0-9a-f]{16}$/)]);
  });

  it('shows a .locres as a table and as JSON', async () => {
    const dir = tempDir();
    const pakBytes = new Uint8Array(readFileSync(corpusPath('ue6.0-cue4parse', 'paks', 'CUE4ParseFixtures-Minimal-Uncompressed.pak')));
    const pak = readPak(pakBytes);
    const entry = pak.entries.find((e) => e.path.endsWith('/de/CUE4ParseFixtures.locres'))!;
    const file = join(dir, 'Game.locres');
    writeFileSync(file, readPakEntryData(pakBytes, pak, entry));
    const j = await json(file);
    expect(j.versionName).toBe('Optimized_CityHash64_UTF16');
    expect(j.entries.find((e: { key: string }) => e.key === 'CityGreeting')).toEqual({ namespace: 'CUE4ParseFixtures.Tests', key: 'CityGreeting', sourceHash: 0x60db9a0b, text: 'Grüße aus Frankfurt' });
    const t = await cli('inspect', file);
    expect(t.code).toBe(0);
    const lines = t.out.split('\n');
    expect(lines[0]).toBe(`Localization:     .locres version 3 (Optimized_CityHash64_UTF16), 1 namespace(s), ${j.entries.length} entries`);
    expect(lines[2]).toMatch(/^namespace +key +source hash +text$/);
    expect(lines.find((l) => l.includes('CityGreeting'))).toMatch(/^CUE4ParseFixtures\.Tests +CityGreeting +0x60db9a0b +Grüße aus Frankfurt$/);
    // A truncated one: one line naming the file and offset, exit 2.
    writeFileSync(file, readPakEntryData(pakBytes, pak, entry).subarray(0, 200));
    const bad = await cli('inspect', file);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^iostore: .*Game\.locres at offset 0x[0-9a-f]+: .+\n$/);
  });

  it.each([
    ['UE4.27/TestModUI.uzenasset', '/Game/_AssemblyStorm/TestMod/TestModUI', 'UE4'],
    ['UE5.4/BP_Table_Lamp.uzenasset', undefined, 'UE5'],
    ['UE5.5/SM_Cube.uzenasset', undefined, 'UE5'],
  ])('reads a single zen package file: %s', async (rel, name, format) => {
    const p = await json(corpusPath(`zen-assets/${rel}`));
    expect(p.format).toBe(format);
    if (name) expect(p.packageName).toBe(name);
    expect(p.exports.length).toBeGreaterThan(0);
    expect(p.names.length).toBe(p.nameCount);
  });

  it.each(['UE4.27', 'UE5.0'])('reads a container header chunk file (%s)', async (v) => {
    const h = await json(corpusPath(`zen-assets/${v}/ContainerHeader_1.bin`));
    expect(h.packageCount).toBe(v === 'UE4.27' ? 52583 : 22559);
    expect(h.version).toBe(v === 'UE4.27' ? 'Initial' : 'LocalizedPackages');
  });

  it('a legacy package is told apart by its bytes and shown with object paths', async () => {
    const legacy = await cli('inspect', corpusPath('zen-assets/UE5.5/SM_Cube.uasset'));
    expect(legacy.code).toBe(0);
    expect(legacy.out).toMatch(/legacy package \(legacy file version -8\)/);
    expect(legacy.out).toContain('/Game/Meshes/SM_Cube.SM_Cube:BodySetup_0');
    expect(legacy.out).toContain('9795 bytes, exports inside, closing tag present');
  });

  it('bad input: a truncated legacy package, a missing package, a truncated header', async () => {
    const dir = tempDir('iostore-inspect-');
    const cut = join(dir, 'Cut.uasset');
    writeFileSync(cut, readFileSync(corpusPath('zen-assets/UE5.5/SM_Cube.uasset')).subarray(0, 300));
    const legacy = await cli('inspect', cut);
    expect(legacy.code).toBe(2);
    expect(legacy.err).toMatch(/Cut\.uasset at offset 0x[0-9a-f]+: /);
    expect(legacy.err.trim().split('\n').length).toBe(1);
    const missing = await cli('inspect', FIX, 'Nope/Missing.uasset');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no package "Nope\/Missing.uasset"/);
    expect((await cli('inspect', '--help')).out).toMatch(/container-header-version/);
  });
});

describe('iostore inspect of a container header: the table has the columns its layout stores', () => {
  it('shows export counts for UE 5.1/5.2 store entries and no empty exports column for 5.3+ ones', async () => {
    const old = await cli('inspect', corpusPath('ue5.1-patchtest/jh-patchtest-chunk1/pakchunk1-Windows.utoc'));
    expect(old.out).toMatch(/package id\s+name\s+imports\s+exports\s+shader maps/);
    expect(old.out).toMatch(/\/Game\/Test\s+0\s+1\s+0/);
    const current = await cli('inspect', corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'));
    expect(current.out).toMatch(/package id\s+name\s+imports\s+shader maps\n/);
    expect(current.out).toMatch(/\/Game\/Fixtures\/Blueprints\/BP_Components\s+1\s+0\n/);
  });
});
