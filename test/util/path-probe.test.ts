import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probePath } from '../../src/util/path-probe.js';
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
