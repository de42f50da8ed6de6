import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { pakWithNames } from '../hostile.js';
import { listFiles, tempDir } from '../tmp.js';

/** The id of a process that has ended (what a run killed with SIGKILL leaves in its temporary names). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

const pak = (dir: string) => {
  const file = join(dir, 'x.pak');
  writeFileSync(file, pakWithNames([{ path: 'Game/a.txt', data: 'a' }], {}, { mountPoint: '../../../' }));
  return file;
};

describe('what a killed run left is found and removed by the next run into the same place (issue #24 item 9)', () => {
  it('a staged output folder of a killed unpack, beside the output', async () => {
    const dir = tempDir();
    const pid = deadPid();
    const staged = join(dir, `.out.${pid}-0-0.iostore-tmp`);
    mkdirSync(join(staged, 'Game'), { recursive: true });
    writeFileSync(join(staged, 'Game', 'big.bin'), new Uint8Array(300_000));
    // Another output's staged folder of a live run (this process) is not touched.
    const other = join(dir, `.other.${process.pid}-0-99.iostore-tmp`);
    mkdirSync(other);
    const r = await cli('unpack', pak(dir), join(dir, 'out'));
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/warning: removed what an interrupted run left \(\d+ item\(s\), 29\d\.\d KiB\): .*\.out\.\d+-0-0\.iostore-tmp/);
    expect(readdirSync(dir).sort()).toEqual([`.other.${process.pid}-0-99.iostore-tmp`, 'out', 'x.pak']);
    expect(listFiles(join(dir, 'out'))).toEqual(['Game/a.txt', 'iostore-manifest.json']);
  });

  it('temporary files of a killed run that wrote into an existing folder, found through its marker', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    const pid = deadPid();
    mkdirSync(join(out, 'Game', 'Deep'), { recursive: true });
    writeFileSync(join(out, 'mine.txt'), 'kept');
    writeFileSync(join(out, `.iostore-run.${pid}-0-0.iostore-tmp`), '');
    writeFileSync(join(out, 'Game', 'Deep', `.${pid}-1-7.iostore-tmp`), new Uint8Array(1000));
    writeFileSync(join(out, 'Game', `.${pid}-0-3.iostore-tmp`), new Uint8Array(1000));
    // A live run's temporary file is left.
    writeFileSync(join(out, 'Game', `.${process.pid}-0-500.iostore-tmp`), 'live');
    const r = await cli('unpack', pak(dir), out);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/warning: removed what an interrupted run left \(3 item\(s\)/);
    expect(listFiles(out)).toEqual([`Game/.${process.pid}-0-500.iostore-tmp`, 'Game/a.txt', 'iostore-manifest.json', 'mine.txt']);
  });

  it('the temporary .ucas and .utoc of a killed pack, beside its outputs', async () => {
    const dir = tempDir();
    const r0 = await cli('unpack', pak(dir), join(dir, 'src'));
    expect(r0.code).toBe(0);
    const pid = deadPid();
    const outDir = join(dir, 'packed');
    mkdirSync(outDir);
    writeFileSync(join(outDir, `.Mod.ucas.${pid}-0-0.iostore-tmp`), new Uint8Array(5000));
    writeFileSync(join(outDir, `.Mod.utoc.${pid}-0-1.iostore-tmp`), new Uint8Array(10));
    const r = await cli('pack', join(dir, 'src'), join(outDir, 'Again.pak'));
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/warning: removed what an interrupted run left \(2 item\(s\)/);
    expect(readdirSync(outDir)).toEqual(['Again.pak']);
    expect(existsSync(join(outDir, `.Mod.ucas.${pid}-0-0.iostore-tmp`))).toBe(false);
  });
});
