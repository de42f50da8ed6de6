import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isIoStoreRelease, LEGACY_ENGINE_RELEASES, parseLegacyPackage, PackageFlags } from '../../src/legacy/index.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { legacyGamesPackages, readCorpus, type LegacyGamesPackage } from '../legacy/helpers.js';
import { tempDir } from '../tmp.js';

/**
 * Every cooked package of legacy-games/ from UE 4.26 on (real games and sample projects: 5.3, 5.4, 5.7 ...) goes
 * `to-zen` (its release folder as given: `Content/` at its top, or loose files placed by their own names) ->
 * `verify` -> `to-legacy`, and comes back with its `.uexp` byte for byte.
 */
const atLeast426 = (p: LegacyGamesPackage) => isIoStoreRelease(p.release) && LEGACY_ENGINE_RELEASES.indexOf(p.release) >= LEGACY_ENGINE_RELEASES.indexOf('UE4_26');

function cookedByFolder(): Map<string, Array<LegacyGamesPackage & { name: string }>> {
  const out = new Map<string, Array<LegacyGamesPackage & { name: string }>>();
  for (const p of legacyGamesPackages()) {
    if (!atLeast426(p) || !p.uexp) continue;
    const pkg = parseLegacyPackage(readCorpus(p.rel), { source: p.rel, engine: p.release });
    if ((pkg.summary.packageFlags & PackageFlags.FilterEditorOnly) === 0) continue;
    const list = out.get(p.folder) ?? [];
    list.push({ ...p, name: pkg.summary.packageName });
    out.set(p.folder, list);
  }
  return out;
}

describe.skipIf(!hasCorpus)('legacy-games cooked packages (UE 4.26+): to-zen, verify, to-legacy', () => {
  const folders = hasCorpus ? cookedByFolder() : new Map();

  it('finds the cooked releases to convert (5.3, 5.4 and the 5.7 packages among them)', () => {
    expect([...folders.keys()]).toEqual(expect.arrayContaining(['ue5.3-readyornot', 'ue5.4-billiards', 'ue5.4-blankgame', 'ue5.7-nanosworld']));
    expect(folders.get('ue5.7-nanosworld')!.length).toBe(38);
  });

  it('each release folder: every .uexp comes back byte for byte', async () => {
    const tmp = tempDir('iostore-legacy-games-');
    let checked = 0;
    for (const [folder, pkgs] of folders) {
      const release = pkgs[0]!.release;
      const utoc = join(tmp, folder, 'Mod_P.utoc');
      const zen = await cli('to-zen', corpusPath('legacy-games', folder), utoc, '--version', release, '--json');
      expect(zen.code, `${folder}: ${zen.err}`).toBe(0);
      expect(JSON.parse(zen.out).converted, folder).toBe(pkgs.length);
      const verify = await cli('verify', utoc);
      expect(verify.code, `${folder}: ${verify.err}`).toBe(0);
      const out = join(tmp, folder, 'legacy');
      const back = await cli('to-legacy', utoc, out, '--version', release, '--json');
      expect(back.code, `${folder}: ${back.err}`).toBe(0);
      for (const p of pkgs) {
        expect(p.name.startsWith('/Game/'), p.rel).toBe(true);
        const written = join(out, 'Game', 'Content', `${p.name.slice('/Game/'.length)}.uexp`);
        expect(Buffer.compare(readFileSync(written), readFileSync(corpusPath(p.uexp!))), p.rel).toBe(0);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(45);
  });
});
