import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultCodecs } from '../../src/codecs/registry.js';
import { parseAesKey } from '../../src/crypto/aes.js';
import { IoStoreError } from '../../src/errors.js';
import { PakArchive, bytesSource } from '../../src/pak/archive.js';
import { openPakFile } from '../../src/pak/pak-file.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { KEY } from './pak-helpers.js';

const REPAK_KEY = parseAesKey(JSON.parse(readFileSync(corpusPath('pak-repak/crypto.json'), 'utf8')).EncryptionKey.Key);
const ROOT = ['directory/nested.txt', 'test.png', 'test.txt', 'zeros.bin'];
const codecs = defaultCodecs();

async function contents(path: string, key: Uint8Array): Promise<Map<string, Uint8Array>> {
  const a = await openPakFile(path, { keyFor: () => key });
  try {
    const out = new Map<string, Uint8Array>();
    for (const e of a.pak.entries) out.set(e.path, await a.readAll(e, codecs, { verify: true }));
    return out;
  } finally {
    await a.close();
  }
}

describe.skipIf(!hasCorpus)('PakArchive on engine paks', () => {
  const repak = hasCorpus ? readdirSync(corpusPath('pak-repak/packs')).filter((f) => f.endsWith('.pak')) : [];
  it('sees all 40 UnrealPak paks of UE 4.20-4.25 (5 versions x 8 variants)', () => {
    expect(repak.length).toBe(40);
  });
  it.each(repak)('pak-repak %s: the four files of root/, byte for byte, hashes verified', async (name) => {
    const got = await contents(corpusPath('pak-repak/packs', name), REPAK_KEY);
    expect([...got.keys()].sort()).toEqual(ROOT);
    for (const p of ROOT) expect(Buffer.compare(got.get(p)!, readFileSync(corpusPath('pak-repak/root', p))), p).toBe(0);
    const a = await openPakFile(corpusPath('pak-repak/packs', name), { keyFor: () => REPAK_KEY });
    const checks = await Promise.all(a.pak.entries.map((e) => a.checkEntry(e)));
    await a.close();
    expect(checks.every((c) => c.ok && c.expected.length === 40)).toBe(true);
  });

  for (const ue of ['ue5.8', 'ue6.0']) {
    const dir = `${ue}-cue4parse/paks`;
    it(`${dir}: every Legacy-Tagged variant gives the files of the uncompressed one (Zlib, Oodle, AES)`, async () => {
      const ref = await contents(corpusPath(dir, 'CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak'), KEY);
      expect(ref.size).toBe(11);
      expect(ref.get('DataTables/DT_AllProperties.uexp')!.length).toBe(1614);
      for (const v of ['Zlib', 'Oodle', 'OodleEncrypted']) {
        const got = await contents(corpusPath(dir, `CUE4ParseFixtures-Legacy-Tagged-${v}.pak`), KEY);
        expect([...got.keys()].sort(), v).toEqual([...ref.keys()].sort());
        for (const [p, b] of ref) expect(Buffer.compare(got.get(p)!, b), `${v} ${p}`).toBe(0);
      }
      const minimal = await contents(corpusPath(dir, 'CUE4ParseFixtures-Minimal-Uncompressed.pak'), KEY);
      const minimalOodle = await contents(corpusPath(dir, 'CUE4ParseFixtures-Minimal-Oodle.pak'), KEY);
      expect(minimal.get('Config/DefaultGame.ini')!.length).toBe(335);
      for (const [p, b] of minimal) expect(Buffer.compare(minimalOodle.get(p)!, b), p).toBe(0);
    });
  }

  it('an encrypted index without a key, and with the wrong key, says which (file and offset)', async () => {
    const path = corpusPath('pak-repak/packs/pack_v9_encryptindex.pak');
    const bytes = new Uint8Array(readFileSync(path));
    const open = (key?: Uint8Array) => PakArchive.open(bytesSource(bytes), { source: path, ...(key ? { keyFor: () => key } : {}) });
    await expect(open()).rejects.toMatchObject({ code: 'NEEDS_KEY' });
    const wrong = await open(new Uint8Array(32)).catch((e: unknown) => e as IoStoreError);
    expect(wrong).toBeInstanceOf(IoStoreError);
    expect((wrong as IoStoreError).code).toBe('BAD_KEY');
    expect((wrong as IoStoreError).message).toMatch(/pack_v9_encryptindex\.pak.*SHA-1/);
    expect((await open(REPAK_KEY)).pak.entries.length).toBe(4);
  });

  it('an encrypted entry without a key fails alone, naming the entry', async () => {
    const a = await openPakFile(corpusPath('pak-repak/packs/pack_v8b_encrypt.pak'));
    await expect(a.readAll(a.pak.entries[0]!, codecs)).rejects.toMatchObject({ code: 'NEEDS_KEY' });
    await a.close();
  });
});

describe('PakArchive on damaged bytes (fuzz)', () => {
  it('random byte changes and truncations of compressed, encrypted paks: IoStoreError or correct bytes, never a hang', async () => {
    const { writePakBytes } = await import('../../src/pak/pak-writer.js');
    const key = new Uint8Array(32).fill(9);
    const files = [
      { path: 'Config/Game.ini', data: new TextEncoder().encode('[A]\nB=1\n'.repeat(300)) },
      { path: 'Content/x.bin', data: Uint8Array.from({ length: 9000 }, (_, i) => (i * 31) & 0xff) },
    ];
    const bases = [
      await writePakBytes(files, { version: 8, compression: 'Zlib', blockSize: 2048, aesKey: key, encryptEntries: true, encryptIndex: true }),
      await writePakBytes(files, { version: 11, compression: 'LZ4', blockSize: 2048 }),
      await writePakBytes(files, { version: 15, compression: 'Gzip', blockSize: 2048, aesKey: key, encryptEntries: true }),
    ];
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    let errors = 0;
    let oks = 0;
    for (let round = 0; round < 600; round++) {
      const base = bases[round % bases.length]!;
      let bytes = base.slice();
      if (round % 5 === 4) bytes = bytes.subarray(0, rnd(bytes.length));
      else for (let k = 0; k <= rnd(4); k++) bytes[rnd(bytes.length)] = rnd(256);
      try {
        const a = await PakArchive.open(bytesSource(bytes), { source: 'f.pak', keyFor: () => key });
        for (const e of a.pak.entries) {
          const got = await a.readAll(e, codecs, { verify: true });
          const want = files.find((f) => f.path === e.path);
          // A change that slips past the hashes (an unused byte) must still give the right bytes.
          if (want) expect(Buffer.compare(got, want.data)).toBe(0);
        }
        oks++;
      } catch (err) {
        if (!(err instanceof IoStoreError)) throw err;
        expect(err.message).toContain('f.pak');
        expect(err.message).not.toContain('\n');
        errors++;
      }
    }
    expect(errors).toBeGreaterThan(300);
    expect(oks).toBeGreaterThan(0);
  });
});
