/**
 * Most-significant-bit-first readers for the table headers and the offset/length side streams, as in the TypeScript
 * decoder (src/codecs/oodle/bit-reader.ts): the accumulator keeps the next unread bit in bit 31, and bytes outside
 * the reader's range read as zero (every caller checks the final position, which is where a corrupt stream is
 * caught). Readers are unmanaged structs in static memory: the decoder allocates nothing.
 */

@unmanaged
export class ForwardBits {
  buf: usize;
  /** Next byte to load. */
  p: usize;
  end: usize;
  acc: u32;
  /** Number of valid bits at the top of `acc`. */
  avail: i32;

  /** Bit positions (bitPos, seekBit) count from `pos`. */
  init(pos: usize, end: usize): ForwardBits {
    this.buf = pos;
    this.p = pos;
    this.end = end;
    this.acc = 0;
    this.avail = 0;
    this.refill();
    return this;
  }

  refill(): void {
    let avail = this.avail;
    if (avail > 24) return;
    const p = this.p;
    if (p + 4 <= this.end) {
      this.acc |= bswap<u32>(load<u32>(p)) >>> avail;
      const k = (32 - avail) >> 3;
      this.p = p + k;
      this.avail = avail + 8 * k;
      return;
    }
    let acc = this.acc;
    let q = p;
    while (avail <= 24) {
      const b: u32 = q < this.end ? <u32>load<u8>(q) : 0;
      acc |= b << (24 - avail);
      q++;
      avail += 8;
    }
    this.acc = acc;
    this.p = q;
    this.avail = avail;
  }

  /** Reads `n` bits, 0 <= n <= 24. */
  @inline read(n: i32): u32 {
    if (n == 0) return 0;
    if (this.avail < n) this.refill();
    const acc = this.acc;
    this.acc = acc << n;
    this.avail -= n;
    return acc >>> (32 - n);
  }

  readLong(n: i32): u32 {
    if (n <= 24) return this.read(n);
    const hi = this.read(24);
    return (hi << (n - 24)) + this.read(n - 24);
  }

  leadingZeros(): i32 {
    this.refill();
    return clz<u32>(this.acc);
  }

  peek32(): u32 {
    this.refill();
    return this.acc;
  }

  skip(n: i32): void {
    if (this.avail < n) this.refill();
    this.acc <<= n;
    this.avail -= n;
  }

  bitPos(): i32 {
    return <i32>(this.p - this.buf) * 8 - this.avail;
  }

  seekBit(bit: i32): void {
    this.p = this.buf + <usize>(bit >>> 3);
    this.acc = 0;
    this.avail = 0;
    this.refill();
    this.skip(bit & 7);
  }

  bytePos(): usize {
    return this.p - (this.avail >> 3);
  }
}

@unmanaged
export class BackwardBits {
  buf: usize;
  p: usize;
  start: usize;
  acc: u32;
  avail: i32;

  init(pos: usize, start: usize): BackwardBits {
    this.buf = pos;
    this.p = pos;
    this.start = start;
    this.acc = 0;
    this.avail = 0;
    this.refill();
    return this;
  }

  refill(): void {
    let avail = this.avail;
    if (avail > 24) return;
    const p = this.p;
    if (p >= this.start + 4) {
      this.acc |= load<u32>(p - 4) >>> avail;
      const k = (32 - avail) >> 3;
      this.p = p - k;
      this.avail = avail + 8 * k;
      return;
    }
    let acc = this.acc;
    let q = p;
    while (avail <= 24) {
      const b: u32 = q > this.start ? <u32>load<u8>(q - 1) : 0;
      acc |= b << (24 - avail);
      q--;
      avail += 8;
    }
    this.acc = acc;
    this.p = q;
    this.avail = avail;
  }

  @inline read(n: i32): u32 {
    if (n == 0) return 0;
    if (this.avail < n) this.refill();
    const acc = this.acc;
    this.acc = acc << n;
    this.avail -= n;
    return acc >>> (32 - n);
  }

  readLong(n: i32): u32 {
    if (n <= 24) return this.read(n);
    const hi = this.read(24);
    return (hi << (n - 24)) + this.read(n - 24);
  }

  leadingZeros(): i32 {
    this.refill();
    return clz<u32>(this.acc);
  }

  peek32(): u32 {
    this.refill();
    return this.acc;
  }

  skip(n: i32): void {
    if (this.avail < n) this.refill();
    this.acc <<= n;
    this.avail -= n;
  }

  bytePos(): usize {
    return this.p + (this.avail >> 3);
  }
}

/** Static reader instances: two of each kind are ever live at once. */
export const FW: ForwardBits = changetype<ForwardBits>(memory.data(32, 8));
export const BW: BackwardBits = changetype<BackwardBits>(memory.data(32, 8));
/** The table-header reader, separate from the side-stream ones. */
export const TW: ForwardBits = changetype<ForwardBits>(memory.data(32, 8));
