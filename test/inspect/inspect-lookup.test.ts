import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IoStoreError } from '../../src/errors.js';
import { findPackageChunk, packageNamesFromToc } from '../../src/inspect/context.js';
import { openToc } from '../../src/toc/read-file.js';
import type { IoStoreToc } from '../../src/toc/toc.js';
import { unpack } from '../../src/unpack/unpack.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const fixture = () => corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');

describe.skipIf(!hasCorpus)('inspect finds a package by what the help promises', () => {
  it('a package path, its tail with or without extension, its name or object path', async () => {
    // Through the CLI the two the issue names; the global container in ../global/ names the script imports.
    for (const query of ['DT_AllProperties', 'DataTables/DT_AllProperties']) {
      const r = await cli('inspect', fixture(), query);
      expect(r.code, `${query}: ${r.err}`).toBe(0);
      expect(r.out, query).toMatch(/^Package: +\/Game\/Fixtures\/DataTables\/DT_AllProperties\n/);
      expect(r.out, query).toContain('/Script/Engine/DataTable');
      expect(r.err).toBe('');
    }
    const toc = await openToc(fixture());
    const names = packageNamesFromToc(toc);
    const want = findPackageChunk(toc, 'DT_AllProperties', names);
    expect(toc.chunkPath(want)).toBe('CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset');
    for (const query of ['DataTables/DT_AllProperties.uasset', 'CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset', '/Game/Fixtures/DataTables/DT_AllProperties', '/Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties', 'dt_allproperties', 'Fixtures\\DataTables\\DT_AllProperties']) {
      expect(findPackageChunk(toc, query, names), query).toBe(want);
    }
    const none = await cli('inspect', fixture(), 'AllProperties');
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/no package "AllProperties" in the container/);
  });

  it('a tail several packages share is an error naming them', () => {
    const paths = ['Game/Content/A/Hero.uasset', 'Game/Content/B/Hero.uasset', 'Game/Content/A/Hero_Mesh.uasset'];
    const toc = {
      source: 'x.utoc',
      chunkCount: paths.length,
      chunkTypeName: () => 'ExportBundleData',
      chunkPath: (i: number) => paths[i],
      chunkId: (i: number) => ({ id: BigInt(i + 1) }),
      chunkIdHex: (i: number) => String(i),
    } as unknown as IoStoreToc;
    expect(() => findPackageChunk(toc, 'Hero', new Map())).toThrow(IoStoreError);
    expect(() => findPackageChunk(toc, 'Hero', new Map())).toThrow('x.utoc: 2 packages end with "Hero": Game/Content/A/Hero.uasset, Game/Content/B/Hero.uasset; give more of the path');
    expect(findPackageChunk(toc, 'B/Hero', new Map())).toBe(1);
    expect(findPackageChunk(toc, 'Hero_Mesh', new Map())).toBe(2);
    expect(findPackageChunk(toc, 'ero', new Map())).toBe(-1);
  });

  it('global.utoc: says what it holds (script objects, for --global) instead of "no container header chunk"', async () => {
    const r = await cli('inspect', corpusPath('ue5.8-cue4parse/global/global.utoc'));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Global container: the engine's script objects/);
    expect(r.out).toContain('Script objects:   36979 objects in 304 /Script packages');
    expect(r.out).toContain('0x71e24a29987bd1ed  /Script/Engine/DataTable\n');
    const j = JSON.parse((await cli('inspect', corpusPath('ue5.1-templeofgiants/global.utoc'), '--json')).out);
    expect(j).toMatchObject({ kind: 'script-objects', count: 25703, scriptPackages: 300 });
    expect(j.objects[0]).toEqual({ globalIndex: expect.stringMatching(/^0x[0-9a-f]{16}$/), path: expect.stringMatching(/^\/Script\//) });
  });

  it('the ScriptObjects chunk unpack writes: inspected directly, taken by --global, found above an unpacked package', async () => {
    const root = tempDir();
    await unpack([corpusPath('ue5.8-cue4parse/global/global.utoc'), corpusPath('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc')], join(root, 'u'));
    const chunk = join(root, 'u', '_chunks', 'ScriptObjects', '000000000000000000000005.bin');
    const direct = await cli('inspect', chunk);
    expect(direct.code, direct.err).toBe(0);
    expect(direct.out).toMatch(/^ScriptObjects chunk: /);
    expect(direct.out).toContain('36979 objects');
    const pkg = join(root, 'u', 'CUE4ParseFixtures', 'Content', 'PatchFixtures', 'DA_PatchTarget.uasset');
    for (const args of [[pkg], [pkg, '--global', chunk]]) {
      const r = await cli('inspect', ...args);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/ScriptImport +0x[0-9a-f]+ +\/Script\//);
      expect(r.err).toBe('');
    }
    // Through a container without the global at hand, with --global naming the chunk.
    const c = await cli('inspect', corpusPath('ue5.1-patchtest/jh-patchtest-chunk1/pakchunk1-Windows.utoc'), 'dd');
    expect(c.code).toBe(0);
    expect(c.err).toBe('hint: script imports stay unnamed: pass --global <global.utoc>, or the _chunks/ScriptObjects/<id>.bin that unpack wrote\n');
  }, 20_000);

  it('a legacy package inside a .pak, with its .uexp; the pak alone lists its packages', async () => {
    const pak = corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak');
    const r = await cli('inspect', pak, 'DT_AllProperties');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Pak entry:        ${pak}/DataTables/DT_AllProperties.uasset\nPackage:          /Game/Fixtures/DataTables/DT_AllProperties\n`);
    expect(r.out).toContain('Export data:      .uexp, 1614 bytes, exports inside, closing tag present');
    const j = JSON.parse((await cli('inspect', pak, 'Maps/Empty.umap', '--json')).out);
    expect(j.packageName).toBe('/Game/Fixtures/Maps/Empty');
    const list = await cli('inspect', pak);
    expect(list.out).toContain('5 packages; name one to show it');
    expect(list.out).toContain('Textures/T_Streaming.uasset');
    const enc = await cli('inspect', corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-OodleEncrypted.pak'), 'T_BC6H', '--aes-key', '0x435545345061727365466978747572654145534B657930313233343536373839');
    expect(enc.code, enc.err).toBe(0);
    expect(enc.out).toContain('/Game/Fixtures/Textures/T_BC6H');
  });
});
