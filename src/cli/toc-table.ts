import type { IoStoreToc } from '../toc/toc.js';
import { CHUNK_ID_SIZE, chunkTypeName } from '../toc/chunk-id.js';
import { escapeControl } from '../util/quote.js';

/**
 * The chunk table of `iostore list` (to a file or a pipe) for the chunks `order` selects, written as bytes: the same
 * text as `chunkTable(tocColumns(toc, order))` (src/cli/commands/list.ts), without a string per cell. A game's
 * listing is hundreds of thousands of rows, and a cell, path and line made as strings per row was most of the run
 * and of its garbage (150,000 chunks: ~3.5 of ~5.8 s of a profile, a quarter of it the collector's). Ids and hashes
 * go from the TOC's bytes through a hex table, numbers digit by digit, a path as its folder's bytes (made once per
 * folder) and its stored name's (the directory index's Latin-1 FString) when both are printable ASCII; any other
 * path is made and escaped as the string table would show it. `write` is given the text in parts of ~64 KiB.
 */
export function writeTocTable(toc: IoStoreToc, order: ArrayLike<number>, write: (text: string) => void): void {
  const rows = new TocRows(toc, order);
  const w = rows.widths();
  const rule = w.map((x) => '-'.repeat(x)).join('  ');
  const head = `${'#'.padStart(w[0]!)}  ${'chunk id'.padEnd(w[1]!)}  ${'type'.padEnd(w[2]!)}  ${'path'.padEnd(w[3]!)}  ${'size'.padStart(w[4]!)}  ${'stored'.padStart(w[5]!)}  ${'blocks'.padStart(w[6]!)}  hash\n${rule}\n`;
  const out = new TextOut(write, w.reduce((a, x) => a + x, 16));
  out.ascii(head);
  for (let k = 0; k < order.length; k++) rows.write(out, k);
  out.end();
}

/**
 * The rows of a table: widths from a first pass, then each row written. Small methods, each compiled on its own: one
 * function holding both loops and every cell inlined into them took V8's optimizing compiler ~3 MB more peak memory
 * (`list` of 5,370 chunks: 55.5 -> 58.2 MB).
 */
class TocRows {
  private readonly paths: RowPaths;
  private readonly types: TypeNames;
  /** Summed over each chunk's blocks: once. */
  private readonly storedSizes: Float64Array;
  private w: number[] = [];

  constructor(
    private readonly toc: IoStoreToc,
    private readonly order: ArrayLike<number>,
  ) {
    this.paths = new RowPaths(toc);
    this.types = new TypeNames(toc);
    this.storedSizes = new Float64Array(order.length);
  }

  /** The columns' widths: numbers are whole and >= 0, so the widest is the largest. */
  widths(): number[] {
    const { toc, order, paths, types, storedSizes } = this;
    let index = 0;
    let size = 0;
    let stored = 0;
    let blocks = 0;
    let w2 = 'type'.length;
    let w3 = 'path'.length;
    let w7 = 4;
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      if (i > index) index = i;
      const len = toc.chunkSize(i);
      if (len > size) size = len;
      const s = (storedSizes[k] = toc.chunkStoredSize(i));
      if (s > stored) stored = s;
      const b = toc.chunkBlockCount(i);
      if (b > blocks) blocks = b;
      w2 = Math.max(w2, types.width(toc.chunkType(i)));
      w3 = Math.max(w3, paths.width(i));
      w7 = Math.max(w7, 2 * hashLength(toc, i));
    }
    const w1 = order.length > 0 ? Math.max('chunk id'.length, ID_HEX) : 'chunk id'.length;
    const w4 = Math.max('size'.length, String(size).length);
    const w5 = Math.max('stored'.length, String(stored).length);
    const w6 = Math.max('blocks'.length, String(blocks).length);
    return (this.w = [String(index).length, w1, w2, w3, w4, w5, w6, w7]);
  }

  /** Row k (after `widths`). */
  write(out: TextOut, k: number): void {
    const { toc, w } = this;
    const i = this.order[k]!;
    out.room();
    out.number(i, w[0]!);
    out.blanks(2);
    out.hex(toc.chunkIds, i * CHUNK_ID_SIZE, CHUNK_ID_SIZE);
    out.blanks(2 + w[1]! - ID_HEX);
    out.blanks(2 + w[2]! - this.types.put(out, toc.chunkType(i)));
    out.blanks(2 + w[3]! - this.paths.put(out, i));
    out.number(toc.chunkSize(i), w[4]!);
    out.blanks(2);
    out.number(this.storedSizes[k]!, w[5]!);
    out.blanks(2);
    out.number(toc.chunkBlockCount(i), w[6]!);
    const h = hashLength(toc, i);
    // renderTable trims the blanks an empty last cell leaves.
    if (h > 0) {
      out.blanks(2);
      out.hex(toc.metas, i * toc.metaSize, h);
    }
    out.newline();
  }
}

