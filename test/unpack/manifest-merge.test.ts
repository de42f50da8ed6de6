import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_NAME, packFolder, unpack, type Manifest } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { corpusPath } from '../corpus.js';
import { freshPaths, listFiles, tempDir } from '../tmp.js';

const tmp = tempDir('i23-manifest-');
const fresh = freshPaths(tmp);
const PATCH = corpusPath('ue5.8-cue4parse/patch');
const BASE = join(PATCH, 'CUE4ParseFixtures-PatchBase.utoc');
const P0 = join(PATCH, 'CUE4ParseFixtures-PatchBase_0_P.utoc');
const MINIMAL = corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8'));

describe('one manifest per folder, listing every container unpacked into it (issue 23, item 5)', () => {
  it('a second unpack adds its container; pack then takes --container or the output\'s name, else says how to choose', async () => {
    const dir = fresh('out');
    await unpack([BASE], dir);
    await unpack([MINIMAL], dir);
    const m = manifestOf(dir);
    expect(m.containers.map((c) => [c.name, c.chunks.length])).toEqual([
      ['CUE4ParseFixtures-PatchBase', 3],
      ['CUE4ParseFixtures-Minimal-Uncompressed-Windows', 112],
    ]);
    // Each container repacks from the one folder to the engine's bytes.
    const byName = fresh('CUE4ParseFixtures-PatchBase.utoc');
    const r = await packFolder(dir, byName);
    expect(r.chunks).toBe(3);
    expect(readFileSync(byName).equals(readFileSync(BASE))).toBe(true);
    const chosen = fresh('Minimal.utoc');
    expect((await cli('pack', dir, chosen, '--container', 'CUE4ParseFixtures-Minimal-Uncompressed-Windows')).code).toBe(0);
    expect(readFileSync(chosen.replace(/\.utoc$/, '.ucas')).equals(readFileSync(MINIMAL.replace(/\.utoc$/, '.ucas')))).toBe(true);
    const refused = await cli('pack', dir, fresh('Other_P.utoc'));
    expect(refused.code).toBe(2);
    expect(refused.err.trim().split('\n')).toHaveLength(1);
    expect(refused.err).toContain('the folder holds 2 containers (CUE4ParseFixtures-PatchBase, CUE4ParseFixtures-Minimal-Uncompressed-Windows): choose one with --container <name>, or name the output after it');
  });

  it('files a later unpack wrote over are marked overridden by it; unpacking a container again replaces its entry', async () => {
    const dir = fresh('out');
    await unpack([BASE], dir);
    await unpack([P0], dir);
    const target = 'CUE4ParseFixtures/Content/PatchFixtures/DA_PatchTarget.uasset';
    let m = manifestOf(dir);
    expect(m.containers.map((c) => c.name)).toEqual(['CUE4ParseFixtures-PatchBase', 'CUE4ParseFixtures-PatchBase_0_P']);
    expect(m.containers[0]!.chunks.find((c) => c.path === target)!.overriddenBy).toBe('CUE4ParseFixtures-PatchBase_0_P');
    expect(m.containers[0]!.chunks.find((c) => c.path.endsWith('DA_PatchReferencer.uasset'))!.overriddenBy).toBeUndefined();
    expect(readFileSync(join(dir, target)).length).toBe(714);
    // The same two containers unpacked together give the same manifest entries.
    const together = fresh('together');
    await unpack([PATCH], together);
    expect(m.containers).toEqual(manifestOf(together).containers);
    // Again, the base alone: its entry is replaced (one per container), the patch's stays.
    await unpack([BASE], dir);
    m = manifestOf(dir);
    expect(m.containers.map((c) => c.name)).toEqual(['CUE4ParseFixtures-PatchBase_0_P', 'CUE4ParseFixtures-PatchBase']);
    expect(m.containers[0]!.chunks.find((c) => c.path === target)!.overriddenBy).toBe('CUE4ParseFixtures-PatchBase');
    expect(m.containers[1]!.chunks.find((c) => c.path === target)!.overriddenBy).toBeUndefined();
  });

  it('a file in the folder\'s manifest place that is not a manifest stops the unpack before anything is written', async () => {
    const dir = fresh('out');
    await unpack([BASE], dir);
    writeFileSync(join(dir, MANIFEST_NAME), '{ "tool": "something else" }');
    const before = listFiles(dir);
    const r = await cli('unpack', MINIMAL, dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not an iostore-toolkit manifest; unpack adds to the manifest of the folder it writes into: remove it or unpack into another folder/);
    expect(listFiles(dir)).toEqual(before);
  });
});
