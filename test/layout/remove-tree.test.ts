import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { handOverTree, removeTreeSync } from '../../src/layout/remove-tree.js';
import { removeLeftovers } from '../../src/layout/leftovers.js';

describe('removeTreeSync', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const scratch = () => {
    const d = mkdtempSync(join(tmpdir(), 'iostore-rmtree-'));
    dirs.push(d);
    return d;
  };

  it('removes a nested tree, removes links without following them, and takes a missing path', () => {
    const d = scratch();
    const outside = join(d, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.bin'), 'keep');
    const tree = join(d, 'tree');
    for (let a = 0; a < 3; a++) {
      mkdirSync(join(tree, `a${a}`, 'b', 'c'), { recursive: true });
      for (let f = 0; f < 5; f++) writeFileSync(join(tree, `a${a}`, 'b', `f${f}.bin`), 'x');
    }
    mkdirSync(join(tree, 'empty'));
    if (process.platform !== 'win32') {
      symlinkSync(outside, join(tree, 'a0', 'link-to-folder'));
      symlinkSync(join(outside, 'keep.bin'), join(tree, 'link-to-file'));
    }
    removeTreeSync(tree);
    expect(existsSync(tree)).toBe(false);
    expect(readdirSync(outside)).toEqual(['keep.bin']);
    removeTreeSync(tree);
    const file = join(d, 'plain.bin');
    writeFileSync(file, 'x');
    removeTreeSync(file);
    expect(readdirSync(d)).toEqual(['outside']);
  });

  it('hands a staged folder to another process: renamed with its id by whichever of the two comes first', () => {
    const d = scratch();
    const staged = join(d, `.out.${process.pid}-0-3.iostore-tmp`);
    mkdirSync(join(staged, 'Game'), { recursive: true });
    writeFileSync(join(staged, 'Game', 'a.bin'), 'x');
    // A process that has ended (a remover killed before it was done).
    const pid = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    const taken = join(d, `.out.${pid}-0-3.iostore-tmp`);
    expect(handOverTree(staged, pid)).toBe(taken);
    // The other party, after: the folder is already where it goes.
    expect(handOverTree(staged, pid)).toBe(taken);
    expect(readdirSync(d)).toEqual([`.out.${pid}-0-3.iostore-tmp`]);
    // Its process gone: a run starting now removes it as a killed run's leftover. (Under a live one's id, see
    // test/layout/leftovers.test.ts, it is left alone.)
    expect(removeLeftovers(d, (name) => name === 'out').map((l) => l.path)).toEqual([taken]);
    expect(readdirSync(d)).toEqual([]);
    // Gone meanwhile (removed by a run that started first): nothing to hand over.
    expect(handOverTree(staged, pid)).toBe(staged);
    removeTreeSync(staged);
  });
});
