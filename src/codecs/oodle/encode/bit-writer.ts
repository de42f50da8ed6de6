/**
 * Bit writers for the encoder, the mirror images of bit-reader.ts and the Huffman stream readers.
 *
 * `MsbWriter` packs bits most significant first, as the table headers and the offset/length side streams are read.
 * `LsbWriter` packs them least significant first, as the Huffman streams are read; it can run backward (each new
 * byte below the previous one), which is how the third Huffman stream of an array is laid out.
 * Neither checks for room: callers size their buffers for the worst case.
 */

export class MsbWriter {
  /** Pending bits, right-aligned: the low `n` bits of `acc`. */
  private acc = 0;
  private n = 0;
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    pos = 0,
  ) {
    this.pos = pos;
  }

  /** Appends the low `bits` bits of `value` (0 <= bits <= 24). */
  write(value: number, bits: number): void {
    this.acc = (this.acc << bits) | value;
    this.n += bits;
    while (this.n >= 8) {
      this.n -= 8;
      this.buf[this.pos++] = this.acc >>> this.n;
    }
    this.acc &= (1 << this.n) - 1;
  }

  /** Appends up to 32 bits in two steps. */
  writeLong(value: number, bits: number): void {
    if (bits <= 24) {
      this.write(value, bits);
      return;
    }
    const low = bits - 24;
    this.write(Math.floor(value / 2 ** low), 24);
    this.write(value % 2 ** low, low);
  }

  /** Appends `count` zero bits. */
  zeros(count: number): void {
    for (; count > 24; count -= 24) this.write(0, 24);
    this.write(0, count);
  }

  /** Bits written so far. */
  bitLength(start: number): number {
    return (this.pos - start) * 8 + this.n;
  }

  /** Pads the last byte with zero bits and returns the position after it. */
  finish(): number {
    if (this.n > 0) {
      this.buf[this.pos++] = this.acc << (8 - this.n);
      this.acc = 0;
      this.n = 0;
    }
    return this.pos;
  }
}

export class LsbWriter {
  private acc = 0;
  private n = 0;
  pos: number;

  /** `step` is 1 to write forward from `pos`, -1 to write backward (the first byte at `pos`, the next below it). */
  constructor(
    readonly buf: Uint8Array,
    pos: number,
    readonly step: 1 | -1,
  ) {
    this.pos = pos;
  }

  /** Appends `bits` bits of `value`, lowest first (bits <= 24). */
  write(value: number, bits: number): void {
    this.acc |= value << this.n;
    this.n += bits;
    while (this.n >= 8) {
      this.buf[this.pos] = this.acc;
      this.pos += this.step;
      this.acc >>>= 8;
      this.n -= 8;
    }
  }

  /** Writes out a partly filled last byte (its high bits zero); returns the position after the last byte. */
  finish(): number {
    if (this.n > 0) {
      this.buf[this.pos] = this.acc;
      this.pos += this.step;
      this.acc = 0;
      this.n = 0;
    }
    return this.pos;
  }
}
