/**
 * UTF-8 text written straight into a reused byte buffer: for long JSON documents of a known shape (an unpack
 * manifest: an entry per chunk, tens of MB), whose text made as strings, then encoded, was most of the time spent
 * writing them and kept V8's young generation busy. Numbers, hex and names are written as bytes; only what is rare
 * goes through a string.
 */
export class JsonBytes {
  private buf: Uint8Array;
  /** Bytes written. */
  length = 0;
  private readonly encoder = new TextEncoder();

  constructor(capacity = 1 << 16) {
    this.buf = new Uint8Array(capacity);
  }

  /** The bytes written (a view: valid until the next write after `clear`). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
  }

  /** Room for `n` more bytes. */
  private room(n: number): Uint8Array {
    if (this.length + n > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
      grown.set(this.buf.subarray(0, this.length));
      this.buf = grown;
    }
    return this.buf;
  }

  /** Bytes as they are (text already encoded: see `encode`). */
  bytes(b: Uint8Array): void {
    const n = b.length;
    const buf = this.room(n);
    // The fixed pieces of a manifest entry are a few bytes each: copied in a loop, not by a call of `set` (which
    // was a quarter of the time writing 150,000 entries).
    if (n <= 32) {
      const at = this.length;
      for (let k = 0; k < n; k++) buf[at + k] = b[k]!;
    } else {
      buf.set(b, this.length);
    }
    this.length += n;
  }

  /** A copy of bytes [from, to) already written, appended (a value written twice). */
  again(from: number, to: number): void {
    this.room(to - from).copyWithin(this.length, from, to);
    this.length += to - from;
  }

  /** One byte. */
  byte(c: number): void {
    this.room(1)[this.length++] = c;
  }

  /** Any text, encoded as UTF-8. */
  text(s: string): void {
    const buf = this.room(s.length * 3);
    this.length += this.encoder.encodeInto(s, buf.subarray(this.length)).written;
  }

  /** `JSON.stringify(s)`, encoded. */
  string(s: string): void {
    this.text(JSON.stringify(s));
  }

  /** A number as JSON writes it: non-negative integers below 2^53 digit by digit, anything else through a string. */
  number(v: number): void {
    if (!(v >= 0 && v <= Number.MAX_SAFE_INTEGER && Math.floor(v) === v)) {
      this.text(JSON.stringify(v));
      return;
    }
    let digits = 1;
    for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
    const buf = this.room(digits);
    let x = v;
    for (let k = this.length + digits - 1; k >= this.length; k--) {
      const q = Math.floor(x / 10);
      buf[k] = 0x30 + (x - q * 10);
      x = q;
    }
    this.length += digits;
  }

  /** Lower-case hex of `b[from, to)`. */
  hex(b: Uint8Array, from = 0, to = b.length): void {
    const buf = this.room(2 * (to - from));
    let at = this.length;
    for (let k = from; k < to; k++) {
      const v = b[k]!;
      buf[at++] = HEX[v >> 4]!;
      buf[at++] = HEX[v & 15]!;
    }
    this.length = at;
  }

  /**
   * The inside of a JSON string (no quotes) for Latin-1 bytes `b[from, to)`: `"` and `\` escaped, control characters
   * as JSON.stringify writes them, bytes of 0x80 and above as two bytes of UTF-8.
   */
  latin1(b: Uint8Array, from: number, to: number): void {
    const buf = this.room(6 * (to - from));
    let at = this.length;
    for (let k = from; k < to; k++) {
      const c = b[k]!;
      if (c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c) buf[at++] = c;
      else if (c >= 0x80) {
        buf[at++] = 0xc0 | (c >> 6);
        buf[at++] = 0x80 | (c & 0x3f);
      } else {
        const e = ESCAPES[c]!;
        buf.set(e, at);
        at += e.length;
      }
    }
    this.length = at;
  }
}

const utf8 = new TextEncoder();

/** JSON text as UTF-8 bytes, for the fixed pieces of a document a writer copies again and again. */
export function encodeText(s: string): Uint8Array {
  return utf8.encode(s);
}

/**
 * Texts as UTF-8 bytes end to end, with where each ends (`ends[k]`: the byte after text k). ASCII texts (the usual
 * case: a writer's tables of names and fixed pieces) are encoded by one call; an encode is ~1 us of native calls
 * however short the text, which hundreds of texts felt.
 */
export function encodeTexts(list: readonly string[]): { bytes: Uint8Array; ends: Int32Array } {
  const ends = new Int32Array(list.length);
  const whole = list.join('');
  let bytes = utf8.encode(whole);
  let at = 0;
  // As many bytes as UTF-16 units only when every character is ASCII: then a text's bytes are its units.
  if (bytes.length === whole.length) {
    for (let k = 0; k < list.length; k++) ends[k] = at += list[k]!.length;
    return { bytes, ends };
  }
  const each = list.map(encodeText);
  bytes = new Uint8Array(each.reduce((n, b) => n + b.length, 0));
  each.forEach((b, k) => {
    bytes.set(b, at);
    ends[k] = at += b.length;
  });
  return { bytes, ends };
}

const HEX = encodeText('0123456789abcdef');
/** What JSON.stringify writes for the characters below 0x20, `"` and `\`. */
const ESCAPES: Uint8Array[] = Array.from({ length: 0x5d }, (_, c) => encodeText(JSON.stringify(String.fromCharCode(c)).slice(1, -1)));
