import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_NAME, readToc } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { corpusPath } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const RETOC = join(__dirname, '../../../shared/tools/retoc/retoc');
const UE58 = corpusPath('ue5.8-cue4parse');
const BASE = 'CUE4ParseFixtures-Minimal-Uncompressed-Windows';
const TABLE = 'CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties';

/** A game's Paks folder made of links to the corpus: global, a base container with its companion pak, a patched container and its legacy paks. */
function paksFolder(root: string): string {
  const dir = join(root, 'Paks');
  mkdirSync(dir);
  const link = (from: string, name = from.split('/').pop()!) => symlinkSync(join(UE58, from), join(dir, name));
  for (const f of ['global/global.utoc', 'global/global.ucas', `uncompressed/${BASE}.utoc`, `uncompressed/${BASE}.ucas`]) link(f);
  link('paks/CUE4ParseFixtures-Minimal-Uncompressed.pak', `${BASE}.pak`);
  for (const f of ['CUE4ParseFixtures-PatchBase', 'CUE4ParseFixtures-PatchBase_0_P']) {
    for (const ext of ['utoc', 'ucas']) link(`patch/${f}.${ext}`);
    link(`paks/${f}.pak`);
  }
  return dir;
}

async function ok(...args: string[]): Promise<string> {
  const r = await cli(...args);
  expect(r.code, `iostore ${args.join(' ')}: ${r.err}`).toBe(0);
  return r.out;
}

describe("the modder's loop through the CLI (issue 23, done when)", () => {
  it('unpack a Paks folder -> to-legacy -> edit a .uexp -> pack a _P mod --like -> verify -> unpack: the edit is there, every path is the game\'s, retoc reads it', async (ctx) => {
    const tmp = tempDir('i23-loop-');
    const paks = paksFolder(tmp);
    const game = join(tmp, 'game');
    await ok('unpack', paks, game);

    // 2. to-legacy of the folder unpack wrote (issue 23 item 10). The mod is the packages of two folders (the data
    // tables and the patched ones), which keeps the test fast.
    const legacy = join(tmp, 'legacy');
    const filter = ['--filter', '{**/DataTables/**,**/PatchFixtures/**}'];
    await ok('to-legacy', game, legacy, ...filter);
    expect(listFiles(legacy).filter((f) => f.endsWith('.uexp'))).toHaveLength(5);

    // 3. An edit: a string inside the data table's export data, same length.
    const uexp = join(legacy, `${TABLE}.uexp`);
    const bytes = readFileSync(uexp);
    const at = bytes.indexOf('NestedAlpha');
    expect(at).toBeGreaterThan(0);
    bytes.write('NestedOmega', at, 'latin1');
    writeFileSync(uexp, bytes);

    // 4. A _P mod of the converted folder, like the game's container.
    const mods = join(tmp, 'mods');
    const mod = join(mods, 'MyMod_P.utoc');
    await ok('pack', legacy, mod, '--like', join(paks, `${BASE}.utoc`));
    // 5. verify.
    expect(await ok('verify', mod)).toMatch(/^OK: (\d+)\/\1 chunks match/);

    // 6. unpack the mod (its folder: the container and its companion pak).
    const out = join(tmp, 'out');
    await ok('unpack', mods, out);
    const table = readFileSync(join(out, `${TABLE}.uasset`));
    expect(table.includes('NestedOmega')).toBe(true);
    expect(table.includes('NestedAlpha')).toBe(false);
    // The zen package ends with the edited export data, byte for byte.
    expect(table.subarray(table.length - bytes.length).equals(bytes)).toBe(true);
    // Every file of the mod is where the game has it: the five packages, at the game's paths.
    const ours = listFiles(out).filter((f) => !f.startsWith('_chunks/') && f !== MANIFEST_NAME);
    const theirs = listFiles(game).filter((f) => !f.startsWith('_chunks/') && f !== MANIFEST_NAME);
    expect(ours).toHaveLength(5);
    expect(ours.filter((f) => !theirs.includes(f))).toEqual([]);
    const toc = readToc(new Uint8Array(readFileSync(mod)));
    expect(toc.files().map((f) => toc.chunkPath(f.tocIndex)!).sort()).toEqual(ours);

    // 7. retoc, a second reader: verifies the container and converts the edited package back to the same .uexp.
    if (!existsSync(RETOC)) {
      ctx.annotate(`${RETOC} is absent: the retoc checks were skipped`);
      return;
    }
    expect(execFileSync(RETOC, ['verify', mod], { encoding: 'utf8', stdio: 'pipe' })).toMatch(/verified/i);
    const withGlobal = join(tmp, 'retoc-in');
    mkdirSync(withGlobal);
    for (const f of ['global.utoc', 'global.ucas']) symlinkSync(join(paks, f), join(withGlobal, f));
    for (const ext of ['utoc', 'ucas']) symlinkSync(mod.replace(/utoc$/, ext), join(withGlobal, `MyMod_P.${ext}`));
    const retocOut = join(tmp, 'retoc-out');
    execFileSync(RETOC, ['to-legacy', '--filter', 'DT_AllProperties', withGlobal, retocOut], { stdio: 'pipe' });
    expect(readFileSync(join(retocOut, `${TABLE}.uexp`)).equals(bytes)).toBe(true);
  });
});
