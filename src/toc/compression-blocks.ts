import { readU24LE, readU40LE, writeU24LE, writeU40LE } from '../util/bytes.js';

export const BLOCK_ENTRY_SIZE = 12;

// The fields of the entry at byte `o` of a block table's bytes: for loops that walk the table in place (o stepping by
// BLOCK_ENTRY_SIZE), where a BlockTable call per field costs more than the field (code run without TurboFan).
export const entryOffset = (x: Uint8Array, o: number): number => readU40LE(x, o);
export const entryCompressedSize = (x: Uint8Array, o: number): number => readU24LE(x, o + 5);
export const entryUncompressedSize = (x: Uint8Array, o: number): number => readU24LE(x, o + 8);
export const entryMethod = (x: Uint8Array, o: number): number => x[o + 11]!;

/** One FIoStoreTocCompressedBlockEntry, decoded. */
export interface BlockEntry {
  /** Offset in the container's (partitioned) .ucas address space. */
  offset: number;
  /** Stored size before the 16-byte padding. */
  compressedSize: number;
  uncompressedSize: number;
  /** 0 = None; k = the TOC's compression method k. */
  method: number;
}

/**
 * The compression block table, kept in its on-disk form (5-byte offset, 3-byte compressed size, 3-byte uncompressed
 * size, 1-byte method, little-endian) and decoded per access: a game container has tens of thousands of blocks and
 * most commands touch few of them.
 */
export class BlockTable {
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  static fromEntries(entries: readonly BlockEntry[]): BlockTable {
    const b = new Uint8Array(entries.length * BLOCK_ENTRY_SIZE);
    entries.forEach((e, i) => {
      const o = i * BLOCK_ENTRY_SIZE;
      writeU40LE(b, o, e.offset);
      writeU24LE(b, o + 5, e.compressedSize);
      writeU24LE(b, o + 8, e.uncompressedSize);
      b[o + 11] = e.method;
    });
    return new BlockTable(b);
  }

  get count(): number {
    return this.bytes.length / BLOCK_ENTRY_SIZE;
  }
  offset(i: number): number {
    return entryOffset(this.bytes, i * BLOCK_ENTRY_SIZE);
  }
  compressedSize(i: number): number {
    return entryCompressedSize(this.bytes, i * BLOCK_ENTRY_SIZE);
  }
  uncompressedSize(i: number): number {
    return entryUncompressedSize(this.bytes, i * BLOCK_ENTRY_SIZE);
  }
  method(i: number): number {
    return entryMethod(this.bytes, i * BLOCK_ENTRY_SIZE);
  }
  entry(i: number): BlockEntry {
    return { offset: this.offset(i), compressedSize: this.compressedSize(i), uncompressedSize: this.uncompressedSize(i), method: this.method(i) };
  }
}
