import { existsSync, lstatSync, readdirSync, renameSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { withPid } from '../util/temp-names.js';

/**
 * Removes `path` and everything below it; links are removed, never followed; a path already gone is fine, and so is
 * an entry another process removes meanwhile (a run starting while a detached process removes an interrupted run's
 * staged folder, see handOverTree). Node's `rmSync(recursive)` took about twice as long over a tree of 50,000 files
 * (it checks and retries each entry). Falls back to `rmSync` on anything unexpected (a file held open on Windows, a
 * permission, a file added meanwhile).
 */
export function removeTreeSync(path: string): void {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined) return;
    if (st.isDirectory()) removeFolder(path);
    else unlinkSync(path);
  } catch (e) {
    if (!isGone(e)) rmSync(path, { recursive: true, force: true });
  }
}

function removeFolder(dir: string): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if (isGone(e)) return;
    throw e;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    try {
      if (e.isDirectory()) removeFolder(p);
      else unlinkSync(p);
    } catch (err) {
      if (!isGone(err)) throw err;
    }
  }
  try {
    rmdirSync(dir);
  } catch (e) {
    if (!isGone(e)) throw e;
  }
}

function isGone(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Gives the temporary folder `path` (named by tempName, e.g. a staged output folder) to process `pid`, which is to
 * remove it: renamed to the same name with that process's id, so that runs starting meanwhile leave it alone while
 * that process lives and remove it as a killed run's leftover if it dies first (see removeLeftovers). Both the
 * process handing it over and the one taking it call this (whichever comes first renames it). Returns where the
 * folder is now: its new path, or `path` when it could not be renamed (then it is removed where it is).
 */
export function handOverTree(path: string, pid: number): string {
  const to = join(dirname(path), withPid(basename(path), pid));
  if (to === path) return path;
  try {
    renameSync(path, to);
    return to;
  } catch (e) {
    return isGone(e) && existsSync(to) ? to : path;
  }
}
