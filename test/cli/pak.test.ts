import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPak } from '../../src/pak/read.js';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const REPAK_KEY = '0x94D25BC3AEB420E0BE914EDC9D5435A1EAAB5F2864E09E94019AC205B727A7DE';
const dir = tempDir('i13-cli-pak-');

describe.skipIf(!hasCorpus)('info, list and verify of .pak files', () => {
  it('list --json of a pak gives { file, mountPoint, version, files } and the shape of every listing', async () => {
    const file = corpusPath('pak-repak/packs/pack_v8b_compress_encrypt_encryptindex.pak');
    const r = await cli('list', file, '--json', '--aes-key', REPAK_KEY);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j)).toEqual(['file', 'mountPoint', 'version', 'files', 'inputs', 'count', 'chunks', 'pakFiles']);
    expect(j.pakFiles).toEqual(j.files);
    expect(j.count).toBe(j.files.length);
    expect(j.mountPoint).toBe('../mount/point/root/');
    expect(j.version).toBe(8);
    expect(j.files.map((f: { path: string; size: number }) => [f.path, f.size])).toEqual([
      ['directory/nested.txt', 596],
      ['test.png', 10257],
      ['test.txt', 446],
      ['zeros.bin', 2048],
    ]);
    expect(Object.keys(j.files[0])).toEqual(['container', 'path', 'size', 'storedSize', 'compression', 'encrypted', 'hash']);
    expect(j.files[0]).toMatchObject({ storedSize: 352, compression: 'Zlib', encrypted: true });
  });

  it('list of every pak-repak variant shows the four files with their sizes (table, csv)', async () => {
    for (const v of ['v5', 'v7', 'v8a', 'v8b', 'v9']) {
      for (const s of ['', '_compress', '_encrypt', '_encryptindex', '_compress_encrypt_encryptindex']) {
        const r = await cli('list', corpusPath(`pak-repak/packs/pack_${v}${s}.pak`), '--csv', '--aes-key', REPAK_KEY);
        expect(r.code, r.err).toBe(0);
        const rows = r.out.trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 2).join(' '));
        expect(rows, `${v}${s}`).toEqual(['directory/nested.txt 596', 'test.png 10257', 'test.txt 446', 'zeros.bin 2048']);
      }
    }
  });

  it('info of a v15 pak: version and name, mount point, entries, index encryption, key GUID, methods', async () => {
    const r = await cli('info', corpusPath('ue6.0-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-OodleEncrypted.pak'), '--aes-key', `0x${CORPUS_AES_KEY_HEX}`, '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ version: 15, versionName: 'EncryptionMethod', mountPoint: '../../../CUE4ParseFixtures/Content/Fixtures/', entryCount: 11, encryptedIndex: true, encryptedEntries: 11, encryptionKeyGuid: '0'.repeat(32), encryptionMethod: 'AES-CTR', compressionMethods: ['Oodle'], rawSize: 200611, storedSize: 17052 });
  });

  it('info of a pak whose index needs a key it was not given: the footer, naming the key GUID (exit 0)', async () => {
    const r = await cli('info', corpusPath('pak-repak/packs/pack_v7_encryptindex.pak'), '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ version: 7, encryptedIndex: true, encryptionKeyGuid: '0'.repeat(32), mountPoint: null, entryCount: null });
    const wrong = await cli('info', corpusPath('pak-repak/packs/pack_v7_encryptindex.pak'), '--aes-key', '0x' + '11'.repeat(32));
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/pack_v7_encryptindex\.pak at offset 0x[0-9a-f]+: the AES key does not decrypt the primary index \(its SHA-1 does not match\)/);
  });

  it('verify of a folder of paks (one with AES-CTR index and entries), and list --by-type of a pak', async () => {
    const r = await cli('verify', corpusPath('ue6.0-cue4parse/paks'), '--aes-key', `0x${CORPUS_AES_KEY_HEX}`);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/OK: CUE4ParseFixtures-Legacy-Tagged-OodleEncrypted\.pak: 11\/11 entries match their SHA-1 .*3\/3 index parts/);
    expect(r.out.trim().split('\n').at(-1)).toBe('OK: 9/9 paks verified');
    const by = JSON.parse((await cli('list', corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak'), '--by-type', '--json')).out);
    expect(by.byCompression.reduce((a: number, x: { count: number }) => a + x.count, 0)).toBe(11);
  });

  it('a folder listing names each row\'s pak; a pak needing a key is skipped with a warning', async () => {
    const r = await cli('list', corpusPath('ue5.8-cue4parse/paks'), '--json', '--filter', '**/DA_PatchTarget.uasset');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/OodleEncrypted\.pak at offset 0x[0-9a-f]+: the pak index is encrypted/);
    const j = JSON.parse(r.out);
    expect(j.pakFiles.map((f: { container: string; size: number }) => [f.container, f.size])).toEqual([
      ['CUE4ParseFixtures-PatchBase.pak', 936],
      ['CUE4ParseFixtures-PatchBase_0_P.pak', 937],
    ]);
  });

  it('verify: every pak-repak variant passes; one flipped data byte and one flipped index byte are reported (exit 1)', async () => {
    for (const v of ['v5', 'v7', 'v8a', 'v8b', 'v9']) {
      const r = await cli('verify', corpusPath(`pak-repak/packs/pack_${v}_compress_encrypt_encryptindex.pak`), '--aes-key', REPAK_KEY);
      expect(r.out, r.err).toMatch(/^OK: 4\/4 entries match their SHA-1/);
      expect(r.code).toBe(0);
    }
    const bytes = new Uint8Array(readFileSync(corpusPath('pak-repak/packs/pack_v9.pak')));
    const pak = readPak(bytes);
    const png = pak.entries.find((e) => e.path === 'test.png')!;
    bytes[png.offset + 200] ^= 1;
    // A path character in the index: still parses, but no longer matches the index SHA-1.
    bytes[Buffer.from(bytes).indexOf('zeros.bin', pak.indexOffset)] ^= 1;
    const file = join(dir, 'flipped.pak');
    writeFileSync(file, bytes);
    const r = await cli('verify', file);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/MISMATCH primary index at \d+/);
    expect(r.out).toMatch(/MISMATCH test\.png: expected [0-9a-f]{40}, got [0-9a-f]{40}/);
    expect(r.out).toMatch(/FAILED: 3\/4 entries/);
  });
});
