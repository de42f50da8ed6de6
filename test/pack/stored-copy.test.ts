import { appendFileSync, existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, createChunkHasher, packFolder, verifyContainer } from '../../src/index.js';
import { ContainerWriter, fileSink } from '../../src/pack/container-writer.js';
import { storedSize } from '../../src/pack/stored-blocks.js';
import { tailBytes } from '../../src/pack/stored-copy.js';
import { copySegment, SegmentBuffer } from '../../src/pack/stored-segment.js';
import { freshPaths, tempDir } from '../tmp.js';
import { patternedBytes } from '../patterned-bytes.js';

const tmp = tempDir();
const fresh = freshPaths(tmp);

const bytesOf = patternedBytes;

/** A .ucas and .utoc written by `add`, as bytes. */
async function written(dir: string, o: { blockSize: number; alignment?: number; algorithm: 'blake3' | 'sha1' }, add: (w: ContainerWriter) => Promise<void>) {
  mkdirSync(dir, { recursive: true });
  const ucas = join(dir, 'c.ucas');
  const w = await ContainerWriter.create(() => fileSink(ucas), {
    version: 8, containerId: 1n, blockSize: o.blockSize, hashAlgorithm: o.algorithm, mountPoint: '../../../', perfectHash: true,
    ...(o.alignment !== undefined ? { compressionBlockAlignment: o.alignment } : {}),
  });
  await add(w);
  const { utoc } = await w.finish();
  return { ucas: readFileSync(ucas), utoc: Buffer.from(utoc) };
}

