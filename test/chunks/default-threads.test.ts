import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { ContainerReader } from '../../src/cas/container-reader.js';
import { LoopTasks } from '../../src/chunks/chunk-loop.js';
import { containerDecodeBytes, DECODE_MIN_BYTES, defaultHashThreads, defaultLoopThreads, defaultWriteThreads, HASH_STORED_MIN_BYTES, WRITE_FILES_MIN } from '../../src/chunks/loop-pool.js';
import { EncryptionMethod } from '../../src/toc/version.js';

/** A stand-in reader: `chunks` chunks of one block each, of `blockBytes` bytes, compressed or stored. */
function reader(chunks: number, blockBytes: number, compressed: boolean, seen?: Set<number>): ContainerReader {
  const toc = {
    chunkCount: chunks,
    blockCount: chunks,
    encryption: EncryptionMethod.None,
    compressionMethods: compressed ? ['None', 'Zlib'] : ['None'],
    chunkFirstBlock: (i: number) => i,
    chunkBlockCount: () => 1,
    blocks: { method: (b: number) => (seen?.add(b), compressed ? 1 : 0), uncompressedSize: () => blockBytes },
    totals: () => ({ rawSize: chunks * blockBytes, storedSize: chunks * blockBytes }),
  };
  return { toc } as unknown as ContainerReader;
}

const tasks = (n: number, write: boolean) => LoopTasks.of(Array.from({ length: n }, (_, index) => ({ container: 0, index, ...(write ? { target: `f${index}` } : {}) })));

describe.skipIf(availableParallelism() < 2)('default worker threads of unpack and verify', () => {
  const cores = Math.min(availableParallelism() - 1, 7);

  it('one per other core for 16 MiB of decoding, one for many files, else none', () => {
    const few = reader(WRITE_FILES_MIN - 1, 1024, false);
    const many = reader(WRITE_FILES_MIN, 1024, false);
    const packed = reader(64, DECODE_MIN_BYTES / 64, true);
    expect(defaultWriteThreads([few])).toBe(0);
    expect(defaultWriteThreads([many])).toBe(1);
    expect(defaultWriteThreads([few, reader(1, 1, false)])).toBe(1);
    expect(defaultWriteThreads([packed])).toBe(cores);
    expect(defaultWriteThreads([reader(64, DECODE_MIN_BYTES / 64 - 1, true)])).toBe(0);
    // From a plan: only written chunks count as files, and only its chunks as decoding.
    expect(defaultLoopThreads([many], tasks(WRITE_FILES_MIN, true))).toBe(1);
    expect(defaultLoopThreads([many], tasks(WRITE_FILES_MIN, false))).toBe(0);
    expect(defaultLoopThreads([packed], tasks(63, true))).toBe(0);
    expect(defaultLoopThreads([packed], tasks(64, false))).toBe(cores);
  });

  it('verify: one per other core for 16 MiB of decoding; one for a large stored container, else none', () => {
    expect(defaultHashThreads([reader(64, DECODE_MIN_BYTES / 64, true)])).toBe(cores);
    expect(defaultHashThreads([reader(WRITE_FILES_MIN * 4, 1024, false)])).toBe(0);
    expect(defaultHashThreads([reader(1024, HASH_STORED_MIN_BYTES / 1024 - 1, false)])).toBe(0);
    expect(defaultHashThreads([reader(1024, HASH_STORED_MIN_BYTES / 1024, false)])).toBe(1);
    // The side-by-side bench's stored container (3,000 chunks, 258 MB): two threads, as the Node floor hashes it.
    expect(defaultHashThreads([reader(3000, 86_000, false)])).toBe(1);
  });

  it('the threads are chosen without walking every block of a game: decoding is counted up to the 16 MiB that decides', () => {
    const seen = new Set<number>();
    const game = reader(150_000, 16 << 10, true, seen);
    expect(defaultWriteThreads([game])).toBe(cores);
    expect(seen.size).toBe(DECODE_MIN_BYTES / (16 << 10));
    seen.clear();
    expect(defaultHashThreads([game])).toBe(cores);
    expect(seen.size).toBe(DECODE_MIN_BYTES / (16 << 10));
    // Asked for all of it, the count is whole.
    expect(containerDecodeBytes([game])).toBe(150_000 * (16 << 10));
    // A stored game's TOC names no compression method: no block is looked at.
    seen.clear();
    expect(defaultHashThreads([reader(150_000, 16 << 10, false, seen)])).toBe(1);
    expect(seen.size).toBe(0);
  });
});
