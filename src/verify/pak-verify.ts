import type { PakArchive } from '../pak/archive.js';
import { eventLoopTurns } from '../util/turns.js';

export interface PakVerifyResult {
  file: string;
  kind: 'pak';
  algorithm: 'sha1';
  entries: number;
  verified: number;
  bytes: number;
  /** Entries whose stored bytes do not match the SHA-1 the pak records. */
  mismatches: Array<{ path: string; expected: string; actual: string }>;
  /** Entries that could not be read (data past the end, header disagreeing with the index ...). */
  errors: Array<{ path: string; code: string; message: string }>;
  /** Entries whose writer recorded no hash (all zero): read, not compared. */
  unhashed: number;
  index: Array<{ part: string; offset: number; ok: boolean; expected: string; actual: string }>;
  ok: boolean;
}

/**
 * Checks a pak as the engine's signature-less integrity check would: every index part against its SHA-1, and every
 * entry's stored bytes (as stored, so no key is needed for encrypted entries) against the SHA-1 it records.
 */
export async function verifyPak(
  archive: PakArchive,
  o: { onProgress?: (p: { chunksDone: number; chunksTotal: number; bytesDone: number; bytesTotal: number }) => void } = {},
): Promise<PakVerifyResult> {
  const entries = archive.pak.entries;
  const r: PakVerifyResult = { file: archive.source, kind: 'pak', algorithm: 'sha1', entries: entries.length, verified: 0, bytes: 0, mismatches: [], errors: [], unhashed: 0, index: await archive.checkIndex(), ok: false };
  const total = { chunksDone: 0, chunksTotal: entries.length, bytesDone: 0, bytesTotal: entries.reduce((a, e) => a + e.size, 0) };
  // Entries in the order of their bytes, read a window at a time (see PakArchive.withReadAhead): two reads of
  // their own per entry made a 50,000-file pak's check mostly round trips. Problems are listed in index order.
  const order = entries.map((_, k) => k).sort((a, b) => entries[a]!.offset - entries[b]!.offset);
  const ahead = archive.withReadAhead();
  const errors: Array<{ k: number; e: PakVerifyResult['errors'][number] }> = [];
  const mismatches: Array<{ k: number; m: PakVerifyResult['mismatches'][number] }> = [];
  const turn = eventLoopTurns();
  for (const k of order) {
    const e = entries[k]!;
    const c = await ahead.checkEntry(e);
    if (c.error) errors.push({ k, e: { path: e.path, ...c.error } });
    else if (!c.ok) mismatches.push({ k, m: { path: e.path, expected: c.expected, actual: c.actual } });
    else {
      r.verified++;
      r.bytes += e.size;
      if (c.expected === '') r.unhashed++;
    }
    total.chunksDone++;
    total.bytesDone += e.size;
    o.onProgress?.({ ...total });
    await turn();
  }
  r.errors = errors.sort((a, b) => a.k - b.k).map((x) => x.e);
  r.mismatches = mismatches.sort((a, b) => a.k - b.k).map((x) => x.m);
  r.ok = r.mismatches.length === 0 && r.errors.length === 0 && r.index.every((x) => x.ok);
  return r;
}
