import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeCompanionPak, readPak } from '../../src/pak/index.js';
import { unpack } from '../../src/unpack/unpack.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { mountTmpfs } from '../hostile.js';
import { tempDir } from '../tmp.js';

const BASE = 'ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc';
const CHUNK1 = 'ue5.1-patchtest/jh-patchtest-chunk1/pakchunk1-Windows.utoc';
const MINIMAL = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc';

/** One error line, naming `file`, with no hidden temporary name and no raw error code. */
function oneLine(r: { code: number; err: string }, file: RegExp): void {
  expect(r.code).toBe(2);
  const lines = r.err.trimEnd().split('\n');
  expect(lines, r.err).toHaveLength(1);
  expect(lines[0]).toMatch(file);
  expect(lines[0]).not.toMatch(/iostore-tmp|internal error|E[A-Z]{3,}:/);
}

describe.skipIf(!hasCorpus)('pack: the container\'s files are committed together (issue #24 item 10, #23 items 6 and 13)', () => {
  let folder = '';
  let chunk1 = '';
  let minimal = '';
  // Made while the suite is collected: a folder asked for inside beforeAll would never be removed (tempDir's cleanup
  // hooks do not run when registered from a running hook).
  const dir = tempDir();
  beforeAll(async () => {
    folder = join(dir, 'base');
    await unpack([corpusPath(BASE)], folder);
    chunk1 = join(dir, 'chunk1');
    await unpack([corpusPath(CHUNK1)], chunk1);
    minimal = join(dir, 'minimal');
    await unpack([corpusPath(MINIMAL)], minimal);
  });

  it('X.utoc a folder: refused in one line before any file is put in place; nothing else written', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'dir2.utoc'));
    oneLine(await cli('pack', folder, join(dir, 'dir2.utoc')), /dir2\.utoc: is a folder: the output cannot replace it \(nothing was written\)/);
    expect(readdirSync(dir)).toEqual(['dir2.utoc']);
    expect(readdirSync(join(dir, 'dir2.utoc'))).toEqual([]);
  });

  it('X.ucas a folder while an earlier X.utoc is there: the earlier container stays whole', async () => {
    const dir = tempDir();
    const out = join(dir, 'X.utoc');
    expect((await cli('pack', folder, out)).code).toBe(0);
    const before = readFileSync(out);
    // The .ucas replaced by a folder: the new set cannot be committed, and the old .utoc must not be replaced.
    const { rmSync } = await import('node:fs');
    rmSync(join(dir, 'X.ucas'));
    mkdirSync(join(dir, 'X.ucas'));
    oneLine(await cli('pack', folder, out, '--container-id', '0x1234'), /X\.ucas: is a folder/);
    expect(readFileSync(out).equals(before)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['X.pak', 'X.ucas', 'X.utoc']);
  });

  it('the partitions of an earlier, more partitioned container of the name are removed (verify then sees the folder as it is)', async () => {
    const dir = tempDir();
    const out = join(dir, 'Mod.utoc');
    const first = await cli('pack', minimal, out, '--partition-size', String(1 << 20));
    expect(first.code, first.err).toBe(0);
    const parts = readdirSync(dir).filter((f) => /_s\d+\.ucas$/.test(f));
    expect(parts.length).toBeGreaterThan(1);
    // verify names a partition the container does not have (a copy as another tool would have left it).
    copyFileSync(join(dir, parts[0]!), join(dir, 'Mod_s9.ucas'));
    const stale = await cli('verify', out);
    expect(stale.err).toMatch(/warning: .*Mod_s9\.ucas is not one of the \d+ partition\(s\) of .*Mod\.utoc/);
    const again = await cli('pack', minimal, out);
    expect(again.code, again.err).toBe(0);
    expect(again.err).toContain(`warning: removed ${parts.length + 1} .ucas partitions of an earlier container of this name`);
    expect(readdirSync(dir).sort()).toEqual(['Mod.pak', 'Mod.ucas', 'Mod.utoc']);
    expect((await cli('verify', out)).code).toBe(0);
  });

  it('the companion .pak of the container replaced is replaced, or removed with --no-pak', async () => {
    const dir = tempDir();
    const out = join(dir, 'Mod.utoc');
    const pakPath = join(dir, 'Mod.pak');
    expect((await cli('pack', folder, out)).code).toBe(0);
    // As an earlier pack of a folder with loose files would have left it.
    writeFileSync(pakPath, writeCompanionPak({ version: 11, files: [{ path: 'Stale.txt', data: new TextEncoder().encode('old') }] }));
    const again = await cli('pack', folder, out);
    expect(again.code, again.err).toBe(0);
    expect(again.err).toMatch(/replaced ".*Mod\.pak", the companion of the container this one replaces, with an empty companion \.pak/);
    expect(readPak(new Uint8Array(readFileSync(pakPath))).entries).toEqual([]);
    writeFileSync(pakPath, writeCompanionPak({ version: 11, files: [{ path: 'Stale.txt', data: new TextEncoder().encode('old') }] }));
    const noPak = await cli('pack', folder, out, '--no-pak');
    expect(noPak.code, noPak.err).toBe(0);
    expect(noPak.err).toMatch(/removed ".*Mod\.pak", the companion of the container this one replaces \(--no-pak writes none\)/);
    expect(readdirSync(dir).sort()).toEqual(['Mod.ucas', 'Mod.utoc']);
  });

  it('a file in the way of the output folder: one plain line (no raw "EEXIST: ... mkdir"), nothing made', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file.txt'), 'x');
    oneLine(await cli('pack', folder, join(dir, 'file.txt', 'sub', 'X.utoc')), /file\.txt\/sub: a file is in the way of a folder of this path/);
    expect(readdirSync(dir)).toEqual(['file.txt']);
  });

  it('a read-only file system: the user\'s path, no hidden temporary name, no empty folder left', async (ctx) => {
    const mnt = join(tempDir(), 'ro');
    mkdirSync(mnt);
    const m = mountTmpfs(mnt, { size: 1 << 20, ro: true });
    if (!m) return ctx.skip();
    try {
      oneLine(await cli('pack', folder, join(mnt, 'new', 'X.utoc')), new RegExp(`${mnt}/new: the file system is read-only`));
      oneLine(await cli('unpack', corpusPath(BASE), join(mnt, 'out')), new RegExp(`${mnt}/out: the file system is read-only`));
      expect(readdirSync(mnt)).toEqual([]);
    } finally {
      m.unmount();
    }
  });

  it('a full disk: one line naming the .ucas, no temporary file and no folder left', async (ctx) => {
    const mnt = join(tempDir(), 'full');
    mkdirSync(mnt);
    const m = mountTmpfs(mnt, { size: 64 << 10 });
    if (!m) return ctx.skip();
    try {
      oneLine(await cli('pack', chunk1, join(mnt, 'new', 'X.utoc')), new RegExp(`${mnt}/new/X\\.ucas: no space left on the device`));
      expect(readdirSync(mnt)).toEqual([]);
    } finally {
      m.unmount();
    }
  });
});

describe('FileSet', () => {
  it('puts every file in place or none, and puts back what was there when a rename fails', async () => {
    const { FileSet } = await import('../../src/layout/file-set.js');
    const dir = tempDir();
    writeFileSync(join(dir, 'a'), 'old a');
    const set = new FileSet();
    writeFileSync(set.temp(join(dir, 'a')), 'new a');
    writeFileSync(set.temp(join(dir, 'b')), 'new b');
    // A folder where the third goes: found before anything moves.
    mkdirSync(join(dir, 'c'));
    writeFileSync(set.temp(join(dir, 'c')), 'new c');
    expect(() => set.commit()).toThrow(/c: is a folder/);
    set.discard();
    expect(readFileSync(join(dir, 'a'), 'utf8')).toBe('old a');
    expect(existsSync(join(dir, 'b'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['a', 'c']);
  });
});
