/**
 * Little-endian bytes appended to one buffer that grows by doubling: an index part written field by field, without
 * a Uint8Array per field (a 50,000-file pak's index had been ~200,000 of them, then one more copy to join them).
 */
export class ByteOut {
  private buf: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(capacity = 1 << 12) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  /** Room for `n` more bytes; returns where they start. */
  private take(n: number): number {
    const at = this.length;
    if (at + n > this.buf.length) {
      const grown = new Uint8Array(Math.max(at + n, 2 * this.buf.length));
      grown.set(this.buf.subarray(0, at));
      this.buf = grown;
      this.view = new DataView(grown.buffer);
    }
    this.length = at + n;
    return at;
  }

  // Each takes its room before it reads `this.view` or `this.buf`, which taking may replace.
  i32(v: number): void {
    const at = this.take(4);
    this.view.setInt32(at, v, true);
  }

  u32(v: number): void {
    const at = this.take(4);
    this.view.setUint32(at, v >>> 0, true);
  }

  /** A u64 from its halves. */
  u64(lo: number, hi: number): void {
    const at = this.take(8);
    this.view.setUint32(at, lo >>> 0, true);
    this.view.setUint32(at + 4, hi >>> 0, true);
  }

  bytes(b: Uint8Array): void {
    const at = this.take(b.length);
    this.buf.set(b, at);
  }

  /** A string's UTF-8 bytes, no length. */
  utf8(s: string): void {
    // eslint-disable-next-line no-control-regex
    if (!/[^\x00-\x7f]/.test(s)) {
      const at = this.take(s.length);
      for (let i = 0; i < s.length; i++) this.buf[at + i] = s.charCodeAt(i);
      return;
    }
    this.bytes(encoder.encode(s));
  }

  /** FUtf8String: i32 byte count, then the UTF-8 bytes. */
  utf8String(s: string): void {
    const at = this.take(4);
    this.utf8(s);
    this.view.setInt32(at, this.length - at - 4, true);
  }

  /** FString: i32 length with the NUL (negative for UTF-16), then the characters and a NUL; empty: length 0 only. */
  fstring(s: string): void {
    if (s === '') return this.i32(0);
    // eslint-disable-next-line no-control-regex
    if (!/[^\x00-\x7f]/.test(s)) {
      this.i32(s.length + 1);
      const at = this.take(s.length + 1);
      for (let i = 0; i < s.length; i++) this.buf[at + i] = s.charCodeAt(i);
      this.buf[at + s.length] = 0;
      return;
    }
    this.i32(-(s.length + 1));
    const at = this.take(2 * (s.length + 1));
    for (let i = 0; i < s.length; i++) this.view.setUint16(at + 2 * i, s.charCodeAt(i), true);
    this.view.setUint16(at + 2 * s.length, 0, true);
  }

  /** The bytes written, in a buffer of their own. */
  done(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

const encoder = new TextEncoder();
