import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderTableFit, shortenMiddle } from '../../src/cli/format.js';
import { run } from '../../src/cli/main.js';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

/** The CLI as on a terminal of `columns` characters (stdout a TTY). */
async function onTerminal(columns: number, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(args, { out: (t) => (out += t), err: (t) => (err += t), isTTY: true, columns });
  return { code, out, err };
}

describe('tables for a terminal', () => {
  it('shorten the path column in the middle, then drop the columns named, to fit the width', () => {
    expect(shortenMiddle('Game/Content/Very/Long/Folder/Hero.uasset', 20)).toBe('Game/Conte…ro.uasset');
    expect(shortenMiddle('short', 20)).toBe('short');
    const rows = [['0', 'Game/Content/Very/Long/Folder/Names/Of/Things/Hero.uasset', '12.0 KiB', 'a'.repeat(40)]];
    const fitted = renderTableFit(['#', 'path', 'size', 'hash'], rows, ['right', 'left', 'right', 'left'], { width: 80, shrink: 1, drop: [3] });
    for (const line of fitted.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(fitted).not.toContain('hash');
    expect(fitted).toContain('Game/Content/Very/Long/Folder/Names/Of/Things/Hero.uasset');
    const narrow = renderTableFit(['#', 'path', 'size', 'hash'], rows, ['right', 'left', 'right', 'left'], { width: 40, shrink: 1, drop: [3] });
    for (const line of narrow.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    expect(narrow).toContain("0  Game/Content/…s/Hero.uasset  12.0 KiB\n");
  });
});

describe.skipIf(!hasCorpus)('list and info on a terminal, and with --keys', () => {
  const utoc = corpusPath('ue5.8-cue4parse/oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.utoc');

  it('list fits the terminal: paths shortened in the middle, sizes for people; piped and --json stay whole and exact', async () => {
    const t = await onTerminal(100, 'list', utoc);
    expect(t.code).toBe(0);
    const lines = t.out.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(t.out).toContain('…');
    expect(t.out).toMatch(/\d+\.\d KiB/);
    expect(lines.at(-1)).toBe('112 of 112 chunks');
    const piped = await cli('list', utoc);
    expect(piped.out).toContain('CUE4ParseFixtures/Content/Fixtures/Maps/WorldPartition/_Generated_/1WD4NAK7SVY0JF8AXYPOSA7U8.umap');
    expect(piped.out).not.toContain('KiB');
    const json = JSON.parse((await onTerminal(100, 'list', utoc, '--json')).out);
    expect(json.chunks[0].size).toBeTypeOf('number');
    expect((await onTerminal(100, 'list', utoc, '--csv')).out).not.toContain('…');
    // Several containers and a pak, on a narrow terminal.
    const many = await onTerminal(80, 'list', corpusPath('ue5.8-cue4parse/patch'), corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-PatchBase.pak'));
    for (const line of many.out.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    const info = await onTerminal(70, 'info', corpusPath('ue5.8-cue4parse'));
    for (const line of info.out.trimEnd().split('\n').slice(0, -1)) expect(line.length, line).toBeLessThanOrEqual(70);
  });

  it('list and info take --keys (key GUID -> key) as unpack does', async () => {
    const keys = join(tempDir(), 'keys.json');
    writeFileSync(keys, JSON.stringify({ '00000000000000000000000000000000': `0x${CORPUS_AES_KEY_HEX}` }));
    const enc = corpusPath('ue5.8-cue4parse/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc');
    const without = await cli('list', enc, '--json');
    expect(JSON.parse(without.out).chunks.filter((c: { path: string }) => c.path !== '').length).toBe(0);
    const listed = JSON.parse((await cli('list', enc, '--keys', keys, '--json')).out);
    expect(listed.chunks.filter((c: { path: string }) => c.path !== '').length).toBe(111);
    const info = JSON.parse((await cli('info', enc, '--keys', keys, '--json')).out);
    expect(info.mountPoint).toBe('../../../CUE4ParseFixtures/Content/Fixtures/');
    const pak = await cli('list', corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-OodleEncrypted.pak'), '--keys', keys);
    expect(pak.code, pak.err).toBe(0);
    expect(pak.out).toContain('DataTables/DT_AllProperties.uasset');
  });
});
