import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTreeSync } from '../../src/layout/remove-tree.js';

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
});
