import { fstatSync } from 'node:fs';
import { closeSync, openSync, readSync } from '../util/sync-fs.js';
import { open, type FileHandle } from 'node:fs/promises';
import { IoStoreError } from '../errors.js';
import { ioError } from '../toc/read-file.js';
import { withoutExtension } from '../util/file-extension.js';

/** Positional reads from one file or buffer: what the block reader needs of a `.ucas` partition. */
export interface RandomAccessSource {
  readonly name: string;
  size(): Promise<number>;
  /** Reads exactly `length` bytes at `offset`; fails with TRUNCATED if the source ends first. */
  read(offset: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
  /** `read` returns a view of one buffer that the next `read` overwrites (see `fileSourceSync`). */
  readonly transient?: boolean;
  /**
   * The same read as a blocking call, when the source can serve one (files read with blocking calls, bytes in
   * memory): the whole-chunk loops of unpack and verify run on it without a round trip per read.
   */
  readSync?(offset: number, length: number): Uint8Array;
}

/** A source over bytes already in memory (tests, browsers). */
export function bytesSource(bytes: Uint8Array, name = '<memory>'): RandomAccessSource {
  const readSync = (offset: number, length: number): Uint8Array => {
    if (offset + length > bytes.length) {
      throw new IoStoreError('TRUNCATED', `needs ${length} bytes but the file is ${bytes.length} bytes`, { file: name, offset });
    }
    return bytes.subarray(offset, offset + length);
  };
  return {
    name,
    size: async () => bytes.length,
    read: async (offset, length) => readSync(offset, length),
    readSync,
    close: async () => {},
  };
}

/** A source over a file, opened on first use. */
export function fileSource(path: string): RandomAccessSource {
  let handle: Promise<FileHandle> | undefined;
  const fh = () => {
    handle ??= open(path, 'r').catch((e) => {
      throw ioError(e, path);
    });
    return handle;
  };
  let cachedSize: number | undefined;
  return {
    name: path,
    async size() {
      cachedSize ??= (await (await fh()).stat()).size;
      return cachedSize;
    },
    async read(offset, length) {
      const h = await fh();
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await h.read(out, done, length - done, offset + done);
        if (bytesRead === 0) {
          throw new IoStoreError('TRUNCATED', `needs ${length} bytes here but the file ends after ${done}`, { file: path, offset });
        }
        done += bytesRead;
      }
      return out;
    },
    async close() {
      if (handle) {
        const h = await handle.catch(() => undefined);
        handle = undefined;
        await h?.close();
      }
    },
  };
}

/**
 * A source over a file read with blocking calls, for worker threads: each read returns at once instead of making a
 * round trip through the libuv pool, which a worker doing nothing else would only wait for. With `reuseBuffer`,
 * every read lands in one buffer, valid until the next read. With `readAhead` too, a read that follows the one
 * before it (a pass front to back) reads that many bytes at once, and the reads that then fall inside them are
 * views of that buffer with no system call: a game's stored chunks of ~16 KiB each had cost a read each.
 */
export function fileSourceSync(path: string, o: { reuseBuffer?: boolean; readAhead?: number } = {}): RandomAccessSource {
  let fd: number | undefined;
  // Fresh megabyte buffers cost a page fault per 4 KiB on first touch, which measured as much as the read itself.
  let scratch = new Uint8Array(0);
  const ahead = o.reuseBuffer ? Math.max(0, o.readAhead ?? 0) : 0;
  // The file's bytes [windowAt, windowAt + windowLength) are in scratch (read ahead); lastEnd: where the last read ended.
  let windowAt = 0;
  let windowLength = 0;
  let lastEnd = -Infinity;
  const open = () => {
    try {
      fd ??= openSync(path, 'r');
    } catch (e) {
      throw ioError(e, path);
    }
    return fd;
  };
  const readSyncImpl = (offset: number, length: number): Uint8Array => {
    if (ahead > 0 && offset >= windowAt && offset + length <= windowAt + windowLength) {
      lastEnd = offset + length;
      return scratch.subarray(offset - windowAt, offset - windowAt + length);
    }
    const h = open();
    // Ahead only on a pass front to back: chunks lie in .ucas order with at most their padding between them.
    const want = ahead > length && offset >= lastEnd && offset - lastEnd <= READ_AHEAD_GAP ? ahead : length;
    // A read that starts inside the window keeps the window's tail: moved to the buffer's start, it is not read
    // again (a chunk across the window's end had been read twice, a quarter more bytes copied from the page cache).
    const kept = ahead > 0 && offset >= windowAt && offset < windowAt + windowLength ? windowAt + windowLength - offset : 0;
    // Grown to the largest read so far (a reader's spans are bounded), in 64 KiB steps: doubling would touch pages no
    // read needs.
    if (o.reuseBuffer && scratch.length < want) {
      const grown = new Uint8Array((want + 0xffff) & ~0xffff);
      if (kept > 0) grown.set(scratch.subarray(offset - windowAt, windowLength));
      scratch = grown;
    } else if (kept > 0) scratch.copyWithin(0, offset - windowAt, windowLength);
    const out = o.reuseBuffer ? scratch : new Uint8Array(length);
    let done = kept;
    // What was asked must come whole; what is read ahead of it may stop at the file's end.
    while (done < length) {
      let n: number;
      try {
        n = readSync(h, out, done, want - done, offset + done);
      } catch (e) {
        throw ioError(e, path);
      }
      if (n === 0) throw new IoStoreError('TRUNCATED', `needs ${length} bytes here but the file ends after ${done}`, { file: path, offset });
      done += n;
    }
    if (ahead > 0) {
      windowAt = offset;
      windowLength = done;
      lastEnd = offset + length;
    }
    return o.reuseBuffer ? out.subarray(0, length) : out;
  };
  return {
    name: path,
    size: async () => fstatSync(open()).size,
    transient: !!o.reuseBuffer,
    read: async (offset, length) => readSyncImpl(offset, length),
    readSync: readSyncImpl,
    async close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      windowLength = 0;
    },
  };
}

/** Bytes a read may start past the end of the one before it and still be read ahead (padding, alignment). */
const READ_AHEAD_GAP = 64 << 10;

/** `name.ucas`, `name_s1.ucas`, ... for a container's partitions. */
export function partitionPaths(utocPath: string, count: number): string[] {
  const base = withoutExtension(utocPath, '.utoc');
  return Array.from({ length: Math.max(1, count) }, (_, i) => (i === 0 ? `${base}.ucas` : `${base}_s${i}.ucas`));
}
