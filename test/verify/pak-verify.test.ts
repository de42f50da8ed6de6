import { describe, expect, it } from 'vitest';
import { bytesSource, PakArchive, type PakByteSource } from '../../src/pak/archive.js';
import { writePakBytes } from '../../src/pak/pak-writer.js';
import { verifyPak } from '../../src/verify/pak-verify.js';

describe('verifyPak', () => {
  it('checks entries in the order of their bytes a window at a time, and lists problems in index order', async () => {
    // Paths out of order, so the index (grouped by folder) and the data (in the order given) differ.
    const files = Array.from({ length: 600 }, (_, i) => ({ path: `Game/D${(i * 7) % 5}/F${599 - i}.bin`, data: new Uint8Array(200 + (i % 13)).fill(i & 255) }));
    const bytes = await writePakBytes(files, { version: 11 });
    const probe = await PakArchive.open(bytesSource(bytes));
    const entries = probe.pak.entries;
    // Three entries' stored bytes flipped: their SHA-1s no longer match.
    const bad = [entries[500]!, entries[3]!, entries[250]!];
    const copy = bytes.slice();
    for (const e of bad) copy[e.offset + 100] ^= 0xff; // past its in-place header (~50 bytes), in its data
    let reads = 0;
    const inner = bytesSource(copy);
    const src: PakByteSource = { size: inner.size, read: (o, n) => (reads++, inner.read(o, n)) };
    const archive = await PakArchive.open(src);
    const opened = reads;
    const r = await verifyPak(archive);
    expect(r.verified).toBe(597);
    const byIndex = bad.map((e) => entries.indexOf(e)).sort((a, b) => a - b).map((k) => entries[k]!.path);
    expect(r.mismatches.map((m) => m.path)).toEqual(byIndex);
    // Two reads per entry would be 1,200 (plus the index checks).
    expect(reads - opened).toBeLessThan(20);
  });
});
