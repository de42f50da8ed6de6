import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toLegacy } from '../../src/convert/index.js';
import { unpack } from '../../src/unpack/unpack.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

/** The two folders hold the same files with the same bytes. */
function expectSameTree(a: string, b: string): void {
  const files = listFiles(a);
  expect(files).toEqual(listFiles(b));
  for (const f of files) expect(Buffer.compare(readFileSync(join(a, f)), readFileSync(join(b, f))), f).toBe(0);
}

describe.skipIf(!hasCorpus)('to-legacy of a folder written by unpack', () => {
  it('converts what the folder holds as to-legacy of its containers does, script imports named from its ScriptObjects chunk', async () => {
    const root = tempDir();
    const containers = [corpusPath('ue5.8-cue4parse/uncompressed'), corpusPath('ue5.8-cue4parse/global/global.utoc')];
    await unpack(containers, join(root, 'game'));
    // The README's step 2, through the CLI: it used to fail with "no .utoc files".
    const r = await cli('to-legacy', join(root, 'game'), join(root, 'from-folder'), '--json');
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.packages).toBe(97);
    expect(j.failures).toEqual([]);
    expect(j.global).toBe(join(root, 'game', '_chunks', 'ScriptObjects', '000000000000000000000005.bin'));
    await toLegacy(containers, join(root, 'from-containers'));
    expectSameTree(join(root, 'from-folder'), join(root, 'from-containers'));
    expect(listFiles(join(root, 'from-folder'))).not.toContain('iostore-manifest.json');
  }, 30_000);

  it('shader libraries take their ShaderCode chunks from _chunks/ (not copied on their own), as from the container', async () => {
    const root = tempDir();
    const container = corpusPath('ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.utoc');
    const global = corpusPath('ue5.1-mirage3d/global.utoc');
    await unpack([container], join(root, 'game'));
    expect(listFiles(join(root, 'game')).filter((f) => f.startsWith('_chunks/ShaderCode/')).length).toBe(2);
    const fromFolder = await toLegacy([join(root, 'game')], join(root, 'a'), { global });
    const fromContainer = await toLegacy([container], join(root, 'b'), { global });
    expect(fromFolder.failures).toEqual([]);
    expect(fromFolder.shaderLibraries.map((l) => l.shaders)).toEqual([26, 28]);
    expect(fromFolder).toMatchObject({ packages: fromContainer.packages, otherChunks: fromContainer.otherChunks, filesWritten: fromContainer.filesWritten });
    expectSameTree(join(root, 'a'), join(root, 'b'));
    expect(listFiles(join(root, 'a')).some((f) => f.startsWith('_chunks/ShaderCode/'))).toBe(false);
  }, 30_000);

  it('legacy packages in the folder are copied as they are; a zen package replaces a stray .uexp beside it', async () => {
    const root = tempDir();
    await unpack([corpusPath('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc')], join(root, 'game'));
    const legacy = corpusPath('legacy-games/ue5.4-blankgame/MI_BlueCube');
    const mod = join(root, 'game', 'CUE4ParseFixtures', 'Content', 'Mod');
    mkdirSync(mod, { recursive: true });
    for (const ext of ['.uasset', '.uexp']) copyFileSync(legacy + ext, join(mod, `MI_BlueCube${ext}`));
    const zen = listFiles(join(root, 'game')).find((f) => f.endsWith('.uasset') && !f.includes('/Mod/'))!;
    // A .uexp left beside a zen .uasset (as a mixed unpack could leave it): the conversion's .uexp wins.
    copyFileSync(legacy + '.uexp', join(root, 'game', zen.replace(/\.uasset$/, '.uexp')));
    const r = await toLegacy([join(root, 'game')], join(root, 'out'));
    expect(r.failures).toEqual([]);
    expect(r.packages).toBe(2);
    const out = join(root, 'out');
    expect(Buffer.compare(readFileSync(join(out, 'CUE4ParseFixtures/Content/Mod/MI_BlueCube.uasset')), readFileSync(legacy + '.uasset'))).toBe(0);
    expect(Buffer.compare(readFileSync(join(out, zen.replace(/\.uasset$/, '.uexp'))), readFileSync(legacy + '.uexp'))).not.toBe(0);
    expect(r.planned.filter((p) => p.path === zen.replace(/\.uasset$/, '.uexp'))).toEqual([]);
  }, 30_000);

  it('a folder of zen packages without a manifest is read too', async () => {
    const root = tempDir();
    await unpack([corpusPath('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc')], join(root, 'game'));
    rmSync(join(root, 'game', 'iostore-manifest.json'));
    rmSync(join(root, 'game', '_chunks'), { recursive: true });
    const r = await toLegacy([join(root, 'game')], join(root, 'out'), { global: corpusPath('ue5.8-cue4parse/global/global.utoc') });
    expect(r.failures).toEqual([]);
    expect(r.packages).toBe(2);
    expect(listFiles(join(root, 'out')).filter((f) => f.endsWith('.uexp')).length).toBe(2);
    expect(dirname(listFiles(join(root, 'out'))[0]!)).toBe('CUE4ParseFixtures/Content/PatchFixtures');
  }, 30_000);
});
