import { closeSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IoStoreError } from '../../errors.js';
import { thumbnailFileNames, thumbnailImageType } from '../../legacy/editor-tables/thumbnails.js';
import type { LegacyPackage } from '../../legacy/package.js';
import { ioError } from '../../toc/read-file.js';
import { quote } from '../../util/quote.js';

/** What `inspect --thumbnails` wrote: each thumbnail's file (its name in the folder), or why it has none. */
export interface ThumbnailFile {
  index: number;
  objectPath: string;
  file?: string;
  skipped?: string;
}

let counter = 0;

/**
 * Writes `bytes` to `dir/name` whole or not at all: into a new temporary file beside it (created exclusively, so
 * never through a link someone left there), then renamed over the name (a link there is replaced, not followed).
 */
function writeAtomically(dir: string, name: string, bytes: Uint8Array): void {
  const target = join(dir, name);
  const temp = join(dir, `.${name}.${process.pid}-${counter++}.iostore-tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx');
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // not created, or already renamed
    }
    throw ioError(e, target);
  }
}

/**
 * Writes each thumbnail of a legacy package as the image file it is (`<object>.png` / `.jpg`, names from
 * thumbnailFileNames: no separators, unique) into `dir`, which is made when missing. Empty thumbnails have no
 * image and are skipped; bytes that are neither PNG nor JPEG are written as `.bin` and named in `skipped`.
 */
export function writeLegacyThumbnails(pkg: LegacyPackage, dir: string): ThumbnailFile[] {
  const list = pkg.editorTables.thumbnails;
  if (!list) {
    const failed = pkg.editorTables.errors.find((e) => e.table === 'thumbnails');
    if (failed) throw new IoStoreError('BAD_VALUE', `the thumbnail table did not parse: ${failed.message}`, { file: pkg.source });
    return [];
  }
  const root = resolve(dir);
  try {
    mkdirSync(root, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new IoStoreError('USAGE', 'a file is in the way: --thumbnails takes a folder (made when missing)', { file: dir });
    throw ioError(e, dir);
  }
  const names = thumbnailFileNames(list);
  return list.map((t, index) => {
    const out: ThumbnailFile = { index, objectPath: t.objectPath };
    if (t.data.length === 0) {
      out.skipped = 'an empty thumbnail (no image)';
      return out;
    }
    writeAtomically(root, names[index]!, t.data);
    out.file = names[index]!;
    if (!thumbnailImageType(t)) out.skipped = `neither PNG nor JPEG: written as ${quote(names[index]!)}`;
    return out;
  });
}
