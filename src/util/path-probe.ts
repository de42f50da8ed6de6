import { statSync } from 'node:fs';
import { closeSync, openSync, readSync } from './sync-fs.js';

/** What probePath tells of a path: whether it is a folder, and whether a file is smaller than the bound asked. */
export interface PathProbe {
  folder: boolean;
  below: boolean;
}

const ONE_BYTE = new Uint8Array(1);

/**
 * Whether `path` names a folder, and whether a file is smaller than `bound` bytes (bound >= 1), told by opening it
 * and reading its byte at `bound - 1` (none there: smaller; a folder fails the read with EISDIR, or its open, where
 * stat then tells) instead of a stat: Node makes a Stats object of a stat, whose class (~2.7 KB of its source) is
 * compiled on first use, ~0.2 ms of a short `list` or `info`, which need it nowhere else. A path that cannot be
 * opened or read so is asked of stat as before (a folder without read permission); undefined when that fails too.
 */
export function probePath(path: string, bound: number): PathProbe | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return statProbe(path, bound);
  }
  try {
    return { folder: false, below: readSync(fd, ONE_BYTE, 0, 1, bound - 1) === 0 };
  } catch (e) {
    return (e as NodeJS.ErrnoException)?.code === 'EISDIR' ? { folder: true, below: false } : statProbe(path, bound);
  } finally {
    closeSync(fd);
  }
}

function statProbe(path: string, bound: number): PathProbe | undefined {
  try {
    const s = statSync(path);
    return { folder: s.isDirectory(), below: s.size < bound };
  } catch {
    return undefined;
  }
}