describe('stored chunks copied side by side (reserveStored + copySegment)', () => {
  // Empty, shorter than a padding unit, on and off 16-byte and block boundaries; the first alone in its segment and
  // larger than a piece (read and written piece by piece).
  const sizes = [(1 << 20) + 4097, 0, 1, 15, 16, 17, 4095, 4096, 4097, 10000, 65536, 65537, 130001];

  it.each([
    ['64 KiB blocks', { blockSize: 0x10000, algorithm: 'blake3' as const }],
    ['4 KiB blocks, 2 KiB alignment, SHA-1 (UE4)', { blockSize: 4096, alignment: 2048, algorithm: 'sha1' as const }],
  ])('writes the .ucas and .utoc the writer writes itself: %s', async (_, o) => {
    const dir = fresh('files');
    mkdirSync(dir);
    const files = sizes.map((size, k) => {
      const f = join(dir, `F${k}.ubulk`);
      writeFileSync(f, bytesOf(size, k));
      return f;
    });
    const id = (k: number) => Uint8Array.from({ length: 12 }, (_, i) => (i === 0 ? k + 1 : i === 11 ? 1 : 0));
    const path = (k: number) => `Game/Content/F${k}.ubulk`;
    const own = await written(fresh('own'), o, async (w) => {
      for (let k = 0; k < files.length; k++) await w.addChunkBytes(id(k), new Uint8Array(readFileSync(files[k]!)), path(k));
    });
    const copied = await written(fresh('copied'), o, async (w) => {
      const hasher = await createChunkHasher(o.algorithm);
      const buffer = new SegmentBuffer();
      // Segments of 1, 2, 3 ... chunks, each copied after the next ones were placed (any order works).
      const segments: Array<{ ks: number[]; positions: number[] }> = [];
      for (let k = 0, n = 1; k < files.length; k += n, n++) {
        const ks = Array.from({ length: Math.min(n, files.length - k) }, (_, j) => k + j);
        segments.push({ ks, positions: [] });
      }
      const indexes: number[] = [];
      for (const s of segments) {
        for (const k of s.ks) {
          const r = w.reserveStored(id(k), sizes[k]!, path(k));
          s.positions.push(r.position);
          indexes[k] = r.index;
        }
      }
      for (const s of segments.reverse()) {
        const hashes = copySegment({ fd: w.directFd!, shownAs: 'c.ucas', blockSize: o.blockSize, files: s.ks.map((k) => files[k]!).join('\0'), sizes: Float64Array.from(s.ks, (k) => sizes[k]!), positions: Float64Array.from(s.positions) }, buffer, hasher);
        s.ks.forEach((k, j) => w.setHash(indexes[k]!, hashes.subarray(j * 20, j * 20 + 20)));
      }
    });
    expect(copied.ucas.equals(own.ucas)).toBe(true);
    expect(copied.utoc.equals(own.utoc)).toBe(true);
    expect(storedSize(65537, 0x10000)).toBe(65536 + 16);
    // The TOC's layout made ahead, once every chunk is placed (as a stored pack does while its workers copy), or
    // before a chunk that comes after it (made again then): the same TOC.
    for (const early of [files.length, 3]) {
      const ahead = await written(fresh('ahead'), o, async (w) => {
        for (let k = 0; k < files.length; k++) {
          if (k === early) w.layoutAhead();
          await w.addChunkBytes(id(k), new Uint8Array(readFileSync(files[k]!)), path(k));
        }
        if (early === files.length) w.layoutAhead();
      });
      expect(ahead.utoc.equals(own.utoc), `layout after ${early} chunks`).toBe(true);
    }
  });

  it('a stored pack on a worker thread writes the container the main thread writes, and refuses a file that changed size since the folder was read', async () => {
    const src = fresh('mod');
    const folder = join(src, 'Game', 'Content', 'Mod');
    mkdirSync(folder, { recursive: true });
    // Consecutive small files, one over 1 MiB (a segment of its own, in pieces) and an empty one.
    const sizesOf = [3, 70000, 0, (1 << 20) + 5, 17, ...Array.from({ length: 300 }, (_, k) => 100 + k * 37)];
    sizesOf.forEach((size, k) => writeFileSync(join(folder, `F${String(k).padStart(3, '0')}.ubulk`), bytesOf(size, k)));
    const main = fresh('main/Mod-Windows.utoc');
    const side = fresh('side/Mod-Windows.utoc');
    expect((await packFolder(src, main, { engine: 'UE5_4', compression: 'none', threads: 0 })).threads).toBe(0);
    expect((await packFolder(src, side, { engine: 'UE5_4', compression: 'none', threads: 1 })).threads).toBe(1);
    for (const ext of ['utoc', 'ucas', 'pak']) {
      expect(readFileSync(side.replace(/utoc$/, ext)).equals(readFileSync(main.replace(/utoc$/, ext))), ext).toBe(true);
    }
    const reader = await ContainerReader.open(side);
    try {
      expect((await verifyContainer(reader)).ok).toBe(true);
    } finally {
      await reader.close();
    }
    // A file that grew after the plan: its place is already given, so the pack stops and names it (and leaves no output).
    const grown = join(folder, 'F200.ubulk');
    const out = fresh('grown/Mod-Windows.utoc');
    await expect(packFolder(src, out, { engine: 'UE5_4', compression: 'none', threads: 1, betweenPhases: (phase) => phase === 'planned' && appendFileSync(grown, 'x') })).rejects.toThrow(/F200\.ubulk.*changed size while being packed/);
    expect(existsSync(join(out, '..'))).toBe(false);
    // A file gone after the folder was read: an IO error naming it, on a worker and on this thread alike.
    for (const threads of [1, 0]) {
      const gone = join(folder, `F${100 + threads}.ubulk`);
      const lost = fresh(`gone-${threads}/Mod-Windows.utoc`);
      await expect(packFolder(src, lost, { engine: 'UE5_4', compression: 'none', threads, betweenPhases: (phase) => phase === 'planned' && unlinkSync(gone) })).rejects.toThrow(new RegExp(`F${100 + threads}\\.ubulk`));
      expect(existsSync(join(lost, '..'))).toBe(false);
    }
  });
});

describe("the stored copy's tail (what the workers copy alone while this thread makes the TOC layout)", () => {
  it("grows with the chunks, whose number the layout's time follows, between 64 and 256 MiB", () => {
    // A fixed 64 MiB had left the worker of a 30,000-file pack idle for the last 50-70 ms of the layout.
    expect(tailBytes(0)).toBe(64 << 20);
    expect(tailBytes(10000)).toBe(64 << 20);
    expect(tailBytes(30000)).toBe(30000 * 3072);
    expect(tailBytes(30000)).toBeGreaterThan(80 << 20);
    expect(tailBytes(150000)).toBe(256 << 20);
  });
});
