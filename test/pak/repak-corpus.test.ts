import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseAesKey } from '../../src/crypto/aes.js';
import { readPak, readPakEntryBlocks, readPakEntryData } from '../../src/pak/index.js';
import { corpusFiles, corpusPath, hasCorpus } from '../corpus.js';
import { expectIoStoreError } from './pak-helpers.js';
import { REPAK_PAKS, REPAK_VERSIONS, REPAK_VARIANTS } from './repak-fixtures.js';

// The paks UnrealPak wrote for UE 4.20-4.25 from the four files under pak-repak/root/ (corpus README).
const KEY = parseAesKey(
  Buffer.from(JSON.parse(readFileSync(corpusPath('pak-repak/crypto.json'), 'utf8')).EncryptionKey.Key, 'base64').toString('hex'),
);
const ROOT_FILES = ['directory/nested.txt', 'test.png', 'test.txt', 'zeros.bin'];
const root = (p: string) => new Uint8Array(readFileSync(corpusPath('pak-repak/root', p)));

// Footer layout per engine release, from the format facts: magic, version, index offset/size, SHA-1 (44) and the
// encrypted-index flag (v4+) = 45; + key GUID (v7) = 61; + 4 compression names of 32 bytes (v8, UE 4.22) = 189;
// + a 5th name (v8, UE 4.23-4.24) = 221; + frozen-index flag (v9) = 222.
const LAYOUT: Record<string, { version: number; footer: number; slots: number; methodWidth: number }> = {
  v5: { version: 5, footer: 45, slots: 0, methodWidth: 4 },
  v7: { version: 7, footer: 61, slots: 0, methodWidth: 4 },
  v8a: { version: 8, footer: 189, slots: 4, methodWidth: 1 },
  v8b: { version: 8, footer: 221, slots: 5, methodWidth: 4 },
  v9: { version: 9, footer: 222, slots: 5, methodWidth: 4 },
};

describe.skipIf(!hasCorpus)('pak reader on the UE 4.20-4.25 paks of pak-repak/', () => {
  it('knows every pak of the folder (5 versions x 8 variants)', () => {
    expect(corpusFiles('.pak').filter((f) => f.startsWith('pak-repak/'))).toEqual([...REPAK_PAKS].sort());
    expect(REPAK_PAKS.length).toBe(REPAK_VERSIONS.length * REPAK_VARIANTS.length);
    expect(corpusFiles('').filter((f) => f.startsWith('pak-repak/root/')).map((f) => f.slice('pak-repak/root/'.length))).toEqual(ROOT_FILES);
  });

  for (const rel of REPAK_PAKS) {
    const m = /pack_(v\w+?)((?:_compress)?)((?:_encrypt)?)((?:_encryptindex)?)\.pak$/.exec(rel)!;
    const layout = LAYOUT[m[1]!]!;
    const compressed = m[2] !== '';
    const encrypted = m[3] !== '';
    const encryptedIndex = m[4] !== '';
    it(`reads ${rel.slice('pak-repak/packs/'.length)}: header, entries and the bytes of root/`, () => {
      const bytes = new Uint8Array(readFileSync(corpusPath(rel)));
      const pak = readPak(bytes, { source: rel, aesKey: KEY });
      expect(pak.version).toBe(layout.version);
      expect(pak.footer.size).toBe(layout.footer);
      expect(pak.footer.compressionSlots).toBe(layout.slots);
      expect(pak.footer.entryMethodWidth).toBe(layout.methodWidth);
      expect(pak.encryptedIndex).toBe(encryptedIndex);
      expect(pak.mountPoint).toBe('../mount/point/root/');
      expect(pak.declaredEntryCount).toBe(4);
      expect(pak.entries.map((e) => e.path)).toEqual(ROOT_FILES);
      expect(pak.entries.every((e) => e.safe)).toBe(true);
      // Before v8 compression is a flag (1 = Zlib); from v8 the footer names it.
      expect(pak.compressionMethods).toEqual(compressed && layout.version >= 8 ? ['Zlib'] : []);
      for (const e of pak.entries) {
        const want = root(e.path);
        expect(e.uncompressedSize).toBe(want.length);
        expect(e.encrypted).toBe(encrypted);
        expect(e.compressionMethod).toBe(compressed ? 'Zlib' : 'None');
        let got: Uint8Array;
        if (compressed) {
          expect(e.size).toBeLessThan(e.uncompressedSize);
          const blocks = readPakEntryBlocks(bytes, pak, e, { aesKey: KEY });
          expect(blocks.length).toBe(Math.ceil(e.uncompressedSize / e.compressionBlockSize));
          got = new Uint8Array(Buffer.concat(blocks.map((b) => inflateSync(b))));
        } else {
          expect(e.size).toBe(want.length);
          got = readPakEntryData(bytes, pak, e, { aesKey: KEY });
        }
        expect(Buffer.from(got).equals(Buffer.from(want))).toBe(true);
      }
      if (encryptedIndex) expectIoStoreError(() => readPak(bytes, { source: rel }), 'NEEDS_KEY', rel);
      else if (encrypted) {
        const p = readPak(bytes, { source: rel });
        const first = p.entries[0]!;
        if (compressed) expectIoStoreError(() => readPakEntryBlocks(bytes, p, first), 'NEEDS_KEY', rel);
        else expectIoStoreError(() => readPakEntryData(bytes, p, first), 'NEEDS_KEY', rel);
      }
    });
  }
});
