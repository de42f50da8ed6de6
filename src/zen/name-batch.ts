import { IoStoreError } from '../errors.js';
import { cityHash64 } from '../hash/cityhash.js';
import { lowerAscii, utf16leBytes } from '../hash/names.js';
import { ByteReader, latin1, utf16le } from '../util/bytes.js';
import { ByteWriter } from './byte-writer.js';

/** The hash algorithm id every name batch carries (FNameHash, CityHash64 of the lower-cased name). */
export const NAME_HASH_ALGORITHM_ID = 0xc1640000n;

/** Bit 15 of a name header: the characters are UTF-16. Bits 0-14: length in characters. */
const WIDE_FLAG = 0x8000;
const MAX_NAME_LENGTH = 0x7fff;

const utf8 = new TextDecoder('utf-8');

/** 8-bit characters as a string (byte i = char i): the fast UTF-8 decoder when all bytes are ASCII, else latin1. */
function decode8Bit(b: Uint8Array): string {
  for (let i = 0; i < b.length; i++) if (b[i]! >= 0x80) return latin1(b);
  return utf8.decode(b);
}

/** A name batch: the names in order and the hash stored for each. */
export interface NameBatch {
  names: string[];
  hashes: bigint[];
}

/** True when a name is stored as UTF-16 (it has a character outside 7-bit ASCII). */
export function isWideName(name: string): boolean {
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 0x7f) return true;
  return false;
}

/** The bytes a name is hashed as: the stored characters (8-bit, or UTF-16LE for wide names), A-Z lower-cased. */
function nameHashInput(name: string): Uint8Array {
  const lower = lowerAscii(name);
  if (isWideName(lower)) return utf16leBytes(lower);
  const b = new Uint8Array(lower.length);
  for (let i = 0; i < lower.length; i++) b[i] = lower.charCodeAt(i);
  return b;
}

/** The hash a name batch stores for a name: CityHash64 of the lower-cased name as stored. */
export function nameHash(name: string): bigint {
  return cityHash64(nameHashInput(name));
}

function checkName(name: string, what: string): void {
  if (name.length > MAX_NAME_LENGTH) usage(`${what}: name of ${name.length} characters is longer than ${MAX_NAME_LENGTH}`);
}

function readNameChars(r: ByteReader, header: number, what: string): string {
  const wide = (header & WIDE_FLAG) !== 0;
  const len = header & MAX_NAME_LENGTH;
  return wide ? utf16le(r.bytesView(len * 2, what)) : latin1(r.bytesView(len, what));
}

/**
 * Reads a new-format (UE5) name batch at the reader's position: u32 Num; if Num > 0: u32 NumStringBytes,
 * u64 hash algorithm id, Num u64 hashes, Num big-endian u16 headers, then the characters back to back.
 */
export function readNameBatch(r: ByteReader, what = 'name batch'): NameBatch {
  const count = r.u32(`${what} count`);
  if (count === 0) return { names: [], hashes: [] };
  const bytesAt = r.pos;
  const stringBytes = r.u32(`${what} string byte count`);
  const algoAt = r.pos;
  const algo = r.u64(`${what} hash algorithm id`);
  if (algo !== NAME_HASH_ALGORITHM_ID) {
    r.fail('BAD_VALUE', `${what}: hash algorithm id 0x${algo.toString(16)} is not 0x${NAME_HASH_ALGORITHM_ID.toString(16)}`, algoAt);
  }
  // Each name has an 8-byte hash and a 2-byte header before any characters.
  r.needArray(count, 10, `${what} hashes and headers (${count} names)`);
  r.needArray(stringBytes, 1, `${what} characters`);
  const hashes: bigint[] = new Array(count);
  for (let i = 0; i < count; i++) hashes[i] = r.view.getBigUint64(r.pos + i * 8, true);
  r.pos += count * 8;
  const headersAt = r.pos;
  r.pos += count * 2;
  const charsAt = r.pos;
  // Decode the 8-bit characters of the whole batch once and slice names out of it (much faster than per name).
  const chars = decode8Bit(r.bytes.subarray(charsAt, charsAt + stringBytes));
  const names: string[] = new Array(count);
  let o = 0;
  for (let i = 0; i < count; i++) {
    const header = r.view.getUint16(headersAt + i * 2, false);
    const len = header & MAX_NAME_LENGTH;
    if ((header & WIDE_FLAG) === 0) {
      if (o + len > stringBytes) r.fail('BAD_VALUE', `${what}: name ${i} runs past the ${stringBytes} declared string bytes`, bytesAt);
      names[i] = chars.slice(o, o + len);
      o += len;
    } else {
      if (o + len * 2 > stringBytes) r.fail('BAD_VALUE', `${what}: name ${i} runs past the ${stringBytes} declared string bytes`, bytesAt);
      names[i] = utf16le(r.bytes.subarray(charsAt + o, charsAt + o + len * 2));
      o += len * 2;
    }
  }
  r.pos = charsAt + o;
  if (o !== stringBytes) {
    r.fail('BAD_VALUE', `${what}: the names take ${o} bytes but the batch declares ${stringBytes}`, bytesAt);
  }
  return { names, hashes };
}

