import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageIdFromName, readToc, toLegacy, unpack, type IoStoreToc } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { corpusPath } from '../corpus.js';
import { freshPaths, listFiles, tempDir } from '../tmp.js';
import { readFileSync } from 'node:fs';

const tmp = tempDir('i23-placement-');
const fresh = freshPaths(tmp);
const UE58 = corpusPath('ue5.8-cue4parse');
const MINIMAL = join(UE58, 'uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
const GLOBAL = join(UE58, 'global/global.utoc');
const FIXTURES = 'CUE4ParseFixtures/Content/Fixtures';

/** Every named chunk as `<path below ../../../>` -> package id (first 8 bytes of the chunk id). */
function fullPaths(toc: IoStoreToc): Map<string, bigint> {
  const prefix = toc.directoryIndex!.mountPoint.replace(/^(\.\.\/)+/, '');
  return new Map(toc.files().map((f) => [prefix + f.path, toc.chunkId(f.tocIndex).id]));
}
const tocOf = (utoc: string) => readToc(new Uint8Array(readFileSync(utoc)));

describe('pack places each package by its own name (issue 23, item 7)', () => {
  it('a to-legacy output (laid out below ../../../) packed --like the game: every path is the game\'s, no doubled mount path', async () => {
    const legacy = fresh('legacy');
    const t = await toLegacy([MINIMAL], legacy, { global: GLOBAL, filter: `${FIXTURES}/{DataTables/**,Textures/T_Streaming.*}` });
    expect(t.failures).toEqual([]);
    const out = fresh('M_P.utoc');
    const r = await cli('pack', legacy, out, '--like', MINIMAL, '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).warnings.filter((w: string) => /goes to|mount point/.test(w))).toEqual([]);
    const mod = tocOf(out);
    const game = fullPaths(tocOf(MINIMAL));
    expect(mod.directoryIndex!.mountPoint).toBe('../../../CUE4ParseFixtures/Content/Fixtures/');
    const paths = fullPaths(mod);
    expect(paths.size).toBe(listFiles(legacy).filter((f) => /\.(uasset|ubulk)$/.test(f)).length);
    for (const [path, id] of paths) {
      expect(path.startsWith(`${FIXTURES}/`) && !path.includes('Content/Fixtures/CUE4ParseFixtures')).toBe(true);
      expect(game.get(path), path).toBe(id);
    }
  });

  it('a package (with its bulk file) moved to another folder of a mod goes where its name says, with a warning', async () => {
    const zen = fresh('zen');
    await unpack([MINIMAL], zen, { filter: `${FIXTURES}/Textures/T_Streaming.*` });
    // A mod folder laid out below the game's mount point, the texture moved into Other/.
    const mod = fresh('mod');
    mkdirSync(join(mod, 'Other'), { recursive: true });
    for (const ext of ['uasset', 'ubulk']) cpSync(join(zen, FIXTURES, `Textures/T_Streaming.${ext}`), join(mod, `Other/T_Streaming.${ext}`));
    const out = fresh('Moved_P.utoc');
    const r = await cli('pack', mod, out, '--like', MINIMAL);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`the package is /Game/Fixtures/Textures/T_Streaming, so it goes to ${FIXTURES}/Textures/T_Streaming.uasset, not where its folder puts it (${FIXTURES}/Other/T_Streaming.uasset)`);
    const paths = fullPaths(tocOf(out));
    const id = packageIdFromName('/Game/Fixtures/Textures/T_Streaming');
    expect([...paths].sort()).toEqual([[`${FIXTURES}/Textures/T_Streaming.uasset`, id], [`${FIXTURES}/Textures/T_Streaming.ubulk`, id]]);
  });

  it('packages outside the game container\'s mount folder widen the mount point to the folder holding them all', async () => {
    const dir = fresh('two');
    await unpack([MINIMAL], dir, { filter: `${FIXTURES}/DataTables/**` });
    await unpack([join(UE58, 'patch/CUE4ParseFixtures-PatchBase.utoc')], dir, { filter: '**/*.uasset' });
    // A plain folder (no manifest) of both.
    const plain = fresh('plain');
    cpSync(join(dir, 'CUE4ParseFixtures'), join(plain, 'CUE4ParseFixtures'), { recursive: true });
    const out = fresh('Two_P.utoc');
    const r = await cli('pack', plain, out, '--like', MINIMAL);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('mount point ../../../CUE4ParseFixtures/Content/: the files are not all below the game container\'s ../../../CUE4ParseFixtures/Content/Fixtures/');
    const toc = tocOf(out);
    expect(toc.directoryIndex!.mountPoint).toBe('../../../CUE4ParseFixtures/Content/');
    expect([...fullPaths(toc).keys()].sort()).toEqual(listFiles(plain));
  });
});
