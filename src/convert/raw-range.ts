import { closeSync, openSync } from 'node:fs';
import type { ContainerReader } from '../cas/container-reader.js';
import { EncryptionMethod } from '../toc/version.js';
import { readFullSync } from '../util/read-full.js';

/**
 * Exact reads of stored-raw chunk bytes for to-legacy. A package is a few KiB inside a 64 KiB block: reading it
 * through the block reader reads and allocates whole blocks (then copies the package out of them), which for a
 * container of small packages costs more in page faults and copies than the conversion of the bytes. When every
 * block under a range is stored raw, unencrypted and back to back in one partition, the range is one read into a
 * buffer of its own size; otherwise (compressed, encrypted, padded) the caller reads through the block reader.
 */
export class RawRangeReader {
  private readonly fds = new Map<string, number>();

  /** `length` bytes of chunk `i` from `offset`, or undefined when they cannot be read in one raw read. */
  read(reader: ContainerReader, i: number, offset: number, length: number): Uint8Array | undefined {
    const toc = reader.toc;
    const origin = reader.origin;
    if (!origin || toc.encryption !== EncryptionMethod.None || length <= 0) return undefined;
    if (offset < 0 || offset + length > toc.chunkSize(i)) return undefined;
    const bs = toc.blockSize;
    const start = toc.chunkOffset(i) + offset;
    const first = Math.floor(start / bs);
    const last = Math.floor((start + length - 1) / bs);
    if (last >= toc.blockCount) return undefined;
    const blocks = toc.blocks;
    const at = reader.locate(first);
    for (let b = first; b <= last; b++) {
      // Raw blocks hold their bytes as they are; the next one must follow without padding, in the same partition.
      if (blocks.method(b) !== 0 || blocks.compressedSize(b) < blocks.uncompressedSize(b)) return undefined;
      if (b > first) {
        const p = reader.locate(b);
        if (p.partition !== at.partition || p.offset !== at.offset + (b - first) * bs) return undefined;
      }
      if (b < last && blocks.uncompressedSize(b) !== bs) return undefined;
    }
    const path = origin.partitions[at.partition];
    if (path === undefined) return undefined;
    let fd = this.fds.get(path);
    if (fd === undefined) {
      try {
        fd = openSync(path, 'r');
      } catch {
        return undefined;
      }
      this.fds.set(path, fd);
    }
    const out = new Uint8Array(length);
    const from = at.offset + (start - first * bs);
    // A short file: left to the block reader, which reports it with its offset.
    return readFullSync(fd, out, 0, length, from) === length ? out : undefined;
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}