/** A name batch whose names are decoded only when asked for (a global batch holds ~35,000; a conversion needs a few). */
export interface LazyNameBatch {
  count: number;
  /** Name `i`, or undefined outside the batch. */
  name(i: number): string | undefined;
}

/**
 * Reads a new-format name batch as `readNameBatch` does, with the same checks on every header, but without
 * decoding the characters or the hashes: each name is decoded (once) when asked for.
 */
export function readNameBatchLazy(r: ByteReader, what = 'name batch'): LazyNameBatch {
  const count = r.u32(`${what} count`);
  if (count === 0) return { count: 0, name: () => undefined };
  const bytesAt = r.pos;
  const stringBytes = r.u32(`${what} string byte count`);
  const algoAt = r.pos;
  const algo = r.u64(`${what} hash algorithm id`);
  if (algo !== NAME_HASH_ALGORITHM_ID) {
    r.fail('BAD_VALUE', `${what}: hash algorithm id 0x${algo.toString(16)} is not 0x${NAME_HASH_ALGORITHM_ID.toString(16)}`, algoAt);
  }
  r.needArray(count, 10, `${what} hashes and headers (${count} names)`);
  r.needArray(stringBytes, 1, `${what} characters`);
  const headersAt = r.pos + count * 8;
  const charsAt = headersAt + count * 2;
  const bytes = r.bytes;
  // Start of each name's characters (relative to charsAt); count + 1 entries, the last one the end.
  const starts = new Uint32Array(count + 1);
  let o = 0;
  for (let i = 0; i < count; i++) {
    starts[i] = o;
    const header = (bytes[headersAt + 2 * i]! << 8) | bytes[headersAt + 2 * i + 1]!;
    o += (header & WIDE_FLAG) === 0 ? header & MAX_NAME_LENGTH : (header & MAX_NAME_LENGTH) * 2;
    if (o > stringBytes) r.fail('BAD_VALUE', `${what}: name ${i} runs past the ${stringBytes} declared string bytes`, bytesAt);
  }
  starts[count] = o;
  if (o !== stringBytes) r.fail('BAD_VALUE', `${what}: the names take ${o} bytes but the batch declares ${stringBytes}`, bytesAt);
  r.pos = charsAt + o;
  const decoded: (string | undefined)[] = new Array(count);
  return {
    count,
    name(i) {
      if (!(i >= 0 && i < count)) return undefined;
      let s = decoded[i];
      if (s === undefined) {
        const wide = (bytes[headersAt + 2 * i]! & 0x80) !== 0;
        const chars = bytes.subarray(charsAt + starts[i]!, charsAt + starts[i + 1]!);
        s = decoded[i] = wide ? utf16le(chars) : latin1(chars);
      }
      return s;
    },
  };
}

/** Hashes for `names`, reusing `hashes` where given (so engine-written batches are reproduced as read). */
function batchHashes(batch: NameBatch | readonly string[]): { names: readonly string[]; hashes: readonly bigint[] } {
  if (Array.isArray(batch)) return { names: batch as readonly string[], hashes: (batch as readonly string[]).map(nameHash) };
  const b = batch as NameBatch;
  if (b.hashes.length !== b.names.length) {
    return { names: b.names, hashes: b.names.map(nameHash) };
  }
  return b;
}

/** Writes a new-format name batch; names given without hashes are hashed. */
export function writeNameBatch(w: ByteWriter, batch: NameBatch | readonly string[], what = 'name batch'): void {
  const { names, hashes } = batchHashes(batch);
  w.u32(names.length, `${what} count`);
  if (names.length === 0) return;
  let stringBytes = 0;
  for (const n of names) {
    checkName(n, what);
    stringBytes += isWideName(n) ? n.length * 2 : n.length;
  }
  w.u32(stringBytes, `${what} string byte count`);
  w.u64(NAME_HASH_ALGORITHM_ID);
  for (let i = 0; i < names.length; i++) w.u64(hashes[i]!, `${what} hash ${i}`);
  for (const n of names) w.u16be((isWideName(n) ? WIDE_FLAG : 0) | n.length);
  for (const n of names) writeChars(w, n);
}

