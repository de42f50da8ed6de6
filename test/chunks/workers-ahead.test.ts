import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, unpack, verifyContainer } from '../../src/index.js';
import { aheadThreads, DECODE_MIN_BYTES, HASH_STORED_MIN_BYTES, WorkersAhead } from '../../src/chunks/loop-pool.js';
import { corpusPath } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const tmp = tempDir();
const ZLIB = corpusPath('ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc');
const root = resolve(__dirname, '../..');

describe('workers started ahead of the TOC (WorkersAhead)', () => {
  it('are adopted by unpack and verify, with the same results as workers started after the TOC', async () => {
    const plain = await unpack([ZLIB], join(tmp, 'plain'), { threads: 1 });
    const ahead = new WorkersAhead(1);
    const adopted = await unpack([ZLIB], join(tmp, 'ahead'), { threads: 1, workersAhead: ahead });
    await ahead.discard();
    expect(ahead.adopted).toBe(1);
    expect(ahead.size).toBe(0);
    expect(adopted.threads).toBe(1);
    expect(adopted.chunksWritten).toBe(plain.chunksWritten);
    expect(adopted.bytesWritten).toBe(plain.bytesWritten);
    expect(adopted.failures).toEqual([]);
    // The same files, byte for byte (the manifest too).
    const files = listFiles(join(tmp, 'plain'));
    expect(listFiles(join(tmp, 'ahead'))).toEqual(files);
    expect(files.length).toBe(plain.chunksWritten + 1);
    for (const f of files) expect(readFileSync(join(tmp, 'ahead', f)).equals(readFileSync(join(tmp, 'plain', f))), f).toBe(true);

    const r = await ContainerReader.open(ZLIB);
    try {
      const hashing = new WorkersAhead(2);
      const v = await verifyContainer(r, { threads: 2, workersAhead: hashing });
      await hashing.discard();
      expect(hashing.adopted).toBe(2);
      expect(v.ok).toBe(true);
      expect(v.verified).toBe(r.toc.chunkCount);
    } finally {
      await r.close();
    }
  });

  it('are terminated when the run wants none, and the process still ends at once', () => {
    // In a process of its own: an idle worker left running would show as a process that does not end (or as a count).
    const script = `
      import { ContainerReader, verifyContainer } from ${JSON.stringify(join(root, 'dist', 'index.js'))};
      import { WorkersAhead } from ${JSON.stringify(join(root, 'dist', 'chunks', 'loop-pool.js'))};
      const ahead = new WorkersAhead(1);
      const r = await ContainerReader.open(${JSON.stringify(ZLIB)});
      const v = await verifyContainer(r, { threads: 0, workersAhead: ahead });
      await r.close();
      const sizeAfterRun = ahead.size;
      await ahead.discard();
      console.log(JSON.stringify({ ok: v.ok, adopted: ahead.adopted, sizeAfterRun }));`;
    const t0 = Date.now();
    const p = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(p.stderr).toBe('');
    expect(JSON.parse(p.stdout)).toEqual({ ok: true, adopted: 0, sizeAfterRun: 0 });
    expect(p.status).toBe(0);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('are guessed from the files alone: none for a small job, none for --threads 0', () => {
    if (availableParallelism() < 2) return;
    expect(aheadThreads('hash', { utocBytes: 15e6, ucasBytes: HASH_STORED_MIN_BYTES })).toBe(1);
    expect(aheadThreads('hash', { utocBytes: 15e6, ucasBytes: HASH_STORED_MIN_BYTES - 1 })).toBe(0);
    expect(aheadThreads('write', { utocBytes: 325_414, ucasBytes: 1 << 20 })).toBe(1);
    expect(aheadThreads('write', { utocBytes: 20_000, ucasBytes: DECODE_MIN_BYTES })).toBe(1);
    expect(aheadThreads('write', { utocBytes: 20_000, ucasBytes: DECODE_MIN_BYTES - 1 })).toBe(0);
    expect(aheadThreads('write', { threads: 0, utocBytes: 15e6, ucasBytes: 2e9 })).toBe(0);
    expect(aheadThreads('hash', { threads: 3, utocBytes: 0, ucasBytes: 0 })).toBe(3);
  });
});
