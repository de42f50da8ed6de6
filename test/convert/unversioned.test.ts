import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toLegacy } from '../../src/convert/index.js';
import { zenEngineCandidates } from '../../src/convert/unversioned.js';
import { IoStoreError } from '../../src/errors.js';
import { legacyEngineCandidates } from '../../src/legacy/unversioned.js';
import { packFolder } from '../../src/pack/pack.js';
import { toZen } from '../../src/pack/to-zen.js';
import { unpack } from '../../src/unpack/unpack.js';
import { parseZenPackage, serializeZenPackageHeader } from '../../src/zen/index.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const thrown = async (p: Promise<unknown>): Promise<IoStoreError> => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(IoStoreError);
    return e as IoStoreError;
  }
  throw new Error('no error');
};

/**
 * The UE 5.8 fixture container with its packages made unversioned (as cooked games write them: the zen header without
 * versioning info), packed again as a plain mod folder: an unversioned 5.8 container, TOC v8.
 */
function unversionedContainer(root: string): { folder: string; utoc: string } {
  const folder = join(root, 'unversioned');
  const utoc = join(root, 'packed', 'Unversioned-Windows.utoc');
  return { folder, utoc };
}

describe.skipIf(!hasCorpus)('unversioned packages', () => {
  const root = tempDir();
  const { folder, utoc } = unversionedContainer(root);

  beforeAll(async () => {
    // The data tables only (3 packages, 17 imports between them): a small container, the same layout as the rest.
    await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], folder, { filter: '**/DataTables/**' });
    for (const f of listFiles(folder).filter((p) => /\.(uasset|umap)$/.test(p))) {
      const bytes = new Uint8Array(readFileSync(join(folder, f)));
      const z = parseZenPackage(bytes);
      const header = serializeZenPackageHeader({ ...z, versioningInfo: null });
      writeFileSync(join(folder, f), Buffer.concat([header, bytes.subarray(z.headerSize)]));
    }
    rmSync(join(folder, 'iostore-manifest.json'));
    rmSync(join(folder, '_chunks'), { recursive: true, force: true });
    await packFolder(folder, utoc, { engine: 'UE5_8' });
  }, 60_000);

  it('to-legacy of an unversioned 5.8 container stops once, before writing anything, naming the releases that fit', async () => {
    const out = join(root, 'legacy');
    const r = await cli('to-legacy', utoc, out);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    // One line, the container once: TOC v8 (5.5-5.8) and the Verse cell maps of the headers (5.6+) leave 5.6-5.8.
    expect(r.err).toBe(`iostore: ${utoc}: unversioned packages: give --engine (UE 5.6, 5.7 or 5.8 fit): 3 packages store no engine version (e.g. CUE4ParseFixtures/Content/Fixtures/DataTables/DT_Composite.uasset)\n`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(root).filter((f) => f.includes('iostore-tmp'))).toEqual([]);
    // Given the release (either name), the packages convert.
    const ok = await toLegacy([utoc], out, { engine: 'UE5_8' });
    expect(ok.failures).toEqual([]);
    expect(ok.packages).toBe(3);
    expect((await cli('to-legacy', utoc, join(root, 'legacy2'), '--version', 'UE5_7', '--filter', '**/DT_AllProperties.uasset')).code).toBe(0);
  }, 30_000);

  it('the global container settles what the packages alone do not (a loose folder has no TOC version)', async () => {
    const e = await thrown(toLegacy([folder], join(root, 'a'), { dryRun: true }));
    expect(e.message).toMatch(/unversioned packages: give --engine \(UE 5\.6, 5\.7, 5\.8 or 6\.0 fit\): 3 packages/);
    // A TOC v10 global container: only 6.0 writes it.
    const r = await toLegacy([folder], join(root, 'b'), { global: corpusPath('ue6.0-cue4parse/global/global.utoc') });
    expect(r.failures).toEqual([]);
    expect(r.packages).toBe(3);
  }, 30_000);

  it('pack --like of their legacy form reads them with the release the game container settles', async () => {
    const legacy = join(root, 'legacy-for-pack');
    await toLegacy([utoc], legacy, { engine: 'UE5_8' });
    const r = await packFolder(legacy, join(root, 'mod', 'Mod_P.utoc'), { like: utoc });
    expect(r.packages).toHaveLength(3);
    expect(r.warnings).toContain('legacy packages read as UE 5.8, from the --like container and the packages');
  }, 30_000);

  it('candidates: layout and TOC version', () => {
    const z = parseZenPackage(new Uint8Array(readFileSync(join(folder, 'CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset'))));
    expect(zenEngineCandidates(z.layout)).toEqual(['UE5_6', 'UE5_7', 'UE5_8', 'UE6_0']);
    expect(zenEngineCandidates(z.layout, { tocVersion: 8 })).toEqual(['UE5_6', 'UE5_7', 'UE5_8']);
    expect(zenEngineCandidates(z.layout, { tocVersion: 10 })).toEqual(['UE6_0']);
  });
});

describe.skipIf(!hasCorpus)('to-zen settles the target from the packages, or stops once', () => {
  const root = tempDir();
  const tagged = corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak');
  const unversioned = corpusPath('legacy-games/ue5.4-blankgame/MI_BlueCube.uasset');

  it('an unversioned package without --engine: one line naming the releases that read it, nothing written', async () => {
    expect(legacyEngineCandidates(new Uint8Array(readFileSync(unversioned)))).toEqual(['UE5_2', 'UE5_3', 'UE5_4', 'UE5_5']);
    const out = join(root, 'a', 'Mod_P.utoc');
    const r = await cli('to-zen', unversioned, out);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`iostore: ${unversioned}: unversioned package: give --engine (UE 5.2, 5.3, 5.4 or 5.5 fit)\n`);
    expect(existsSync(join(root, 'a'))).toBe(false);
    // A release that does not read it is refused before the conversion's own error ("custom versions: ... entries").
    expect((await cli('to-zen', unversioned, out, '--engine', 'UE5_0')).err).toBe(`iostore: ${unversioned}: unversioned package: give --engine (UE 5.2, 5.3, 5.4 or 5.5 fit, not UE 5.0)\n`);
    expect((await cli('to-zen', unversioned, out, '--version', 'UE5_4')).code).toBe(0);
  }, 30_000);

  it('versioned packages settle the target with --like, and say which releases write them without', async () => {
    const e = await thrown(toZen([tagged], join(root, 'b', 'x.utoc')));
    expect(e.message).toMatch(/give --engine or --like: the packages' versions are written by UE 5\.8 or 6\.0$/);
    const r = await toZen([tagged], join(root, 'c', 'x.utoc'), { like: corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc') });
    expect(r.converted).toBe(5);
    expect(r.warnings).toContain('target UE 5.8, from the --like container and the packages (--engine to choose another)');
  }, 30_000);
});
