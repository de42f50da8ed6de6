import { closeSync, fstatSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { ioError } from '../toc/read-file.js';
import { readFullSync } from '../util/read-full.js';
import { PakArchive, type OpenPakOptions, type PakByteSource } from './archive.js';

/** A pak file on disk as a PakByteSource: positioned reads on one handle, nothing held in memory. */
export async function fileSource(path: string): Promise<PakByteSource> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw ioError(e, path);
  }
  const size = (await fh.stat()).size;
  return {
    size,
    async read(offset, length) {
      const n = Math.max(0, Math.min(length, size - offset));
      const buf = new Uint8Array(n);
      let got = 0;
      while (got < n) {
        const { bytesRead } = await fh.read(buf, got, n - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return got === n ? buf : buf.subarray(0, got);
    },
    async readInto(offset, into) {
      const n = Math.max(0, Math.min(into.length, size - offset));
      let got = 0;
      while (got < n) {
        const { bytesRead } = await fh.read(into, got, n - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return got;
    },
    close: () => fh.close(),
  };
}

/**
 * The same with blocking reads: for worker threads, where a read's round trip through the libuv pool costs more than
 * it saves. Never on a thread that must stay responsive.
 */
export function fileSourceSync(path: string): PakByteSource {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw ioError(e, path);
  }
  const size = fstatSync(fd).size;
  return {
    size,
    async read(offset, length) {
      const n = Math.max(0, Math.min(length, size - offset));
      const buf = new Uint8Array(n);
      const got = readFullSync(fd, buf, 0, n, offset);
      return got === n ? buf : buf.subarray(0, got);
    },
    async readInto(offset, into) {
      return readFullSync(fd, into, 0, Math.max(0, Math.min(into.length, size - offset)), offset);
    },
    close: async () => closeSync(fd),
  };
}

/** Opens a pak file for listing and reading; close it when done. `sync`: blocking reads (worker threads). */
export async function openPakFile(path: string, o: Omit<OpenPakOptions, 'source'> & { sync?: boolean } = {}): Promise<PakArchive> {
  const src = o.sync ? fileSourceSync(path) : await fileSource(path);
  try {
    return await PakArchive.open(src, { ...o, source: path });
  } catch (e) {
    await src.close?.();
    throw e;
  }
}
