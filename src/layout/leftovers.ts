import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatBytes } from '../util/format-bytes.js';
import { parseTempName, processAlive } from '../util/temp-names.js';
import { removeTreeSync } from './remove-tree.js';

/**
 * The name of the marker a run writing into an existing folder leaves at its root while it runs (as a temporary
 * name, `.iostore-run.<pid>-….iostore-tmp`): its temporary files lie beside their targets anywhere below, and a
 * marker whose process is gone tells the next run to look for them.
 */
export const RUN_MARKER = 'iostore-run';

/** What a killed run left, found and removed. */
export interface Leftover {
  /** The path removed (a staged folder, a temporary file, a marker). */
  path: string;
  /** Bytes it held. */
  bytes: number;
}

/**
 * Removes from `dir` the temporary files and folders of runs whose process is gone (SIGKILL, a crash, power loss):
 * a run removes its own when it fails or is interrupted, but a killed one cannot. `which` limits it to some names
 * (a parent folder holds other outputs' files: only the staged copies of this output are touched there). A marker
 * of a killed run (RUN_MARKER) has the folder's tree searched for that process's temporary files. Returns what was
 * removed; entries of running processes are left alone.
 */
export function removeLeftovers(dir: string, which: (name: string | undefined) => boolean = () => true): Leftover[] {
  const out: Leftover[] = [];
  for (const entry of entriesOf(dir)) {
    const t = parseTempName(entry);
    if (!t || !which(t.name) || processAlive(t.pid)) continue;
    if (t.name === RUN_MARKER) out.push(...removeTempsOf(dir, t.pid));
    const path = join(dir, entry);
    const bytes = sizeOf(path);
    try {
      removeTreeSync(path);
      out.push({ path, bytes });
    } catch {
      // another run removed it, or it cannot be: left, and found again next time
    }
  }
  return out;
}

/** Every temporary file of process `pid` below `dir` (links are not followed). */
function removeTempsOf(dir: string, pid: number): Leftover[] {
  const out: Leftover[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      const t = parseTempName(e.name);
      if (t?.pid === pid && t.name !== RUN_MARKER) {
        const bytes = sizeOf(p);
        try {
          removeTreeSync(p);
          out.push({ path: p, bytes });
        } catch {
          // left
        }
      } else if (e.isDirectory()) {
        walk(p);
      }
    }
  };
  walk(dir);
  return out;
}

function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Bytes under `path` (a file, or a folder's files), not following links. */
function sizeOf(path: string): number {
  try {
    const st = lstatSync(path);
    if (!st.isDirectory()) return st.size;
    let n = 0;
    for (const e of readdirSync(path)) n += sizeOf(join(path, e));
    return n;
  } catch {
    return 0;
  }
}

/** One warning line for what was removed. */
export function leftoversWarning(removed: readonly Leftover[]): string {
  const bytes = removed.reduce((a, l) => a + l.bytes, 0);
  const shown = removed.slice(0, 3).map((l) => l.path).join(', ');
  return `removed what an interrupted run left (${removed.length} item(s), ${formatBytes(bytes)}): ${shown}${removed.length > 3 ? ', ...' : ''}`;
}
