import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultCodecs } from '../../src/codecs/registry.js';
import { PakArchive, bytesSource } from '../../src/pak/archive.js';
import { memorySink, writePak, writePakBytes, type PakWriterOptions } from '../../src/pak/pak-writer.js';

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
const codecs = defaultCodecs();

/** A folder's worth of files: text that compresses, random bytes that do not, an empty file, sizes around blocks. */
function sampleFiles(): { path: string; data: Uint8Array }[] {
  let x = 12345;
  // A plain loop: Uint8Array.from with a callback per byte had been a fifth of the file's time (called per case).
  const rnd = (n: number) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    return out;
  };
  const text = new TextEncoder().encode('[/Script/Engine.GameSession]\nMaxPlayers=16\n'.repeat(400));
  return [
    { path: 'Config/DefaultGame.ini', data: text },
    { path: 'Content/Data/noise.bin', data: rnd(70001) },
    { path: 'Content/Data/empty.txt', data: new Uint8Array(0) },
    { path: 'Content/Data/tiny.txt', data: new TextEncoder().encode('hi') },
    { path: 'Content/Maps/zeros.umap', data: new Uint8Array(3 * 4096 + 5) },
    { path: 'AssetRegistry.bin', data: rnd(100).map((b, i) => (i % 3 ? 0 : b)) },
  ];
}

async function readBack(bytes: Uint8Array, key?: Uint8Array): Promise<{ archive: PakArchive; files: Map<string, Uint8Array> }> {
  const archive = await PakArchive.open(bytesSource(bytes), { source: 'out.pak', ...(key ? { keyFor: () => key } : {}) });
  const files = new Map<string, Uint8Array>();
  for (const e of archive.pak.entries) files.set(e.path, await archive.readAll(e, codecs, { verify: true }));
  return { archive, files };
}

