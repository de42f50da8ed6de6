import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/layout/manifest.js';
import { cli } from '../cli-helper.js';
import { pakWithNames } from '../hostile.js';
import { listFiles, tempDir } from '../tmp.js';

describe('unpack keeps every file of a pak whose names collide in the output (issue #24 items 11 and 12)', () => {
  it('an entry named iostore-manifest.json, a folder of that name, and a path listed twice: all written, each reported', async () => {
    const dir = tempDir();
    const pak = join(dir, 'x.pak');
    writeFileSync(
      pak,
      pakWithNames(
        [
          { path: 'iostore-manifest.json', data: 'the entry, not the manifest' },
          { path: 'iostore-manifest.jsoX/inner.txt', data: 'inside' },
          { path: 'Game/dupA.txt', data: 'first' },
          { path: 'Game/dupB.txt', data: 'second' },
        ],
        { 'iostore-manifest.jsoX/inner.txt': 'iostore-manifest.json/inner.txt', 'Game/dupA.txt': 'Game/dupX.txt', 'Game/dupB.txt': 'Game/dupX.txt' },
        { mountPoint: '../../../' },
      ),
    );
    const out = join(dir, 'out');
    const r = await cli('unpack', pak, out);
    // Nothing failed and nothing was lost: four files and the manifest.
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/wrote 4 chunks/);
    expect(listFiles(out)).toEqual(['Game/dupX (2).txt', 'Game/dupX.txt', 'iostore-manifest (2).json', 'iostore-manifest (3).json/inner.txt', 'iostore-manifest.json']);
    expect(readFileSync(join(out, 'Game/dupX.txt'), 'utf8')).toBe('first');
    expect(readFileSync(join(out, 'Game/dupX (2).txt'), 'utf8')).toBe('second');
    expect(readFileSync(join(out, 'iostore-manifest (2).json'), 'utf8')).toBe('the entry, not the manifest');
    expect(r.err.split('\n').filter((l) => l.startsWith('warning: '))).toEqual([
      'warning: "iostore-manifest.json": the output\'s own "iostore-manifest.json" has that name: written as "iostore-manifest (2).json"',
      'warning: "iostore-manifest.json/inner.txt": "iostore-manifest.json" is both a file and a folder: written as "iostore-manifest (3).json/inner.txt"',
      'warning: "Game/dupX.txt": another entry has the same path: written as "Game/dupX (2).txt"',
    ]);
    // The manifest is the tool's, and records where each file went and its name in the pak.
    const m = JSON.parse(readFileSync(join(out, 'iostore-manifest.json'), 'utf8')) as Manifest;
    expect(m.tool).toBe('iostore-toolkit');
    expect(m.paks![0]!.files.map((f) => [f.path, f.pakPath])).toEqual([
      ['iostore-manifest (2).json', 'iostore-manifest.json'],
      ['iostore-manifest (3).json/inner.txt', 'iostore-manifest.json/inner.txt'],
      ['Game/dupX.txt', 'Game/dupX.txt'],
      ['Game/dupX (2).txt', 'Game/dupX.txt'],
    ]);
  });
});
