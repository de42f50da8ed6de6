import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeFString, readToc, serializeToc, unpack, MANIFEST_NAME, type IoStoreToc } from '../../src/index.js';
import { outputPathsDistinct } from '../../src/layout/distinct-paths.js';
import { OutputNames } from '../../src/layout/names.js';
import { chunkOutputPath } from '../../src/layout/unnamed.js';
import { concatBytes } from '../../src/toc/directory-index.js';
import { chunkIdsDistinct, chunkNamesDistinct } from '../../src/toc/toc-scan.js';
import { corpusFiles, corpusPath, hasCorpus } from '../corpus.js';
import { countCalls, CHUNK_PATH_CALLS } from '../count-calls.js';
import { listFiles, tempDir } from '../tmp.js';
import { symlinkSync, writeFileSync } from 'node:fs';

const PLAIN = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows';

/** What the claims of an unpack of the whole container rename (the definition outputPathsDistinct stands in for). */
function renamedByClaims(toc: IoStoreToc): string[] {
  const names = new OutputNames(false);
  const out: string[] = [];
  for (let i = 0; i < toc.chunkCount; i++) {
    const p = chunkOutputPath(toc, i);
    if (names.claim(p) !== p) out.push(p);
  }
  return out;
}

type Dir = { name: string; parent: number };
type File = { name: string; dir: number; chunk: number };

/** PLAIN's TOC with a directory index made of these folders (0: the root) and files, names stored as given. */
function tocWithIndex(mountPoint: string, dirs: Dir[], files: File[], rawNames: Uint8Array[] = []): IoStoreToc {
  const base = readToc(new Uint8Array(readFileSync(corpusPath(`${PLAIN}.utoc`))));
  const N = 0xffffffff;
  const strings: Uint8Array[] = [];
  const intern = (s: string) => strings.push(encodeFString(s)) - 1;
  // Per folder: name, first child, next sibling, first file; per file: name, next file, chunk.
  const d = [[N, N, N, N]];
  for (const x of dirs) d.push([intern(x.name), N, N, N]);
  dirs.forEach((x, k) => {
    d[k + 1]![2] = d[x.parent]![1]!;
    d[x.parent]![1] = k + 1;
  });
  const f: number[][] = [];
  files.forEach((x, k) => {
    f.push([x.name.startsWith('\0raw') ? strings.push(rawNames[Number(x.name.slice(4))]!) - 1 : intern(x.name), d[x.dir]![3]!, x.chunk]);
    d[x.dir]![3] = k;
  });
  const u32 = (v: number[]) => new Uint8Array(new Uint32Array(v).buffer);
  const index = concatBytes([encodeFString(mountPoint), u32([d.length]), u32(d.flat()), u32([f.length]), u32(f.flat()), u32([strings.length]), ...strings]);
  return readToc(serializeToc({ ...base, directoryIndexBytes: index }));
}