const ID_HEX = 2 * CHUNK_ID_SIZE;

/** Bytes of chunk i's hash as IoStoreToc.chunkHash gives it: 20, or all of a 32-byte field whose last 12 are used. */
function hashLength(toc: IoStoreToc, i: number): number {
  const s = toc.metaHashSize;
  if (s <= 20) return s;
  const at = i * toc.metaSize;
  for (let k = 20; k < s; k++) if (toc.metas[at + k] !== 0) return s;
  return 20;
}

/** Chunk type names (a handful): their bytes and widths made once. */
class TypeNames {
  private readonly names = new Map<number, { bytes: Uint8Array; width: number }>();
  constructor(private readonly toc: IoStoreToc) {}
  private of(type: number): { bytes: Uint8Array; width: number } {
    let x = this.names.get(type);
    if (!x) {
      const name = escapeControl(chunkTypeName(type, this.toc.generation));
      this.names.set(type, (x = { bytes: Buffer.from(name, 'utf8'), width: name.length }));
    }
    return x;
  }
  width(type: number): number {
    return this.of(type).width;
  }
  /** Writes the name; returns its width. */
  put(out: TextOut, type: number): number {
    const x = this.of(type);
    out.bytes(x.bytes, 0, x.bytes.length, x.bytes.length === x.width);
    return x.width;
  }
}

/**
 * Chunk paths as the table shows them (escapeControl of chunkPath, '' when unnamed). A path whose folder and stored
 * name are printable ASCII is copied as bytes; any other is made as a string (and kept for the second pass only
 * while such paths are few).
 */
class RowPaths {
  private readonly folderBytes: Array<Uint8Array | null | undefined> = [];
  private readonly names: Uint8Array | undefined;
  private readonly slow = new Map<number, { bytes: Uint8Array; width: number }>();
  constructor(private readonly toc: IoStoreToc) {
    this.names = toc.chunkPaths?.storedNames;
  }

  /** Folder f's path as bytes when it is printable ASCII, else null. */
  private folder(f: number): Uint8Array | null {
    let x = this.folderBytes[f];
    if (x === undefined) {
      const text = this.toc.chunkPaths!.folderPath(f);
      x = this.folderBytes[f] = printable(text) ? Buffer.from(text, 'latin1') : null;
    }
    return x;
  }

  /** Where chunk i's stored name's characters start and end in `names`, when they are printable ASCII; else -1. */
  private nameAt(i: number): number {
    const at = this.toc.chunkPaths!.storedNameAt(i);
    if (at < 0 || !this.names) return -1;
    const b = this.names;
    const len = b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);
    if (len <= 0) return -1;
    for (let k = at + 4, e = at + 3 + len; k < e; k++) if (b[k]! < 0x20 || b[k]! > 0x7e) return -1;
    return at;
  }

  /** The path of a chunk that has no fast form, as the table shows it. */
  private text(i: number): { bytes: Uint8Array; width: number } {
    let x = this.slow.get(i);
    if (!x) {
      const text = escapeControl(this.toc.chunkPath(i) ?? '');
      x = { bytes: Buffer.from(text, 'utf8'), width: text.length };
      // Kept for the second pass only while few: a container of such names is made twice instead of held.
      if (this.slow.size < 4096) this.slow.set(i, x);
    }
    return x;
  }

  width(i: number): number {
    const paths = this.toc.chunkPaths;
    const f = paths ? paths.folder(i) : -1;
    if (f < 0) return 0;
    const folder = this.folder(f);
    const at = folder ? this.nameAt(i) : -1;
    if (at < 0) return this.text(i).width;
    const b = this.names!;
    return folder!.length + (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) - 1;
  }

  /** Writes chunk i's path; returns its width. */
  put(out: TextOut, i: number): number {
    const paths = this.toc.chunkPaths;
    const f = paths ? paths.folder(i) : -1;
    if (f < 0) return 0;
    const folder = this.folder(f);
    const at = folder ? this.nameAt(i) : -1;
    if (at < 0) {
      const x = this.text(i);
      out.bytes(x.bytes, 0, x.bytes.length, x.bytes.length === x.width);
      return x.width;
    }
    const b = this.names!;
    const len = (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) - 1;
    out.bytes(folder!, 0, folder!.length, true);
    out.bytes(b, at + 4, len, true);
    return folder!.length + len;
  }
}