describe('pack to .pak: round trips', () => {
  const versions = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
  const cases: Array<[number, string, string]> = [];
  for (const v of versions) {
    for (const comp of ['None', 'Zlib', 'Gzip', 'LZ4']) {
      if (comp === 'LZ4' && v < 8) continue;
      for (const enc of ['none', 'entries', 'index', 'both']) {
        if ((enc === 'index' || enc === 'both') && v < 4) continue;
        cases.push([v, comp, enc]);
      }
    }
  }
  it(`covers ${cases.length} version x compression x encryption choices`, () => expect(cases.length).toBe(1 * 3 * 2 + 4 * 3 * 4 + 8 * 4 * 4));
  it.each(cases)('v%i %s, encryption %s: the same files come back, hashes verified', async (version, compression, enc) => {
    const files = sampleFiles();
    const o: PakWriterOptions = { version, compression, blockSize: 4096, mountPoint: '../../../MyGame/', ...(enc !== 'none' ? { aesKey: KEY } : {}), encryptEntries: enc === 'entries' || enc === 'both', encryptIndex: enc === 'index' || enc === 'both' };
    const bytes = await writePakBytes(files, o);
    const { archive, files: got } = await readBack(bytes, enc !== 'none' ? KEY : undefined);
    expect(archive.pak.version).toBe(version);
    expect(archive.pak.mountPoint).toBe('../../../MyGame/');
    expect(archive.pak.encryptedIndex).toBe(o.encryptIndex);
    for (const f of files) expect(Buffer.compare(got.get(f.path)!, f.data), f.path).toBe(0);
    const ini = archive.pak.entries.find((e) => e.path === 'Config/DefaultGame.ini')!;
    expect(ini.compressionMethod).toBe(compression);
    expect(ini.encrypted).toBe(o.encryptEntries);
    if (compression !== 'None') expect(ini.blocks!.length).toBe(Math.ceil(ini.uncompressedSize / 4096));
    // Random bytes do not shrink: stored as they are, as the engine does.
    expect(archive.pak.entries.find((e) => e.path === 'Content/Data/noise.bin')!.compressionMethod).toBe('None');
    const checks = await Promise.all(archive.pak.entries.map((e) => archive.checkEntry(e)));
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect((await archive.checkIndex()).every((x) => x.ok)).toBe(true);
    if (o.encryptIndex) await expect(PakArchive.open(bytesSource(bytes), { source: 'out.pak' })).rejects.toMatchObject({ code: 'NEEDS_KEY' });
  });

  it('v8 with 4 slots (UE 4.22: one-byte entry method) round-trips', async () => {
    const files = sampleFiles();
    const { archive, files: got } = await readBack(await writePakBytes(files, { version: 8, compressionSlots: 4, compression: 'Zlib' }));
    expect(archive.pak.footer.compressionSlots).toBe(4);
    for (const f of files) expect(Buffer.compare(got.get(f.path)!, f.data)).toBe(0);
  });

  it('refuses what a version cannot hold, and unsafe or colliding paths', async () => {
    const f = [{ path: 'a.txt', data: new Uint8Array(1) }];
    await expect(writePakBytes(f, { version: 7, compression: 'LZ4' })).rejects.toMatchObject({ code: 'USAGE' });
    await expect(writePakBytes(f, { version: 3, encryptIndex: true, aesKey: KEY })).rejects.toMatchObject({ code: 'USAGE' });
    await expect(writePakBytes(f, { version: 11, encryptEntries: true })).rejects.toMatchObject({ code: 'USAGE' });
    await expect(writePakBytes([{ path: '../x', data: new Uint8Array(1) }], { version: 11 })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    await expect(writePakBytes([...f, { path: 'A.TXT', data: new Uint8Array(1) }], { version: 11 })).rejects.toMatchObject({ code: 'USAGE' });
  });
});

describe('pack to .pak: an independent reading of the bytes', () => {
  it('a v8 uncompressed pak holds what the format says, where it says', async () => {
    const files = sampleFiles();
    const bytes = await writePakBytes(files, { version: 8, mountPoint: '../../../G/' });
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // v8 footer (UE 4.23+): key GUID 16, encrypted-index flag 1, magic, version, index offset, size, SHA-1, 5 x 32 names.
    const footer = bytes.length - (16 + 1 + 4 + 4 + 8 + 8 + 20 + 5 * 32);
    expect(v.getUint32(footer + 17, true)).toBe(0x5a6f12e1);
    expect(v.getInt32(footer + 21, true)).toBe(8);
    const indexOffset = Number(v.getBigInt64(footer + 25, true));
    const indexSize = Number(v.getBigInt64(footer + 33, true));
    expect(indexOffset + indexSize).toBe(footer);
    const indexHash = Buffer.from(bytes.subarray(footer + 41, footer + 61)).toString('hex');
    expect(createHash('sha1').update(bytes.subarray(indexOffset, indexOffset + indexSize)).digest('hex')).toBe(indexHash);
    let p = indexOffset;
    const fstring = () => {
      const n = v.getInt32(p, true);
      const s = Buffer.from(bytes.subarray(p + 4, p + 4 + n - 1)).toString('latin1');
      p += 4 + n;
      return s;
    };
    expect(fstring()).toBe('../../../G/');
    const count = v.getInt32(p, true);
    p += 4;
    expect(count).toBe(files.length);
    for (let i = 0; i < count; i++) {
      const path = fstring();
      const offset = Number(v.getBigInt64(p, true));
      const size = Number(v.getBigInt64(p + 8, true));
      const usize = Number(v.getBigInt64(p + 16, true));
      const method = v.getUint32(p + 24, true);
      const sha = Buffer.from(bytes.subarray(p + 28, p + 48)).toString('hex');
      const flags = bytes[p + 48];
      p += 48 + 1 + 4;
      const want = files.find((f) => f.path === path)!;
      expect([size, usize, method, flags]).toEqual([want.data.length, want.data.length, 0, 0]);
      // The in-place header repeats the entry with offset 0, then the bytes follow (53 bytes for v8 uncompressed).
      expect(v.getBigInt64(offset, true)).toBe(0n);
      expect(Number(v.getBigInt64(offset + 8, true))).toBe(size);
      const data = bytes.subarray(offset + 53, offset + 53 + size);
      expect(Buffer.compare(data, want.data), path).toBe(0);
      expect(createHash('sha1').update(data).digest('hex')).toBe(sha);
    }
    expect(p).toBe(indexOffset + indexSize);
  });
});

describe('pack to .pak: how a file is read does not change what is written', () => {
  it('an encrypted raw entry read in pieces (the first under 16 bytes) is the same bytes as read whole', async () => {
    // The padding of a short last AES block repeats the file's first bytes; a first piece shorter than 16 bytes once
    // made those "first bytes" a repeat of the piece itself.
    const data = Uint8Array.from({ length: 25 }, (_, i) => 0x41 + i);
    const o: PakWriterOptions = { version: 11, aesKey: KEY, encryptEntries: true };
    const write = async (pieces: Uint8Array[]) => {
      const sink = memorySink();
      await writePak(sink, [{ path: 'Content/a.bin', size: data.length, read: () => pieces }], o);
      return sink.bytes();
    };
    const whole = await write([data]);
    const split = await write([data.subarray(0, 5), data.subarray(5, 9), data.subarray(9)]);
    expect(Buffer.compare(split, whole)).toBe(0);
    const { files } = await readBack(whole, KEY);
    expect(Buffer.compare(files.get('Content/a.bin')!, data)).toBe(0);
  });
});
