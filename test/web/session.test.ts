/**
 * The page's session model in Node: a dropped .pak is opened from its tail (footer and index) and each entry read
 * from its own slice, never the whole file, so paks of any size open in the page.
 */
import { openAsBlob, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readPak, readPakEntryData } from '../../src/index.js';
import { loadFiles, readRow } from '../../src/web/session.js';
import { CORPUS_AES_KEY_HEX, corpusPath, hasCorpus } from '../corpus.js';
import { expectSameBytes } from '../same-bytes.js';

/** A Blob that counts the bytes asked of it through slices, and any read of the whole. */
function countingBlob(blob: Blob) {
  const count = { sliced: 0, whole: 0 };
  const file = {
    size: blob.size,
    slice: (a = 0, b = blob.size) => {
      count.sliced += b - a;
      return blob.slice(a, b);
    },
    arrayBuffer: () => {
      count.whole++;
      return blob.arrayBuffer();
    },
  } as unknown as Blob;
  return { file, count };
}

describe.skipIf(!hasCorpus)('web session: paks read in slices', () => {
  for (const [name, key] of [
    ['CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak', ''],
    ['CUE4ParseFixtures-Legacy-Tagged-Oodle.pak', ''],
    ['CUE4ParseFixtures-Legacy-Tagged-OodleEncrypted.pak', CORPUS_AES_KEY_HEX],
  ] as const) {
    it(`${name}: the index from the tail, each entry from its slice, bytes equal to the whole-file reader`, async () => {
      const path = corpusPath('ue5.8-cue4parse', 'paks', name);
      const aesKey = key ? Uint8Array.from(Buffer.from(key, 'hex')) : undefined;
      const { file, count } = countingBlob(await openAsBlob(path));
      const loaded = await loadFiles([{ path: name, file }], aesKey);
      expect(loaded.errors).toEqual([]);
      const whole = new Uint8Array(readFileSync(path));
      const pak = readPak(whole, aesKey ? { aesKey } : {});
      // The reference bytes: the same files in the uncompressed pak, read whole by the library.
      const plainBytes = new Uint8Array(readFileSync(corpusPath('ue5.8-cue4parse', 'paks', 'CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak')));
      const plain = readPak(plainBytes);
      const reference = (p: string) => readPakEntryData(plainBytes, plain, plain.entries.find((x) => x.path === p)!);
      expect(loaded.rows.length).toBe(pak.entries.length);
      expect(loaded.rows.length).toBe(11);
      // Opening reads the footer (a 512-byte tail) and the index: nothing of the data area before it.
      expect(count.sliced).toBeLessThanOrEqual(whole.length - pak.footer.indexOffset + 512);
      for (const row of loaded.rows) {
        const e = pak.entries[row.index]!;
        const before = count.sliced;
        const bytes = await readRow(loaded.containers, row, aesKey);
        expectSameBytes(bytes, reference(e.path), e.path);
        // One entry costs its in-place header and its stored bytes (AES-padded), nothing more.
        expect(count.sliced - before, e.path).toBeLessThanOrEqual(e.size + 16 + 200 + (e.blocks?.length ?? 0) * 16);
      }
      expect(count.whole).toBe(0);
    });
  }
});
