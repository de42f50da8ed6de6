import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { tempName } from '../util/temp-names.js';
import { IoStoreError } from '../errors.js';
import { ioError } from '../toc/read-file.js';
import { abortCleanups, forgetCheckedFolders, isAborting, tempFilesInFlight } from './output.js';
import { RUN_MARKER, removeLeftovers, type Leftover } from './leftovers.js';
import { removeTreeSync } from './remove-tree.js';

/**
 * An output folder that does not exist yet (or is empty) is made whole under a temporary name beside it and renamed
 * into place at the end. Files inside can then be written under their final names: a temporary name and a rename
 * per file cost as much system time as creating the file (3,000 files: ~50 us a rename, as much as the open), and
 * the folder as a whole is still never seen half-written. An output folder that already holds files is written in
 * place (`staged` false), where each file needs its own temporary name.
 */
export class StagedFolder {
  private done = false;
  /** What killed runs had left for this output (their staged copies, their temporary files), removed by `open`. */
  leftovers: Leftover[] = [];
  /** A run written in place marks the folder while it runs (see RUN_MARKER). */
  private marker: string | undefined;

  private constructor(
    /** The folder the caller asked for. */
    readonly outdir: string,
    /** Where files go until `commit`: the temporary folder, or `outdir` itself when not staged. */
    readonly root: string,
    readonly staged: boolean,
  ) {}

  /** An interrupt removes the folder once every thread stopped writing, as `abortWrites` is told to. */
  private readonly onAbort = (removeTree: (path: string) => void) => this.discard(removeTree);

  /** In place: marks the folder (see RUN_MARKER), so that a killed run's temporary files are found by the next. */
  private static inPlace(outdir: string, leftovers: Leftover[]): StagedFolder {
    const folder = new StagedFolder(outdir, outdir, false);
    folder.leftovers = leftovers;
    const marker = join(outdir, tempName(RUN_MARKER));
    try {
      closeSync(openSync(marker, 'wx'));
      folder.marker = marker;
      tempFilesInFlight.add(marker);
    } catch {
      // a folder that takes no file: the run's own writes will say why
    }
    return folder;
  }

  /**
   * Stages `outdir` when it is missing, or an empty folder of its parent's file system; otherwise (a folder with
   * files, a link, a mount point, a parent that cannot take the staged folder) writes go to it directly.
   */
  static open(outdir: string): StagedFolder {
    forgetCheckedFolders();
    const parent = dirname(outdir);
    // What a killed run left: its staged copies of this output beside it, its temporary files in it.
    const leftovers = removeLeftovers(parent, (name) => name === basename(outdir));
    leftovers.push(...removeLeftovers(outdir));
    const state = folderState(outdir);
    if (state === 'in place') return StagedFolder.inPlace(outdir, leftovers);
    const root = join(parent, tempName(basename(outdir)));
    try {
      mkdirSync(root, { recursive: true });
    } catch (e) {
      // An empty folder whose parent is read-only (or full) can still be written in place.
      if (state === 'empty') return StagedFolder.inPlace(outdir, leftovers);
      throw ioError(e, root);
    }
    const folder = new StagedFolder(outdir, root, true);
    folder.leftovers = leftovers;
    abortCleanups.add(folder.onAbort);
    return folder;
  }

  /** The run's marker is removed: its files are all in place (or gone). */
  private unmark(): void {
    if (this.marker === undefined) return;
    try {
      unlinkSync(this.marker);
    } catch {
      // gone already
    }
    tempFilesInFlight.delete(this.marker);
    this.marker = undefined;
  }

  /**
   * Puts the staged folder in place. When `outdir` was made meanwhile (by another process) with files in it, the
   * staged files are moved into it one by one, replacing files of the same names.
   */
  commit(): void {
    this.unmark();
    if (!this.staged || this.done) return;
    // An interrupt that began while the run was finishing wins: nothing is put in place, and the folder is left to
    // the interrupt's cleanup (abortCleanups), which removes it as the command chose.
    if (isAborting()) return;
    this.done = true;
    abortCleanups.delete(this.onAbort);
    try {
      try {
        renameSync(this.root, this.outdir);
        return;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // An empty folder in the way: POSIX replaces it, Windows refuses (EPERM); a folder with files: ENOTEMPTY or
        // EEXIST; one made a mount point or a link meanwhile: EBUSY, ENOTDIR.
        if (!['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES', 'EBUSY', 'ENOTDIR'].includes(code ?? '')) throw e;
      }
      mergeInto(this.root, this.outdir);
      removeTreeSync(this.root);
    } catch (e) {
      throw e instanceof IoStoreError ? e : ioError(e, this.outdir);
    }
  }

  /**
   * Removes the staged folder and everything in it (a failed or interrupted run leaves no output), with `removeTree`
   * (an interrupt's may hand it to another process: the folder has its hidden temporary name until it is gone).
   */
  discard(removeTree?: (path: string) => void): void {
    this.unmark();
    if (!this.staged || this.done) return;
    // A run ended by an interrupt (its workers stopped) leaves the folder to the interrupt's cleanup, which removes
    // it as the command chose, rather than unlinking it all here first.
    if (removeTree === undefined && isAborting()) return;
    this.done = true;
    abortCleanups.delete(this.onAbort);
    (removeTree ?? removeTreeSync)(this.root);
  }
}

/**
 * 'missing', 'empty' (a real folder, not a link, on its parent's file system: a rename can replace it), or 'in
 * place' (anything else, which the run writes into).
 */
function folderState(dir: string): 'missing' | 'empty' | 'in place' {
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || readdirSync(dir).length > 0) return 'in place';
    // A mount point: its parent is another file system, which the staged folder would be written to.
    return st.dev === statSync(dirname(resolve(dir))).dev ? 'empty' : 'in place';
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw ioError(e, dir);
  }
}

/** Moves every file of `from` into the same place under `to`, making folders as needed. */
function mergeInto(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.isDirectory()) {
      // A folder made a link meanwhile is not merged through (see refuseLinks in output.ts).
      if (isLink(dst)) throw new IoStoreError('UNSAFE_PATH', 'is a link in the output folder: nothing is written through it', { file: dst });
      mergeInto(src, dst);
      rmdirSync(src);
    } else {
      renameSync(src, dst);
    }
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
