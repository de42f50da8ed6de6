/**
 * Most-significant-bit-first readers used by the table headers and the offset/length side streams.
 *
 * The accumulator keeps the next unread bit in bit 31. Bytes outside the reader's range are read as zero rather than
 * rejected on the spot: a well-formed stream never consumes them, and every caller compares the final byte position
 * with the position the format requires, which is where a corrupt stream is caught.
 */

/** Reads forward from `pos`; bytes at or after `end` count as zero. */
export class ForwardBits {
  /** Next byte to load. */
  p: number;
  acc = 0;
  /** Number of valid bits at the top of `acc`. */
  avail = 0;

  constructor(
    readonly buf: Uint8Array,
    pos: number,
    readonly end: number,
  ) {
    this.p = pos;
    this.refill();
  }

  /**
   * Tops the accumulator up to at least 25 valid bits. Away from the end, one four-byte load adds as many whole bytes
   * as fit; the bits of a further byte it also ORs in below them are that byte's own, ORed in again when it is taken.
   */
  refill(): void {
    if (this.avail > 24) return;
    const p = this.p;
    const buf = this.buf;
    if (p + 4 <= this.end) {
      this.acc |= (((buf[p] << 24) | (buf[p + 1] << 16) | (buf[p + 2] << 8) | buf[p + 3]) >>> 0) >>> this.avail;
      const k = (32 - this.avail) >> 3;
      this.p = p + k;
      this.avail += 8 * k;
      return;
    }
    while (this.avail <= 24) {
      const b = this.p < this.end ? buf[this.p] : 0;
      this.acc |= b << (24 - this.avail);
      this.p++;
      this.avail += 8;
    }
  }

  /** Reads `n` bits, 0 <= n <= 24. */
  read(n: number): number {
    if (n === 0) return 0;
    if (this.avail < n) this.refill();
    const v = this.acc >>> (32 - n);
    this.acc <<= n;
    this.avail -= n;
    return v;
  }

  /** Reads up to 32 bits in two steps. */
  readLong(n: number): number {
    if (n <= 24) return this.read(n);
    const hi = this.read(24);
    return hi * (1 << (n - 24)) + this.read(n - 24);
  }

  /** Number of zero bits before the next one bit, looking at least 25 bits ahead (32 if they are all zero). */
  leadingZeros(): number {
    this.refill();
    return Math.clz32(this.acc);
  }

  /** The next 32 bits as an unsigned number, without consuming them (valid bits: at least 25). */
  peek32(): number {
    this.refill();
    return this.acc >>> 0;
  }

  /** Drops `n` bits (0 <= n <= 24) that the caller has already looked at. */
  skip(n: number): void {
    if (this.avail < n) this.refill();
    this.acc <<= n;
    this.avail -= n;
  }

  /** Absolute position in bits of the next unread bit. */
  bitPos(): number {
    return this.p * 8 - this.avail;
  }

  /** Restarts reading at an absolute bit position. */
  seekBit(bit: number): void {
    this.p = bit >>> 3;
    this.acc = 0;
    this.avail = 0;
    this.refill();
    this.skip(bit & 7);
  }

  /** Byte position just past the last bit consumed. */
  bytePos(): number {
    return this.p - (this.avail >> 3);
  }
}

/** Reads backward from `pos` (the first byte read is `pos - 1`); bytes before `start` count as zero. */
export class BackwardBits {
  p: number;
  acc = 0;
  avail = 0;

  constructor(
    readonly buf: Uint8Array,
    pos: number,
    readonly start: number,
  ) {
    this.p = pos;
    this.refill();
  }

  /** As ForwardBits.refill, reading the four bytes below `p` (the nearest one first). */
  refill(): void {
    if (this.avail > 24) return;
    const p = this.p;
    const buf = this.buf;
    if (p - 4 >= this.start) {
      this.acc |= (((buf[p - 1] << 24) | (buf[p - 2] << 16) | (buf[p - 3] << 8) | buf[p - 4]) >>> 0) >>> this.avail;
      const k = (32 - this.avail) >> 3;
      this.p = p - k;
      this.avail += 8 * k;
      return;
    }
    while (this.avail <= 24) {
      const b = this.p > this.start ? buf[this.p - 1] : 0;
      this.acc |= b << (24 - this.avail);
      this.p--;
      this.avail += 8;
    }
  }

  read(n: number): number {
    if (n === 0) return 0;
    if (this.avail < n) this.refill();
    const v = this.acc >>> (32 - n);
    this.acc <<= n;
    this.avail -= n;
    return v;
  }

  readLong(n: number): number {
    if (n <= 24) return this.read(n);
    const hi = this.read(24);
    return hi * (1 << (n - 24)) + this.read(n - 24);
  }

  leadingZeros(): number {
    this.refill();
    return Math.clz32(this.acc);
  }

  peek32(): number {
    this.refill();
    return this.acc >>> 0;
  }

  skip(n: number): void {
    if (this.avail < n) this.refill();
    this.acc <<= n;
    this.avail -= n;
  }

  /** Byte position (counting down) just below the last bit consumed. */
  bytePos(): number {
    return this.p + (this.avail >> 3);
  }
}
