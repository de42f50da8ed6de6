import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { checkDistinctIds, classifyModFiles, listModFolder, ModChunk, type ModFile } from '../../src/pack/mod-folder.js';
import { chunkTypeFromName } from '../../src/toc/chunk-id.js';
import { freshPaths, tempDir } from '../tmp.js';

const tmp = tempDir();
const fresh = freshPaths(tmp);

describe('listModFolder', () => {
  it('lists files in the order of their full paths, though it sorts each folder on its own', async () => {
    const folder = fresh('order');
    // Names that sort differently as names and as the paths below them: `.` and `-` sort before `/`, `0` after it;
    // upper case before lower; a folder whose name is a prefix of a file's and the other way round.
    const paths = [
      'a', 'a.b', 'a-b', 'a0', 'ab', 'A', 'B/x', 'a/x', 'a/x.y', 'a/x/y', 'a.b.c/z', 'a.b/z', 'a-/q', 'a0/q', 'é/x', 'z b/c', 'a/X', 'a/x-/1', 'a/x0',
    ];
    for (const p of paths) {
      mkdirSync(join(folder, p, '..'), { recursive: true });
    }
    for (const p of paths) {
      try {
        writeFileSync(join(folder, p), p);
      } catch {
        // a name that is a folder too (a/x): its files are below it
      }
    }
    const listed = (await listModFolder(folder)).map((f) => f.path);
    const expected = [...listed].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    expect(listed).toEqual(expected);
    expect(listed.length).toBe(15);
    // The file names still name the files.
    const files = await listModFolder(folder);
    expect(files.every((f) => f.file === join(folder, f.path))).toBe(true);
  });
});

describe('checkDistinctIds', () => {
  const file = (path: string): ModFile => ({ path, file: path, size: 0, onDisk: false, read: async () => new Uint8Array(0) });
  const chunk = (path: string, type: string, id: bigint) => new ModChunk(file(path), path, type, chunkTypeFromName(type, 'UE5'), id, '/Game/X');

  it('refuses two files of one chunk id, and takes ids that only share their value or fold to one key', () => {
    // A package and its bulk data share the id's value (different types): distinct.
    expect(() => checkDistinctIds([chunk('a.uasset', 'ExportBundleData', 5n), chunk('a.ubulk', 'BulkData', 5n)])).not.toThrow();
    // Values that differ just where the type is folded into the key (its top byte): distinct ids, the same key.
    const bulk = chunkTypeFromName('BulkData', 'UE5');
    const pkg = chunkTypeFromName('ExportBundleData', 'UE5');
    const folded = 0x1234n ^ (BigInt(bulk) << 56n) ^ (BigInt(pkg) << 56n);
    expect(() => checkDistinctIds([chunk('a.uasset', 'ExportBundleData', 0x1234n), chunk('b.ubulk', 'BulkData', folded)])).not.toThrow();
    // The same value and type: refused, naming both files.
    expect(() => checkDistinctIds([chunk('a.ubulk', 'BulkData', 7n), chunk('b.uasset', 'ExportBundleData', 9n), chunk('c.ubulk', 'BulkData', 7n)])).toThrow(/c\.ubulk.*a\.ubulk.*same chunk id/);
  });
});

describe('classifyModFiles', () => {
  const file = (path: string): ModFile => ({ path, file: path, size: 1, onDisk: false, read: async () => new Uint8Array(1) });

  it("pairs .uexp files with their packages whatever the case, and lower-cases a bulk file's path once", () => {
    const bulk = Array.from({ length: 1000 }, (_, i) => file(`Game/Content/D/F${i}.ubulk`));
    const files = [file('Game/Content/P.UASSET'), file('Game/Content/p.uexp'), file('Game/Content/M.umap'), file('Game/Content/M.UEXP'), ...bulk];
    const lower = vi.spyOn(String.prototype, 'toLowerCase');
    let chunks: ModChunk[];
    try {
      chunks = classifyModFiles(files, '', 'UE5');
      // One per bulk file (its kind), where main's build made eight (the .uexp pairing's pass, and the chunk type's
      // name against each of the table's up to its own): a 30,000-file pack lower-cased ~200,000 strings for nothing.
      expect(lower.mock.calls.length).toBeLessThan(bulk.length + 100);
    } finally {
      lower.mockRestore();
    }
    expect(chunks.map((c) => c.type)).toEqual(['ExportBundleData', 'ExportBundleData', ...bulk.map(() => 'BulkData')]);
    expect(chunks[0]!.uexp?.path).toBe('Game/Content/p.uexp');
    expect(chunks[1]!.uexp?.path).toBe('Game/Content/M.UEXP');
    expect(() => classifyModFiles([file('Game/Content/Q.uexp')], '', 'UE5')).toThrow(/\.uexp without its \.uasset/);
  });
});
