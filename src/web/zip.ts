/**
 * A .zip written while the entries are read: stored entries (the chunks are already what the user wants, and
 * compressing again would cost more than it saves on Oodle-packed game data), CRC-32 computed on the fly, sizes in
 * data descriptors, Zip64 records wherever a size, an offset or the entry count outgrows the classic fields. Memory
 * holds one piece at a time, the central directory, and whatever the sink keeps.
 */

export interface ZipSink {
  write(chunk: Uint8Array): void | Promise<void>;
  /** Waits for every write to land; returns the finished archive when the sink keeps it. */
  close(): Promise<Blob | undefined>;
}

/** Writes below this size are copied together into one part (see blobSink). */
const GATHER_BYTES = 64 << 10;

/**
 * Keeps the archive as a Blob of parts: the pending parts are folded into the Blob every `foldBytes`, so each byte
 * lives in one place (the browser may page large Blobs to disk) rather than in a growing array as well. Small writes
 * (entry headers, data descriptors, small files) are gathered into 64 KiB parts first: a Blob made of hundreds of
 * thousands of tiny parts is slow to build and to read back (70,000 one-byte files took 12 s in Node).
 */
export function blobSink(foldBytes = 32 << 20): ZipSink {
  let blob = new Blob([], { type: 'application/zip' });
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let gather = new Uint8Array(GATHER_BYTES);
  let gathered = 0;
  const endGather = () => {
    if (gathered === 0) return;
    pending.push(gather.subarray(0, gathered));
    gather = new Uint8Array(GATHER_BYTES);
    gathered = 0;
  };
  const fold = () => {
    endGather();
    blob = new Blob([blob, ...(pending as BlobPart[])], { type: 'application/zip' });
    pending = [];
    pendingBytes = 0;
  };
  return {
    write(chunk) {
      if (chunk.length < GATHER_BYTES / 4) {
        if (gathered + chunk.length > GATHER_BYTES) endGather();
        gather.set(chunk, gathered);
        gathered += chunk.length;
      } else {
        endGather();
        pending.push(chunk);
      }
      pendingBytes += chunk.length;
      if (pendingBytes >= foldBytes) fold();
    },
    async close() {
      fold();
      return blob;
    },
  };
}

/** Writes the archive straight to a file the user picked (File System Access API), never holding it. */
export function writableSink(w: { write(d: Uint8Array): Promise<void>; close(): Promise<void> }): ZipSink {
  return {
    write: (chunk) => w.write(chunk),
    async close() {
      await w.close();
      return undefined;
    },
  };
}

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** CRC-32 (the zip polynomial), continued from `crc` over `data`. */
export function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 255]! ^ (c >>> 8);
  return ~c >>> 0;
}

const UTF8 = new TextEncoder();
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const FLAG_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;

/**
 * A little-endian record writer. It sets bytes one by one rather than through a DataView: a header is a few dozen
 * bytes, which V8 keeps on its heap until something asks for the ArrayBuffer (as a DataView does), and moving it off
 * the heap then was most of the cost of a small entry.
 */
class Out {
  private readonly buf: Uint8Array;
  at = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }
  u16(v: number): this {
    const b = this.buf;
    b[this.at] = v;
    b[this.at + 1] = v >>> 8;
    this.at += 2;
    return this;
  }
  u32(v: number): this {
    const b = this.buf;
    b[this.at] = v;
    b[this.at + 1] = v >>> 8;
    b[this.at + 2] = v >>> 16;
    b[this.at + 3] = v >>> 24;
    this.at += 4;
    return this;
  }
  u64(v: number): this {
    return this.u32(v % 2 ** 32).u32(Math.floor(v / 2 ** 32));
  }
  bytes(b: Uint8Array): this {
    this.buf.set(b, this.at);
    this.at += b.length;
    return this;
  }
  done(): Uint8Array {
    return this.at === this.buf.length ? this.buf : this.buf.subarray(0, this.at);
  }
}

interface Written {
  name: Uint8Array;
  crc: number;
  size: number;
  offset: number;
}

