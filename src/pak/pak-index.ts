import { concatBytes, encodeFString } from '../toc/directory-index.js';
import { ByteReader } from '../util/bytes.js';
import { ByteOut } from './byte-out.js';
import type { PakIndexRecords } from './record-table.js';
import { readFullEntry, writeFullEntry, type PakEntryRecord } from './entry.js';
import { IV_SIZE, PakEncryptionMethod, type PakFooter } from './footer.js';
import { readPakFString } from './strings.js';

/** Where a secondary index lives and the SHA-1 of its (decrypted) bytes. */
export interface PakIndexPart {
  offset: number;
  size: number;
  hash: Uint8Array;
}

/** The v10+ primary index (the bytes the footer points at). */
export interface PrimaryIndex {
  mountPoint: string;
  /** Entry count as declared; delete records included. */
  entryCount: number;
  pathHashSeed: bigint;
  pathHashIndex?: PakIndexPart;
  fullDirectoryIndex?: PakIndexPart;
  encodedEntries: Uint8Array;
  /** Offset of `encodedEntries[0]` within the index, for error messages. */
  encodedEntriesAt: number;
  nonEncodedEntries: PakEntryRecord[];
}

/** Smallest full entry in bytes (v2+ with no blocks): used to bound counts before reading them. */
const MIN_FULL_ENTRY = 8 + 8 + 8 + 1 + 20;

function readBool(r: ByteReader, what: string): boolean {
  const at = r.pos;
  const v = r.u32(what);
  if (v > 1) r.fail('BAD_VALUE', `${what} is ${v}, expected 0 or 1`, at);
  return v === 1;
}

function readPart(r: ByteReader, what: string, indexEnd: number): PakIndexPart | undefined {
  const at = r.pos;
  const offset = r.i64(`${what} offset`);
  const size = r.i64(`${what} size`);
  const hash = Uint8Array.from(r.bytesView(20, `${what} hash`));
  // INDEX_NONE offset means "not written" even though the flag said present.
  if (offset === -1n) return undefined;
  if (offset < 0n || size < 0n || offset + size > BigInt(indexEnd)) {
    r.fail('BAD_VALUE', `${what} at ${offset} of ${size} bytes lies outside the file`, at);
  }
  return { offset: Number(offset), size: Number(size), hash };
}

/** Parses the primary index; the secondary indexes it points at must lie before the footer. */
export function readPrimaryIndex(bytes: Uint8Array, footer: PakFooter, source: string, base: number): PrimaryIndex {
  const r = new ByteReader(bytes, source, base);
  const mountPoint = readPakFString(r, 'mount point');
  const countAt = r.pos;
  const entryCount = r.i32('entry count');
  if (entryCount < 0) r.fail('BAD_VALUE', `negative entry count ${entryCount}`, countAt);
  const pathHashSeed = r.u64('path hash seed');
  let pathHashIndex: PakIndexPart | undefined;
  let fullDirectoryIndex: PakIndexPart | undefined;
  if (readBool(r, 'has-path-hash-index flag')) pathHashIndex = readPart(r, 'path-hash index', footer.offset);
  if (readBool(r, 'has-full-directory-index flag')) fullDirectoryIndex = readPart(r, 'full directory index', footer.offset);
  const encAt = r.pos;
  const encodedSize = r.i32('encoded entries size');
  if (encodedSize < 0) r.fail('BAD_VALUE', `negative encoded entries size ${encodedSize}`, encAt);
  const encodedEntriesAt = r.pos;
  const encodedEntries = r.bytesView(encodedSize, 'encoded entries');
  const listAt = r.pos;
  const listCount = r.i32('non-encoded entry count');
  if (listCount < 0) r.fail('BAD_VALUE', `negative non-encoded entry count ${listCount}`, listAt);
  r.needArray(listCount, MIN_FULL_ENTRY, 'non-encoded entries');
  const nonEncodedEntries: PakEntryRecord[] = [];
  for (let i = 0; i < listCount; i++) nonEncodedEntries.push(readFullEntry(r, footer.version, footer.entryMethodWidth));
  // With AES-CTR (v15) each listed entry's IV follows the whole list.
  if (footer.encryptionMethod === PakEncryptionMethod.AesCtr) {
    r.needArray(listCount, IV_SIZE, 'non-encoded entry IVs');
    for (const e of nonEncodedEntries) e.encryptionIv = Uint8Array.from(r.bytesView(IV_SIZE, 'entry IV'));
  }
  const out: PrimaryIndex = { mountPoint, entryCount, pathHashSeed, encodedEntries, encodedEntriesAt, nonEncodedEntries };
  if (pathHashIndex) out.pathHashIndex = pathHashIndex;
  if (fullDirectoryIndex) out.fullDirectoryIndex = fullDirectoryIndex;
  return out;
}

/** What writing a primary index takes: the parsed form without its read positions, and the pak version. */
export type PrimaryIndexInit = Omit<PrimaryIndex, 'encodedEntriesAt' | 'nonEncodedEntries'> & {
  nonEncodedEntries?: readonly PakEntryRecord[];
  version: number;
};

export function writePrimaryIndex(p: PrimaryIndexInit): Uint8Array {
  const head = new Uint8Array(12);
  const hv = new DataView(head.buffer);
  hv.setInt32(0, p.entryCount, true);
  hv.setBigUint64(4, p.pathHashSeed, true);
  const part = (x: PakIndexPart | undefined) => {
    const b = new Uint8Array(x ? 4 + 8 + 8 + 20 : 4);
    if (!x) return b;
    const v = new DataView(b.buffer);
    v.setUint32(0, 1, true);
    v.setBigInt64(4, BigInt(x.offset), true);
    v.setBigInt64(12, BigInt(x.size), true);
    b.set(x.hash.subarray(0, 20), 20);
    return b;
  };
  const list = p.nonEncodedEntries ?? [];
  return concatBytes([
    encodeFString(p.mountPoint),
    head,
    part(p.pathHashIndex),
    part(p.fullDirectoryIndex),
    i32(p.encodedEntries.length),
    p.encodedEntries,
    i32(list.length),
    ...list.map((e) => writeFullEntry(e, p.version)),
  ]);
}

/** The pre-v10 index: mount point, then (FString path, full entry) per file. */
export interface LegacyIndex {
  mountPoint: string;
  entries: { path: string; record: PakEntryRecord }[];
}

export function readLegacyIndex(bytes: Uint8Array, footer: PakFooter, source: string, base: number): LegacyIndex {
  const r = new ByteReader(bytes, source, base);
  const mountPoint = readPakFString(r, 'mount point');
  const countAt = r.pos;
  const count = r.i32('entry count');
  if (count < 0) r.fail('BAD_VALUE', `negative entry count ${count}`, countAt);
  r.needArray(count, 4 + MIN_FULL_ENTRY, 'index entries');
  const entries: LegacyIndex['entries'] = [];
  for (let i = 0; i < count; i++) {
    const path = readPakFString(r, 'file path');
    entries.push({ path, record: readFullEntry(r, footer.version, footer.entryMethodWidth) });
  }
  return { mountPoint, entries };
}

export function writeLegacyIndex(mountPoint: string, records: PakIndexRecords, version: number, methodWidth: 1 | 4): Uint8Array {
  const out = new ByteOut();
  out.fstring(mountPoint);
  out.i32(records.length);
  for (let i = 0; i < records.length; i++) {
    out.fstring(records.path(i));
    out.bytes(writeFullEntry(records.record(i), version, methodWidth));
  }
  return out.done();
}

function i32(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, v, true);
  return b;
}
