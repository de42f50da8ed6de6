import { existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePakBytes } from '../../src/pak/pak-writer.js';
import { unpack } from '../../src/unpack/unpack.js';
import { placementFacts } from '../../src/pak/archive.js';
import { openPakFile } from '../../src/pak/pak-file.js';
import { PakOutThread, writePakSegment, type PakOutSegment } from '../../src/unpack/pak-stored-out.js';
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

describe('writePakSegment of a pak that shrank since it was opened', () => {
  it('fails the files past the new end as truncated: none is written from the bytes an earlier segment left in the buffer', async () => {
    const pak = pakFile(await storedPak(11));
    const archive = await openPakFile(pak);
    const facts = placementFacts(archive.pak);
    await archive.close();
    // 40 small files back to back, as PakStoredOut makes a segment of them.
    const small = archive.pak.entries.filter((e) => e.size > 0 && e.size < 9000).sort((a, b) => a.offset - b.offset).slice(0, 40);
    const out = fresh('shrunk');
    mkdirSync(out);
    const segment = (tag: string): PakOutSegment => ({
      pak,
      facts,
      paths: small.map((e) => e.path).join('\0'),
      targets: small.map((_, k) => join(out, `${tag}${k}.bin`)).join('\0'),
      offsets: Float64Array.from(small, (e) => e.offset),
      sizes: Float64Array.from(small, (e) => e.size),
    });
    const thread = new PakOutThread();
    try {
      const whole = writePakSegment(segment('a'), thread);
      expect(whole.failures).toEqual([]);
      // The pak cut in the middle of the 21st file; the same thread (and its buffer) writes the segment again.
      truncateSync(pak, small[20]!.offset + 100);
      const cut = writePakSegment(segment('b'), thread);
      expect(cut.failures.map((f) => [f.k, f.code])).toEqual(Array.from({ length: 20 }, (_, i) => [20 + i, 'TRUNCATED']));
      expect(Array.from(cut.written.subarray(0, 20))).toEqual(small.slice(0, 20).map((e) => e.size));
      for (let k = 20; k < 40; k++) expect(existsSync(join(out, `b${k}.bin`))).toBe(false);
    } finally {
      thread.close();
    }
  });
});
