import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plural, sources } from '../../src/cli/plural.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

describe('messages: counts', () => {
  it('one noun for one, the plural for the rest; containers and paks apart', () => {
    expect(plural(1, 'package')).toBe('1 package');
    expect(plural(0, 'package')).toBe('0 packages');
    expect(plural(2, 'entry')).toBe('2 entries');
    expect(plural(3, 'non-package file')).toBe('3 non-package files');
    expect(plural(1, '.ucas file')).toBe('1 .ucas file');
    expect(sources(['a', 'b.pak', 'c'])).toBe('2 containers and 1 pak');
    expect(sources(['a.pak', 'b.pak'])).toBe('2 paks');
    expect(sources(['a'])).toBe('1 container');
  });
});

describe.skipIf(!hasCorpus)('messages of the CLI', () => {
  const C = (p: string) => corpusPath(`ue5.8-cue4parse/${p}`);

  it('unpack and verify count paks apart from containers; one of each is singular', async () => {
    const root = tempDir();
    const u = await cli('unpack', C('patch'), C('paks/CUE4ParseFixtures-PatchBase.pak'), C('paks/CUE4ParseFixtures-PatchBase_0_P.pak'), join(root, 'a'));
    expect(u.code, u.err).toBe(0);
    expect(u.out).toMatch(/^wrote \d+ chunks \([^)]*\) from 2 containers and 2 paks to /);
    const one = await cli('unpack', C('patch/CUE4ParseFixtures-PatchBase_0_P.utoc'), join(root, 'b'));
    expect(one.out).toMatch(/ from 1 container to /);
    const v = await cli('verify', C('patch'), C('paks/CUE4ParseFixtures-PatchBase.pak'));
    expect(v.out.trim().split('\n').at(-1)).toBe('OK: 2/2 containers and 1/1 pak verified');
  });

  it('a --filter written as a file name pattern that matches nothing says globs match whole paths', async () => {
    const r = await cli('list', C('uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'), '--filter', '*.uasset');
    expect(r.out.trim().split('\n').at(-1)).toBe('0 of 112 chunks');
    expect(r.err).toBe('hint: --filter "*.uasset" matched nothing: globs match whole paths, so it names only files at the top; try --filter "**/*.uasset"\n');
    const u = await cli('unpack', C('patch/CUE4ParseFixtures-PatchBase.utoc'), join(tempDir(), 'x'), '--filter', '*.uasset', '--dry-run');
    expect(u.err).toContain('try --filter "**/*.uasset"');
    // A filter that matches, or one written as a path, gets no hint.
    expect((await cli('list', C('uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'), '--filter', '**/*.uasset')).err).toBe('');
    expect((await cli('list', C('uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'), '--filter', 'Maps/*.nothing')).err).toBe('');
  });

  it('a .ucas given for its container names the .utoc to pass, or says it is missing', async () => {
    const ucas = C('uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.ucas');
    for (const command of ['info', 'list', 'verify', 'inspect']) {
      const r = await cli(command, ucas);
      expect(r.code, command).toBe(2);
      expect(r.err, command).toBe(`iostore: ${ucas}: this is a .ucas data file: pass its .utoc (CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc beside it), which indexes it\n`);
    }
    const alone = join(tempDir(), 'Alone-Windows.ucas');
    copyFileSync(ucas, alone);
    const r = await cli('info', alone);
    expect(r.err).toBe(`iostore: ${alone}: this is a .ucas data file, and its .utoc (Alone-Windows.utoc), which indexes it, is missing: a container needs both\n`);
    expect((await cli('unpack', alone, join(tempDir(), 'o'))).err).toMatch(/its \.utoc \(Alone-Windows\.utoc\), which indexes it, is missing/);
  });

  it('a failed package is one line naming its path once', async () => {
    const root = tempDir();
    const dir = join(root, 'mod', 'Game', 'Content');
    mkdirSync(dir, { recursive: true });
    const bytes = readFileSync(C('../zen-assets/UE5.5/T_Test.uzenasset'));
    writeFileSync(join(dir, 'Broken.uasset'), bytes.subarray(0, 100));
    const r = await cli('to-legacy', join(root, 'mod'), join(root, 'out'), '--engine', 'UE5_5');
    expect(r.code).toBe(1);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.split('Broken.uasset').length - 1).toBe(1);
    expect(lines[1]).toBe('1 failure; the other packages were converted');
  });
});
