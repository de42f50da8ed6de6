import { IoStoreError } from '../errors.js';
import type { RandomAccessSource } from './source.js';

/**
 * A source over a `Blob` (a browser `File`, or Node's `fs.openAsBlob`): each read slices the blob and reads only
 * that slice, so a multi-gigabyte `.ucas` is never loaded whole.
 */
export function blobSource(blob: Blob, name = (blob as { name?: string }).name ?? '<blob>'): RandomAccessSource {
  return {
    name,
    size: async () => blob.size,
    async read(offset, length) {
      if (offset + length > blob.size) {
        throw new IoStoreError('TRUNCATED', `needs ${length} bytes here but the file is ${blob.size} bytes`, { file: name, offset });
      }
      let buf: ArrayBuffer;
      try {
        buf = await blob.slice(offset, offset + length).arrayBuffer();
      } catch (e) {
        // A File whose disk copy changed or vanished after it was picked fails here (NotReadableError).
        throw new IoStoreError('IO', `could not be read (${(e as Error)?.message ?? e}); pick the file again`, { file: name, offset });
      }
      if (buf.byteLength !== length) throw new IoStoreError('TRUNCATED', `needs ${length} bytes here but got ${buf.byteLength}`, { file: name, offset });
      return new Uint8Array(buf);
    },
    close: async () => {},
  };
}