function dosDateTime(d: Date): { date: number; time: number } {
  const y = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  return { date: ((y - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(), time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1) };
}

/** Streams entries into one archive; see the module comment. `zip64Above` lowers the Zip64 limits for tests. */
export class ZipWriter {
  private offset = 0;
  private readonly entries: Written[] = [];
  private readonly stamp = dosDateTime(new Date());
  private current?: Written;
  private readonly limit: number;
  private readonly countLimit: number;

  constructor(private readonly sink: ZipSink, o: { zip64Above?: number } = {}) {
    this.limit = o.zip64Above ?? MAX32;
    this.countLimit = o.zip64Above === undefined ? MAX16 : Math.min(MAX16, o.zip64Above);
  }

  private async emit(b: Uint8Array): Promise<void> {
    this.offset += b.length;
    await this.sink.write(b);
  }

  async begin(path: string): Promise<void> {
    if (this.current) throw new Error('zip: the previous entry is not finished');
    const name = UTF8.encode(path);
    this.current = { name, crc: 0, size: 0, offset: this.offset };
    const h = new Out(30 + name.length)
      .u32(0x04034b50)
      .u16(45) // version needed: 4.5, Zip64 may follow
      .u16(FLAG_DESCRIPTOR | FLAG_UTF8)
      .u16(0) // stored
      .u16(this.stamp.time)
      .u16(this.stamp.date)
      .u32(0) // CRC and sizes follow the data, in the descriptor
      .u32(0)
      .u32(0)
      .u16(name.length)
      .u16(0)
      .bytes(name);
    await this.emit(h.done());
  }

  async data(piece: Uint8Array): Promise<void> {
    const e = this.current;
    if (!e) throw new Error('zip: no entry begun');
    e.crc = crc32(piece, e.crc);
    e.size += piece.length;
    await this.emit(piece);
  }

  async end(): Promise<void> {
    const e = this.current;
    if (!e) throw new Error('zip: no entry begun');
    this.current = undefined;
    // The descriptor's size fields are 8 bytes exactly when the central directory gives this entry Zip64 sizes.
    const big = e.size >= this.limit;
    const d = new Out(24).u32(0x08074b50).u32(e.crc);
    if (big) d.u64(e.size).u64(e.size);
    else d.u32(e.size).u32(e.size);
    await this.emit(d.done());
    this.entries.push(e);
  }

  async finish(): Promise<void> {
    if (this.current) await this.end();
    const cdStart = this.offset;
    for (const e of this.entries) {
      const bigSize = e.size >= this.limit;
      const bigOffset = e.offset >= this.limit;
      const extraLen = bigSize || bigOffset ? 4 + (bigSize ? 16 : 0) + (bigOffset ? 8 : 0) : 0;
      const c = new Out(46 + e.name.length + extraLen)
        .u32(0x02014b50)
        .u16(45) // made by: 4.5, MS-DOS attributes
        .u16(45)
        .u16(FLAG_DESCRIPTOR | FLAG_UTF8)
        .u16(0)
        .u16(this.stamp.time)
        .u16(this.stamp.date)
        .u32(e.crc)
        .u32(bigSize ? MAX32 : e.size)
        .u32(bigSize ? MAX32 : e.size)
        .u16(e.name.length)
        .u16(extraLen)
        .u16(0) // comment
        .u16(0) // disk
        .u16(0) // internal attributes
        .u32(0) // external attributes
        .u32(bigOffset ? MAX32 : e.offset)
        .bytes(e.name);
      if (extraLen) {
        c.u16(0x0001).u16(extraLen - 4);
        if (bigSize) c.u64(e.size).u64(e.size);
        if (bigOffset) c.u64(e.offset);
      }
      await this.emit(c.done());
    }
    const cdSize = this.offset - cdStart;
    const n = this.entries.length;
    const zip64 = n >= this.countLimit || cdStart >= this.limit || cdSize >= this.limit;
    const tail = new Out(56 + 20 + 22);
    if (zip64) {
      const at = this.offset;
      tail.u32(0x06064b50).u64(44).u16(45).u16(45).u32(0).u32(0).u64(n).u64(n).u64(cdSize).u64(cdStart);
      tail.u32(0x07064b50).u32(0).u64(at).u32(1);
    }
    tail
      .u32(0x06054b50)
      .u16(0)
      .u16(0)
      .u16(zip64 ? MAX16 : n)
      .u16(zip64 ? MAX16 : n)
      .u32(zip64 ? MAX32 : cdSize)
      .u32(zip64 ? MAX32 : cdStart)
      .u16(0);
    await this.emit(tail.done());
  }
}

export interface ZipEntrySource {
  path: string;
  pieces: () => AsyncIterable<Uint8Array>;
}

export interface ZipProgress {
  files: number;
  filesTotal: number;
  bytes: number;
}

/**
 * Streams `entries` into one archive. An entry that fails on its first read is left out; one that fails later is
 * kept cut short (its bytes are already written) and both are reported in `failures`. `shouldStop` ends the archive
 * early with what it has.
 */
export async function zipEntries(entries: readonly ZipEntrySource[], sink: ZipSink, onProgress?: (p: ZipProgress) => void, shouldStop?: () => boolean, zip64Above?: number): Promise<{ archive: Blob | undefined; failures: string[] }> {
  const failures: string[] = [];
  const zip = new ZipWriter(sink, zip64Above === undefined ? {} : { zip64Above });
  const progress: ZipProgress = { files: 0, filesTotal: entries.length, bytes: 0 };
  const why = (err: unknown) => (err instanceof Error ? err.message.split('\n')[0] : String(err));
  let lastTick = 0;
  for (const e of entries) {
    if (shouldStop?.()) break;
    const it = e.pieces()[Symbol.asyncIterator]();
    let cur: IteratorResult<Uint8Array>;
    try {
      cur = await it.next();
    } catch (err) {
      failures.push(`${e.path}: ${why(err)}`);
      continue;
    }
    await zip.begin(e.path);
    try {
      while (!cur.done) {
        await zip.data(cur.value);
        progress.bytes += cur.value.length;
        if (performance.now() - lastTick > 100) {
          lastTick = performance.now();
          onProgress?.({ ...progress });
        }
        cur = await it.next();
      }
    } catch (err) {
      failures.push(`${e.path}: ${why(err)} (the file in the archive is cut short)`);
    }
    await zip.end();
    progress.files++;
  }
  await zip.finish();
  onProgress?.({ ...progress });
  return { archive: await sink.close(), failures };
}
