import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createChunkHasher, packFolder, parseAesKey, unpack, zlibNode } from '../../src/index.js';
import { EncodePool } from '../../src/pack/encode-pool.js';
import { encodeChunk } from '../../src/pack/block-encoder.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';
import { freshPaths, tempDir } from '../tmp.js';

const tmp = tempDir();
const fresh = freshPaths(tmp);

/** Every output file of a pack, by name, with its bytes. */
function outputs(utoc: string): Map<string, Buffer> {
  const dir = join(utoc, '..');
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
}

describe('pack on worker threads', () => {
  const name = 'CUE4ParseFixtures-Minimal-Uncompressed-Windows';

  it.each([
    ['its own settings', {}],
    ['Zlib', { compression: 'zlib' }],
    ['LZ4, 16 KiB blocks', { compression: 'lz4', blockSize: 16384 }],
    ['AES-ECB and partitions', { aesKey: parseAesKey(CORPUS_AES_KEY_HEX), partitionSize: 1 << 20 }],
  ])('writes the same container as the main thread: %s', async (_, options) => {
    const src = fresh('unpacked');
    await unpack([corpusPath(`ue5.8-cue4parse/uncompressed`)], src);
    const main = fresh(`${name}.utoc`);
    const workers = fresh(`${name}.utoc`);
    expect((await packFolder(src, main, { ...options, threads: 0 })).threads).toBe(0);
    expect((await packFolder(src, workers, { ...options, threads: 2 })).threads).toBe(2);
    const [a, b] = [outputs(main), outputs(workers)];
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [f, bytes] of a) expect(b.get(f)!.equals(bytes), f).toBe(true);
    if ('partitionSize' in options) expect([...a.keys()].filter((f) => f.endsWith('.ucas')).length).toBeGreaterThan(1);
    if (Object.keys(options).length === 0) {
      // And that is the engine's own container, byte for byte.
      expect(a.get(`${name}.ucas`)!.equals(readFileSync(corpusPath(`ue5.8-cue4parse/uncompressed/${name}.ucas`)))).toBe(true);
    }
  });

  it('a plain mod folder (--like) packs the same on workers', async () => {
    const src = fresh('unpacked');
    await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], src, { filter: 'CUE4ParseFixtures/Content/**' });
    const like = corpusPath(`ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc`);
    const main = fresh('Mod-Windows_P.utoc');
    const workers = fresh('Mod-Windows_P.utoc');
    const r = await packFolder(join(src, 'CUE4ParseFixtures'), main, { like, threads: 0 });
    await packFolder(join(src, 'CUE4ParseFixtures'), workers, { like, threads: 2 });
    expect(r.chunks).toBeGreaterThan(100);
    const [a, b] = [outputs(main), outputs(workers)];
    for (const [f, bytes] of a) expect(b.get(f)!.equals(bytes), f).toBe(true);
  });

  it('a worker encodes a file exactly as the writer would, and refuses missing or oversized files by name', async () => {
    const pool = new EncodePool(1);
    try {
      const data = new Uint8Array(200_000).map((_, i) => (i * 7) % 251);
      const file = fresh('chunk.bin');
      writeFileSync(file, data);
      const got = await pool.encode({ file, blockSize: 65536, codec: 'Zlib', memoryMapped: false, algorithm: 'blake3' });
      const want = encodeChunk(data, 65536, zlibNode, false, await createChunkHasher('blake3'));
      expect(got.hash).toEqual(want.hash);
      expect(got.length).toBe(200_000);
      expect(got.blocks.map((b) => [b.rawSize, b.compressed, Buffer.from(b.payload).toString('hex')])).toEqual(want.blocks.map((b) => [b.rawSize, b.compressed, Buffer.from(b.payload).toString('hex')]));

      const missing = join(tmp, 'nope.bin');
      await expect(pool.encode({ file: missing, blockSize: 65536, codec: null, memoryMapped: false, algorithm: 'blake3' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: `${missing}: no such file` });
      const big = fresh('big.bin');
      writeFileSync(big, new Uint8Array((16 << 20) + 1));
      await expect(pool.encode({ file: big, blockSize: 65536, codec: null, memoryMapped: false, algorithm: 'blake3' })).rejects.toMatchObject({ code: 'IO' });
      // The pool is still usable after a failed task.
      expect((await pool.encode({ file, blockSize: 65536, codec: null, memoryMapped: false, algorithm: 'sha1' })).blocks).toHaveLength(4);
    } finally {
      await pool.close();
    }
  });
});
