import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultCodecs } from '../../src/codecs/registry.js';
import { IoStoreError } from '../../src/errors.js';
import { pakDeflateAhead } from '../../src/pack/pak-deflate-ahead.js';
import { memorySink, writePak, type PakInputFile } from '../../src/pak/pak-writer.js';
import { bytesSource, PakArchive } from '../../src/pak/archive.js';

/** Files of every shape: empty, one byte, small, several blocks, incompressible, read in odd pieces. */
function files(): PakInputFile[] {
  const out: PakInputFile[] = [];
  for (let i = 0; i < 160; i++) {
    const size = i % 50 === 0 ? 0 : i % 37 === 0 ? 140_000 + i : i % 11 === 0 ? 1 : 100 + ((i * 7919) % 20_000);
    const data = new Uint8Array(size).map((_, k) => ((k >> 3) + i) & 255);
    // Incompressible but the same on every call: SHA-256 in counter mode.
    if (i % 9 === 0) for (let k = 0; k < size; k += 32) data.set(createHash('sha256').update(`${i}:${k}`).digest().subarray(0, Math.min(32, size - k)), k);
    // Pieces of 777 bytes: blocks straddle them.
    out.push({ path: `Game/F${String(i).padStart(3, '0')}.bin`, size, read: () => Array.from({ length: Math.ceil(size / 777) }, (_, k) => data.subarray(k * 777, (k + 1) * 777)) });
  }
  return out;
}

describe('pakDeflateAhead (Zlib blocks deflated on every core)', () => {
  it('writes the same pak as deflating on this thread, which reads back to the same files', async () => {
    const codecs = defaultCodecs();
    const paks: Uint8Array[] = [];
    for (const compressAhead of [undefined, pakDeflateAhead]) {
      const sink = memorySink();
      const r = await writePak(sink, files(), { version: 11, compression: 'Zlib', codecs, blockSize: 65536, ...(compressAhead ? { compressAhead } : {}) });
      expect(r.storedRaw).toBeGreaterThan(0);
      paks.push(sink.bytes());
    }
    expect(Buffer.from(paks[1]!).equals(paks[0]!)).toBe(true);
    const archive = await PakArchive.open(bytesSource(paks[1]!));
    const want = files();
    for (const e of archive.pak.entries) {
      const f = want.find((x) => x.path === e.path)!;
      const got = await archive.readAll(e, codecs, { verify: true });
      expect(got.length).toBe(f.size);
      expect(Buffer.from(got).equals(Buffer.concat([...(f.read() as Uint8Array[])]))).toBe(true);
    }
  });

  it('a file that shrank or grew after its size was taken is refused, not written with the wrong size', async () => {
    for (const actual of [90, 110]) {
      const data = new Uint8Array(actual).fill(7);
      for (const compressAhead of [undefined, pakDeflateAhead]) {
        const input = [{ path: 'Game/A.bin', size: 100, read: () => [data] }];
        const e = await writePak(memorySink(), input, { version: 11, compression: 'Zlib', ...(compressAhead ? { compressAhead } : {}) }).catch((x: unknown) => x);
        expect(e).toBeInstanceOf(IoStoreError);
        expect((e as IoStoreError).message).toContain('changed while it was packed');
      }
    }
  });
});
