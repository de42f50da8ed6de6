import { mkdirSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { pakWithNames } from '../hostile.js';
import { listFiles, tempDir } from '../tmp.js';

const UTOC = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc';

/** An output folder holding a link `link` (a folder path under it) to a victim folder outside, and the victim. */
function trap(dir: string, link: string): { out: string; victim: string } {
  const out = join(dir, 'out');
  const victim = join(dir, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, 'precious.txt'), 'mine');
  const at = join(out, ...link.split('/'));
  mkdirSync(join(at, '..'), { recursive: true });
  symlinkSync(victim, at, 'dir');
  return { out, victim };
}

/** Nothing was written into the victim, the link is still the link, and every error names it on one line each. */
function nothingThrough(r: { code: number; err: string }, victim: string, out: string, link: string): void {
  expect(readdirSync(victim)).toEqual(['precious.txt']);
  expect(readlinkSync(join(out, ...link.split('/')))).toBe(victim);
  expect(r.code).toBe(1);
  const errors = r.err.split('\n').filter((l) => l.startsWith('error: ') && !l.startsWith('error: ... and '));
  expect(errors.length).toBeGreaterThan(0);
  for (const e of errors) expect(e).toMatch(new RegExp(`${link.split('/').pop()}: is a link \\(to ".*victim"\\) in the output folder: nothing is written through it`));
}

describe.skipIf(process.platform === 'win32')('a link already in the output folder is not followed (issue #24 item 6)', () => {
  it('pak unpack: out/Game -> victim writes nothing into the victim; files elsewhere are still written', async () => {
    const dir = tempDir();
    const { out, victim } = trap(dir, 'Game');
    writeFileSync(join(dir, 'x.pak'), pakWithNames([{ path: 'Game/evil.txt', data: 'payload' }, { path: 'Other/fine.txt', data: 'ok' }], {}, { mountPoint: '../../../' }));
    const r = await cli('unpack', join(dir, 'x.pak'), out);
    nothingThrough(r, victim, out, 'Game');
    expect(listFiles(out)).toContain('Other/fine.txt');
  });

  it('a link deeper in the output folder (out/Game/Content -> victim) is refused as well', async () => {
    const dir = tempDir();
    const { out, victim } = trap(dir, 'Game/Content');
    writeFileSync(join(dir, 'x.pak'), pakWithNames([{ path: 'Game/Content/Maps/evil.umap', data: 'payload' }], {}, { mountPoint: '../../../' }));
    nothingThrough(await cli('unpack', join(dir, 'x.pak'), out), victim, out, 'Game/Content');
  });

  // The thread that writes a chunk checks its path: the calling one, or a worker.
  it.skipIf(!hasCorpus).each(['0', '1'])('container unpack: out/_chunks -> victim (the unnamed chunks\' folder), --threads %s', async (threads) => {
    const dir = tempDir();
    const { out, victim } = trap(dir, '_chunks');
    const r = await cli('unpack', corpusPath(UTOC), out, '--threads', threads);
    nothingThrough(r, victim, out, '_chunks');
    // The named chunks went to their own folders.
    expect(listFiles(out).some((f) => f.endsWith('.uasset'))).toBe(true);
  });

  it.skipIf(!hasCorpus)('to-legacy: out/CUE4ParseFixtures -> victim', async () => {
    const dir = tempDir();
    const { out, victim } = trap(dir, 'CUE4ParseFixtures');
    const r = await cli('to-legacy', corpusPath(UTOC), out, '--filter', '**/Textures/**');
    nothingThrough(r, victim, out, 'CUE4ParseFixtures');
  });

  it('the output folder itself may be a link: the user named it', async () => {
    const dir = tempDir();
    const real = join(dir, 'real');
    mkdirSync(real);
    symlinkSync(real, join(dir, 'out'), 'dir');
    writeFileSync(join(dir, 'x.pak'), pakWithNames([{ path: 'Game/a.txt', data: 'a' }], {}, { mountPoint: '../../../' }));
    const r = await cli('unpack', join(dir, 'x.pak'), join(dir, 'out'));
    expect(r.code, r.err).toBe(0);
    expect(listFiles(real)).toEqual(['Game/a.txt', 'iostore-manifest.json']);
  });
});
