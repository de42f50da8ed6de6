import { readU24LE, readU40LE, writeU24LE, writeU40LE } from '../util/bytes.js';

export const BLOCK_ENTRY_SIZE = 12;

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
    return readU40LE(this.bytes, i * BLOCK_ENTRY_SIZE);
  }
  compressedSize(i: number): number {
    return readU24LE(this.bytes, i * BLOCK_ENTRY_SIZE + 5);
  }
  uncompressedSize(i: number): number {
    return readU24LE(this.bytes, i * BLOCK_ENTRY_SIZE + 8);
  }
  method(i: number): number {
    return this.bytes[i * BLOCK_ENTRY_SIZE + 11]!;
  }
  entry(i: number): BlockEntry {
    return { offset: this.offset(i), compressedSize: this.compressedSize(i), uncompressedSize: this.uncompressedSize(i), method: this.method(i) };
  }
}
