import { describe, expect, it } from 'vitest';
import { buildContainer, padBlock } from '../../src/pack/container-builder.js';
import { chunkHash } from '../../src/hash/chunk-hash.js';
import { containerInfo, encodeChunkId, packageIdFromName, readToc } from '../../src/index.js';

const pkg = (name: string, type = 1) => encodeChunkId({ id: packageIdFromName(name), index: 0, pad: 0, type }, 'UE5');

describe('buildContainer', () => {
  it('writes a 0-entry container that reads back as empty', async () => {
    for (const version of [3, 5, 8, 10]) {
      const { utoc, ucas } = await buildContainer([], { name: 'Empty', version });
      expect(ucas.length).toBe(0);
      const toc = readToc(utoc, { source: 'Empty.utoc' });
      expect(toc.chunkCount).toBe(0);
      expect(toc.blockCount).toBe(0);
      expect(toc.files()).toEqual([]);
      expect(toc.findChunk(new Uint8Array(12))).toBe(-1);
      expect(containerInfo(toc)).toMatchObject({ chunkCount: 0, rawSize: 0, storedSize: 0, ratio: null });
    }
  });

  it('lays out chunks on block boundaries with 16-byte padded blocks and correct hashes', async () => {
    const big = new Uint8Array(150_000).map((_, i) => (i * 7) & 0xff);
    const chunks = [
      { id: pkg('/Game/A'), data: new TextEncoder().encode('hello'), path: 'Demo/Content/A.uasset' },
      { id: pkg('/Game/A', 2), data: big, path: 'Demo/Content/A.ubulk' },
      { id: pkg('/Game/B'), data: new Uint8Array(70_000).fill(3), path: 'Demo/Content/Sub/B.uasset' },
    ];
    const { utoc, ucas } = await buildContainer(chunks, { name: 'Demo-Windows' });
    const toc = readToc(utoc);
    expect(toc.chunkCount).toBe(3);
    expect(toc.blockCount).toBe(1 + 3 + 2);
    for (const c of chunks) {
      const i = toc.findChunk(c.id);
      expect(i).toBeGreaterThanOrEqual(0);
      expect(toc.chunkPath(i)).toBe(c.path);
      expect(toc.chunkSize(i)).toBe(c.data.length);
      expect(toc.chunkOffset(i) % 0x10000).toBe(0);
      expect(toc.chunkHash(i)).toEqual(await chunkHash('blake3', c.data));
      // Uncompressed blocks hold the chunk's bytes at their offsets.
      const first = toc.chunkFirstBlock(i);
      const off = toc.blocks.offset(first);
      expect(Buffer.from(ucas.subarray(off, off + Math.min(c.data.length, 0x10000))).equals(Buffer.from(c.data.subarray(0, 0x10000)))).toBe(true);
    }
    for (let b = 0; b < toc.blockCount; b++) expect(toc.blocks.offset(b) % 16).toBe(0);
  });

  it('pads a block by repeating its own bytes', () => {
    expect(Array.from(padBlock(new Uint8Array([1, 2, 3])))).toEqual([1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1]);
    const full = new Uint8Array(32);
    expect(padBlock(full)).toBe(full);
  });
});
