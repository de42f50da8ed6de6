import { toHex, fromHex, type ByteReader } from '../../util/bytes.js';
import type { ByteWriter } from '../../zen/byte-writer.js';
import { LEGACY_PACKAGE_TAG } from '../versions.js';
import { readCount } from './primitives.js';

/** FPackageTrailer's header tag and footer tag. */
export const TRAILER_HEADER_TAG = 0xd1c43b2e80a5f697n;
export const TRAILER_FOOTER_TAG = 0x29bfca045138de76n;
const HEADER_SIZE = 28;
const FOOTER_SIZE = 20;

/** EPackageTrailerVersion: 0 initial (one access mode for all), 1 access mode per payload, 2 payload flags. */
export const TRAILER_VERSION = { Initial: 0, AccessPerPayload: 1, PayloadFlags: 2 } as const;

export type LegacyPayloadAccessMode = 'local' | 'referenced' | 'virtualized';
const ACCESS_MODES: readonly LegacyPayloadAccessMode[] = ['local', 'referenced', 'virtualized'];

/** A payload of the trailer's lookup table (a bulk data payload of the package, by its hash). */
export interface LegacyTrailerPayload {
  /** Hex of the 20-byte FIoHash (BLAKE3 of the payload, truncated). */
  hash: string;
  /** Local: offset in the trailer's payload data; referenced: absolute offset in the other package file; -1 virtualized. */
  offsetInFile: number;
  compressedSize: number;
  rawSize: number;
  /** EPayloadFlags and the filter flags (version 2 on). */
  flags: number;
  filterFlags: number;
  accessMode: LegacyPayloadAccessMode;
}

/**
 * FPackageTrailer (UE5, at PayloadTocOffset to the end of the `.uasset`): a header (tag, version, header length,
 * payload data length, [version 0: the access mode of all payloads], the lookup table), the payload data (each
 * local payload an FCompressedBuffer), and a footer (tag, trailer length, package tag).
 */
export interface LegacyPackageTrailer {
  version: number;
  /** Version 0 only. */
  legacyAccessMode?: LegacyPayloadAccessMode;
  payloads: LegacyTrailerPayload[];
  /** The payload data as stored (local payloads point into it). */
  payloadData: Uint8Array;
}

const entrySize = (version: number) => 44 + (version >= TRAILER_VERSION.PayloadFlags ? 4 : 0) + (version >= TRAILER_VERSION.AccessPerPayload ? 1 : 0);

function safe(r: ByteReader, v: bigint, what: string, at: number, none = false): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < (none ? -1n : 0n)) r.fail('BAD_VALUE', `${what} ${v} is out of range`, at);
  return Number(v);
}

function accessMode(r: ByteReader, at: number): LegacyPayloadAccessMode {
  const m = r.u8('payload access mode');
  const mode = ACCESS_MODES[m];
  if (mode === undefined) r.fail('BAD_VALUE', `payload access mode ${m} is not one (0 local, 1 referenced, 2 virtualized)`, at);
  return mode;
}

/** Reads the trailer at `r.pos` (`r` over the whole `.uasset`), which must end where the file does. */
export function readPackageTrailer(r: ByteReader): LegacyPackageTrailer {
  const start = r.pos;
  const tag = r.u64('trailer tag');
  if (tag !== TRAILER_HEADER_TAG) r.fail('BAD_MAGIC', `the package trailer starts with 0x${tag.toString(16)}, not its tag 0x${TRAILER_HEADER_TAG.toString(16)}`, start);
  const version = r.u32('trailer version');
  if (version > TRAILER_VERSION.PayloadFlags) r.fail('UNSUPPORTED', `package trailer version ${version} is newer than any known (0 to 2)`, start + 8);
  const headerLength = r.u32('trailer header length');
  const dataAt = r.pos;
  const dataLength = safe(r, r.u64('trailer payload data length'), 'trailer payload data length', dataAt);
  if (start + headerLength + dataLength + FOOTER_SIZE > r.bytes.length) r.fail('TRUNCATED', `the package trailer (${headerLength}-byte header, ${dataLength} bytes of payloads) runs past the end of the file`, start);
  const out: LegacyPackageTrailer = { version, payloads: [], payloadData: new Uint8Array(0) };
  if (version < TRAILER_VERSION.AccessPerPayload) out.legacyAccessMode = accessMode(r, r.pos);
  const n = readCount(r, entrySize(version), 'trailer payloads');
  for (let i = 0; i < n; i++) {
    const hash = toHex(r.bytesView(20, 'payload hash'));
    const at = r.pos;
    const offsetInFile = safe(r, r.i64('payload offset'), 'payload offset', at, true);
    const compressedSize = safe(r, r.i64('payload compressed size'), 'payload compressed size', at + 8, true);
    const rawSize = safe(r, r.u64('payload raw size'), 'payload raw size', at + 16);
    let flags = 0;
    let filterFlags = 0;
    if (version >= TRAILER_VERSION.PayloadFlags) {
      flags = r.u16('payload flags');
      filterFlags = r.u16('payload filter flags');
    }
    // Version 0: the trailer's mode, virtualized for payloads without an offset (as the engine reads them).
    const mode = version >= TRAILER_VERSION.AccessPerPayload ? accessMode(r, r.pos) : offsetInFile === -1 ? 'virtualized' : out.legacyAccessMode!;
    if (mode === 'local' && (offsetInFile < 0 || offsetInFile + compressedSize > dataLength)) {
      r.fail('BAD_VALUE', `payload ${i} (${offsetInFile}, ${compressedSize} bytes) lies outside the trailer's ${dataLength} bytes of payload data`, at);
    }
    out.payloads.push({ hash, offsetInFile, compressedSize, rawSize, flags, filterFlags, accessMode: mode });
  }
  if (r.pos !== start + headerLength) r.fail('BAD_VALUE', `the trailer header says ${headerLength} bytes but its table ends after ${r.pos - start}`, start + 12);
  out.payloadData = r.bytesView(dataLength, 'trailer payload data');
  const footerAt = r.pos;
  const footerTag = r.u64('trailer footer tag');
  if (footerTag !== TRAILER_FOOTER_TAG) r.fail('BAD_MAGIC', `the trailer footer has tag 0x${footerTag.toString(16)}, not 0x${TRAILER_FOOTER_TAG.toString(16)}`, footerAt);
  const length = r.u64('trailer length');
  if (length !== BigInt(footerAt + FOOTER_SIZE - start)) r.fail('BAD_VALUE', `the trailer footer says the trailer is ${length} bytes, not ${footerAt + FOOTER_SIZE - start}`, footerAt + 8);
  const packageTag = r.u32('trailer package tag');
  if (packageTag !== LEGACY_PACKAGE_TAG) r.fail('BAD_MAGIC', `the trailer footer ends with 0x${packageTag.toString(16)}, not the package tag`, footerAt + 16);
  return out;
}

