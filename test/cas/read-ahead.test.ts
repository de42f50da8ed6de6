import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSourceSync } from '../../src/cas/source.js';
import { tempDir } from '../tmp.js';

/** A file of `size` bytes, each byte a function of its offset, so a read from the wrong place shows. */
function patterned(size: number): { path: string; bytes: Uint8Array } {
  const bytes = new Uint8Array(size);
  for (let k = 0; k < size; k++) bytes[k] = (k * 7 + (k >> 9)) & 0xff;
  const path = join(tempDir('iostore-read-ahead-'), 'data.ucas');
  writeFileSync(path, bytes);
  return { path, bytes };
}

describe('fileSourceSync with readAhead (the chunk loop reading a .ucas front to back)', () => {
  it('serves reads that follow each other from one read ahead: views of the same buffer, the right bytes', async () => {
    const { path, bytes } = patterned(300_000);
    const src = fileSourceSync(path, { reuseBuffer: true, readAhead: 64 << 10 });
    const first = src.readSync!(0, 1000);
    expect(Buffer.from(first).equals(bytes.subarray(0, 1000))).toBe(true);
    // Sequential from here: the next read fetches 64 KiB, and reads inside them are served from it.
    const a = src.readSync!(1000, 5000);
    const b = src.readSync!(6016, 4000); // after 16 bytes of padding
    expect(Buffer.from(a).equals(bytes.subarray(1000, 6000))).toBe(true);
    expect(Buffer.from(b).equals(bytes.subarray(6016, 10016))).toBe(true);
    expect(b.buffer).toBe(a.buffer);
    expect(b.byteOffset - a.byteOffset).toBe(5016);
    await src.close();
  });

  it('reads whole files in any order, runs past the read-ahead, the file end and after a jump back', async () => {
    const size = 1_000_003;
    const { path, bytes } = patterned(size);
    const src = fileSourceSync(path, { reuseBuffer: true, readAhead: 64 << 10 });
    const check = (offset: number, length: number) => expect(Buffer.from(src.readSync!(offset, length)).equals(bytes.subarray(offset, offset + length)), `${offset}+${length}`).toBe(true);
    // Front to back in uneven steps (some longer than the read-ahead), padding between some.
    for (let at = 0, k = 0; at < size; k++) {
      const length = Math.min(size - at, [7_000, 16_384, 100_000, 1, 40_000][k % 5]!);
      check(at, length);
      at += length + (k % 3 === 0 ? 16 : 0);
    }
    // The last bytes, then a jump back, then forward again.
    check(size - 10, 10);
    check(12_345, 20_000);
    check(32_345, 30_000);
    check(500_000, 1);
    await src.close();
  });

  it('does not read again the part of a read that the window already holds (moved, then the rest read after it)', async () => {
    const { path, bytes } = patterned(400_000);
    const src = fileSourceSync(path, { reuseBuffer: true, readAhead: 64 << 10 });
    src.readSync!(0, 10);
    src.readSync!(10, 10); // window: [10, 10 + 64 KiB)
    // The file changes under the window: bytes the window holds come from it, the rest from the file as it now is.
    const fd = openSync(path, 'r+');
    writeSync(fd, new Uint8Array(300_000).fill(0xee), 0, 300_000, 60_000);
    closeSync(fd);
    const windowEnd = 10 + (64 << 10);
    const across = src.readSync!(60_000, 10_000);
    expect(Buffer.from(across.subarray(0, windowEnd - 60_000)).equals(bytes.subarray(60_000, windowEnd))).toBe(true);
    expect(across.subarray(windowEnd - 60_000).every((b) => b === 0xee)).toBe(true);
    // A read longer than the buffer (grown for it) keeps the window's tail too.
    const again = openSync(path, 'r+');
    writeSync(again, new Uint8Array(300_000).fill(0x11), 0, 300_000, 60_000);
    closeSync(again);
    const longer = src.readSync!(100_000, 200_000);
    const heldEnd = 60_000 + (64 << 10);
    expect(longer.subarray(0, heldEnd - 100_000).every((b) => b === 0xee)).toBe(true);
    expect(longer.subarray(heldEnd - 100_000).every((b) => b === 0x11)).toBe(true);
    expect(longer.length).toBe(200_000);
    await src.close();
  });

  it('still fails a read the file cannot fill, read ahead or not', async () => {
    const { path } = patterned(100_000);
    const src = fileSourceSync(path, { reuseBuffer: true, readAhead: 64 << 10 });
    src.readSync!(0, 10);
    src.readSync!(10, 10);
    expect(() => src.readSync!(99_000, 2000)).toThrow(/needs 2000 bytes here but the file ends after 1000/);
    expect(() => src.readSync!(90_000, 20_000)).toThrow(/needs 20000 bytes/);
    await src.close();
  });
});
