import { bytesEqual, latin1, toHex } from '../util/bytes.js';

/**
 * The byte cursor and writer of property data. Reads fail with PropsReadError (the position inside the export),
 * which the export reader turns into one line naming the package, export, property and offset.
 */

export class PropsReadError extends Error {
  readonly at: number;
  constructor(message: string, at: number) {
    // Thrown and caught often (a value that is not what its type says falls back to bytes): no stack to capture.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.at = at;
  }
}

const utf16 = new TextDecoder('utf-16le');
const utf8 = new TextDecoder('utf-8', { fatal: false });
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export class Rd {
  readonly b: Uint8Array;
  readonly v: DataView;
  pos: number;
  /** Reads stop here (the end of the export, or of the value being read). */
  end: number;

  constructor(b: Uint8Array, pos = 0, end = b.length, v?: DataView) {
    this.b = b;
    this.v = v ?? new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.pos = pos;
    this.end = end;
  }

  /** A reader of [start, end) of the same bytes (sharing the view: one per value read adds up). */
  sub(start: number, end: number): Rd {
    return new Rd(this.b, start, end, this.v);
  }

  need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.end) throw new PropsReadError(`${what} needs ${n} bytes but ${this.end - this.pos} remain`, this.pos);
  }
  get left(): number {
    return this.end - this.pos;
  }
  u8(what = 'byte'): number {
    this.need(1, what);
    return this.b[this.pos++]!;
  }
  i8(what = 'int8'): number {
    this.need(1, what);
    return this.v.getInt8(this.pos++);
  }
  u16(what = 'uint16'): number {
    this.need(2, what);
    const x = this.v.getUint16(this.pos, true);
    this.pos += 2;
    return x;
  }
  i16(what = 'int16'): number {
    this.need(2, what);
    const x = this.v.getInt16(this.pos, true);
    this.pos += 2;
    return x;
  }
  u32(what = 'uint32'): number {
    this.need(4, what);
    const x = this.v.getUint32(this.pos, true);
    this.pos += 4;
    return x;
  }
  i32(what = 'int32'): number {
    this.need(4, what);
    const x = this.v.getInt32(this.pos, true);
    this.pos += 4;
    return x;
  }
  i64(what = 'int64'): bigint {
    this.need(8, what);
    const x = this.v.getBigInt64(this.pos, true);
    this.pos += 8;
    return x;
  }
  u64(what = 'uint64'): bigint {
    this.need(8, what);
    const x = this.v.getBigUint64(this.pos, true);
    this.pos += 8;
    return x;
  }
  f32(what = 'float'): number {
    this.need(4, what);
    const x = this.v.getFloat32(this.pos, true);
    this.pos += 4;
    return x;
  }
  f64(what = 'double'): number {
    this.need(8, what);
    const x = this.v.getFloat64(this.pos, true);
    this.pos += 8;
    return x;
  }
  bytes(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    const x = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return x;
  }
  /** A count of elements each at least `min` bytes: never more than the bytes left could hold. */
  count(what: string, min = 1): number {
    const at = this.pos;
    const n = this.i32(what);
    if (n < 0 || n * min > this.left) throw new PropsReadError(`${what} ${n} does not fit the ${this.left} bytes left`, at);
    return n;
  }
  /** FString: i32 length with terminator, positive Latin-1, negative UTF-16. Returns the text and its stored form. */
  fstring(what = 'string'): { text: string; wide: boolean; canonical: boolean } {
    const at = this.pos;
    const n = this.i32(`${what} length`);
    if (n === 0) return { text: '', wide: false, canonical: true };
    if (n > 0) {
      const raw = this.bytes(n, what);
      if (raw[n - 1] !== 0) throw new PropsReadError(`${what} is not terminated`, at);
      const text = latin1(raw.subarray(0, n - 1));
      return { text, wide: false, canonical: n > 1 && isAsciiNoNul(raw, n - 1) };
    }
    if (n === -0x80000000) throw new PropsReadError(`${what} length ${n} is invalid`, at);
    const raw = this.bytes(-n * 2, what);
    if (raw[raw.length - 1] !== 0 || raw[raw.length - 2] !== 0) throw new PropsReadError(`${what} is not terminated`, at);
    const text = utf16.decode(raw.subarray(0, raw.length - 2));
    return { text, wide: true, canonical: text.length > 0 && !isAsciiString(text) && !text.includes('\0') && !hasLoneSurrogate(text) };
  }
  /** FUtf8String / FAnsiString: i32 byte count, no terminator. */
  counted(what: string, encoding: 'utf8' | 'latin1'): { text: string; canonical: boolean } {
    const n = this.count(`${what} length`);
    const raw = this.bytes(n, what);
    if (encoding === 'latin1') return { text: latin1(raw), canonical: true };
    try {
      return { text: utf8Strict.decode(raw), canonical: true };
    } catch {
      return { text: utf8.decode(raw), canonical: false };
    }
  }
}

