import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { IoStoreError } from '../errors.js';
import type { ModFile } from './mod-folder.js';
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import { ByteList } from '../util/int-list.js';
import { ioError, withIoError } from '../toc/read-file.js';

/** One chunk to write: where its bytes come from and how it is indexed. */
export interface PlannedChunk {
  id: Uint8Array;
  size: number;
  pieces: () => AsyncIterable<Uint8Array>;
  /** Path below the mount point, for the directory index; unnamed chunks have none. */
  path?: string;
  memoryMapped: boolean;
  /** A file the chunk is read from: never overwritten by the output. */
  input?: string;
  /** Set when the chunk is exactly this file's bytes, so a worker thread can read and encode it. */
  file?: string;
  /** Called with the chunk's hash once written (manifest mode uses it to spot edited packages). */
  written?: (hash: Uint8Array) => void;
  /** Written after every other chunk (the container header, which may depend on them). */
  last?: boolean;
}

/**
 * A chunk that is exactly a file's bytes (on disk, or in memory when `onDisk` is false): its file name made when asked
 * for, no closure (a pack of 150,000 files keeps one per file for the run).
 */
export class FileChunk implements PlannedChunk {
  private readonly idAt: number;

  constructor(
    /** Where the id is kept (with the other chunks' of the plan): an array per id was ~200 bytes. */
    private readonly ids: ChunkIds,
    id: Uint8Array,
    private readonly src: ModFile,
    readonly path: string | undefined,
    readonly memoryMapped: boolean,
  ) {
    this.idAt = ids.add(id);
  }

  /** The chunk id (a view made per call). */
  get id(): Uint8Array {
    return this.ids.get(this.idAt);
  }

  get size(): number {
    return this.src.size;
  }

  /** Whether the chunk is a file on disk (`file` set), told without making its name. */
  get onDisk(): boolean {
    return this.src.onDisk;
  }

  get input(): string | undefined {
    return this.src.onDisk ? this.src.file : undefined;
  }

  get file(): string | undefined {
    return this.src.onDisk ? this.src.file : undefined;
  }

  pieces(): AsyncIterable<Uint8Array> {
    return this.src.onDisk ? readPieces(this.src.file) : once(this.src.read());
  }
}

/** Chunk ids back to back in one buffer. */
export class ChunkIds {
  private readonly bytes = new ByteList(CHUNK_ID_SIZE * 1024);

  add(id: Uint8Array): number {
    const at = this.bytes.length / CHUNK_ID_SIZE;
    this.bytes.append(id);
    return at;
  }

  get(k: number): Uint8Array {
    return this.bytes.view(k * CHUNK_ID_SIZE, (k + 1) * CHUNK_ID_SIZE);
  }
}

async function* once(bytes: Promise<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield await bytes;
}

/** A file's bytes in pieces of up to 1 MiB. */
export async function* readPieces(file: string): AsyncGenerator<Uint8Array> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  try {
    for await (const piece of stream) yield piece as Buffer;
  } catch (e) {
    throw ioError(e, file);
  }
}

/**
 * Chunk files read with blocking calls into buffers reused from file to file: a read stream per file had allocated a
 * 1 MiB buffer per file (a pack of 150,000 small files: 26 s on one thread, and hundreds of MB of freed buffers that
 * the allocator kept), where one `read` serves a small file.
 */
export class ChunkFileReader {
  private whole = new Uint8Array(0);
  private piece = new Uint8Array(0);

  /**
   * A file's bytes (a view of a reused buffer: valid until the next call). `expected`: its size when planned; one
   * more byte is asked for, so a file of that size takes one read (and no stat) and one that grew is read on.
   */
  read(file: string, expected: number): Uint8Array {
    return withFile(file, (fd) => {
      let done = 0;
      for (;;) {
        if (this.whole.length < done + 1 || (done === 0 && this.whole.length < expected + 1)) {
          const grown = new Uint8Array(Math.max(expected + 1, 2 * this.whole.length, done + PIECE));
          grown.set(this.whole.subarray(0, done));
          this.whole = grown;
        }
        const want = this.whole.length - done;
        const n = readSync(fd, this.whole, done, want, done);
        done += n;
        // A regular file reads short only at its end; a full read (it grew past the plan) reads on.
        if (n < want) return this.whole.subarray(0, done);
      }
    });
  }

  /** A file's bytes in pieces of up to 1 MiB, each in a reused buffer (valid until the next piece is pulled). */
  *pieces(file: string): Generator<Uint8Array> {
    const fd = withIoError(file, () => openSync(file, 'r'));
    try {
      if (this.piece.length === 0) this.piece = new Uint8Array(PIECE);
      for (let pos = 0; ; ) {
        let n: number;
        try {
          n = readSync(fd, this.piece, 0, PIECE, pos);
        } catch (e) {
          throw ioError(e, file);
        }
        if (n === 0) return;
        pos += n;
        yield this.piece.subarray(0, n);
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** Files up to this size are read whole (ChunkFileReader.read); larger ones in pieces. */
export const WHOLE_FILE_MAX = 1 << 20;
const PIECE = 1 << 20;

function withFile<T>(file: string, use: (fd: number) => T): T {
  const fd = withIoError(file, () => openSync(file, 'r'));
  try {
    return use(fd);
  } catch (e) {
    throw e instanceof IoStoreError ? e : ioError(e, file);
  } finally {
    closeSync(fd);
  }
}
