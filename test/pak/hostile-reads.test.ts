import { existsSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultCodecs } from '../../src/codecs/registry.js';
import { IoStoreError } from '../../src/errors.js';
import { openPakFile, writePakBytes } from '../../src/pak/index.js';
import { cli } from '../cli-helper.js';
import { pakDeclaringBlock } from '../hostile.js';
import { tempDir } from '../tmp.js';

describe('a pak that shrinks while it is read (issue #24 item 2)', () => {
  // A 0-byte read left the count of bytes to read unchanged while the offset moved on: an endless loop.
  it.each([['stored', 'None'], ['Zlib', 'Zlib']])('%s entries: the read fails in one line, at once', async (_, compression) => {
    const dir = tempDir();
    const file = join(dir, 'x.pak');
    const data = new Uint8Array(3 << 20);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) & 0xff; // (TypedArray map's callback: ~0.3-0.9 s over 3 MiB)
    writeFileSync(file, await writePakBytes([{ path: 'a.bin', data }, { path: 'b.bin', data }], { version: 11, compression, blockSize: 65536 }));
    const archive = await openPakFile(file);
    try {
      // Cut after the index was read, inside the first entry's data, as when another program rewrites the file.
      const a = archive.pak.entries[0]!;
      truncateSync(file, a.offset + 200 + Math.floor(a.size / 2));
      for (const e of archive.pak.entries) {
        const t0 = performance.now();
        let thrown: unknown;
        try {
          for await (const piece of archive.read(e, defaultCodecs())) void piece;
        } catch (err) {
          thrown = err;
        }
        expect(performance.now() - t0).toBeLessThan(2000);
        expect(thrown).toBeInstanceOf(IoStoreError);
        const err = thrown as IoStoreError;
        expect(err.code).toBe('TRUNCATED');
        // The first entry's data ends early; the second's in-place header is gone.
        expect(err.message).toMatch(e.path === 'a.bin' ? /x\.pak at offset 0x[0-9a-f]+: "a\.bin": read \d+ of \d+ bytes at \d+: the file ends early/ : /x\.pak at offset 0x[0-9a-f]+: entry offset needs 8 bytes/);
        expect(err.message).not.toContain('\n');
        const check = await archive.checkEntry(e);
        expect(check.ok).toBe(false);
        expect(check.error?.code).toBe('TRUNCATED');
      }
    } finally {
      await archive.close();
    }
  });
});

describe('a compression block that declares far more than it holds (issue #24 item 4)', () => {
  it('unpack refuses a 1 GiB Zlib block of a tiny pak in one line, without allocating it', async () => {
    const dir = tempDir();
    const file = join(dir, 'bomb.pak');
    writeFileSync(file, await pakDeclaringBlock('Game/bomb.bin', 1 << 30));
    const before = process.memoryUsage().rss;
    const r = await cli('unpack', file, join(dir, 'out'));
    expect(process.memoryUsage().rss - before).toBeLessThan(200 << 20);
    expect(r.code).toBe(1);
    const lines = r.err.trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('bomb.bin'))).toEqual([
      expect.stringMatching(/bomb\.pak at offset 0x0: "Game\/bomb\.bin": a compression block declares 1073741824 bytes, more than the 64 MiB a block may decode to/),
    ]);
    expect(existsSync(join(dir, 'out', 'Game', 'bomb.bin'))).toBe(false);
  });

  it('to-zen refuses the same block as a package of a legacy pak, in one line (was: 2.1 GB, then an error)', async () => {
    const dir = tempDir();
    const file = join(dir, 'bomb.pak');
    writeFileSync(file, await pakDeclaringBlock('Game/Content/Bomb.uasset', 1 << 30, { mountPoint: '../../../' }));
    const before = process.memoryUsage().rss;
    const r = await cli('to-zen', file, join(dir, 'out', 'Bomb.utoc'), '--version', 'UE5_4');
    expect(process.memoryUsage().rss - before).toBeLessThan(200 << 20);
    expect(r.code).toBe(2);
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/bomb\.pak at offset 0x0: "Game\/Content\/Bomb\.uasset": a compression block declares 1073741824 bytes/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('a block count that cannot give the declared size is refused before any block is decoded', async () => {
    const dir = tempDir();
    const file = join(dir, 'short.pak');
    // One 64 KiB block for a 1 GiB file: its block size says 64 KiB, its size 1 GiB.
    const bytes = await pakDeclaringBlock('a.bin', 1 << 30);
    writeFileSync(file, bytes);
    const archive = await openPakFile(file);
    try {
      const e = { ...archive.pak.entries[0]!, compressionBlockSize: 65536 };
      await expect(archive.readAll(e, defaultCodecs())).rejects.toThrow(/"a\.bin": 1 compression block\(s\) of 65536 bytes cannot give its 1073741824 bytes/);
    } finally {
      await archive.close();
    }
  });
});
