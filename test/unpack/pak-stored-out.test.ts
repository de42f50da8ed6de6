import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePakBytes } from '../../src/pak/pak-writer.js';
import { unpack } from '../../src/unpack/unpack.js';
import { freshPaths, listFiles, tempDir } from '../tmp.js';

const root = tempDir('28ao-pak-out-');
const fresh = freshPaths(root);

/** Bytes that differ from file to file (a file's bytes taken from the wrong place shows). */
function bytesOf(size: number, seed: number): Uint8Array {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 131 + seed * 7 + (i >> 4)) & 0xff;
  return b;
}

/** A stored pak of an empty file, a file larger than a piece, and small files in a few folders. */
function storedPak(version: number): Uint8Array {
  const sizes = [0, (1 << 20) + 4097, ...Array.from({ length: 300 }, (_, k) => 1 + ((k * 7919) % 9000)), 17];
  const files = sizes.map((size, k) => ({ path: `Game/Content/D${k % 4}/F${String(k).padStart(4, '0')}.ubulk`, data: bytesOf(size, k) }));
  return writePakBytes(files.sort((a, b) => (a.path < b.path ? -1 : 1)), { version, mountPoint: '../../../' });
}

/** `bytes` as a pak file (one per test: failures name it). */
function pakFile(bytes: Uint8Array): string {
  const dir = fresh('in');
  mkdirSync(dir);
  writeFileSync(join(dir, 'P.pak'), bytes);
  return join(dir, 'P.pak');
}

/** Unpacks `pak` with `threads` workers beside this thread; the tree (every file's bytes) and the result. */
async function unpacked(pak: string, threads: number) {
  const out = fresh('out');
  const r = await unpack([pak], out, { threads });
  const files = listFiles(out).filter((f) => !f.endsWith('iostore-manifest.json'));
  const manifest = JSON.parse(readFileSync(join(out, 'iostore-manifest.json'), 'utf8'));
  return { files: files.map((f) => [f, readFileSync(join(out, f)).toString('base64')]), manifest, failures: r.failures, written: r.chunksWritten };
}

describe('a stored pak unpacked by this thread and a worker side by side (PakStoredOut)', () => {
  it.each([[11], [8], [3]])('writes the files and manifest this thread writes alone (pak v%i)', async (version) => {
    const pak = pakFile(await storedPak(version));
    const alone = await unpacked(pak, 0);
    const beside = await unpacked(pak, 1);
    expect(alone.written).toBe(303);
    expect(beside).toEqual(alone);
  });

  it('fails a file whose in-place header disagrees with the index as this thread alone does, and writes the others', async () => {
    const bytes = await storedPak(11);
    // The first entry (offset 0): its in-place size field says one byte more.
    bytes[8] = (bytes[8]! + 1) & 0xff;
    const pak = pakFile(bytes);
    const alone = await unpacked(pak, 0);
    const beside = await unpacked(pak, 1);
    expect(alone.failures.map((f) => f.code)).toEqual(['BAD_VALUE']);
    expect(alone.written).toBe(302);
    expect(beside).toEqual(alone);
  });
});
