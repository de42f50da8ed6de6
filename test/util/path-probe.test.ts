import { closeSync, fstatSync, mkdirSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OpenedFile, probeOpen, probePath } from '../../src/util/path-probe.js';
import { singleFile, singleInput } from '../../src/cli/options.js';
import { isShortRun, SHORT_RUN_TOC_BYTES } from '../../src/cli/short-run.js';
import { tempDir } from '../tmp.js';

describe('probePath: a folder, and a file below a size, told without a stat', () => {
  it('tells a folder, a file on either side of the bound and a missing path', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'below'), new Uint8Array(999));
    writeFileSync(join(dir, 'at'), new Uint8Array(1000));
    writeFileSync(join(dir, 'empty'), new Uint8Array(0));
    expect(probePath(join(dir, 'folder'), 1000)).toEqual({ folder: true, below: false });
    expect(probePath(join(dir, 'below'), 1000)).toEqual({ folder: false, below: true });
    expect(probePath(join(dir, 'at'), 1000)).toEqual({ folder: false, below: false });
    expect(probePath(join(dir, 'empty'), 1)).toEqual({ folder: false, below: true });
    expect(probePath(join(dir, 'at'), 1)).toEqual({ folder: false, below: false });
    expect(probePath(join(dir, 'missing'), 1000)).toBeUndefined();
  });
});

describe('probeOpen: the probe leaves a file open for its reader', () => {
  it('hands the descriptor once, to the reader of the same path; close is then a no-op', () => {
    const dir = tempDir();
    const file = join(dir, 'file');
    writeFileSync(file, new Uint8Array([7, 8, 9]));
    mkdirSync(join(dir, 'folder'));
    const probe = probeOpen(file, 1 << 20)!;
    expect({ folder: probe.folder, below: probe.below }).toEqual({ folder: false, below: true });
    expect(probe.opened!.take(join(dir, 'other'))).toBeUndefined();
    const fd = probe.opened!.take(file)!;
    const head = new Uint8Array(3);
    expect(readSync(fd, head, 0, 3, 0)).toBe(3);
    expect([...head]).toEqual([7, 8, 9]);
    expect(probe.opened!.take(file)).toBeUndefined();
    probe.opened!.close();
    closeSync(fd);
    // A folder or a missing path leaves nothing open.
    expect(probeOpen(join(dir, 'folder'), 1 << 20)).toEqual({ folder: true, below: false });
    expect(probeOpen(join(dir, 'missing'), 1 << 20)).toBeUndefined();
  });

  it('closes a descriptor no reader took', () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, new Uint8Array(10));
    const probe = probeOpen(file, 5)!;
    expect(probe.below).toBe(false);
    const fd = probe.opened!.take(file)!;
    // Given back: a fresh OpenedFile on it, closed unread.
    new OpenedFile(file, fd).close();
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });
});

describe('singleInput: singleFile and isShortRun by one probe', () => {
  it('answers as the two did for corpus and demo files, a folder, several paths and a missing path', () => {
    const demo = join(__dirname, '..', '..', 'samples', 'demo');
    const files = [join(demo, 'DemoMod-Windows.utoc'), join(demo, 'DemoMod-Windows.pak'), join(demo, 'DemoMod-Windows.ucas'), join(demo, 'missing.utoc'), demo];
    for (const f of files) {
      const input = singleInput([f], SHORT_RUN_TOC_BYTES);
      expect(input?.file, f).toBe(singleFile([f]));
      if (input) expect(input.below, f).toBe(isShortRun(f));
      input?.opened?.close();
    }
    expect(singleInput(files.slice(0, 2), SHORT_RUN_TOC_BYTES)).toBeUndefined();
  });
});
