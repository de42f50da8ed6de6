import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, DecodePool, MANIFEST_NAME, readToc, unpack } from '../../src/index.js';
import { corpusPath } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const tmp = tempDir();

describe('DecodePool', () => {
  it('decodes on worker threads to the same bytes as the calling thread', async () => {
    const a = join(tmp, 'inline');
    const b = join(tmp, 'pooled');
    await unpack([corpusPath('ue6.0-cue4parse/zlib')], a, { threads: 0 });
    const r = await unpack([corpusPath('ue6.0-cue4parse/zlib')], b, { threads: 2 });
    expect(r.failures).toEqual([]);
    const files = listFiles(a).filter((f) => f !== MANIFEST_NAME);
    expect(listFiles(b).filter((f) => f !== MANIFEST_NAME)).toEqual(files);
    for (const f of files) expect(readFileSync(join(b, f)).equals(readFileSync(join(a, f)))).toBe(true);
  });

  it('a corrupt block decoded by a worker is reported with its block number', async () => {
    const dir = join(tmp, 'corrupt');
    mkdirSync(dir);
    const name = 'CUE4ParseFixtures-Minimal-Zlib-Windows';
    copyFileSync(corpusPath(`ue5.8-cue4parse/zlib/${name}.utoc`), join(dir, `${name}.utoc`));
    const toc = readToc(new Uint8Array(readFileSync(join(dir, `${name}.utoc`))));
    let b = 0;
    while (toc.blocks.method(b) === 0) b++;
    const ucas = readFileSync(corpusPath(`ue5.8-cue4parse/zlib/${name}.ucas`));
    ucas.fill(0x33, toc.blocks.offset(b), toc.blocks.offset(b) + 6);
    writeFileSync(join(dir, `${name}.ucas`), ucas);
    const pool = new DecodePool(2);
    const reader = await ContainerReader.open(join(dir, `${name}.utoc`), { pool });
    try {
      await expect(reader.readBlock(b)).rejects.toThrow(new RegExp(`block ${b} \\(Zlib\\) could not be decoded`));
      // Other blocks still decode through the same pool.
      let other = b + 1;
      while (reader.toc.blocks.method(other) === 0) other++;
      expect((await reader.readBlock(other)).length).toBe(reader.toc.blocks.uncompressedSize(other));
    } finally {
      await reader.close();
      await pool.close();
    }
  });
});
