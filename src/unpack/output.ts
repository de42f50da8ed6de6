import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { IoStoreError } from '../errors.js';
import { unsafeComponent } from '../toc/directory-index.js';
import { ioError } from '../toc/read-file.js';

/**
 * Joins a container path (`/`-separated) onto an output folder, refusing anything that could land outside it:
 * `..`, `.`, empty, absolute and drive-letter components. The check is repeated on the resolved path.
 */
export function safeOutputPath(outdir: string, relPath: string, platform: NodeJS.Platform = process.platform): string {
  const parts = relPath.split('/');
  for (const p of parts) {
    const why = unsafeComponent(p) ?? (platform === 'win32' ? windowsUnsafe(p) : undefined);
    if (why) throw new IoStoreError('UNSAFE_PATH', `output path "${relPath}": component "${p}" ${why}`);
  }
  const root = resolve(outdir);
  const full = resolve(root, ...parts);
  const rel = relative(root, full);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
    throw new IoStoreError('UNSAFE_PATH', `output path "${relPath}" would leave ${outdir}`);
  }
  return full;
}

/** Folders this process already created: one mkdir per folder, not per file, on a hot path of unpack. */
const createdDirs = new Set<string>();

/** Names Windows gives another meaning: device names (even with an extension) and reserved characters. */
export function windowsUnsafe(name: string): string | undefined {
  if (/^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i.test(name)) return 'is a Windows device name';
  if (/[<>"|?*]/.test(name)) return 'contains a character Windows does not allow in file names';
  if (/[. ]$/.test(name)) return 'ends with a dot or space, which Windows drops';
  return undefined;
}

/** Temporary files in flight, so an interrupted process can remove them (see `abortWrites`). */
export const tempFilesInFlight = new Set<string>();
let tempCounter = 0;
/** Opens of temporary files running on the thread pool: a file opened after cleanup would outlive it. */
let opening = 0;
let aborting = false;

/**
 * Creates a temporary file, registered for cleanup. Refused once `abortWrites` has begun, so no new temporary file
 * appears after an interrupted run cleaned up.
 */
export async function openTempFile(path: string): Promise<FileHandle> {
  if (aborting) throw new IoStoreError('IO', 'interrupted', { file: path });
  tempFilesInFlight.add(path);
  opening++;
  try {
    return await open(path, 'w');
  } catch (e) {
    tempFilesInFlight.delete(path);
    throw ioError(e, path);
  } finally {
    opening--;
  }
}

/** Writes a whole temporary file (see openTempFile). */
export async function writeTempFile(path: string, data: Uint8Array): Promise<void> {
  const fh = await openTempFile(path);
  try {
    let o = 0;
    while (o < data.length) o += (await fh.write(data, o, data.length - o)).bytesWritten;
  } finally {
    await fh.close();
  }
}

/**
 * For signal handlers: stops new temporary files, waits (up to `maxWaitMs`) for opens already on the thread pool,
 * then removes every temporary file. Final names only ever hold complete files, so nothing else needs undoing.
 */
export async function abortWrites(unlinkSync: (p: string) => void, maxWaitMs = 2000): Promise<void> {
  aborting = true;
  const until = Date.now() + maxWaitMs;
  while (opening > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  removeTempFilesSync(unlinkSync);
}

/**
 * Writes a file under a temporary name in the same folder and renames it into place only once complete, so a
 * failed or interrupted write never leaves a partial file under the final name.
 */
export async function writeFileAtomic(
  path: string,
  pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  /** Runs once every byte is written, before the rename: throwing keeps the file from its final name. */
  beforeRename?: () => void | Promise<void>,
): Promise<number> {
  const dir = dirname(path);
  if (!createdDirs.has(dir)) {
    await mkdir(dir, { recursive: true }).catch((e) => {
      throw ioError(e, dir);
    });
    createdDirs.add(dir);
  }
  const tmp = join(dir, `.${process.pid}-${tempCounter++}.iostore-tmp`);
  let written = 0;
  try {
    const fh = await openTempFile(tmp);
    try {
      // Pieces are gathered into one writev of up to WRITE_BATCH bytes: a syscall per 64 KiB block costs more
      // than the copy it saves.
      let batch: Uint8Array[] = [];
      let batchBytes = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const { bytesWritten } = await fh.writev(batch);
        if (bytesWritten !== batchBytes) await writeRest(fh, batch, bytesWritten);
        written += batchBytes;
        batch = [];
        batchBytes = 0;
      };
      for await (const piece of pieces) {
        batch.push(piece);
        batchBytes += piece.length;
        if (batchBytes >= WRITE_BATCH) await flush();
      }
      await flush();
    } finally {
      await fh.close();
    }
    await beforeRename?.();
    await rename(tmp, path).catch((e) => {
      throw ioError(e, path);
    });
    tempFilesInFlight.delete(tmp);
    return written;
  } catch (e) {
    await unlink(tmp).catch(() => {});
    tempFilesInFlight.delete(tmp);
    throw e;
  }
}

const WRITE_BATCH = 4 << 20;


/** Finishes a short writev: writes what is left of the batch after `done` bytes. */
async function writeRest(fh: FileHandle, batch: Uint8Array[], done: number): Promise<void> {
  let skip = done;
  for (const piece of batch) {
    if (skip >= piece.length) {
      skip -= piece.length;
      continue;
    }
    let o = skip;
    skip = 0;
    while (o < piece.length) o += (await fh.write(piece, o, piece.length - o)).bytesWritten;
  }
}

/** Best-effort removal of in-flight temporary files, for signal handlers. */
export function removeTempFilesSync(unlinkSync: (p: string) => void): void {
  for (const t of tempFilesInFlight) {
    try {
      unlinkSync(t);
    } catch {
      // already gone
    }
  }
  tempFilesInFlight.clear();
}
