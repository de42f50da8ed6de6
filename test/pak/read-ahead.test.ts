import { describe, expect, it } from 'vitest';
import { bytesSource, PakArchive, readAheadSource, type PakByteSource } from '../../src/pak/archive.js';
import { writePakBytes } from '../../src/pak/pak-writer.js';
import { readFileSync } from 'node:fs';
import { defaultCodecs } from '../../src/codecs/registry.js';
import { parseAesKey } from '../../src/crypto/aes.js';
import { openPakFile } from '../../src/pak/pak-file.js';
import { CORPUS_AES_KEY_HEX, corpusFiles, corpusPath, hasCorpus } from '../corpus.js';
import { REPAK_PAKS } from './repak-fixtures.js';

const REPAK_KEY = hasCorpus ? parseAesKey(JSON.parse(readFileSync(corpusPath('pak-repak/crypto.json'), 'utf8')).EncryptionKey.Key) : new Uint8Array(32);

/** `bytes` as a source that counts its reads. */
function counted(bytes: Uint8Array): PakByteSource & { reads: number } {
  const inner = bytesSource(bytes);
  const src = { size: inner.size, reads: 0, read: (o: number, n: number) => (src.reads++, inner.read(o, n)) };
  return src;
}

describe('readAheadSource', () => {
  const bytes = new Uint8Array(100_000).map((_, k) => (k * 31) & 255);

  it('serves forward reads from one window, passes big reads through, and earlier pieces stay valid', async () => {
    const inner = counted(bytes);
    const src = readAheadSource(inner, 4096);
    const first = await src.read(0, 100);
    expect(Array.from(await src.read(100, 200))).toEqual(Array.from(bytes.subarray(100, 300)));
    expect(inner.reads).toBe(1);
    // Past the window: a new one from that offset; the first piece still holds its bytes.
    expect(Array.from(await src.read(4000, 200))).toEqual(Array.from(bytes.subarray(4000, 4200)));
    expect(inner.reads).toBe(2);
    expect(Array.from(first)).toEqual(Array.from(bytes.subarray(0, 100)));
    expect((await src.read(10_000, 8192)).length).toBe(8192);
    expect(inner.reads).toBe(3);
    // At the end: fewer bytes, as the source gives.
    expect((await src.read(99_990, 100)).length).toBe(10);
  });
});

describe('PakArchive.withReadAhead', () => {
  it('reads every file of a pak in offset order with a read per window, not two per file, and the same bytes', async () => {
    // 400 files, Zlib and stored, a few larger than the window.
    const files = Array.from({ length: 400 }, (_, i) => ({ path: `Game/F${i}.bin`, data: new Uint8Array(i % 50 === 0 ? 20_000 : 300 + i).map((_, k) => (k + i) & (i % 3 === 0 ? 1 : 255)) }));
    const codecs = defaultCodecs();
    for (const compression of ['None', 'Zlib']) {
      const inner = counted(await writePakBytes(files, { version: 11, compression, codecs }));
      const archive = await PakArchive.open(inner);
      const opened = inner.reads;
      const ahead = archive.withReadAhead(16 << 10);
      const byOffset = [...archive.pak.entries].sort((a, b) => a.offset - b.offset);
      for (const e of byOffset) {
        const want = files.find((f) => f.path === e.path)!.data;
        expect(Buffer.from(await ahead.readAll(e, codecs, { verify: true })).equals(want), e.path).toBe(true);
      }
      // Two reads a file (its header, its data) would be 800.
      expect(inner.reads - opened, compression).toBeLessThan(80);
    }
  });
});

describe.skipIf(!hasCorpus)('withReadAhead on the corpus paks', () => {
  it('every pak-repak variant (compressed, encrypted, encrypted index) and the UE 6.0 AES-CTR paks: the same bytes entry by entry in offset order', async () => {
    const codecs = defaultCodecs();
    const rels = [...REPAK_PAKS, ...corpusFiles('.pak').filter((f) => f.startsWith('ue6.0-cue4parse/paks/'))];
    expect(rels.length).toBeGreaterThan(40);
    let entries = 0;
    for (const rel of rels) {
      const key = rel.startsWith('pak-repak/') ? REPAK_KEY : parseAesKey(`0x${CORPUS_AES_KEY_HEX}`);
      const archive = await openPakFile(corpusPath(rel), { keyFor: () => key });
      try {
        const ahead = archive.withReadAhead(4096);
        for (const e of [...archive.pak.entries].sort((a, b) => a.offset - b.offset)) {
          const want = await archive.readAll(e, codecs, { verify: true });
          expect(Buffer.from(await ahead.readAll(e, codecs, { verify: true })).equals(want), `${rel}: ${e.path}`).toBe(true);
          entries++;
        }
      } finally {
        await archive.close();
      }
    }
    expect(entries).toBeGreaterThan(100);
  });
});
