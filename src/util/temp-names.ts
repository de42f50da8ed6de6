/**
 * Names of the temporary files and folders a run writes before it renames them into place, and how to read them
 * back: what a message shows for one (the user's path), and which process made one (to find the leftovers of a
 * killed run). Every such name ends in TEMP_SUFFIX and carries the process id, thread id and a counter.
 */
import { threadId } from 'node:worker_threads';

export const TEMP_SUFFIX = '.iostore-tmp';

let counter = 0;

/**
 * A fresh temporary name (not a path): `.<name>.<pid>-<thread>-<n>.iostore-tmp`, or without `name` (a file beside its
 * target whose name may already be near the file system's limit) `.<pid>-<thread>-<n>.iostore-tmp`.
 */
export function tempName(name?: string): string {
  const tag = `${process.pid}-${threadId}-${counter++}`;
  return name === undefined ? `.${tag}${TEMP_SUFFIX}` : `.${name}.${tag}${TEMP_SUFFIX}`;
}

const NAMED = /^\.(.+)\.(\d+)-(\d+)-(\d+)\.iostore-tmp$/;
const ANONYMOUS = /^\.(\d+)-(\d+)-(\d+)\.iostore-tmp$/;

/** For a temporary name: the process that made it and the name it stands for (undefined when anonymous); else undefined. */
export function parseTempName(entry: string): { pid: number; name?: string } | undefined {
  const named = NAMED.exec(entry);
  if (named) return { pid: Number(named[2]), name: named[1]! };
  const anonymous = ANONYMOUS.exec(entry);
  return anonymous ? { pid: Number(anonymous[1]) } : undefined;
}

/**
 * A temporary name (tempName's form) as process `pid` would have made it: the same name, thread and counter. A name of
 * another form is returned as it is.
 */
export function withPid(entry: string, pid: number): string {
  const named = NAMED.exec(entry);
  if (named) return `.${named[1]}.${pid}-${named[3]}-${named[4]}${TEMP_SUFFIX}`;
  const anonymous = ANONYMOUS.exec(entry);
  return anonymous ? `.${pid}-${anonymous[2]}-${anonymous[3]}${TEMP_SUFFIX}` : entry;
}

/** Longest path a message shows whole; a longer one keeps its start and end around an ellipsis. */
export const SHOWN_PATH_MAX = 160;

/**
 * A path as a message should show it: each named temporary component as the name it stands for (a staged output
 * folder `.out.123-0-0.iostore-tmp` is the user's `out`), and shortened in the middle when longer than
 * SHOWN_PATH_MAX (a 5,000-character name would fill the screen).
 */
export function shownPath(path: string): string {
  let p = path;
  if (p.includes(TEMP_SUFFIX)) {
    p = p
      .split(/([\\/])/)
      .map((part) => {
        const t = NAMED.exec(part);
        return t ? t[1]! : part;
      })
      .join('');
  }
  if (p.length <= SHOWN_PATH_MAX) return p;
  const head = Math.floor(SHOWN_PATH_MAX * 0.4);
  const tail = SHOWN_PATH_MAX - head - 1;
  return `${p.slice(0, head)}…${p.slice(p.length - tail)}`;
}

/** Whether process `pid` is running (a leftover of a live run is not touched). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
