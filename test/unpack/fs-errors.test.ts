import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCompanionPak } from '../../src/pak/index.js';
import { cli } from '../cli-helper.js';
import { mountTmpfs } from '../hostile.js';
import { tempDir } from '../tmp.js';

const bytes = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 31 + seed) & 0xff);

describe('file-system errors in plain words, with the user\'s path (issue #24 item 13)', () => {
  it('a full disk: a line per failed file up to a limit, then a count; the manifest\'s failure among them', async (ctx) => {
    const mnt = join(tempDir(), 'full');
    mkdirSync(mnt);
    const m = mountTmpfs(mnt, { size: 64 << 10 });
    if (!m) return ctx.skip();
    try {
      const pak = join(tempDir(), 'many.pak');
      writeFileSync(pak, writeCompanionPak({ version: 11, files: Array.from({ length: 60 }, (_, k) => ({ path: `Game/f${String(k).padStart(2, '0')}.bin`, data: bytes(8192, k) })) }));
      const r = await cli('unpack', pak, join(mnt, 'out'));
      expect(r.code).toBe(1);
      const errors = r.err.split('\n').filter((l) => l.startsWith('error: '));
      // 20 lines, then the count of the others (at most 8 files of 8 KiB fit in 64 KiB).
      expect(errors).toHaveLength(21);
      for (const e of errors.slice(0, 20)) expect(e).toMatch(new RegExp(`^error: ${mnt}/out/Game/f\\d\\d\\.bin: no space left on the device \\(Game/f\\d\\d\\.bin\\)$`));
      expect(errors[20]).toMatch(/^error: \.\.\. and \d+ more \(--json lists them all\)$/);
      expect(r.err).not.toMatch(/iostore-tmp|ENOSPC/);
      const json = JSON.parse((await cli('unpack', pak, join(mnt, 'out2'), '--json')).out) as { failures: Array<{ path?: string; message: string }> };
      expect(json.failures.length).toBeGreaterThan(50);
      expect(json.failures.some((f) => f.path === 'iostore-manifest.json')).toBe(true);
    } finally {
      m.unmount();
    }
  });

  it('a name longer than the file system takes: its path shortened in the middle, no staged folder named', async () => {
    const dir = tempDir();
    // The case: 5,000 characters, which printed whole, with the staged folder's name.
    const long = `${'N'.repeat(5000)}.txt`;
    const pak = join(dir, 'long.pak');
    writeFileSync(pak, writeCompanionPak({ version: 11, files: [{ path: `Game/${long}`, data: bytes(10, 1) }, { path: 'Game/ok.txt', data: bytes(10, 2) }] }));
    const out = join(dir, 'out');
    const r = await cli('unpack', pak, out);
    expect(r.code).toBe(1);
    const errors = r.err.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('the name is too long for the file system');
    expect(errors[0]).toContain(`${out}/Game/NNN`);
    expect(errors[0]).toContain('…');
    expect(errors[0]).not.toMatch(/iostore-tmp|ENAMETOOLONG/);
    expect(errors[0]!.length).toBeLessThan(400);
    expect(readdirSync(join(out, 'Game'))).toEqual(['ok.txt']);
  });
});
