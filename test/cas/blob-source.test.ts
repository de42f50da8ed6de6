import { openAsBlob } from 'node:fs';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blobSource, ContainerReader, partitionPaths, readToc } from '../../src/index.js';
import { corpusPath, hasCorpus } from '../corpus.js';

describe.skipIf(!hasCorpus)('blobSource (how the browser page reads .ucas files)', () => {
  it('reads a partitioned Oodle container chunk for chunk as fileSource does', async () => {
    const utoc = corpusPath('ue5.8-cue4parse', 'oodlepartitioned', 'CUE4ParseFixtures-Minimal-OodlePartitioned-Windows.utoc');
    const toc = readToc(new Uint8Array(readFileSync(utoc)), { source: utoc });
    expect(toc.partitionCount).toBe(5);
    const blobs = await Promise.all(partitionPaths(utoc, toc.partitionCount).map(async (p) => blobSource(await openAsBlob(p), p)));
    const viaBlob = new ContainerReader(toc, blobs);
    const viaFile = await ContainerReader.open(utoc);
    let bytes = 0;
    for (let i = 0; i < toc.chunkCount; i++) {
      const a = await viaBlob.readChunk(i);
      bytes += a.length;
      expect(Buffer.from(a).equals(await viaFile.readChunk(i)), `chunk ${i}`).toBe(true);
    }
    expect(bytes).toBe(toc.totals().rawSize);
    await viaFile.close();
  });

  it('names the file and offset when a read runs past the end', async () => {
    const src = blobSource(new Blob([new Uint8Array(10)]), 'x.ucas');
    await expect(src.read(8, 4)).rejects.toThrow(/x\.ucas.*8|TRUNCATED/);
    expect(await src.read(2, 3)).toEqual(new Uint8Array(3));
  });
});
