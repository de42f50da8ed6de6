import { closeSync, mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { openForWriteSync, writePieces, writePiecesSync } from '../layout/write-pieces.js';
import { fsFailure, type FsFailure } from '../util/fs-errors.js';

/**
 * One file to write: its bytes go to `tmp` (beside `path`), which is renamed to `path` once complete; `tmp` equal
 * to `path` in a staged output folder, where the file is written under its final name (removed if the group fails).
 */
export interface FileToWrite {
  path: string;
  tmp: string;
  pieces: Uint8Array[];
}

/** Why a write failed, in the shape an IoStoreError is rebuilt from on the main thread. */
export type WriteFailure = FsFailure;

const failure = fsFailure;

/**
 * Writes a group of files (a package's `.uasset` and `.uexp`) with blocking calls: every temporary file is written
 * whole before any is renamed, so a failure leaves none of the group under its final name. This module imports
 * only Node itself (and write-pieces.ts and fs-errors.ts, which do too), so a worker thread running it starts in a
 * few milliseconds.
 */
export function writeGroupSync(files: readonly FileToWrite[], createdDirs: Set<string>): { bytes: number } | { error: WriteFailure } {
  let bytes = 0;
  let at = 0;
  let current = '';
  try {
    for (; at < files.length; at++) {
      const f = files[at]!;
      current = f.path;
      const dir = dirname(f.path);
      if (!createdDirs.has(dir)) {
        current = dir;
        mkdirSync(dir, { recursive: true });
        createdDirs.add(dir);
        current = f.path;
      }
      // The folder may have gone since this thread made it (a later run into a deleted output folder).
      const fd = openForWriteSync(f.tmp);
      try {
        bytes += writePiecesSync(fd, f.pieces);
      } finally {
        closeSync(fd);
      }
    }
    for (const f of files) {
      current = f.path;
      if (f.tmp !== f.path) renameSync(f.tmp, f.path);
    }
    return { bytes };
  } catch (e) {
    for (const f of files) {
      try {
        unlinkSync(f.tmp);
      } catch {
        // never created, or already renamed
      }
    }
    return { error: failure(e, current) };
  }
}

/** Messages to the writer thread: a group of files under an id; replies carry the id and the outcome. */
export interface WriteRequest {
  id: number;
  /** The run it belongs to: folders made for an earlier run may have been removed since. */
  run: number;
  files: FileToWrite[];
}
export type WriteReply = { id: number; bytes: number } | { id: number; error: WriteFailure };

/**
 * The same as `writeGroupSync` with non-blocking calls, for the writer thread: several groups are in flight at once,
 * so a slow create (a file system busy with other work makes each one wait its turn) does not hold up the others.
 */
async function writeGroupAsync(files: readonly FileToWrite[], dirs: Map<string, Promise<unknown>>): Promise<{ bytes: number } | { error: WriteFailure }> {
  let bytes = 0;
  let current = '';
  try {
    for (const f of files) {
      const dir = dirname(f.path);
      let made = dirs.get(dir);
      if (!made) dirs.set(dir, (made = mkdir(dir, { recursive: true })));
      current = dir;
      await made;
      current = f.path;
      const fh = await open(f.tmp, 'w');
      try {
        bytes += await writePieces(fh, f.pieces);
      } finally {
        await fh.close();
      }
    }
    for (const f of files) {
      current = f.path;
      if (f.tmp !== f.path) await rename(f.tmp, f.path);
    }
    return { bytes };
  } catch (e) {
    await Promise.all(files.map((f) => unlink(f.tmp).catch(() => {})));
    return { error: failure(e, current) };
  }
}

/** Groups a writer thread keeps in flight. */
const IN_FLIGHT = 8;

if (!isMainThread && parentPort && (workerData as { iostoreFileWriter?: boolean } | undefined)?.iostoreFileWriter) {
  const port = parentPort;
  let dirs = new Map<string, Promise<unknown>>();
  let run = -1;
  const queue: WriteRequest[] = [];
  let active = 0;
  let replies: WriteReply[] = [];
  let replying = false;
  // Replies go back in batches too: once per turn of this thread's event loop.
  const reply = (r: WriteReply) => {
    replies.push(r);
    if (replying) return;
    replying = true;
    setImmediate(() => {
      replying = false;
      const out = replies;
      replies = [];
      port.postMessage(out);
    });
  };
  const pump = () => {
    while (active < IN_FLIGHT && queue.length > 0) {
      const m = queue.shift()!;
      if (m.run !== run) {
        run = m.run;
        dirs = new Map();
      }
      active++;
      void writeGroupAsync(m.files, dirs).then((r) => {
        active--;
        reply('error' in r ? { id: m.id, error: r.error } : { id: m.id, bytes: r.bytes });
        pump();
      });
    }
  };
  // Requests come in batches (one message per batch: a message costs more than a small file's bytes).
  port.on('message', (batch: WriteRequest[]) => {
    queue.push(...batch);
    pump();
  });
}
