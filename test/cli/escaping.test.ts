import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { pakWithNames } from '../hostile.js';
import { tempDir } from '../tmp.js';

// C0 controls, DEL and the C1 range (0x9b is a one-byte CSI: `\x9b31m` turns some terminals red, as ESC [ does).
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** A pak whose names and mount point hold ESC, BEL, NUL and CSI. */
function hostilePak(dir: string): string {
  const file = join(dir, 'esc.pak');
  writeFileSync(
    file,
    pakWithNames(
      [{ path: 'Game/aXb.txt', data: 'x' }, { path: 'Game/cXd.txt', data: 'y' }, { path: 'Game/eXf.txt', data: 'z' }],
      { 'Game/aXb.txt': 'Game/a\x1bb.txt', 'Game/cXd.txt': 'Game/c\x07d.txt', 'Game/eXf.txt': 'Game/e\x00f.txt' },
      { mountPoint: '../../../M\x9b31m/' },
    ),
  );
  return file;
}

describe('names from files are printed escaped, never as raw control bytes (issue #24 item 7)', () => {
  it('list (table and CSV), info and verify of a pak with ESC, BEL, NUL and CSI in its names and mount point', async () => {
    const dir = tempDir();
    const pak = hostilePak(dir);
    for (const args of [['list', pak], ['list', pak, '--csv'], ['info', pak], ['verify', pak], ['list', dir], ['unpack', pak, join(dir, 'out')]]) {
      const r = await cli(...args);
      expect(r.out + r.err, args.join(' ')).not.toMatch(RAW);
      if (args[0] === 'list') expect(r.out).toContain('Game/a\\u001bb.txt');
    }
    const table = await cli('list', pak);
    expect(table.out).toContain('Game/c\\u0007d.txt');
    expect(table.out).toContain('Game/e\\u0000f.txt');
    expect(table.out).toContain('mount point ../../../M\\u009b31m/');
    expect((await cli('info', pak)).out).toMatch(/Mount point: +\.\.\/\.\.\/\.\.\/M\\u009b31m\//);
    // JSON carries the exact names (JSON escapes them itself).
    const json = JSON.parse((await cli('list', pak, '--json')).out) as { files: Array<{ path: string }>; mountPoint: string };
    expect(json.files.map((f) => f.path).sort()).toEqual(['Game/a\x1bb.txt', 'Game/c\x07d.txt', 'Game/e\x00f.txt']);
    expect(json.mountPoint).toBe('../../../M\x9b31m/');
  });

  it.skipIf(!hasCorpus)('list and to-legacy warnings of a container whose directory index names a package with a CSI byte', async () => {
    const dir = tempDir();
    const name = 'CUE4ParseFixtures-Minimal-Uncompressed-Windows';
    const src = `ue5.8-cue4parse/uncompressed/${name}`;
    const toc = Buffer.from(readFileSync(corpusPath(`${src}.utoc`)));
    // The directory index stores names as ANSI strings: one byte of a package's name becomes 0x9b.
    const at = toc.indexOf(Buffer.from('DT_AllProperties.uasset\0', 'latin1'));
    expect(at).toBeGreaterThan(0);
    toc[at + 2] = 0x9b;
    writeFileSync(join(dir, `${name}.utoc`), toc);
    copyFileSync(corpusPath(`${src}.ucas`), join(dir, `${name}.ucas`));
    const list = await cli('list', join(dir, `${name}.utoc`));
    expect(list.code).toBe(0);
    expect(list.out).not.toMatch(RAW);
    expect(list.out).toContain('DT\\u009bAllProperties.uasset');
    const legacy = await cli('to-legacy', join(dir, `${name}.utoc`), join(dir, 'legacy'));
    // Without the global container script imports stay unnamed: a warning per package, naming it.
    expect(legacy.err).toContain('DT\\u009bAllProperties.uasset');
    expect(legacy.out + legacy.err).not.toMatch(RAW);
  });
});
