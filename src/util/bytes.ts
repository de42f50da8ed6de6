import { IoStoreError } from '../errors.js';
import { quote } from './quote.js';

/**
 * A cursor over a byte array that checks every read against the end of the data and reports failures with the
 * source's name and the absolute offset, so a truncated or corrupt file never causes an out-of-range access.
 * `base` is the absolute position of `bytes[0]` in the source file, for error messages.
 */
export class ByteReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly source: string;
  readonly base: number;
  pos: number;

  constructor(bytes: Uint8Array, source: string, base = 0) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.source = source;
    this.base = base;
    this.pos = 0;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** Absolute offset in the source of the cursor. */
  get offset(): number {
    return this.base + this.pos;
  }

  fail(code: ConstructorParameters<typeof IoStoreError>[0], message: string, at = this.pos): never {
    throw new IoStoreError(code, message, { file: this.source, offset: this.base + at });
  }

  /** Ensures `n` bytes can be read; `what` names the structure in the error. */
  need(n: number, what: string): void {
    if (n > this.remaining) {
      this.fail('TRUNCATED', `${what} needs ${n} bytes but only ${this.remaining} remain`);
    }
  }

  /**
   * Checks that `count` elements of `size` bytes fit in the remaining data before anything is allocated for them:
   * a count read from a file must never size an allocation the file itself cannot back.
   */
  needArray(count: number, size: number, what: string): void {
    if (count < 0 || !Number.isSafeInteger(count)) this.fail('BAD_VALUE', `${what}: invalid count ${count}`);
    const total = count * size;
    if (total > this.remaining) {
      this.fail('TRUNCATED', `${what}: ${count} entries of ${size} bytes need ${total} bytes but only ${this.remaining} remain`);
    }
  }

  skip(n: number, what = 'data'): void {
    this.need(n, what);
    this.pos += n;
  }

  u8(what = 'u8'): number {
    this.need(1, what);
    return this.bytes[this.pos++]!;
  }

  u16(what = 'u16'): number {
    this.need(2, what);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }

  u32(what = 'u32'): number {
    this.need(4, what);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  i32(what = 'i32'): number {
    this.need(4, what);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }

  u64(what = 'u64'): bigint {
    this.need(8, what);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  i64(what = 'i64'): bigint {
    this.need(8, what);
    const v = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A u64 that must fit in a JS number (sizes and offsets). */
  u64n(what = 'u64'): number {
    const at = this.pos;
    const v = this.u64(what);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail('BAD_VALUE', `${what}: value ${v} is too large`, at);
    return Number(v);
  }

  /** A view (not a copy) of the next `n` bytes. */
  bytesView(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    const v = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /**
   * An Unreal FString: i32 length; positive = that many 8-bit chars including a NUL, negative = UTF-16 code units
   * including a NUL, zero = empty.
   */
  fstring(what = 'string'): string {
    const at = this.pos;
    const len = this.i32(`${what} length`);
    if (len === 0) return '';
    if (len > 0) {
      if (len > this.remaining) this.fail('TRUNCATED', `${what}: length ${len} exceeds the ${this.remaining} bytes that remain`, at);
      const raw = this.bytesView(len, what);
      if (raw[len - 1] !== 0) this.fail('BAD_VALUE', `${what}: string is not NUL-terminated`, at);
      return latin1(raw.subarray(0, len - 1));
    }
    if (len === -0x80000000) this.fail('BAD_VALUE', `${what}: invalid length ${len}`, at);
    const units = -len;
    if (units * 2 > this.remaining) this.fail('TRUNCATED', `${what}: length ${units} UTF-16 units exceeds the ${this.remaining} bytes that remain`, at);
    const raw = this.bytesView(units * 2, what);
    if (raw[units * 2 - 1] !== 0 || raw[units * 2 - 2] !== 0) this.fail('BAD_VALUE', `${what}: string is not NUL-terminated`, at);
    return utf16le(raw.subarray(0, units * 2 - 2));
  }
}

/** Whether this host stores numbers little-endian, as the engine's files do: their arrays of numbers are then copied as bytes. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

export function latin1(b: Uint8Array): string {
  // Directory-index names are short, and decoded each time a path is asked for: one call on the bytes makes a flat
  // string (a loop appending a character at a time made a chain of pieces, 1.7x slower once read).
  if (b.length <= 64) return String.fromCharCode.apply(null, b as unknown as number[]);
  // A long run (a directory index's whole string table) is one native call where Node's Buffer exists.
  if (NodeBuffer !== undefined) return NodeBuffer.from(b.buffer, b.byteOffset, b.length).toString('latin1');
  let s = '';
  for (let i = 0; i < b.length; i += 4096) s += String.fromCharCode.apply(null, Array.from(b.subarray(i, i + 4096)));
  return s;
}

// Made on first use: creating a TextDecoder loads Node's encoding support, which most runs never need.
let utf16Decoder: InstanceType<typeof TextDecoder> | undefined;
export function utf16le(b: Uint8Array): string {
  return (utf16Decoder ??= new TextDecoder('utf-16le')).decode(b);
}

export function toHex(b: Uint8Array): string {
  // A long run (a whole column of chunk ids or hashes) is one native call where Node's Buffer exists.
  if (b.length > 64 && NodeBuffer !== undefined) return NodeBuffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
  // One flat string from char codes: appending two characters at a time built a chain of ~20 string pieces per
  // chunk id and hash, which a plan of a few thousand chunks kept alive (2 MB) and took twice as long to make.
  let s = '';
  for (let at = 0; at < b.length; at += 64) {
    const n = Math.min(64, b.length - at);
    const codes = HEX_SCRATCH.subarray(0, 2 * n);
    for (let i = 0; i < n; i++) {
      const v = b[at + i]!;
      codes[2 * i] = HEX_CODES[2 * v]!;
      codes[2 * i + 1] = HEX_CODES[2 * v + 1]!;
    }
    s += String.fromCharCode.apply(null, codes as unknown as number[]);
  }
  return s;
}
const HEX_CODES = new Uint16Array(512).map((_, k) => '0123456789abcdef'.charCodeAt(k & 1 ? (k >> 1) & 15 : k >> 5));
const HEX_SCRATCH = new Uint16Array(128);

export function fromHex(s: string): Uint8Array {
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) throw new IoStoreError('USAGE', `not a hex string: ${quote(s)}`);
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** 40-bit big-endian integer, as in FIoOffsetAndLength. */
export function readU40BE(b: Uint8Array, at: number): number {
  return b[at]! * 0x100000000 + ((b[at + 1]! << 24) >>> 0) + (b[at + 2]! << 16) + (b[at + 3]! << 8) + b[at + 4]!;
}

export function writeU40BE(b: Uint8Array, at: number, v: number): void {
  const hi = Math.floor(v / 0x100000000);
  b[at] = hi & 0xff;
  b[at + 1] = (v >>> 24) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = (v >>> 8) & 0xff;
  b[at + 4] = v & 0xff;
}

/** 40-bit little-endian integer, as in compression block entries. */
export function readU40LE(b: Uint8Array, at: number): number {
  return b[at]! + (b[at + 1]! << 8) + (b[at + 2]! << 16) + ((b[at + 3]! << 24) >>> 0) + b[at + 4]! * 0x100000000;
}

export function writeU40LE(b: Uint8Array, at: number, v: number): void {
  const hi = Math.floor(v / 0x100000000);
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = (v >>> 24) & 0xff;
  b[at + 4] = hi & 0xff;
}

export function readU24LE(b: Uint8Array, at: number): number {
  return b[at]! + (b[at + 1]! << 8) + (b[at + 2]! << 16);
}

export function writeU24LE(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
}

export function align(v: number, a: number): number {
  return a <= 1 ? v : Math.ceil(v / a) * a;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
