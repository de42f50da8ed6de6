import { lstatSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { IoStoreError } from '../errors.js';
import { ioError } from '../toc/read-file.js';
import { tempName } from '../util/temp-names.js';
import { tempFilesInFlight } from './output.js';

/**
 * Files that are one output and must appear together or not at all: a container's `.utoc`, its `.ucas` partitions
 * and its companion `.pak`. Each is written under a temporary name beside its final one (`temp`); `commit` then
 * checks every final name can take a file, moves what is there aside, renames the new files in and only then
 * deletes the old ones, all with blocking calls (no interrupt runs in between). A failure at any step puts the
 * old files back: the output is the new set whole, or what was there before.
 */
export class FileSet {
  private readonly temps = new Map<string, string>();
  private readonly stale = new Set<string>();

  /** The temporary path `path` is written under until `commit` (the same one each time it is asked for). */
  temp(path: string): string {
    let t = this.temps.get(path);
    if (t === undefined) {
      t = join(dirname(path), tempName(basename(path)));
      this.temps.set(path, t);
    }
    return t;
  }

  /** A file of an earlier output of the same name that this one does not have (a partition, a pak): removed at commit. */
  remove(path: string): void {
    this.stale.add(path);
  }

  /** Puts every file written (`temp`) in place and removes the stale ones; all or nothing. */
  commit(): void {
    const targets = [...this.temps.keys()];
    // 1. Every final name must be free or a file: a folder there (`pack out dir2.utoc` with a folder dir2.utoc) fails
    //    the run before anything moves.
    for (const p of [...targets, ...this.stale]) {
      const kind = kindOf(p);
      if (kind === 'folder') throw new IoStoreError('USAGE', 'is a folder: the output cannot replace it (nothing was written)', { file: p });
    }
    // 2. What is there now is moved aside, 3. the new files are renamed in, 4. the old ones deleted.
    const aside: Array<{ path: string; backup: string }> = [];
    const placed: string[] = [];
    try {
      for (const p of [...targets, ...this.stale]) {
        if (kindOf(p) === 'missing') continue;
        const backup = join(dirname(p), tempName(basename(p)));
        tempFilesInFlight.add(backup);
        renameSync(p, backup);
        aside.push({ path: p, backup });
      }
      for (const p of targets) {
        renameSync(this.temps.get(p)!, p);
        tempFilesInFlight.delete(this.temps.get(p)!);
        placed.push(p);
      }
    } catch (e) {
      for (const p of placed) tryUnlink(p);
      for (const { path, backup } of aside.reverse()) {
        try {
          renameSync(backup, path);
          tempFilesInFlight.delete(backup);
        } catch {
          // left under its temporary name, which the next run into this folder finds (see leftovers)
        }
      }
      this.discard();
      throw ioError(e, (e as NodeJS.ErrnoException).path ?? targets[0]!);
    }
    for (const { backup } of aside) {
      tryUnlink(backup);
      tempFilesInFlight.delete(backup);
    }
    this.temps.clear();
  }

  /** Removes the temporary files (a failed or interrupted run); the final names keep what they held. */
  discard(): void {
    for (const t of this.temps.values()) {
      tryUnlink(t);
      tempFilesInFlight.delete(t);
    }
    this.temps.clear();
  }
}

function kindOf(p: string): 'missing' | 'folder' | 'file' {
  try {
    return lstatSync(p).isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

function tryUnlink(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // already gone
  }
}

/**
 * Removes the folders a failed run made for its output, from `dir` up to `made` (what a recursive mkdir returned:
 * the first folder it created), each only while empty: a failed `pack` leaves no empty output folder behind.
 */
export function removeMadeFolders(dir: string, made: string | undefined): void {
  if (made === undefined) return;
  for (let d = dir; ; d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
    if (d === made || relative(made, d).startsWith('..') || dirname(d) === d) return;
  }
}
