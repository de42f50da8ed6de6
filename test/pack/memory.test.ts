import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHILD_PEAK_RSS_BYTES } from '../peak-rss.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir();
const root = resolve(__dirname, '../..');

describe('pack memory', () => {
  it('packing one 256 MiB chunk streams it: peak RSS stays well under 200 MB', () => {
    const dir = join(tmp, 'mod', 'Game', 'Content');
    mkdirSync(dir, { recursive: true });
    const fd = openSync(join(dir, 'Huge.ubulk'), 'w');
    // Stored uncompressed (and incompressible anyway), so holding the chunk's blocks would take 256 MiB. One MiB of
    // noise, each copy numbered in its first bytes so that no two are alike.
    let x = 12345;
    const block = new Uint8Array(1 << 20);
    for (let k = 0; k < block.length; k++) block[k] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
    for (let i = 0; i < 256; i++) {
      new DataView(block.buffer).setUint32(0, i);
      writeSync(fd, block);
    }
    closeSync(fd);
    const script = `
      import { packFolder } from ${JSON.stringify(join(root, 'dist/index.js'))};
      const r = await packFolder(${JSON.stringify(join(tmp, 'mod'))}, ${JSON.stringify(join(tmp, 'out', 'Huge-Windows.utoc'))}, { engine: 'UE5_8', compression: 'none' });
      console.log(JSON.stringify({ bytes: r.bytes, maxRss: ${CHILD_PEAK_RSS_BYTES} }));
    `;
    const res = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
    expect(res.bytes - (256 << 20)).toBeLessThan(256); // plus the small container header chunk
    expect(res.maxRss).toBeLessThan(200 * 1024 * 1024);
  });
});
