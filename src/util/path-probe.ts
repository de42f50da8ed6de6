import { statSync } from 'node:fs';
import { closeSync, openSync, readSync } from './sync-fs.js';

/** What probePath tells of a path: whether it is a folder, and whether a file is smaller than the bound asked. */
export interface PathProbe {
  folder: boolean;
  below: boolean;
}

/**
 * A file left open by probeOpen, for the reader that comes next to take instead of opening the path again (an open
 * and a close fewer in a short `list` or `info`). Whoever probed closes it once the run is done (`close`), unless a
 * reader took it, which then closes it itself.
 */
export class OpenedFile {
  constructor(
    readonly path: string,
    private fd: number | undefined,
  ) {}

  /** The descriptor, if it is still here and open on `path`: the caller owns it from now on. */
  take(path: string): number | undefined {
    if (path !== this.path) return undefined;
    const fd = this.fd;
    this.fd = undefined;
    return fd;
  }

  /** Closes the descriptor unless a reader took it. */
  close(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) closeSync(fd);
  }
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
  const probe = probeOpen(path, bound);
  probe?.opened?.close();
  return probe && { folder: probe.folder, below: probe.below };
}

/** probePath's answer, and a file that it opened and read left open (`opened`, to take or close). */
export function probeOpen(path: string, bound: number): (PathProbe & { opened?: OpenedFile }) | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return statProbe(path, bound);
  }
  let below;
  try {
    below = readSync(fd, ONE_BYTE, 0, 1, bound - 1) === 0;
  } catch (e) {
    closeSync(fd);
    return (e as NodeJS.ErrnoException)?.code === 'EISDIR' ? { folder: true, below: false } : statProbe(path, bound);
  }
  return { folder: false, below, opened: new OpenedFile(path, fd) };
}

function statProbe(path: string, bound: number): PathProbe | undefined {
  try {
    const s = statSync(path);
    return { folder: s.isDirectory(), below: s.size < bound };
  } catch {
    return undefined;
  }
}
