import type { PakBlock, PakEntryRecord } from './entry.js';

/** The entries an index is built from (buildPakIndex), in index order: a list of objects, or a PakRecordTable. */
export interface PakIndexRecords {
  readonly length: number;
  path(i: number): string;
  /** Entry i as an object, made when asked for (its `hash` and `blocks` are its own). */
  record(i: number): PakEntryRecord;
}

/** A list of { path, record } objects as PakIndexRecords. */
export function recordList(list: readonly { path: string; record: PakEntryRecord }[]): PakIndexRecords {
  return { length: list.length, path: (i) => list[i]!.path, record: (i) => list[i]!.record };
}

/**
 * The entries `pack` writes, packed: numbers, block bounds and SHA-1s in typed arrays that grow by doubling, the
 * paths kept by the caller (the files being written, in the same order). An object, a 20-byte Uint8Array and an
 * array of block objects per entry had taken ~0.5 KB a file of a 50,000-file pak's peak.
 */
export class PakRecordTable implements PakIndexRecords {
  length = 0;
  /** Per entry: offset, size, uncompressed size. */
  private nums = new Float64Array(3 * 64);
  /** Per entry: method index, compression block size, flags, first block. */
  private ints = new Uint32Array(4 * 64);
  private hashes = new Uint8Array(20 * 64);
  /** Per block: start, end (absolute). */
  private blocks = new Float64Array(2 * 64);
  private blockCount = 0;

  constructor(private readonly pathOf: (i: number) => string) {}

  path(i: number): string {
    return this.pathOf(i);
  }

  push(r: PakEntryRecord): void {
    const i = this.length;
    if (i === this.ints.length / 4) {
      this.nums = grown(this.nums, 2 * this.nums.length);
      this.ints = grown(this.ints, 2 * this.ints.length);
      this.hashes = grown(this.hashes, 2 * this.hashes.length);
    }
    while (2 * (this.blockCount + r.blocks.length) > this.blocks.length) this.blocks = grown(this.blocks, 2 * this.blocks.length);
    this.nums[3 * i] = r.offset;
    this.nums[3 * i + 1] = r.size;
    this.nums[3 * i + 2] = r.uncompressedSize;
    this.ints[4 * i] = r.compressionMethodIndex;
    this.ints[4 * i + 1] = r.compressionBlockSize;
    this.ints[4 * i + 2] = r.flags;
    this.ints[4 * i + 3] = this.blockCount;
    if (r.hash) this.hashes.set(r.hash.subarray(0, 20), 20 * i);
    for (const b of r.blocks) {
      this.blocks[2 * this.blockCount] = b.start;
      this.blocks[2 * this.blockCount + 1] = b.end;
      this.blockCount++;
    }
    this.length++;
  }

  /** The SHA-1s of the entries from `first` on, back to back (entries pushed without theirs). */
  setHashes(first: number, hashes: Uint8Array): void {
    this.hashes.set(hashes, 20 * first);
  }

  record(i: number): PakEntryRecord {
    const first = this.ints[4 * i + 3]!;
    const end = i + 1 < this.length ? this.ints[4 * (i + 1) + 3]! : this.blockCount;
    const blocks: PakBlock[] = [];
    for (let b = first; b < end; b++) blocks.push({ start: this.blocks[2 * b]!, end: this.blocks[2 * b + 1]! });
    return {
      offset: this.nums[3 * i]!,
      size: this.nums[3 * i + 1]!,
      uncompressedSize: this.nums[3 * i + 2]!,
      compressionMethodIndex: this.ints[4 * i]!,
      hash: this.hashes.slice(20 * i, 20 * i + 20),
      blocks,
      compressionBlockSize: this.ints[4 * i + 1]!,
      flags: this.ints[4 * i + 2]!,
    };
  }
}

function grown<T extends Float64Array | Uint32Array | Uint8Array>(a: T, n: number): T {
  const out = new (a.constructor as new (n: number) => T)(n);
  out.set(a);
  return out;
}
