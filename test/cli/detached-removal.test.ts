import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeDetached, removeHandedOver } from '../../src/cli/detached-removal.js';
import { tempDir, temporariesLeft } from '../tmp.js';

/** A staged folder of this process (`.out.<pid>-0-0.iostore-tmp`) in a fresh folder, with `files` files in folders of 100. */
function stagedTree(files: number): { dir: string; staged: string } {
  const dir = tempDir();
  const staged = join(dir, `.out.${process.pid}-0-0.iostore-tmp`);
  for (let k = 0; k < files; k++) {
    const sub = join(staged, 'Game', `D${Math.floor(k / 100)}`);
    if (k % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `F${k}.bin`), 'x');
  }
  return { dir, staged };
}

describe('an interrupted command’s staged folder, removed by a detached process', () => {
  it('returns at once with the folder handed to the remover (renamed with its id), which removes it', async () => {
    const { dir, staged } = stagedTree(2000);
    removeDetached(staged);
    // The remover has yet to start Node: the folder is there, under the remover's id.
    const handed = readdirSync(dir);
    expect(handed).toHaveLength(1);
    expect(handed[0]).toMatch(/^\.out\.\d+-0-0\.iostore-tmp$/);
    expect(handed[0]).not.toBe(`.out.${process.pid}-0-0.iostore-tmp`);
    expect(await temporariesLeft(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('removes the folder itself when no process can be started', () => {
    const { dir, staged } = stagedTree(300);
    removeDetached(staged, [join(dir, 'no-such-program')]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the remover takes a folder not yet renamed, or one renamed to its id already', () => {
    const { dir, staged } = stagedTree(50);
    removeHandedOver(staged);
    expect(existsSync(staged)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
