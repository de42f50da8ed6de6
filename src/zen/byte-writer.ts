import { IoStoreError } from '../errors.js';

/**
 * A growable little-endian byte sink for the zen writers. Values a caller passes are range-checked, so a bad field
 * in an object being written becomes a USAGE error instead of silently wrapped bytes.
 */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private len = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
    this.view = new DataView(this.buf.buffer);
  }

  /** Number of bytes written so far (the position of the next byte). */
  get length(): number {
    return this.len;
  }

  private reserve(n: number): number {
    const at = this.len;
    const need = at + n;
    if (need > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < need) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, at));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    this.len = need;
    return at;
  }

  u8(v: number, what = 'u8'): void {
    checkInt(v, 0, 0xff, what);
    const at = this.reserve(1);
    this.buf[at] = v;
  }

  u16(v: number, what = 'u16'): void {
    checkInt(v, 0, 0xffff, what);
    const at = this.reserve(2);
    this.view.setUint16(at, v, true);
  }

  u16be(v: number, what = 'u16'): void {
    checkInt(v, 0, 0xffff, what);
    const at = this.reserve(2);
    this.view.setUint16(at, v, false);
  }

  u32(v: number, what = 'u32'): void {
    checkInt(v, 0, 0xffffffff, what);
    const at = this.reserve(4);
    this.view.setUint32(at, v, true);
  }

  i32(v: number, what = 'i32'): void {
    checkInt(v, -0x80000000, 0x7fffffff, what);
    const at = this.reserve(4);
    this.view.setInt32(at, v, true);
  }

  u64(v: bigint, what = 'u64'): void {
    if (typeof v !== 'bigint' || v < 0n || v > 0xffffffffffffffffn) throw new IoStoreError('USAGE', `${what}: ${String(v)} is not a u64`);
    const at = this.reserve(8);
    this.view.setBigUint64(at, v, true);
  }

  i64(v: bigint, what = 'i64'): void {
    if (typeof v !== 'bigint' || v < -0x8000000000000000n || v > 0x7fffffffffffffffn) throw new IoStoreError('USAGE', `${what}: ${String(v)} is not an i64`);
    const at = this.reserve(8);
    this.view.setBigInt64(at, v, true);
  }

  /** A u64 given as a JS number (a size or offset). */
  u64n(v: number, what = 'u64'): void {
    checkInt(v, 0, Number.MAX_SAFE_INTEGER, what);
    const at = this.reserve(8);
    this.view.setBigUint64(at, BigInt(v), true);
  }

  /** An i64 given as a JS number. */
  i64n(v: number, what = 'i64'): void {
    checkInt(v, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, what);
    const at = this.reserve(8);
    this.view.setBigInt64(at, BigInt(v), true);
  }

  bytes(b: Uint8Array): void {
    const at = this.reserve(b.length);
    this.buf.set(b, at);
  }

  /** The low bytes of a string's UTF-16 code units (the caller knows every unit is below 0x100). */
  latin1(s: string): void {
    const at = this.reserve(s.length);
    const buf = this.buf;
    for (let i = 0; i < s.length; i++) buf[at + i] = s.charCodeAt(i);
  }

  zeros(n: number): void {
    checkInt(n, 0, Number.MAX_SAFE_INTEGER, 'zero fill');
    const at = this.reserve(n);
    this.buf.fill(0, at, this.len);
  }

  /** Overwrites a u32 already written at `at`. */
  patchU32(at: number, v: number, what = 'u32'): void {
    checkInt(v, 0, 0xffffffff, what);
    this.view.setUint32(at, v, true);
  }

  patchI32(at: number, v: number, what = 'i32'): void {
    checkInt(v, -0x80000000, 0x7fffffff, what);
    this.view.setInt32(at, v, true);
  }

  patchI64n(at: number, v: number, what = 'i64'): void {
    checkInt(v, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, what);
    this.view.setBigInt64(at, BigInt(v), true);
  }

  /**
   * Empties the writer for reuse (a writer per call costs an allocation and its growth each time). A buffer grown
   * past `keepBytes` is dropped, so one large input does not pin its memory.
   */
  reset(keepBytes = 1 << 20): void {
    this.len = 0;
    if (this.buf.length > keepBytes) {
      this.buf = new Uint8Array(256);
      this.view = new DataView(this.buf.buffer);
    }
  }

  /** The bytes written, without a copy: valid until the next write or reset. */
  written(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }

  /** A copy of the bytes written. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

function checkInt(v: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new IoStoreError('USAGE', `${what}: ${String(v)} is out of range [${min}, ${max}]`);
  }
}
