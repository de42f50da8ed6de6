import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../cli-helper.js';
import { corpusPath } from '../corpus.js';
import { tempDir } from '../tmp.js';

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

  it('resolves package imports to the imported package and export hash', async () => {
    const h = await json(FIX);
    const pkg = h.packages.find((x: { importedPackages: string[] }) => x.importedPackages.length > 0);
    const p = await json(FIX, pkg.name);
    expect(p.importedPackages).toEqual(pkg.importedPackages);
    const packageImports = p.imports.filter((i: { kind: string }) => i.kind === 'PackageImport');
    expect(packageImports.length).toBeGreaterThan(0);
    for (const i of packageImports) expect(i.resolved).toMatch(new RegExp(`^(${pkg.importedPackages.join('|')}):0x[0-9a-f]{16}$`));
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
