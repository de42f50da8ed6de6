/**
 * Whole writes of a list of pieces, short writes finished. Node built-ins and the loader's blocking calls only: the
 * writer thread's worker loads it without the rest of the library.
 */
import { mkdirSync, openSync, writevSync } from 'node:fs';
import { writeSync } from '../util/sync-fs.js';
import { dirname } from 'node:path';
import type { FileHandle } from 'node:fs/promises';

/**
 * Writes every byte of the first `count` of `pieces` (all by default: a reused list may hold more) at the file's
 * position with one writev (one write for a single piece), finishing a short write (full disk, signals) piece by
 * piece. Returns the bytes written.
 */
export function writePiecesSync(fd: number, pieces: readonly Uint8Array[], count = pieces.length): number {
  let total = 0;
  // Indexed, not for-of: a short run's loop is interpreted (--no-opt), where an iterator costs calls per piece.
  for (let k = 0; k < count; k++) total += pieces[k]!.length;
  const done = count === 1 ? writeSync(fd, pieces[0]!) : writevSync(fd, (count === pieces.length ? pieces : pieces.slice(0, count)) as Uint8Array[]);
  if (done !== total) forRest(pieces, count, done, (p, o) => {
    while (o < p.length) o += writeSync(fd, p, o, p.length - o);
  });
  return total;
}

/** `writePiecesSync` through a FileHandle. */
export async function writePieces(fh: FileHandle, pieces: readonly Uint8Array[]): Promise<number> {
  let total = 0;
  for (const p of pieces) total += p.length;
  const { bytesWritten } = await fh.writev(pieces as Uint8Array[]);
  if (bytesWritten !== total) {
    const rest: Array<[Uint8Array, number]> = [];
    forRest(pieces, pieces.length, bytesWritten, (p, o) => rest.push([p, o]));
    for (let [p, o] of rest) while (o < p.length) o += (await fh.write(p, o, p.length - o)).bytesWritten;
  }
  return total;
}

/** Calls `each(piece, offset)` for what is left of the first `count` of `pieces` after their first `done` bytes. */
function forRest(pieces: readonly Uint8Array[], count: number, done: number, each: (piece: Uint8Array, offset: number) => void): void {
  let skip = done;
  for (let k = 0; k < count; k++) {
    const piece = pieces[k]!;
    if (skip >= piece.length) {
      skip -= piece.length;
      continue;
    }
    each(piece, skip);
    skip = 0;
  }
}

/**
 * Opens `path` for writing, creating or truncating it; when its folder is missing (never made, or removed since a
 * cache said it was made) the folder is made and the open tried once more. Errors are Node's own.
 */
export function openForWriteSync(path: string): number {
  try {
    return openSync(path, 'w');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  mkdirSync(dirname(path), { recursive: true });
  return openSync(path, 'w');
}
