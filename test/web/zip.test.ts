import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { blobSink, crc32, zipEntries, type ZipEntrySource } from '../../src/web/zip.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir('iostore-zip-');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const entry = (path: string, pieces: Uint8Array[]): ZipEntrySource => ({ path, pieces: async function* () { yield* pieces; } });
/** An async iterable of one piece, without an async generator's machinery. */
const onePiece = (piece: Uint8Array): AsyncIterable<Uint8Array> => ({
  [Symbol.asyncIterator]: () => {
    let done = false;
    return { next: async () => (done ? { done: true, value: undefined } : ((done = true), { done: false, value: piece })) };
  },
});

/** Info-ZIP's own test of an archive, when the machine has `unzip` (the fflate reader checks the rest). */
function unzipTest(bytes: Uint8Array, name: string): void {
  let has = true;
  try {
    execFileSync('unzip', ['-v'], { stdio: 'ignore' });
  } catch {
    has = false;
  }
  if (!has) return;
  const p = join(tmp, name);
  writeFileSync(p, bytes);
  expect(execFileSync('unzip', ['-tqq', p], { encoding: 'utf8' })).toBe('');
}

async function build(entries: ZipEntrySource[], zip64Above?: number) {
  const r = await zipEntries(entries, blobSink(1 << 20), undefined, undefined, zip64Above);
  return { ...r, bytes: new Uint8Array(await r.archive!.arrayBuffer()) };
}

describe('streaming zip writer (the page\'s extraction)', () => {
  it('CRC-32 of the check string', () => {
    expect(crc32(new TextEncoder().encode('123456789')).toString(16)).toBe('cbf43926');
    expect(crc32(new TextEncoder().encode('6789'), crc32(new TextEncoder().encode('12345'))).toString(16)).toBe('cbf43926');
  });

  it('stored entries in pieces, empty ones, UTF-8 names; a failing entry is left out', async () => {
    const a = randomBytes(100_000);
    const entries = [
      entry('Game/Content/a.uasset', [a.subarray(0, 10), a.subarray(10, 70_000), a.subarray(70_000)]),
      entry('Game/empty.txt', []),
      entry('Game/Ünïcode/名前.ini', [new TextEncoder().encode('[x]\n')]),
      { path: 'Game/broken.bin', pieces: async function* () { throw new Error('block 3 could not be decoded'); } },
    ];
    const { bytes, failures } = await build(entries);
    expect(failures).toEqual(['Game/broken.bin: block 3 could not be decoded']);
    const files = unzipSync(bytes);
    expect(Object.keys(files).sort()).toEqual(['Game/Content/a.uasset', 'Game/empty.txt', 'Game/Ünïcode/名前.ini']);
    expect(sha(files['Game/Content/a.uasset']!)).toBe(sha(a));
    expect(files['Game/empty.txt']!.length).toBe(0);
    unzipTest(bytes, 'small.zip');
  });

  it('Zip64 records (sizes, offsets, count) where the classic fields overflow', async () => {
    // The limits lowered to 1,000 so every Zip64 path runs on small data; readers take them as for real 4 GiB.
    const pieces = Array.from({ length: 30 }, (_, i) => randomBytes(i * 97));
    const { bytes } = await build(pieces.map((p, i) => entry(`f${i}.bin`, [p])), 1000);
    expect(Buffer.from(bytes).includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true); // zip64 end record
    const files = unzipSync(bytes);
    pieces.forEach((p, i) => expect(sha(files[`f${i}.bin`]!), `f${i}`).toBe(sha(p)));
    unzipTest(bytes, 'zip64.zip');
  });

  it('more than 65,535 entries', async () => {
    // One past the classic count field's limit. Each entry's bytes come from a plain iterator rather than an async
    // generator: at this count the generators' own cost was a third of the test.
    const one = new Uint8Array([1]);
    const n = 65_536;
    const { bytes } = await build(Array.from({ length: n }, (_, i) => ({ path: `d/${i}`, pieces: () => onePiece(one) })));
    expect(Buffer.from(bytes).includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true); // zip64 end record
    expect(Object.keys(unzipSync(bytes)).length).toBe(n);
    unzipTest(bytes, 'many.zip');
  });
});
