import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { safeOutputPath, writeFileAtomic } from '../../src/layout/output.js';
import { toLegacy } from '../../src/convert/to-legacy.js';
import { unpack } from '../../src/unpack/unpack.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

describe('atomic output across runs of one process', () => {
  const root = tempDir();

  it('a folder deleted after a write is made again for the next (blocking and async writes)', async () => {
    const dir = join(root, 'a', 'b');
    for (const sync of [false, true]) {
      await writeFileAtomic(join(dir, 'x.bin'), [new Uint8Array([1, 2, 3])], undefined, { sync });
      rmSync(join(root, 'a'), { recursive: true });
      await writeFileAtomic(join(dir, 'y.bin'), [new Uint8Array([4, 5])], undefined, { sync });
      expect([...readFileSync(join(dir, 'y.bin'))]).toEqual([4, 5]);
      expect(readdirSync(dir)).toEqual(['y.bin']);
      rmSync(join(root, 'a'), { recursive: true });
    }
  });

  it.skipIf(!hasCorpus)('unpack and to-legacy twice into one output folder, deleted between the runs', async () => {
    const utoc = corpusPath('ue5.8-cue4parse', 'uncompressed', 'CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
    const out = join(root, 'game');
    const first = await unpack([utoc], out, { threads: 0 });
    const files = listFiles(out);
    rmSync(out, { recursive: true });
    const second = await unpack([utoc], out, { threads: 0 });
    expect(second.failures).toEqual([]);
    expect(second.chunksWritten).toBe(first.chunksWritten);
    expect(first.chunksWritten).toBeGreaterThan(100);
    expect(listFiles(out)).toEqual(files);
    rmSync(out, { recursive: true });
    for (let run = 0; run < 2; run++) {
      const r = await toLegacy([utoc, corpusPath('ue5.8-cue4parse', 'global', 'global.utoc')], out);
      expect(r.failures).toEqual([]);
      expect(existsSync(out)).toBe(true);
      rmSync(out, { recursive: true });
    }
  });
});

describe('safeOutputPath resolves each folder once', () => {
  it('gives the resolved path, and still refuses every unsafe path after its folder was seen', () => {
    const out = join(tempDir(), 'out');
    expect(safeOutputPath(out, 'Game/Content/a.uasset', 'linux')).toBe(resolve(out, 'Game', 'Content', 'a.uasset'));
    expect(safeOutputPath(out, 'Game/Content/b.uasset', 'linux')).toBe(resolve(out, 'Game', 'Content', 'b.uasset'));
    expect(safeOutputPath(out, 'top.bin', 'linux')).toBe(resolve(out, 'top.bin'));
    for (const bad of ['Game/Content/..', 'Game/Content/../../../x', 'Game/Content/', 'Game/Content/.', 'Game/Content/a:b', '/etc/x', 'Game//x']) {
      expect(() => safeOutputPath(out, bad, 'linux'), bad).toThrow(/UNSAFE_PATH|output path/);
    }
    // The same names are refused on Windows for its own reasons, once the platform changes.
    expect(() => safeOutputPath(out, 'Game/Content/con.txt', 'win32')).toThrow(/Windows device name/);
    expect(safeOutputPath(out, 'Game/Content/con.txt', 'linux')).toBe(resolve(out, 'Game', 'Content', 'con.txt'));
  });
});