function isAsciiNoNul(b: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (b[i]! > 0x7f || b[i] === 0) return false;
  return true;
}

function isAsciiString(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return true;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

const utf8Enc = new TextEncoder();

export class Wr {
  b: Uint8Array;
  v: DataView;
  len = 0;

  constructor(capacity = 256) {
    this.b = new Uint8Array(capacity);
    this.v = new DataView(this.b.buffer);
  }
  private grow(n: number): void {
    if (this.len + n <= this.b.length) return;
    let cap = this.b.length * 2;
    while (cap < this.len + n) cap *= 2;
    const nb = new Uint8Array(cap);
    nb.set(this.b.subarray(0, this.len));
    this.b = nb;
    this.v = new DataView(nb.buffer);
  }
  u8(x: number): void {
    this.grow(1);
    this.b[this.len++] = x & 0xff;
  }
  u16(x: number): void {
    this.grow(2);
    this.v.setUint16(this.len, x, true);
    this.len += 2;
  }
  i16(x: number): void {
    this.grow(2);
    this.v.setInt16(this.len, x, true);
    this.len += 2;
  }
  u32(x: number): void {
    this.grow(4);
    this.v.setUint32(this.len, x >>> 0, true);
    this.len += 4;
  }
  i32(x: number): void {
    this.grow(4);
    this.v.setInt32(this.len, x | 0, true);
    this.len += 4;
  }
  i64(x: bigint): void {
    this.grow(8);
    this.v.setBigInt64(this.len, BigInt.asIntN(64, x), true);
    this.len += 8;
  }
  u64(x: bigint): void {
    this.grow(8);
    this.v.setBigUint64(this.len, BigInt.asUintN(64, x), true);
    this.len += 8;
  }
  f32(x: number): void {
    this.grow(4);
    this.v.setFloat32(this.len, x, true);
    this.len += 4;
  }
  f64(x: number): void {
    this.grow(8);
    this.v.setFloat64(this.len, x, true);
    this.len += 8;
  }
  bytes(x: Uint8Array): void {
    this.grow(x.length);
    this.b.set(x, this.len);
    this.len += x.length;
  }
  /** Reserves a 4-byte slot (a size written once the value after it is). */
  slot(): number {
    this.i32(0);
    return this.len - 4;
  }
  patchI32(at: number, x: number): void {
    this.v.setInt32(at, x, true);
  }
  /** FString in the engine's form: Latin-1 when every char is ASCII, else UTF-16; `wide` forces UTF-16. */
  fstring(s: string, wide = false): void {
    if (s.length === 0 && !wide) {
      this.i32(0);
      return;
    }
    if (!wide && isAsciiString(s)) {
      this.i32(s.length + 1);
      this.grow(s.length + 1);
      for (let i = 0; i < s.length; i++) this.b[this.len++] = s.charCodeAt(i);
      this.b[this.len++] = 0;
      return;
    }
    this.i32(-(s.length + 1));
    this.grow(s.length * 2 + 2);
    for (let i = 0; i < s.length; i++) {
      this.v.setUint16(this.len, s.charCodeAt(i), true);
      this.len += 2;
    }
    this.u16(0);
  }
  counted(s: string, encoding: 'utf8' | 'latin1'): void {
    if (encoding === 'utf8') {
      const b = utf8Enc.encode(s);
      this.i32(b.length);
      this.bytes(b);
      return;
    }
    this.i32(s.length);
    this.grow(s.length);
    for (let i = 0; i < s.length; i++) this.b[this.len++] = s.charCodeAt(i) & 0xff;
  }
  done(): Uint8Array {
    return this.b.slice(0, this.len);
  }
  view(from = 0): Uint8Array {
    return this.b.subarray(from, this.len);
  }
}

/** Lower-case hex of bytes (a native call in Node; the page's fallback in util/bytes). */
export function hex(b: Uint8Array): string {
  return toHex(b);
}

const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
const NIBBLE = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[65 + i] = NIBBLE[97 + i] = 10 + i;

export function unhex(s: string, what: string): Uint8Array {
  if (typeof s !== 'string' || s.length % 2 !== 0) throw new Error(`${what} is not a hex string`);
  if (NodeBuffer !== undefined && s.length > 64) {
    // Node's decoder stops at the first pair that is not hex: a short result is the sign of a bad string.
    const b = NodeBuffer.from(s, 'hex');
    if (b.length * 2 !== s.length) throw new Error(`${what} is not a hex string`);
    return new Uint8Array(b.buffer, b.byteOffset, b.length);
  }
  const out = new Uint8Array(s.length / 2);
  for (let i = 0, j = 0; i < out.length; i++, j += 2) {
    const hi = NIBBLE[s.charCodeAt(j) & 0xffff] ?? -1;
    const lo = NIBBLE[s.charCodeAt(j + 1) & 0xffff] ?? -1;
    if (hi < 0 || lo < 0) throw new Error(`${what} is not a hex string`);
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/**
 * Hex fields of the JSON form that hold bytes kept as they were (an export's tail, a raw value): the bytes are kept
 * as a view of the package and turned into hex only when someone reads the field (JSON.stringify, a script), so a
 * reader that never renders them (the verification write, `--apply` of a document read in the same process, the
 * page's tree) never pays for hex. Assigning the field replaces the kept bytes.
 */
const keptBytes = new WeakMap<object, { key: string; bytes: Uint8Array; get: () => string }>();

export function setHexField<T extends object>(o: T, key: string, bytes: Uint8Array): T {
  let text: string | undefined;
  const get = () => (text ??= hex(bytes));
  keptBytes.set(o, { key, bytes, get });
  Object.defineProperty(o, key, {
    enumerable: true,
    configurable: true,
    get,
    set(v: unknown) {
      keptBytes.delete(o);
      Object.defineProperty(o, key, { value: v, writable: true, enumerable: true, configurable: true });
    },
  });
  return o;
}

/** The kept bytes of a hex field still as it was read; undefined when it was assigned (or never kept). */
function keptOf(o: object, key: string): Uint8Array | undefined {
  const k = keptBytes.get(o);
  if (k === undefined || k.key !== key) return undefined;
  return Object.getOwnPropertyDescriptor(o, key)?.get === k.get ? k.bytes : undefined;
}

/** Whether `o[key]` is there, without making hex of kept bytes. */
export function hasHexField(o: object, key: string): boolean {
  return keptOf(o, key) !== undefined || (o as Record<string, unknown>)[key] !== undefined;
}

/** The bytes of a hex field: the kept ones, or those of its hex text. */
export function hexFieldBytes(o: object, key: string, what: string): Uint8Array {
  return keptOf(o, key) ?? unhex((o as Record<string, unknown>)[key] as string, what);
}

/** The byte length a hex field stands for, without making hex of kept bytes. */
export function hexFieldLength(o: object, key: string): number {
  const k = keptOf(o, key);
  if (k !== undefined) return k.length;
  const v = (o as Record<string, unknown>)[key];
  return typeof v === 'string' ? v.length / 2 : 0;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  if (NodeBuffer !== undefined && a.length > 64) return NodeBuffer.compare(a, b) === 0;
  return bytesEqual(a, b);
}