function printable(s: string): boolean {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/** Two hex digits per byte value, as char codes. */
const HEX_PAIRS = (() => {
  const t = new Uint16Array(256);
  const d = '0123456789abcdef';
  // Little-endian: the first digit in the low byte, so a pair goes out as one 16-bit store.
  for (let v = 0; v < 256; v++) t[v] = d.charCodeAt(v >> 4) | (d.charCodeAt(v & 15) << 8);
  return t;
})();

/** A buffer of text written in parts: ASCII (or UTF-8) bytes, handed on as strings of ~64 KiB. */
class TextOut {
  private buf: Buffer;
  private at = 0;
  private isAscii = true;
  constructor(
    private readonly write: (text: string) => void,
    /** The widest a row can be, in bytes, without its path's and type's non-ASCII bytes. */
    private readonly rowBytes: number,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(1 << 16, 2 * rowBytes));
  }

  /** Makes room for one more row (a cell's bytes beyond rowBytes are made room for as they come). */
  room(): void {
    if (this.at + this.rowBytes > 1 << 16) this.flush();
    this.ensure(this.rowBytes);
  }

  private ensure(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  private flush(): void {
    if (this.at === 0) return;
    this.write(this.buf.toString(this.isAscii ? 'latin1' : 'utf8', 0, this.at));
    this.at = 0;
    this.isAscii = true;
  }

  /** ASCII text (the header). */
  ascii(s: string): void {
    this.ensure(s.length);
    this.at += this.buf.write(s, this.at, 'latin1');
  }

  bytes(b: Uint8Array, from: number, n: number, ascii: boolean): void {
    this.ensure(n);
    if (n > 64) {
      this.buf.set(b.subarray(from, from + n), this.at);
      this.at += n;
    } else {
      // A name's few bytes: a view per copy was most of the run's garbage.
      const out = this.buf;
      let at = this.at;
      for (let k = from, e = from + n; k < e; k++) out[at++] = b[k]!;
      this.at = at;
    }
    if (!ascii) this.isAscii = false;
  }

  blanks(n: number): void {
    const b = this.buf;
    for (let e = this.at + n; this.at < e; ) b[this.at++] = 0x20;
  }

  newline(): void {
    this.buf[this.at++] = 0x0a;
  }

  /** `v` (whole, >= 0) right-aligned in `width` characters. */
  number(v: number, width: number): void {
    let digits = 1;
    for (let x = v; x >= 10; x /= 10) digits++;
    this.blanks(width - digits);
    const b = this.buf;
    let at = this.at + digits;
    this.at = at;
    let x = v;
    for (; x >= 0x80000000; x = Math.floor(x / 10)) b[--at] = 0x30 + (x % 10);
    // Small integers from here: integer division.
    let y = x | 0;
    do {
      const q = (y / 10) | 0;
      b[--at] = 0x30 + y - 10 * q;
      y = q;
    } while (y > 0);
  }

  hex(src: Uint8Array, from: number, n: number): void {
    const b = this.buf;
    let at = this.at;
    for (let k = from, e = from + n; k < e; k++) {
      const p = HEX_PAIRS[src[k]!]!;
      b[at] = p & 0xff;
      b[at + 1] = p >> 8;
      at += 2;
    }
    this.at = at;
  }

  end(): void {
    this.flush();
  }
}
