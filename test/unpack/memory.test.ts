import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHILD_PEAK_RSS_BYTES } from '../peak-rss.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir();
const root = resolve(__dirname, '../..');

describe('bounded memory', () => {
  it('unpacking a container far larger than the block cache keeps peak RSS well under 200 MB', async () => {
    // @ts-expect-error plain JS module
    const { writeSyntheticContainer } = await import('../../scripts/synth.mjs');
    // 192 chunks of 16 blocks: 192 MiB of output through a 16-block (1 MiB) cache.
    const { utoc, rawBytes } = await writeSyntheticContainer(tmp, 'Big-Windows', { chunks: 192, blocksPerChunk: 16, method: 'zlib' });
    const script = `
      import { unpack } from ${JSON.stringify(join(root, 'dist/index.js'))};
      const r = await unpack([${JSON.stringify(utoc)}], ${JSON.stringify(join(tmp, 'out'))}, { jobs: 4 });
      console.log(JSON.stringify({ written: r.chunksWritten, bytes: r.bytesWritten, failures: r.failures.length, maxRss: ${CHILD_PEAK_RSS_BYTES} }));
    `;
    const res = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
    expect(res).toMatchObject({ written: 192, bytes: rawBytes, failures: 0 });
    expect(rawBytes).toBe(192 * 16 * 65536);
    expect(res.maxRss).toBeLessThan(200 * 1024 * 1024);
  });
});
