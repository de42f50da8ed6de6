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
  /** The uncompressed container unpacked once: the four cases below pack it (none writes into it). */
  let unpacked: Promise<string> | undefined;
  const unpackedOnce = () => (unpacked ??= (async () => {
    const src = fresh('unpacked');
    await unpack([corpusPath(`ue5.8-cue4parse/uncompressed`)], src);
    return src;
  })());

  it.each([
    ['its own settings', {}],
    ['Zlib', { compression: 'zlib' }],
    ['LZ4, 16 KiB blocks', { compression: 'lz4', blockSize: 16384 }],
    ['AES-ECB and partitions', { aesKey: parseAesKey(CORPUS_AES_KEY_HEX), partitionSize: 1 << 20 }],
  ])('writes the same container as the main thread: %s', async (_, options) => {
    const src = await unpackedOnce();
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

  it('a worker encodes files exactly as the writer would, several per task, and refuses missing or oversized files by name', async () => {
    const pool = new EncodePool(1);
    try {
      const data = new Uint8Array(200_000).map((_, i) => (i * 7) % 251);
      const file = fresh('chunk.bin');
      writeFileSync(file, data);
      const small = fresh('small.bin');
      writeFileSync(small, data.subarray(0, 3000));
      // Three chunks in one task: each read into the worker's one buffer, each copied out before the next is read.
      const got = await pool.encode({ files: [{ file, memoryMapped: false }, { file: small, memoryMapped: false }, { file, memoryMapped: true }], blockSize: 65536, codec: 'Zlib', algorithm: 'blake3' });
      const hasher = await createChunkHasher('blake3');
      const want = [encodeChunk(data, 65536, zlibNode, false, hasher), encodeChunk(data.subarray(0, 3000), 65536, zlibNode, false, hasher), encodeChunk(data, 65536, zlibNode, true, hasher)];
      expect(got).toHaveLength(3);
      got.forEach((g, k) => {
        expect(g.hash).toEqual(want[k]!.hash);
        expect(g.length).toBe(want[k]!.length);
        expect(g.blocks.map((b) => [b.rawSize, b.compressed, Buffer.from(b.payload).toString('hex')])).toEqual(want[k]!.blocks.map((b) => [b.rawSize, b.compressed, Buffer.from(b.payload).toString('hex')]));
      });

      const missing = join(tmp, 'nope.bin');
      const task = (f: string, algorithm: 'blake3' | 'sha1' = 'blake3') => ({ files: [{ file: f, memoryMapped: false }], blockSize: 65536, codec: null, algorithm });
      await expect(pool.encode(task(missing))).rejects.toMatchObject({ code: 'NOT_FOUND', message: `${missing}: no such file` });
      const big = fresh('big.bin');
      writeFileSync(big, new Uint8Array((16 << 20) + 1));
      await expect(pool.encode(task(big))).rejects.toMatchObject({ code: 'IO' });
      // The pool is still usable after a failed task.
      expect((await pool.encode(task(file, 'sha1')))[0]!.blocks).toHaveLength(4);
    } finally {
      await pool.close();
    }
  });
});
