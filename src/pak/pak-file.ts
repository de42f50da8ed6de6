import { open } from 'node:fs/promises';
import { ioError } from '../toc/read-file.js';
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
    close: () => fh.close(),
  };
}

/** Opens a pak file for listing and reading; close it when done. */
export async function openPakFile(path: string, o: Omit<OpenPakOptions, 'source'> = {}): Promise<PakArchive> {
  const src = await fileSource(path);
  try {
    return await PakArchive.open(src, { ...o, source: path });
  } catch (e) {
    await src.close?.();
    throw e;
  }
}
