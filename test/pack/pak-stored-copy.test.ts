import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packPak } from '../../src/pack/pak-pack.js';
import { writePakBytes } from '../../src/pak/pak-writer.js';
import { freshPaths, tempDir } from '../tmp.js';
import { patternedBytes } from '../patterned-bytes.js';

const tmp = tempDir();
const fresh = freshPaths(tmp);

const bytesOf = patternedBytes;

/** A folder of `sizes` files below Game/Content, in several folders; returns their pak paths and bytes. */
function folderOf(dir: string, sizes: readonly number[]): { path: string; data: Uint8Array }[] {
  return sizes.map((size, k) => {
    const path = `Game/Content/D${k % 3}/F${String(k).padStart(4, '0')}.ubulk`;
    mkdirSync(join(dir, 'Game', 'Content', `D${k % 3}`), { recursive: true });
    const data = bytesOf(size, k);
    writeFileSync(join(dir, ...path.split('/')), data);
    return { path, data };
  });
}

describe('stored .pak files copied by worker threads beside the calling thread (StoredCopy.forPak)', () => {
  // Empty and one-byte files, a file larger than a copy piece (read and written piece by piece, its header last),
  // and enough small ones for several 512 KiB segments.
  const sizes = [0, 1, 15, (1 << 20) + 4097, ...Array.from({ length: 260 }, (_, k) => 1 + ((k * 7919) % 9000)), 3 << 20, 17];

  // A pak of less than the sink's 4 MiB buffer too: its index must not be gathered with a gap over the copied files.
  const small = [0, 1, ...Array.from({ length: 40 }, (_, k) => 1 + ((k * 7919) % 9000))];

  it.each([
    [8, 'over 4 MiB', sizes],
    [11, 'over 4 MiB', sizes],
    [5, 'under 4 MiB', small],
    [11, 'under 4 MiB', small],
  ])('writes the pak the calling thread writes alone (pak v%i, %s)', async (version, _, list) => {
    const dir = fresh('folder');
    const files = folderOf(dir, list).sort((a, b) => (a.path < b.path ? -1 : 1));
    const alone = await writePakBytes(files, { version, mountPoint: '../../../' });
    for (const threads of [0, 1]) {
      const out = join(fresh('out'), 'P.pak');
      const r = await packPak(dir, out, { pakVersion: version, threads });
      expect(r.entries).toBe(files.length);
      expect(Buffer.from(readFileSync(out)).equals(Buffer.from(alone)), `threads ${threads}`).toBe(true);
    }
  });

  it('gives the progress of every file, with its size', async () => {
    const dir = fresh('folder');
    const files = folderOf(dir, sizes);
    let done = 0;
    let bytes = 0;
    await packPak(dir, join(fresh('out'), 'P.pak'), { threads: 1, onProgress: (p) => ((done = p.chunksDone), (bytes = p.bytesDone)) });
    expect(done).toBe(files.length);
    expect(bytes).toBe(files.reduce((a, f) => a + f.data.length, 0));
  });
});
