import type { PakSink } from '../pak/pak-writer.js';
import { openTempFile } from '../layout/output.js';
import { ioError } from '../toc/read-file.js';

/** A file path as a PakSink: positioned writes to a temporary file the caller renames. */
export async function tempSink(tmp: string, shownAs: string): Promise<PakSink & { close(): Promise<void> }> {
  const fh = await openTempFile(tmp, shownAs);
  return {
    async write(data, position) {
      let o = 0;
      try {
        while (o < data.length) o += (await fh.write(data, o, data.length - o, position + o)).bytesWritten;
      } catch (e) {
        throw ioError(e, shownAs);
      }
    },
    truncate: (n) => fh.truncate(n),
    close: () => fh.close(),
  };
}
