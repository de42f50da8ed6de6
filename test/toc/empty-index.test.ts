import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BlockTable, ContainerFlags, buildDirectoryIndex, packFolder, readToc, unpack, serializeDirectoryIndex, serializeToc, type DirectoryIndex } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

// A UE 5.1 patch container (TOC v5), the engine release whose 0-entry patch TOCs carry mount point "/".
const V5 = 'ue5.1-patchtest/jh-patchtest-chunk1001-p/pakchunk1001-Windows_0_P.utoc';
const tmp = tempDir('iostore-empty-');

/** A TOC with no chunks whose directory index is `index`, written by the project's TOC writer. */
function emptyToc(index: DirectoryIndex): Uint8Array {
  const base = readToc(new Uint8Array(readFileSync(corpusPath(V5))));
  return serializeToc({
    ...base,
    header: { ...base.header, containerFlags: base.header.containerFlags | ContainerFlags.Indexed },
    chunkIds: new Uint8Array(0),
    chunkOffsets: [],
    chunkLengths: [],
    perfectHashSeeds: new Int32Array(0),
    chunksWithoutPerfectHash: new Int32Array(0),
    blocks: new BlockTable(new Uint8Array(0)),
    encryptionIvs: new Uint8Array(0),
    compressionMethods: ['None'],
    signatures: null,
    directoryIndexBytes: serializeDirectoryIndex(index),
    metaHashes: new Uint8Array(0),
    metaFlags: new Uint8Array(0),
    onDemandHashes: null,
    sourceHashes: null,
  });
}

describe.skipIf(!hasCorpus)('a 0-entry TOC whose directory index mount point is "/" (as UE 5.1 writes a patch with no files)', () => {
  for (const mount of ['/', '']) {
    it(`mount point ${JSON.stringify(mount)}: list shows 0 chunks, info prints`, async () => {
      const bytes = emptyToc(buildDirectoryIndex(mount, []));
      const toc = readToc(bytes, { source: 'empty.utoc' });
      expect(toc.chunkCount).toBe(0);
      expect(toc.version).toBe(5);
      expect(toc.mountPoint).toBe(mount);
      expect(toc.files()).toEqual([]);
      const p = join(tmp, `empty${mount === '' ? '-blank' : ''}.utoc`);
      writeFileSync(p, bytes);

      const list = await cli('list', p, '--json');
      expect(list.err).toBe('');
      expect(list.code).toBe(0);
      const j = JSON.parse(list.out);
      expect(j.count).toBe(0);
      expect(j.chunks).toEqual([]);
      expect(j.mountPoint).toBe(mount);

      const table = await cli('list', p);
      expect(table.code).toBe(0);

      const info = await cli('info', p);
      expect(info.code).toBe(0);
      expect(info.err).toBe('');
      expect(info.out).toMatch(/Chunks:\s+0\n/);
      expect(info.out).toMatch(new RegExp(`Mount point:\\s+${mount === '' ? '\\(empty\\)' : '/'}`));
      const infoJson = JSON.parse((await cli('info', p, '--json')).out);
      expect(infoJson.chunkCount).toBe(0);
    });
  }

  it('unpack -> pack keeps the index (mount point "/", no entries)', async () => {
    const p = join(tmp, 'patch_P.utoc');
    writeFileSync(p, emptyToc(buildDirectoryIndex('/', [])));
    writeFileSync(p.replace(/\.utoc$/, '.ucas'), new Uint8Array(0));
    const u = await unpack([p], join(tmp, 'unpacked'));
    expect(u.failures).toEqual([]);
    expect(u.chunksWritten).toBe(0);
    const r = await packFolder(join(tmp, 'unpacked'), join(tmp, 'repacked', 'patch_P.utoc'), { noPak: true });
    expect(r.chunks).toBe(0);
    const re = readToc(new Uint8Array(readFileSync(r.utoc)));
    expect(re.chunkCount).toBe(0);
    expect(re.header.containerFlags & ContainerFlags.Indexed).toBe(ContainerFlags.Indexed);
    expect(re.mountPoint).toBe('/');
    expect(re.directoryIndexBytes).toEqual(readToc(new Uint8Array(readFileSync(p))).directoryIndexBytes);
  });

  it('an absolute, drive-letter or climbing mount point is still refused as soon as the index names a file', async () => {
    const base = readToc(new Uint8Array(readFileSync(corpusPath(V5))));
    for (const mount of ['/', '/etc/', 'C:/Windows/', '../../../Game/../../../']) {
      const withFile = buildDirectoryIndex(mount, [{ path: 'Game/x.uasset', tocIndex: 0 }]);
      const bytes = serializeToc({ ...base, directoryIndexBytes: serializeDirectoryIndex(withFile) });
      expect(() => readToc(bytes, { source: 'x.utoc' })).toThrow(/mount point .* is not a relative engine path/);
      const p = join(tmp, 'unsafe.utoc');
      writeFileSync(p, bytes);
      const r = await cli('list', p);
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain('mount point');
    }
  });
});