describe.skipIf(!hasCorpus)('outputPathsDistinct: no claim needed when a container paths cannot collide', () => {
  it('agrees with the claims on every corpus container it says yes for, and says yes for most', () => {
    let yes = 0;
    const files = corpusFiles('.utoc');
    for (const file of files) {
      let toc: IoStoreToc;
      try {
        toc = readToc(new Uint8Array(readFileSync(corpusPath(file))), { source: file });
        if (!toc.chunkPaths) continue;
      } catch {
        continue;
      }
      if (!outputPathsDistinct(toc, [MANIFEST_NAME])) continue;
      yes++;
      expect(renamedByClaims(toc), file).toEqual([]);
    }
    expect(yes).toBeGreaterThan(files.length / 2);
  });

  it('the named chunks and the unnamed ids are compared in WebAssembly, agreeing with the paths as text on every corpus container', () => {
    let checked = 0;
    for (const file of corpusFiles('.utoc')) {
      let toc: IoStoreToc;
      try {
        toc = readToc(new Uint8Array(readFileSync(corpusPath(file))), { source: file });
      } catch {
        continue;
      }
      const n = toc.chunkCount;
      const ids = new Set(Array.from({ length: n }, (_, i) => toc.chunkIdHex(i)));
      const paths = toc.chunkPaths;
      if (!paths) {
        expect(chunkIdsDistinct(toc.chunkIds, n, null), file).toBe(ids.size === n);
        continue;
      }
      const { folderOf, nameOf, nameStarts } = paths.tables;
      const named = new Set<string>();
      const unnamed = new Set<string>();
      let namedCount = 0;
      for (let i = 0; i < n; i++) {
        if (folderOf[i]! < 0) unnamed.add(toc.chunkIdHex(i));
        else (namedCount++, named.add(`${folderOf[i]}/${paths.name(i)}`));
      }
      const r = chunkNamesDistinct(folderOf, nameOf, nameStarts!, paths.storedNames!)!;
      expect(r.distinct, file).toBe(named.size === namedCount);
      if (r.distinct) expect(r.named, file).toBe(namedCount);
      expect(chunkIdsDistinct(toc.chunkIds, n, folderOf), file).toBe(unnamed.size === n - namedCount);
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
    // Two chunks of one id among the unnamed: not distinct.
    const ids = new Uint8Array(36);
    ids.set([1, 2, 3], 0);
    ids.set([1, 2, 3], 24);
    expect(chunkIdsDistinct(ids, 3, null)).toBe(false);
    expect(chunkIdsDistinct(ids, 3, new Int32Array([-1, -1, 0]))).toBe(true);
  });

  it('names that differ in one byte of a word or of the tail, or in length only: yes', () => {
    const names = ['F0001.ubulk', 'F0002.ubulk', 'F1001.ubulk', 'F0001.ubulj', 'G0001.ubulk', 'F0001.ubul', 'F0001.ubulkx', 'abcd', 'abce', 'abc', 'abcde'];
    const toc = tocWithIndex('../../../', [{ name: 'Game', parent: 0 }], names.map((name, chunk) => ({ name, dir: 1, chunk })));
    expect(outputPathsDistinct(toc, [MANIFEST_NAME])).toBe(true);
    expect(renamedByClaims(toc)).toEqual([]);
  });

  it('reads the path tables in place: no ChunkPaths call per chunk (this runs before the workers get work)', () => {
    const toc = readToc(new Uint8Array(readFileSync(corpusPath(`${PLAIN}.utoc`))));
    const counted = countCalls(toc.chunkPaths!, CHUNK_PATH_CALLS);
    expect(outputPathsDistinct(toc, [MANIFEST_NAME])).toBe(true);
    expect(counted.calls).toBe(0);
  });

  it('distinct names in folders: yes', () => {
    const toc = tocWithIndex('../../../', [{ name: 'Game', parent: 0 }, { name: 'A', parent: 1 }], [
      { name: 'x.uasset', dir: 1, chunk: 0 },
      { name: 'x.uasset', dir: 2, chunk: 1 },
      { name: 'A.uasset', dir: 1, chunk: 2 },
    ]);
    expect(outputPathsDistinct(toc, [MANIFEST_NAME])).toBe(true);
    expect(renamedByClaims(toc)).toEqual([]);
  });

  it('a file named as a folder of the mount point: no collision (every path lies below the mount point)', () => {
    const toc = tocWithIndex('../../../Game/', [{ name: 'Sub', parent: 0 }], [{ name: 'y', dir: 1, chunk: 1 }, { name: 'Game', dir: 0, chunk: 2 }]);
    expect(outputPathsDistinct(toc, [MANIFEST_NAME])).toBe(true);
    expect(renamedByClaims(toc)).toEqual([]);
  });

  /** PLAIN's TOC without its directory index (every chunk unnamed); `copyId`: chunk 1's id made chunk 0's. */
  function tocWithoutIndex(copyId = false): IoStoreToc {
    const base = readToc(new Uint8Array(readFileSync(corpusPath(`${PLAIN}.utoc`))));
    const chunkIds = base.chunkIds.slice();
    if (copyId) chunkIds.copyWithin(12, 0, 12);
    return readToc(serializeToc({ ...base, chunkIds, directoryIndexBytes: new Uint8Array(0) }));
  }

  it('no directory index (every chunk under _chunks/<Type>/<id>.bin): yes, as the claims find', () => {
    const toc = tocWithoutIndex();
    expect(toc.chunkPaths).toBeNull();
    expect(toc.chunkCount).toBeGreaterThan(10);
    expect(outputPathsDistinct(toc, [MANIFEST_NAME])).toBe(true);
    expect(renamedByClaims(toc)).toEqual([]);
  });

  it('no directory index, two chunks of one id: no (the claims rename one)', () => {
    const toc = tocWithoutIndex(true);
    expect(outputPathsDistinct(toc, [MANIFEST_NAME])).toBe(false);
    expect(renamedByClaims(toc)).toHaveLength(1);
  });

  it('no directory index, _chunks reserved: no', () => {
    expect(outputPathsDistinct(tocWithoutIndex(), ['_chunks'])).toBe(false);
  });

  const no: Array<[string, () => IoStoreToc]> = [
    ['the same name twice in a folder', () => tocWithIndex('../../../', [{ name: 'Game', parent: 0 }], [{ name: 'x', dir: 1, chunk: 0 }, { name: 'x', dir: 1, chunk: 1 }])],
    ['a file named as a sibling folder', () => tocWithIndex('../../../', [{ name: 'Game', parent: 0 }, { name: 'A', parent: 1 }], [{ name: 'A', dir: 1, chunk: 0 }, { name: 'y', dir: 2, chunk: 1 }])],
    ['a file named as a folder holding only folders', () => tocWithIndex('../../../', [{ name: 'Game', parent: 0 }, { name: 'A', parent: 1 }, { name: 'B', parent: 2 }], [{ name: 'y', dir: 3, chunk: 1 }, { name: 'A', dir: 1, chunk: 2 }])],
    // Names hashed a word at a time (nameHash from bytes, nameHashText from text must agree): whole words, a tail.
    ['a file named as a sibling folder, 8 characters', () => tocWithIndex('../../../', [{ name: 'Game', parent: 0 }, { name: 'Textures', parent: 1 }], [{ name: 'Textures', dir: 1, chunk: 0 }, { name: 'y', dir: 2, chunk: 1 }])],
    ['a file named as a sibling folder, 9 characters', () => tocWithIndex('../../../', [{ name: 'Game', parent: 0 }, { name: 'Materials', parent: 1 }], [{ name: 'Materials', dir: 1, chunk: 0 }, { name: 'y', dir: 2, chunk: 1 }])],
    ['the same 7-character name twice among others of its length', () => tocWithIndex('../../../', [{ name: 'Game', parent: 0 }], [{ name: 'F01.bin', dir: 1, chunk: 0 }, { name: 'F02.bin', dir: 1, chunk: 1 }, { name: 'F01.bin', dir: 1, chunk: 2 }])],
    ['two folders of the same name', () => tocWithIndex('../../../', [{ name: 'G', parent: 0 }, { name: 'G', parent: 0 }], [{ name: 'x', dir: 1, chunk: 0 }, { name: 'x', dir: 2, chunk: 1 }])],
    ['the manifest name at the root', () => tocWithIndex('../../../', [], [{ name: MANIFEST_NAME, dir: 0, chunk: 0 }])],
    ['a folder of the manifest name', () => tocWithIndex('../../../', [{ name: MANIFEST_NAME, parent: 0 }], [{ name: 'x', dir: 1, chunk: 0 }])],
    ['a named file below _chunks beside unnamed chunks', () => tocWithIndex('../../../', [{ name: '_chunks', parent: 0 }, { name: 'ExportBundleData', parent: 1 }], [{ name: 'x.bin', dir: 2, chunk: 0 }])],
    ['a file named _chunks beside unnamed chunks', () => tocWithIndex('../../../', [], [{ name: '_chunks', dir: 0, chunk: 0 }])],
    // Latin-1 "x" and UTF-16 "x": one path, two byte forms.
    ['a name stored as UTF-16', () => tocWithIndex('../../../', [{ name: 'Game', parent: 0 }], [{ name: 'x', dir: 1, chunk: 0 }, { name: '\0raw0', dir: 1, chunk: 1 }], [new Uint8Array([0xfe, 0xff, 0xff, 0xff, 0x78, 0, 0, 0])])],
  ];
  for (const [what, make] of no) {
    it(`${what}: no`, () => {
      const toc = make();
      expect(outputPathsDistinct(toc, [MANIFEST_NAME])).toBe(false);
    });
  }

  it('unpack of a container with a path twice still writes both, the second renamed', async () => {
    const dir = tempDir();
    const toc = tocWithIndex('../../../', [{ name: 'Game', parent: 0 }], [{ name: 'x.bin', dir: 1, chunk: 0 }, { name: 'x.bin', dir: 1, chunk: 1 }]);
    writeFileSync(join(dir, 'T.utoc'), serializeToc(toc));
    // The corpus .ucas read in place (a link, not a copy).
    symlinkSync(corpusPath(`${PLAIN}.ucas`), join(dir, 'T.ucas'));
    const r = await unpack([join(dir, 'T.utoc')], join(dir, 'out'), { threads: 0 });
    expect(r.failures).toEqual([]);
    expect(listFiles(join(dir, 'out')).filter((p) => p.startsWith('Game/'))).toEqual(['Game/x (2).bin', 'Game/x.bin']);
    expect(r.warnings.some((w) => w.includes('another entry has the same path'))).toBe(true);
  });
});
