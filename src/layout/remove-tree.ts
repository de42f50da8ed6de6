import { lstatSync, readdirSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Removes `path` and everything below it; links are removed, never followed; a path already gone is fine. An
 * interrupted unpack removes its staged folder this way before it exits: Node's `rmSync(recursive)` took about twice
 * as long over a tree of 50,000 files (it checks and retries each entry), i.e. the most of a Ctrl-C's second. Falls
 * back to `rmSync` on anything unexpected (a file held open on Windows, a permission).
 */
export function removeTreeSync(path: string): void {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined) return;
    if (st.isDirectory()) removeFolder(path);
    else unlinkSync(path);
  } catch {
    rmSync(path, { recursive: true, force: true });
  }
}

function removeFolder(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) removeFolder(p);
    else unlinkSync(p);
  }
  rmdirSync(dir);
}
