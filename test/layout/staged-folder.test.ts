import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StagedFolder } from '../../src/layout/staged-folder.js';
import { listFiles, tempDir } from '../tmp.js';

const put = (root: string, rel: string, text: string) => {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
};

describe('StagedFolder', () => {
  it('a missing folder is written beside it under a temporary name, then renamed into place whole', () => {
    const parent = tempDir();
    const out = join(parent, 'a', 'out');
    const stage = StagedFolder.open(out);
    expect(stage.staged).toBe(true);
    expect(stage.root).not.toBe(out);
    expect(stage.root).toMatch(/\.out\.\d+-\d+-\d+\.iostore-tmp$/);
    put(stage.root, 'Game/x.uasset', 'x');
    expect(existsSync(out)).toBe(false);
    stage.commit();
    expect(listFiles(out)).toEqual(['Game/x.uasset']);
    expect(readdirSync(join(parent, 'a'))).toEqual(['out']);
  });

  it('an empty folder is staged and replaced; a folder with files is written in place', () => {
    const parent = tempDir();
    const empty = join(parent, 'empty');
    mkdirSync(empty);
    const stage = StagedFolder.open(empty);
    expect(stage.staged).toBe(true);
    put(stage.root, 'f.bin', '1');
    stage.commit();
    expect(listFiles(empty)).toEqual(['f.bin']);

    const again = StagedFolder.open(empty);
    expect(again.staged).toBe(false);
    expect(again.root).toBe(empty);
    again.commit();
    again.discard();
    expect(listFiles(empty)).toEqual(['f.bin']);
  });

  it('a folder made with files while staging gets the staged files merged in, same names replaced', () => {
    const parent = tempDir();
    const out = join(parent, 'out');
    const stage = StagedFolder.open(out);
    put(stage.root, 'Game/a.bin', 'new a');
    put(stage.root, 'Game/Deep/b.bin', 'new b');
    put(out, 'Game/a.bin', 'old a');
    put(out, 'other.txt', 'theirs');
    stage.commit();
    expect(listFiles(out)).toEqual(['Game/Deep/b.bin', 'Game/a.bin', 'other.txt']);
    expect(readFileSync(join(out, 'Game/a.bin'), 'utf8')).toBe('new a');
    expect(readdirSync(parent)).toEqual(['out']);
  });

  it('a link to an empty folder is written through, in place', () => {
    const parent = tempDir();
    const real = join(parent, 'real');
    mkdirSync(real);
    const link = join(parent, 'link');
    symlinkSync(real, link);
    const stage = StagedFolder.open(link);
    expect(stage.staged).toBe(false);
    expect(stage.root).toBe(link);
  });

  it('discard removes the staged folder and leaves no output', () => {
    const parent = tempDir();
    const out = join(parent, 'out');
    const stage = StagedFolder.open(out);
    put(stage.root, 'Game/a.bin', 'partial');
    stage.discard();
    stage.commit();
    expect(readdirSync(parent)).toEqual([]);
  });
});
