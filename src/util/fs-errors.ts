/**
 * File-system errors in plain words, naming the user's path. Node's own messages carry the error code, the system
 * call and the path as the call saw it (`ENOSPC: no space left on device, write`, `EEXIST: file already exists,
 * mkdir '/out/.out.123-0-0.iostore-tmp/Game'`): a hidden temporary name, a raw code, and for a long name the whole
 * 5,000 characters. Node built-ins only: the file writer's thread loads it without the rest of the library.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { shownPath } from './temp-names.js';

/** An operating-system failure, as an IoStoreError is built from it (here or on another thread). */
export interface FsFailure {
  code: 'NOT_FOUND' | 'IO' | 'USAGE';
  message: string;
  /** The path to show: temporary names mapped back, shortened when long (see shownPath). */
  file: string;
}

const PLAIN: Record<string, [FsFailure['code'], string]> = {
  ENOENT: ['NOT_FOUND', 'no such file'],
  EISDIR: ['USAGE', 'is a directory, expected a file'],
  EACCES: ['IO', 'permission denied'],
  EPERM: ['IO', 'permission denied'],
  ENOSPC: ['IO', 'no space left on the device'],
  EDQUOT: ['IO', 'the disk quota is used up'],
  EROFS: ['IO', 'the file system is read-only'],
  ENAMETOOLONG: ['IO', 'the name is too long for the file system'],
  ENOTDIR: ['IO', 'a file is in the way of a folder of this path'],
  EEXIST: ['IO', 'a file of that name is in the way'],
  EMFILE: ['IO', 'too many open files'],
  ENFILE: ['IO', 'too many open files'],
  EIO: ['IO', 'the device reported an input/output error'],
  EFBIG: ['IO', 'the file is too large for the file system'],
  ELOOP: ['IO', 'too many levels of links'],
  EBUSY: ['IO', 'is busy (in use by another program)'],
  ETXTBSY: ['IO', 'is busy (in use by another program)'],
  EXDEV: ['IO', 'cannot be moved to another file system'],
  EINVAL: ['IO', 'the name or the call is not valid on this file system'],
};

/** The failure `e` (an error of a file-system call on `path`) stands for. */
export function fsFailure(e: unknown, path: string): FsFailure {
  const err = e as NodeJS.ErrnoException | undefined;
  const file = shownPath(path);
  let code = err?.code;
  if (code === 'ENOENT' && err?.syscall === 'mkdir' && err.path) code = mkdirCause(err.path) ?? code;
  const plain = code !== undefined ? PLAIN[code] : undefined;
  if (plain) return { code: plain[0], message: plain[1], file };
  // Another code: Node's text without the call and the path (`ECONNRESET: connection reset, read '/x'` -> the first
  // part), so the message still names the path once.
  const text = String(err?.message ?? e).replace(/,\s*\w+(\s+'[^']*'(\s*->\s*'[^']*')?)?\s*$/, '');
  return { code: 'IO', message: text, file };
}

/**
 * Why a recursive mkdir of `dir` failed: Node reports ENOENT for a read-only file system or a folder it may not
 * write (the call that failed was deeper). The nearest existing folder above says, or undefined when it could be
 * written.
 */
function mkdirCause(dir: string): string | undefined {
  for (let d = dir; ; ) {
    const up = dirname(d);
    if (up === d) return undefined;
    if (existsSync(up)) {
      try {
        accessSync(up, constants.W_OK);
        return undefined;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code;
      }
    }
    d = up;
  }
}
