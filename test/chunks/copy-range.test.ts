import { copyFileSync, existsSync, readFileSync, readSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContainerReader, parseAesKey } from '../../src/index.js';
import { copyChunksInKernelAfter, writeChunkSync } from '../../src/chunks/chunk-loop.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';
import { tempDir } from '../tmp.js';

const variant = (v: string) => {
  const cap = { uncompressed: 'Uncompressed', zlib: 'Zlib', oodleencrypted: 'OodleEncrypted', oodlepartitioned: 'OodlePartitioned' }[v]!;
  return corpusPath(`ue5.8-cue4parse/${v}/CUE4ParseFixtures-Minimal-${cap}-Windows.utoc`);
};

// Later tests on this thread write as a long run's first chunks do.
afterEach(() => void copyChunksInKernelAfter(2048));

describe('stored chunks copied inside the kernel (copy_file_range)', () => {
  it.each(['uncompressed', 'zlib', 'oodlepartitioned', 'oodleencrypted'])('%s: each file holds the chunk readChunk gives, raw ranges placed where their bytes are', async (v) => {
    const r = await ContainerReader.open(variant(v), v === 'oodleencrypted' ? { aesKey: parseAesKey(CORPUS_AES_KEY_HEX) } : {});
    const twin = r.transientTwin()!;
    const dir = tempDir();
    const copies = copyChunksInKernelAfter(0);
    // koffi is an optional dependency; where it is installed on Linux the copy must be taken.
    if (process.platform === 'linux' && existsSync(join(__dirname, '../../node_modules/koffi'))) expect(copies).toBe(true);
    try {
      let raw = 0;
      let stored = 0;
      for (let i = 0; i < r.toc.chunkCount; i++) {
        const want = Buffer.from(await r.readChunk(i));
        const first = Math.floor(r.toc.chunkOffset(i) / r.toc.blockSize);
        if (want.length > 0 && r.toc.blocks.method(first) === 0 && r.toc.encryption === 0) stored++;
        const at = twin.rawFileOffset(i);
        if (at >= 0) {
          raw++;
          const got = Buffer.alloc(want.length);
          expect(readSync(twin.rawFd, got, 0, got.length, at)).toBe(want.length);
          expect(got.equals(want), `chunk ${i} in place`).toBe(true);
        }
        const target = join(dir, `${i}.bin`);
        expect(writeChunkSync(twin, i, target, undefined, undefined, true)).toBe(want.length);
        expect(readFileSync(target).equals(want), `chunk ${i} written`).toBe(true);
      }
      // Every chunk of the uncompressed container is one raw range; none of the encrypted one; the others' raw
      // chunks (stored blocks among compressed ones) are found too.
      if (v === 'uncompressed') expect(raw).toBe(stored);
      if (v === 'uncompressed') expect(raw).toBeGreaterThan(100);
      if (v === 'oodleencrypted') expect(raw).toBe(0);
      if (v !== 'oodleencrypted') expect(raw).toBeGreaterThanOrEqual(stored > 0 ? 1 : 0);
    } finally {
      await Promise.all([twin.close(), r.close()]);
    }
  });

  it('a .ucas cut short fails its chunk as the reads do (TRUNCATED), leaving no file, and the thread copies no more', async () => {
    const dir = tempDir();
    const utoc = join(dir, 'c.utoc');
    copyFileSync(variant('uncompressed'), utoc);
    copyFileSync(variant('uncompressed').replace(/\.utoc$/, '.ucas'), join(dir, 'c.ucas'));
    const r = await ContainerReader.open(utoc);
    // The largest chunk, cut in its middle: the copy stops short and the file is started again.
    let big = 0;
    for (let i = 1; i < r.toc.chunkCount; i++) if (r.toc.chunkSize(i) > r.toc.chunkSize(big)) big = i;
    const want = Buffer.from(await r.readChunk(0));
    const twin = r.transientTwin()!;
    const at = twin.rawFileOffset(big);
    expect(at).toBeGreaterThan(twin.rawFileOffset(0));
    truncateSync(join(dir, 'c.ucas'), at + Math.floor(r.toc.chunkSize(big) / 2));
    copyChunksInKernelAfter(0);
    try {
      const target = join(dir, 'out.bin');
      let code = '';
      try {
        writeChunkSync(twin, big, target, undefined, undefined, true);
      } catch (e) {
        code = (e as { code?: string }).code ?? String(e);
      }
      expect(code).toBe('TRUNCATED');
      expect(existsSync(target)).toBe(false);
      // The next chunk is still written whole (its usual way).
      {
        writeChunkSync(twin, 0, target, undefined, undefined, true);
        expect(readFileSync(target).equals(want)).toBe(true);
      }
    } finally {
      await Promise.all([twin.close(), r.close()]);
    }
  });
});