/** Where a payload's bytes lie in the `.uasset` (local payloads; undefined for the others). */
export function trailerPayloadSpan(t: LegacyPackageTrailer, p: LegacyTrailerPayload, trailerOffset: number): { offset: number; size: number } | undefined {
  if (p.accessMode !== 'local') return undefined;
  return { offset: trailerOffset + headerLength(t) + p.offsetInFile, size: p.compressedSize };
}

const headerLength = (t: LegacyPackageTrailer) => HEADER_SIZE + (t.version < TRAILER_VERSION.AccessPerPayload ? 1 : 0) + t.payloads.length * entrySize(t.version);

/**
 * FCompressedBuffer's header (64 bytes, big-endian): magic 0xb7756362, CRC-32, method (0 none, 3 Oodle, 4 LZ4),
 * compressor, level, block size exponent, block count, raw size, compressed size, BLAKE3 of the raw data.
 */
export interface CompressedBufferHeader {
  method: 'none' | 'oodle' | 'lz4' | number;
  blockCount: number;
  rawSize: number;
  compressedSize: number;
}

export function readCompressedBufferHeader(b: Uint8Array): CompressedBufferHeader | undefined {
  if (b.length < 64) return undefined;
  const v = new DataView(b.buffer, b.byteOffset, 64);
  if (v.getUint32(0) !== 0xb7756362) return undefined;
  const m = v.getUint8(8);
  const rawSize = v.getBigUint64(16);
  const compressedSize = v.getBigUint64(24);
  if (rawSize > BigInt(Number.MAX_SAFE_INTEGER) || compressedSize > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return { method: m === 0 ? 'none' : m === 3 ? 'oodle' : m === 4 ? 'lz4' : m, blockCount: v.getUint32(12), rawSize: Number(rawSize), compressedSize: Number(compressedSize) };
}

export function writePackageTrailer(w: ByteWriter, t: LegacyPackageTrailer): void {
  const header = headerLength(t);
  w.u64(TRAILER_HEADER_TAG);
  w.u32(t.version);
  w.u32(header);
  w.u64n(t.payloadData.length);
  if (t.version < TRAILER_VERSION.AccessPerPayload) w.u8(ACCESS_MODES.indexOf(t.legacyAccessMode ?? 'local'));
  w.i32(t.payloads.length);
  for (const p of t.payloads) {
    w.bytes(fromHex(p.hash));
    w.i64n(p.offsetInFile);
    w.i64n(p.compressedSize);
    w.u64n(p.rawSize);
    if (t.version >= TRAILER_VERSION.PayloadFlags) {
      w.u16(p.flags);
      w.u16(p.filterFlags);
    }
    if (t.version >= TRAILER_VERSION.AccessPerPayload) w.u8(ACCESS_MODES.indexOf(p.accessMode));
  }
  w.bytes(t.payloadData);
  w.u64(TRAILER_FOOTER_TAG);
  w.u64n(header + t.payloadData.length + FOOTER_SIZE);
  w.u32(LEGACY_PACKAGE_TAG);
}
