import { createReadStream } from 'node:fs';
import { ioError } from '../toc/read-file.js';

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

/** A file's bytes in pieces of up to 1 MiB. */
export async function* readPieces(file: string): AsyncGenerator<Uint8Array> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  try {
    for await (const piece of stream) yield piece as Buffer;
  } catch (e) {
    throw ioError(e, file);
  }
}
