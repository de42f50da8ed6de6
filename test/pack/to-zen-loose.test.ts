import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

/**
 * Loose files (a modder's edited package is usually one): placed by the package's own name, by a `Content/` folder
 * at the top of the input, or by `--mount`; a `.uexp` without its closing tag; bad packages among good ones; and
 * releases before IoStore.
 */
const nanos = (p: string) => corpusPath('legacy-games/ue5.7-nanosworld/Content/NanosWorld/Core', p);
const edge = (p: string) => corpusPath('legacy-games/ue4.25-edge-cases', p);

function copy(files: string[], to: string): void {
  mkdirSync(to, { recursive: true });
  for (const f of files) copyFileSync(f, join(to, f.split('/').pop()!));
}

async function packages(args: string[]): Promise<{ code: number; packages: string[]; err: string; json: { warnings: string[]; failures: Array<{ path: string; message: string }> } }> {
  const r = await cli('to-zen', ...args, '--json');
  const json = r.code <= 1 && r.out ? JSON.parse(r.out) : { packages: [], warnings: [], failures: [] };
  return { code: r.code, packages: json.packages ?? [], err: r.err, json };
}

describe.skipIf(!hasCorpus)('to-zen of loose legacy packages', () => {
  it('a UE5 package below no Content folder goes where its own name says; so do the files of a folder', async () => {
    const tmp = tempDir();
    copy([nanos('SStructTest.uasset'), nanos('SStructTest.uexp')], join(tmp, 'edited'));
    const one = await packages([join(tmp, 'edited', 'SStructTest.uasset'), join(tmp, 'a', 'A_P.utoc'), '--version', 'UE5_7']);
    expect([one.code, one.packages]).toEqual([0, ['/Game/NanosWorld/Core/SStructTest']]);
    const folder = await packages([join(tmp, 'edited'), join(tmp, 'b', 'B_P.utoc'), '--version', 'UE5_7']);
    expect([folder.code, folder.packages]).toEqual([0, ['/Game/NanosWorld/Core/SStructTest']]);
    const listed = await cli('list', join(tmp, 'b', 'B_P.utoc'), '--json');
    expect(JSON.parse(listed.out).chunks.map((c: { path?: string }) => c.path).filter(Boolean)).toContain('Game/Content/NanosWorld/Core/SStructTest.uasset');
  });

  it('a folder whose top is Content/ stands for /Game/', async () => {
    const tmp = tempDir();
    copy([nanos('Chat/DT_ChatEntry.uasset'), nanos('Chat/DT_ChatEntry.uexp')], join(tmp, 'mod', 'Content', 'Somewhere', 'Else'));
    const r = await packages([join(tmp, 'mod'), join(tmp, 'out', 'M_P.utoc'), '--version', 'UE5_7', '--project', 'Nanos']);
    // The package names itself: its own name wins over where the folder put it.
    expect([r.code, r.packages]).toEqual([0, ['/Game/NanosWorld/Core/Chat/DT_ChatEntry']]);
    copy([edge('custom-struct-map/wtf.uasset'), edge('custom-struct-map/wtf.uexp')], join(tmp, 'ue4', 'Content', 'Maps'));
    const ue4 = await packages([join(tmp, 'ue4'), join(tmp, 'out4', 'M_P.utoc'), '--version', 'UE4_27']);
    expect([ue4.code, ue4.packages]).toEqual([0, ['/Game/Maps/wtf']]);
  });

  it('a UE4 package that names none and lies below no Content folder: the error says --mount, which places it', async () => {
    const tmp = tempDir();
    copy([edge('custom-struct-map/wtf.uasset'), edge('custom-struct-map/wtf.uexp')], join(tmp, 'loose', 'Sub'));
    const bad = await cli('to-zen', join(tmp, 'loose'), join(tmp, 'x', 'X_P.utoc'), '--version', 'UE4_27');
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toMatch(/wtf\.uasset at offset 0x0: the package names no package .* --mount \/Game\/Sub/);
    const folder = await packages([join(tmp, 'loose'), join(tmp, 'a', 'A_P.utoc'), '--version', 'UE4_27', '--mount', '/Game/Weapons']);
    expect([folder.code, folder.packages]).toEqual([0, ['/Game/Weapons/Sub/wtf']]);
    const file = await packages([join(tmp, 'loose', 'Sub', 'wtf.uasset'), join(tmp, 'b', 'B_P.utoc'), '--version', 'UE4_27', '--mount', '/Game/Weapons/']);
    expect([file.code, file.packages]).toEqual([0, ['/Game/Weapons/wtf']]);
    const notPath = await cli('to-zen', join(tmp, 'loose'), join(tmp, 'c', 'C_P.utoc'), '--version', 'UE4_27', '--mount', 'Weapons');
    expect([notPath.code, notPath.err]).toEqual([2, expect.stringMatching(/--mount "Weapons" is not a long package path/)]);
  });

  it('a .uexp without its closing tag converts with one warning naming it; a bad package is one error line, the others convert (exit 1)', async () => {
    const tmp = tempDir();
    const dir = join(tmp, 'mod', 'Game', 'Content');
    copy([nanos('SStructTest.uasset'), nanos('SStructTest.uexp'), nanos('A_EmptySound_Cue.uasset'), nanos('A_EmptySound.uexp')], dir);
    writeFileSync(join(dir, 'A_EmptySound_Cue.uexp'), readFileSync(nanos('A_EmptySound_Cue.uexp')).subarray(0, -4));
    writeFileSync(join(dir, 'A_EmptySound.uasset'), readFileSync(nanos('A_EmptySound.uasset')).subarray(0, 300));
    const r = await cli('to-zen', join(tmp, 'mod'), join(tmp, 'out', 'M_P.utoc'), '--version', 'UE5_7');
    expect(r.code).toBe(1);
    const lines = r.err.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('warning: '))).toEqual([expect.stringMatching(/^warning: .*A_EmptySound_Cue\.uexp: no closing package tag/)]);
    expect(lines.filter((l) => l.startsWith('error: '))).toEqual([expect.stringMatching(/^error: .*A_EmptySound\.uasset at offset 0x[0-9a-f]+: /)]);
    expect(r.out).toContain('container header lists 2 packages:\n  /Game/NanosWorld/Core/A_EmptySound_Cue\n  /Game/NanosWorld/Core/SStructTest\n');
    expect(lines[lines.length - 1]).toBe('1 failure; the other packages were converted');
    // --json: the shared shape, not ok, the failure listed.
    const j = await cli('to-zen', join(tmp, 'mod'), join(tmp, 'out-json', 'M_P.utoc'), '--version', 'UE5_7', '--json');
    expect(j.code).toBe(1);
    const summary = JSON.parse(j.out) as { ok: boolean; files: number; converted: number; failures: Array<{ path: string; message: string }> };
    expect([summary.ok, summary.files, summary.converted, summary.failures.length]).toEqual([false, 3, 2, 1]);
    expect(summary.failures[0]!.path).toMatch(/A_EmptySound\.uasset$/);
    // The package without its tag comes back with it (at its path in the container): its .uexp is the engine's.
    const back = await cli('to-legacy', join(tmp, 'out', 'M_P.utoc'), join(tmp, 'legacy'), '--version', 'UE5_7');
    expect(back.code).toBe(0);
    expect(Buffer.compare(readFileSync(join(tmp, 'legacy', 'Game', 'Content', 'A_EmptySound_Cue.uexp')), readFileSync(nanos('A_EmptySound_Cue.uexp')))).toBe(0);
  });

  it('a release before IoStore is refused in one line; its packages inspect', async () => {
    const r = await cli('to-zen', corpusPath('legacy-games/ue4.18-bloodstained/PB_DT_ItemMaster.uasset'), join(tempDir(), 'X_P.utoc'), '--version', 'UE4_18');
    expect([r.code, r.err]).toEqual([2, 'iostore: UE4_18 has no IoStore containers (they start with UE 4.26): its packages can be read (inspect --version UE4_18), not converted to zen\n']);
  });
});
