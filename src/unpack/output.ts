import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { IoStoreError } from '../errors.js';
import { unsafeComponent } from '../toc/directory-index.js';
import { ioError } from '../toc/read-file.js';

/**
 * Joins a container path (`/`-separated) onto an output folder, refusing anything that could land outside it:
 * `..`, `.`, empty, absolute and drive-letter components. The check is repeated on the resolved path.
 */
export function safeOutputPath(outdir: string, relPath: string): string {
  const parts = relPath.split('/');
  for (const p of parts) {
    const why = unsafeComponent(p);
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

/** Temporary files in flight, so an interrupted process can remove them (see `removeTempFilesSync`). */
export const tempFilesInFlight = new Set<string>();
let tempCounter = 0;

/**
 * Writes a file under a temporary name in the same folder and renames it into place only once complete, so a
 * failed or interrupted write never leaves a partial file under the final name.
 */
export async function writeFileAtomic(path: string, pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<number> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true }).catch((e) => {
    throw ioError(e, dir);
  });
  const tmp = join(dir, `.${process.pid}-${tempCounter++}.iostore-tmp`);
  tempFilesInFlight.add(tmp);
  let written = 0;
  try {
    const fh = await open(tmp, 'w').catch((e) => {
      throw ioError(e, tmp);
    });
    try {
      for await (const piece of pieces) {
        let o = 0;
        while (o < piece.length) {
          const { bytesWritten } = await fh.write(piece, o, piece.length - o);
          o += bytesWritten;
        }
        written += piece.length;
      }
    } finally {
      await fh.close();
    }
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
