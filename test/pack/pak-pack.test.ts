import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusPath, hasCorpus } from '../corpus.js';
import { freshPaths, listFiles, tempDir } from '../tmp.js';

const REPAK_KEY = '0x94D25BC3AEB420E0BE914EDC9D5435A1EAAB5F2864E09E94019AC205B727A7DE';
const fresh = freshPaths(tempDir('i13-pak-pack-'));

describe.skipIf(!hasCorpus)('pack <folder> <out.pak>', () => {
  // Unpacked and packed again, an engine pak comes back byte for byte: the same layout, index, hashes and footer.
  const identical: Array<[string, string[]]> = [
    ['pak-repak/packs/pack_v5.pak', []],
    ['pak-repak/packs/pack_v7_encrypt.pak', ['--aes-key', REPAK_KEY]],
    ['pak-repak/packs/pack_v8a_encryptindex.pak', ['--aes-key', REPAK_KEY, '--encrypt-index', '--no-encrypt-entries']],
    ['pak-repak/packs/pack_v8b_encrypt_encryptindex.pak', ['--aes-key', REPAK_KEY, '--encrypt-index']],
    ['pak-repak/packs/pack_v9.pak', []],
    ['ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak', []],
    ['ue5.8-cue4parse/paks/CUE4ParseFixtures-Minimal-Uncompressed.pak', []],
    ['ue6.0-cue4parse/paks/CUE4ParseFixtures-Minimal-Uncompressed.pak', []],
  ];
  it.each(identical)('%s: unpack then pack gives the engine\'s bytes', async (rel, opts) => {
    const out = fresh('unpacked');
    const key = rel.startsWith('pak-repak') ? REPAK_KEY : `0x${CORPUS_AES_KEY_HEX}`;
    expect((await cli('unpack', corpusPath(rel), out, '--aes-key', key, '-q')).code).toBe(0);
    const pak = fresh('re.pak');
    const r = await cli('pack', out, pak, ...opts);
    expect(r.code, r.err).toBe(0);
    expect(Buffer.compare(readFileSync(pak), readFileSync(corpusPath(rel)))).toBe(0);
  });

  it('a mod folder as a UE 4.27 pak with Zlib: lists, verifies and unpacks to the same files; an added file joins a rebuild', async () => {
    const mod = fresh('mod');
    mkdirSync(join(mod, 'MyGame/Config'), { recursive: true });
    mkdirSync(join(mod, 'MyGame/Content/Localization/Game/en'), { recursive: true });
    writeFileSync(join(mod, 'MyGame/Config/DefaultGame.ini'), '[/Script/EngineSettings.GeneralProjectSettings]\nProjectName=Mod\n'.repeat(50));
    writeFileSync(join(mod, 'MyGame/Content/Localization/Game/en/Game.locres'), new Uint8Array(5000).fill(7));
    const pak = fresh('MyMod_P.pak');
    let r = await cli('pack', mod, pak, '--version', 'UE4_27', '--compression', 'zlib', '--block-size', '4096', '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ version: 11, entries: 2, compression: 'Zlib', mountPoint: '../../../' });
    r = await cli('list', pak, '--json');
    expect(JSON.parse(r.out).files.map((f: { path: string; compression: string }) => `${f.path} ${f.compression}`)).toEqual(['MyGame/Config/DefaultGame.ini Zlib', 'MyGame/Content/Localization/Game/en/Game.locres Zlib']);
    expect((await cli('verify', pak)).code).toBe(0);
    const back = fresh('back');
    expect((await cli('unpack', pak, back, '-q')).code).toBe(0);
    expect(listFiles(back)).toEqual(['MyGame/Config/DefaultGame.ini', 'MyGame/Content/Localization/Game/en/Game.locres', 'iostore-manifest.json']);
    expect(readFileSync(join(back, 'MyGame/Config/DefaultGame.ini'), 'utf8')).toBe(readFileSync(join(mod, 'MyGame/Config/DefaultGame.ini'), 'utf8'));
    // Edit one file, add one: the rebuild keeps version, compression and mount point from the manifest.
    writeFileSync(join(back, 'MyGame/Config/DefaultGame.ini'), 'edited');
    writeFileSync(join(back, 'MyGame/Config/DefaultEngine.ini'), 'added');
    const again = fresh('again.pak');
    r = await cli('pack', back, again, '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ from: 'manifest', version: 11, entries: 3, compression: 'Zlib' });
    const out2 = fresh('out2');
    expect((await cli('unpack', again, out2, '-q')).code).toBe(0);
    expect(readFileSync(join(out2, 'MyGame/Config/DefaultGame.ini'), 'utf8')).toBe('edited');
    expect(readFileSync(join(out2, 'MyGame/Config/DefaultEngine.ini'), 'utf8')).toBe('added');
  });

  it('--like a game pak copies its version and mount point; v15 with --pak-version', async () => {
    const mod = fresh('mod');
    mkdirSync(join(mod, 'Maps'), { recursive: true });
    writeFileSync(join(mod, 'Maps/a.txt'), 'a');
    const pak = fresh('like.pak');
    expect((await cli('pack', mod, pak, '--like', corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak'))).code).toBe(0);
    const j = JSON.parse((await cli('info', pak, '--json')).out);
    expect(j).toMatchObject({ version: 12, mountPoint: '../../../CUE4ParseFixtures/Content/Fixtures/', entryCount: 1 });
    const v15 = fresh('v15.pak');
    expect((await cli('pack', mod, v15, '--pak-version', '15', '--aes-key', `0x${CORPUS_AES_KEY_HEX}`, '--encrypt-index')).code).toBe(0);
    expect(JSON.parse((await cli('info', v15, '--json', '--aes-key', `0x${CORPUS_AES_KEY_HEX}`)).out)).toMatchObject({ version: 15, encryptedIndex: true, encryptedEntries: 1 });
  });

  it('an Oodle pak repacks with Oodle (its method), at level 7 within 10% of the engine\'s size, and unpacks to the same files', async () => {
    const engine = corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Minimal-Oodle.pak');
    const out = fresh('oodle');
    expect((await cli('unpack', engine, out, '-q')).code).toBe(0);
    const pak = fresh('x.pak');
    const r = await cli('pack', out, pak, '--level', '7', '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).compression).toBe('Oodle');
    expect(readFileSync(pak).length).toBeLessThan(1.1 * readFileSync(engine).length);
    const back = fresh('oodle-back');
    expect((await cli('unpack', pak, back, '-q')).code).toBe(0);
    for (const f of listFiles(out).filter((f) => f !== 'iostore-manifest.json')) expect(readFileSync(join(back, f)).equals(readFileSync(join(out, f))), f).toBe(true);
    expect((await cli('pack', out, fresh('y.pak'), '--compression', 'zlib')).code).toBe(0);
  });
});

describe.skipIf(!hasCorpus)('pack <folder> <out.utoc>: files that are not packages go into the companion .pak', () => {
  const uncompressed = corpusPath('ue5.8-cue4parse/uncompressed');
  const base = 'CUE4ParseFixtures-Minimal-Uncompressed-Windows';
  const unpacked = async (): Promise<string> => {
    const dir = fresh('paks');
    mkdirSync(dir);
    for (const ext of ['utoc', 'ucas']) symlinkSync(join(uncompressed, `${base}.${ext}`), join(dir, `${base}.${ext}`));
    symlinkSync(corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Minimal-Uncompressed.pak'), join(dir, `${base}.pak`));
    const out = fresh('u');
    expect((await cli('unpack', dir, out, '-q')).code).toBe(0);
    return out;
  };

  it('an unpacked container with its companion pak: the rebuilt .pak holds the same four files', async () => {
    const out = await unpacked();
    const utoc = fresh('New.utoc');
    const r = await cli('pack', out, utoc);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse((await cli('list', utoc.replace(/\.utoc$/, '.pak'), '--json')).out);
    expect(j.mountPoint).toBe('../../../CUE4ParseFixtures/');
    expect(j.version).toBe(12);
    expect(j.files.map((f: { path: string; size: number }) => `${f.path} ${f.size}`)).toEqual([
      'AssetRegistry.bin 219539',
      'Config/DefaultGame.ini 335',
      'Content/Localization/CUE4ParseFixtures/de/CUE4ParseFixtures.locres 13674',
      'Content/Localization/CUE4ParseFixtures/en/CUE4ParseFixtures.locres 6250',
    ]);
  });

  it('a mod folder with a package and .ini/.json files: packages in the container, the rest in its .pak', async () => {
    const out = await unpacked();
    const mod = fresh('mod');
    mkdirSync(join(mod, 'DataTables'), { recursive: true });
    copyFileSync(join(out, 'CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset'), join(mod, 'DataTables/DT_AllProperties.uasset'));
    writeFileSync(join(mod, 'DataTables/notes.json'), '{"mod":true}');
    writeFileSync(join(mod, 'Mod.ini'), '[Mod]\nEnabled=1\n');
    const paks = fresh('Paks');
    mkdirSync(paks);
    const r = await cli('pack', mod, join(paks, 'Mod_P.utoc'), '--like', join(uncompressed, `${base}.utoc`), '--json');
    expect(r.code, r.err).toBe(0);
    const pakList = JSON.parse((await cli('list', join(paks, 'Mod_P.pak'), '--json')).out);
    expect(pakList.files.map((f: { path: string }) => f.path).sort()).toEqual(['DataTables/notes.json', 'Mod.ini']);
    expect(JSON.parse((await cli('list', join(paks, 'Mod_P.utoc'), '--json')).out).chunks.map((c: { path: string }) => c.path).filter(Boolean)).toContain('CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset');
    const back = fresh('back');
    expect((await cli('unpack', paks, back, '-q')).code).toBe(0);
    expect(readFileSync(join(back, 'CUE4ParseFixtures/Content/Fixtures/DataTables/notes.json'), 'utf8')).toBe('{"mod":true}');
    expect(readFileSync(join(back, 'CUE4ParseFixtures/Content/Fixtures/Mod.ini'), 'utf8')).toBe('[Mod]\nEnabled=1\n');
  });
});
