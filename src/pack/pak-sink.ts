import { writeSync } from 'node:fs';
import type { PakSink } from '../pak/pak-writer.js';
import { openTempFile } from '../layout/output.js';
import { ioError } from '../toc/read-file.js';

/** Bytes gathered before one positioned write. */
const GATHER = 4 << 20;

/**
 * A file path as a PakSink: positioned writes to a temporary file the caller renames. Writes are gathered in a
 * buffer and written with blocking calls a few MiB at a time: a pak of small files made two writes through the libuv
 * pool per file (its data, then its header before it), most of a 50,000-file pak's time. An entry's header lands in
 * the buffer when its place is still there; else it is written on its own (the gap it fills went out as it was,
 * and is written over).
 */
export async function tempSink(tmp: string, shownAs: string): Promise<PakSink & { close(): Promise<void> }> {
  const fh = await openTempFile(tmp, shownAs);
  const buf = new Uint8Array(GATHER);
  // The buffer holds the file's bytes from `base` to `end` (a gap in it is filled by a later write or never
  // written); `top` is the end of the highest byte written so far, buffered or not.
  let base = 0;
  let end = 0;
  let top = 0;
  const put = (data: Uint8Array, position: number) => {
    try {
      for (let o = 0; o < data.length; ) o += writeSync(fh.fd, data, o, data.length - o, position + o);
    } catch (e) {
      throw ioError(e, shownAs);
    }
  };
  // Written out, the buffer starts again at the highest byte written: the next entry's header place (a gap above
  // `top`) stays in it (started at the next write's place, every later header and file had gone out on its own).
  const flush = () => {
    if (end > base) put(buf.subarray(0, end - base), base);
    base = end = top;
  };
  // Fits in the buffer and leaves no gap over bytes written before (a gap above `top` is one a header fills).
  const fits = (position: number, last: number) => position >= base && last <= base + GATHER && (position <= end || end >= top);
  return {
    direct: {
      fd: fh.fd,
      shownAs,
      writtenTo(n: number) {
        flush();
        base = end = top = Math.max(top, n);
      },
    },
    async write(data, position) {
      const last = position + data.length;
      if (!fits(position, last)) flush();
      if (fits(position, last)) {
        buf.set(data, position - base);
        end = Math.max(end, last);
        top = Math.max(top, end);
        return;
      }
      top = Math.max(top, last);
      if (data.length >= GATHER) {
        put(data, position);
        base = end = last;
        return;
      }
      buf.set(data, 0);
      base = position;
      end = last;
    },
    async truncate(n) {
      flush();
      await fh.truncate(n);
    },
    async close() {
      try {
        flush();
      } finally {
        await fh.close();
      }
    },
  };
}