export function serializeNameBatch(batch: NameBatch | readonly string[]): Uint8Array {
  const w = new ByteWriter();
  writeNameBatch(w, batch);
  return w.finish();
}

function writeChars(w: ByteWriter, n: string): void {
  if (isWideName(n)) {
    for (let i = 0; i < n.length; i++) w.u16(n.charCodeAt(i));
  } else {
    const b = new Uint8Array(n.length);
    for (let i = 0; i < n.length; i++) b[i] = n.charCodeAt(i);
    w.bytes(b);
  }
}

/**
 * Old-format (UE4) name strings: for each name a big-endian u16 header and its characters; a wide name's characters
 * start at an even offset from the start of `bytes` (one pad byte is skipped when needed). `base` is the absolute
 * offset of `bytes[0]`, for error messages.
 */
export function parseNameStrings(bytes: Uint8Array, source = 'name batch', base = 0, what = 'name strings'): string[] {
  const r = new ByteReader(bytes, source, base);
  const names: string[] = [];
  while (r.remaining > 0) {
    const at = r.pos;
    r.need(2, `${what}: header of name ${names.length}`);
    const header = r.view.getUint16(r.pos, false);
    r.pos += 2;
    if ((header & WIDE_FLAG) !== 0 && (r.pos & 1) !== 0) {
      const pad = r.u8(`${what}: alignment byte of name ${names.length}`);
      if (pad !== 0) r.fail('BAD_VALUE', `${what}: alignment byte before wide name ${names.length} is 0x${pad.toString(16)}, not 0`, at + 2);
    }
    names.push(readNameChars(r, header, `${what}: name ${names.length}`));
  }
  return names;
}

export function serializeNameStrings(names: readonly string[]): Uint8Array {
  const w = new ByteWriter();
  for (const n of names) {
    checkName(n, 'name strings');
    const wide = isWideName(n);
    w.u16be((wide ? WIDE_FLAG : 0) | n.length);
    if (wide && (w.length & 1) !== 0) w.u8(0);
    writeChars(w, n);
  }
  return w.finish();
}

/**
 * Old-format (UE4) name hashes: u64 hash algorithm id, then one u64 per name. An empty buffer holds no names.
 */
export function parseNameHashes(bytes: Uint8Array, source = 'name batch', base = 0, what = 'name hashes'): bigint[] {
  const r = new ByteReader(bytes, source, base);
  if (bytes.length === 0) return [];
  if (bytes.length % 8 !== 0) r.fail('BAD_VALUE', `${what}: size ${bytes.length} is not a multiple of 8`);
  const algo = r.u64(`${what} hash algorithm id`);
  if (algo !== NAME_HASH_ALGORITHM_ID) {
    r.fail('BAD_VALUE', `${what}: hash algorithm id 0x${algo.toString(16)} is not 0x${NAME_HASH_ALGORITHM_ID.toString(16)}`, 0);
  }
  const count = r.remaining / 8;
  const out: bigint[] = new Array(count);
  for (let i = 0; i < count; i++) out[i] = r.view.getBigUint64(8 + i * 8, true);
  return out;
}

/** The hashes part of an old-format batch (the algorithm id is always written, as the engine does). */
export function serializeNameHashes(hashes: readonly bigint[]): Uint8Array {
  const w = new ByteWriter(8 + hashes.length * 8);
  w.u64(NAME_HASH_ALGORITHM_ID);
  for (let i = 0; i < hashes.length; i++) w.u64(hashes[i]!, `name hash ${i}`);
  return w.finish();
}

/** Old-format batch from its two parts; the counts must agree. */
export function parseOldNameBatch(strings: Uint8Array, hashes: Uint8Array, source = 'name batch', stringsBase = 0, hashesBase = 0): NameBatch {
  const names = parseNameStrings(strings, source, stringsBase);
  const h = parseNameHashes(hashes, source, hashesBase);
  if (h.length !== names.length) {
    new ByteReader(hashes, source, hashesBase).fail('BAD_VALUE', `name batch has ${names.length} names but ${h.length} hashes`, 0);
  }
  return { names, hashes: h };
}

/** Indices of names whose stored hash differs from CityHash64 of the lower-cased name (empty when all match). */
export function nameHashMismatches(batch: NameBatch): number[] {
  const bad: number[] = [];
  for (let i = 0; i < batch.names.length; i++) if (nameHash(batch.names[i]!) !== batch.hashes[i]) bad.push(i);
  return bad;
}

function usage(msg: string): never {
  throw new IoStoreError('USAGE', msg);
}
