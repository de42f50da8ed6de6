import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createChunkHasher, zlibNode } from '../../src/index.js';
import { encodeChunk } from '../../src/pack/block-encoder.js';
import { DeflateAhead } from '../../src/pack/deflate-ahead.js';
import type { PlannedChunk } from '../../src/pack/planned-chunk.js';
import { corpusPath } from '../corpus.js';
import { freshPaths, tempDir } from '../tmp.js';

const fresh = freshPaths(tempDir());

describe('Zlib blocks deflated ahead on the thread pool', () => {
  it('gives every file chunk\'s blocks and hash as the writer would make them, in order, with a bounded number of blocks in flight', async () => {
    const ucas = readFileSync(corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.ucas'));
    // A 5 MiB file (80 blocks: more than are ever read ahead), small and empty files, a memory-mapped one (stored
    // raw), a file of exactly one block, and a chunk that is not a file (left to the writer).
    const sizes = [5 << 20, 3000, 0, 70_000, 65536, 20_000];
    const chunks: PlannedChunk[] = sizes.map((size, k) => {
      const file = fresh(`f${k}.bin`);
      const bytes = Buffer.alloc(size);
      for (let o = 0; o < size; o += ucas.length) ucas.copy(bytes, o, 0, Math.min(ucas.length, size - o));
      writeFileSync(file, bytes.subarray(0, size));
      return { id: new Uint8Array(12), size, file, input: file, memoryMapped: k === 3, pieces: async function* () {} };
    });
    chunks.splice(4, 0, { id: new Uint8Array(12), size: 10, memoryMapped: false, pieces: async function* () {} });
    const ahead = (await DeflateAhead.create(chunks, { codec: zlibNode, blockSize: 65536, hashAlgorithm: 'blake3' }, 2))!;
    expect(ahead.threads).toBe(2);
    const hasher = await createChunkHasher('blake3');
    for (let k = 0; k < chunks.length; k++) {
      const c = chunks[k]!;
      if (!ahead.handles(k)) {
        expect(c.file).toBeUndefined();
        continue;
      }
      const got: Array<[number, boolean, string]> = [];
      for await (const b of ahead.blocks(k)) got.push([b.rawSize, b.compressed, Buffer.from(b.payload).toString('hex')]);
      const want = encodeChunk(readFileSync(c.file!), 65536, zlibNode, c.memoryMapped, hasher);
      expect(got).toEqual(want.blocks.map((b) => [b.rawSize, b.compressed, Buffer.from(b.payload).toString('hex')]));
      expect(Buffer.from(ahead.hash()).equals(Buffer.from(want.hash))).toBe(true);
    }
    expect(ahead.rooms).toBeLessThanOrEqual(32);
    // Other codecs, and --threads 0, are not this reader's.
    expect(await DeflateAhead.create(chunks, { blockSize: 65536, hashAlgorithm: 'blake3' })).toBeUndefined();
    expect(await DeflateAhead.create(chunks, { codec: zlibNode, blockSize: 65536, hashAlgorithm: 'blake3' }, 0)).toBeUndefined();
  });

  it('names a file that went missing', async () => {
    const file = fresh('gone.bin');
    const ahead = (await DeflateAhead.create([{ id: new Uint8Array(12), size: 5, file, memoryMapped: false, pieces: async function* () {} }], { codec: zlibNode, blockSize: 65536, hashAlgorithm: 'blake3' }))!;
    await expect(async () => {
      for await (const _ of ahead.blocks(0)) void _;
    }).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('gone.bin') });
  });
});
