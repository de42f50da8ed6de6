import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { withU32 } from '../hostile.js';
import { tempDir } from '../tmp.js';

const NAME = 'CUE4ParseFixtures-Minimal-Uncompressed-Windows';
const SRC = `ue5.8-cue4parse/uncompressed/${NAME}`;

/** The corpus container beside `dir` with one header field of its .utoc set to `value`. */
function crafted(dir: string, field: number, value: number): string {
  const utoc = join(dir, `${NAME}.utoc`);
  writeFileSync(utoc, withU32(new Uint8Array(readFileSync(corpusPath(`${SRC}.utoc`))), field, value));
  if (!existsSync(join(dir, `${NAME}.ucas`))) copyFileSync(corpusPath(`${SRC}.ucas`), join(dir, `${NAME}.ucas`));
  return utoc;
}

/** One command on the crafted container: a clean one-line error naming the field, well within 2 s. */
async function refuses(args: string[], mentions: RegExp): Promise<void> {
  const t0 = performance.now();
  const r = await cli(...args);
  const ms = performance.now() - t0;
  expect(r.code, r.err).toBe(2);
  expect(r.err.trimEnd().split('\n'), r.err).toHaveLength(1);
  expect(r.err).toMatch(mentions);
  expect(r.err).not.toMatch(/internal error/);
  expect(ms).toBeLessThan(2000);
}

describe.skipIf(!hasCorpus)('hostile .utoc header fields (issue #24 items 1 and 5)', () => {
  // The commands' modules are compiled by the test runner on first use: loaded first, the time measured is the run's.
  beforeAll(async () => {
    for (const c of ['unpack', 'verify', 'to-legacy', 'list', 'info']) await import(`../../src/cli/commands/${c}.ts`);
  });

  // PartitionCount made unpack, verify and to-legacy build a path per partition: 2^32 of them, forever.
  it.each([0xffffffff, 1 << 24, 136])('PartitionCount = %i is refused in one line by every command', async (count) => {
    const dir = tempDir();
    const utoc = crafted(dir, 0x34, count);
    const why = new RegExp(`partition count ${count} is more than the container's \\d+ compression block`);
    for (const cmd of [['unpack', utoc, join(dir, 'out')], ['verify', utoc], ['to-legacy', utoc, join(dir, 'legacy')], ['list', utoc], ['info', utoc]]) {
      await refuses(cmd, why);
    }
    expect(existsSync(join(dir, 'out'))).toBe(false);
    expect(existsSync(join(dir, 'legacy'))).toBe(false);
  });

  it('CompressionBlockSize = 0xFFFFFFFF is refused in one line (was: internal error: Invalid typed array length)', async () => {
    const dir = tempDir();
    const utoc = crafted(dir, 0x2c, 0xffffffff);
    for (const cmd of [['unpack', utoc, join(dir, 'out')], ['verify', utoc], ['info', utoc]]) {
      await refuses(cmd, /compression block size 4294967295 is larger than a block can hold \(16777216 bytes\)/);
    }
  });

  it('the real container still reads: its partition count and block size are within the limits', async () => {
    for (const rel of [`${SRC}.utoc`, 'ue6.0-cue4parse/oodlepartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows.utoc']) {
      const r = await cli('info', corpusPath(rel), '--json');
      expect(r.code, r.err).toBe(0);
    }
  });
});
