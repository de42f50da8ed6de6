import { closeSync, lstatSync, mkdirSync, openSync, readlinkSync, renameSync, unlinkSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { tempName } from '../util/temp-names.js';
import { IoStoreError } from '../errors.js';
import { unsafeComponent } from '../toc/directory-index.js';
import { ioError } from '../toc/read-file.js';
import { quote } from '../util/quote.js';
import { openForWriteSync, writePieces, writePiecesSync } from './write-pieces.js';
import { removeTreeSync } from './remove-tree.js';

export { openForWriteSync, writePieces, writePiecesSync };

/**
 * Joins a container path (`/`-separated) onto an output folder, refusing anything that could land outside it:
 * `..`, `.`, empty, absolute and drive-letter components. The check is repeated on the resolved path (of the folder:
 * the file name is one checked component, which cannot leave it).
 */
export function safeOutputPath(outdir: string, relPath: string, platform: NodeJS.Platform = process.platform): string {
  return safePath(outdir, relPath, platform, true);
}

/**
 * safeOutputPath for reading a file of a folder (pack's input): the same checks of the names, but a link in the
 * folder is followed (reading through it writes nothing).
 */
export function safeInputPath(folder: string, relPath: string, platform: NodeJS.Platform = process.platform): string {
  return safePath(folder, relPath, platform, false);
}

function safePath(outdir: string, relPath: string, platform: NodeJS.Platform, writing: boolean): string {
  const cut = relPath.lastIndexOf('/');
  const name = relPath.slice(cut + 1);
  const dir = safeDir(outdir, cut < 0 ? '' : relPath.slice(0, cut), relPath, platform, writing);
  checkComponent(relPath, name, platform);
  return `${dir}${sep}${name}`;
}

/** The folder `dirPath` (of `relPath`) resolved under `outdir`, checked (see safePath). */
function safeDir(outdir: string, dirPath: string, relPath: string, platform: NodeJS.Platform, writing: boolean): string {
  // Unpack asks for thousands of files in a few dozen folders: each folder is checked and resolved once.
  if (lastRoot.outdir !== outdir || lastRoot.platform !== platform || lastRoot.writing !== writing) lastRoot = { outdir, platform, writing, dirs: new Map(), checked: new Set() };
  let dir = lastRoot.dirs.get(dirPath);
  if (dir === undefined) {
    dir = safeFolder(outdir, dirPath, relPath, platform);
    if (writing) refuseLinks(resolve(outdir), dirPath, lastRoot.checked);
    lastRoot.dirs.set(dirPath, dir);
  }
  return dir;
}

/**
 * safeOutputPath in two steps, for many files in a few folders: `folder` gives the checked folder of a path (its
 * folder part, `/`-separated, '' for the output folder itself), once per folder, and `file` a file in it. A path that
 * fails either check throws what safeOutputPath(outdir, path) throws.
 */
export class SafeOutputFolders {
  constructor(
    readonly outdir: string,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  /** The folder `dirPath` resolved under the output folder (`relPath`: a path in it, for the error message). */
  folder(dirPath: string, relPath: string): string {
    return safeDir(this.outdir, dirPath, relPath, this.platform, true);
  }

  /** `name` in a folder `folder` gave (`dir`); `prefix`: the path's folder part with its `/` ('' for none), to name it in an error. */
  file(dir: string, name: string, prefix: string): string {
    if (unsafeComponent(name) !== undefined || (this.platform === 'win32' && windowsUnsafe(name) !== undefined)) checkComponent(prefix + name, name, this.platform);
    return `${dir}${sep}${name}`;
  }
}

/** The folders safeOutputPath resolved under the last output folder it was asked for, and those found real. */
let lastRoot: { outdir: string; platform: NodeJS.Platform; writing: boolean; dirs: Map<string, string>; checked: Set<string> } = {
  outdir: '',
  platform: process.platform,
  writing: true,
  dirs: new Map(),
  checked: new Set(),
};

/**
 * Forgets the folders checked so far: a run starts with what is on disk now (a link made since an earlier run in this
 * process is found). StagedFolder.open calls it for each run.
 */
export function forgetCheckedFolders(): void {
  lastRoot = { ...lastRoot, outdir: '', dirs: new Map(), checked: new Set() };
}

/**
 * Refuses a folder of `dirPath` under `root` that is a link (or a junction) or not a folder at all: a link already in
 * the output folder would take the files written through it anywhere (`out/Game -> /home/victim`). The output folder
 * itself may be a link: the user named it. Folders that do not exist yet are made by the run, as real folders.
 */
function refuseLinks(root: string, dirPath: string, checked: Set<string>): void {
  if (dirPath === '') return;
  let dir = root;
  for (const part of dirPath.split('/')) {
    dir = `${dir}${sep}${part}`;
    if (checked.has(dir)) continue;
    let st;
    try {
      // A folder not made yet is the common case of a new output (hundreds of folders): no exception made for it.
      st = lstatSync(dir, { throwIfNoEntry: false });
    } catch (e) {
      throw ioError(e, dir);
    }
    if (st === undefined) return;
    if (st.isSymbolicLink()) {
      let to = '';
      try {
        to = ` (to ${quote(readlinkSync(dir))})`;
      } catch {
        // unreadable: named without its target
      }
      throw new IoStoreError('UNSAFE_PATH', `is a link${to} in the output folder: nothing is written through it (remove it, or unpack elsewhere)`, { file: dir });
    }
    if (!st.isDirectory()) throw new IoStoreError('USAGE', 'is a file where the output needs a folder', { file: dir });
    checked.add(dir);
  }
}

function checkComponent(relPath: string, p: string, platform: NodeJS.Platform): void {
  const why = unsafeComponent(p) ?? (platform === 'win32' ? windowsUnsafe(p) : undefined);
  if (why) throw new IoStoreError('UNSAFE_PATH', `output path ${quote(relPath)}: component ${quote(p)} ${why}`);
}

/** `dirPath` (the folder part of `relPath`, '' for none) resolved under `outdir`, every component checked. */
function safeFolder(outdir: string, dirPath: string, relPath: string, platform: NodeJS.Platform): string {
  const parts = dirPath === '' ? [] : dirPath.split('/');
  for (const p of parts) checkComponent(relPath, p, platform);
  const root = resolve(outdir);
  const full = resolve(root, ...parts);
  const rel = relative(root, full);
  if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
    throw new IoStoreError('UNSAFE_PATH', `output path ${quote(relPath)} would leave ${outdir}`);
  }
  return full;
}

/** Folders this process already created: one mkdir per folder, not per file, on a hot path of unpack. */
const createdDirs = new Set<string>();

/** Names Windows gives another meaning: device names (even with an extension) and reserved characters. */
export function windowsUnsafe(name: string): string | undefined {
  if (/^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i.test(name)) return 'is a Windows device name';
  if (/[<>"|?*]/.test(name)) return 'contains a character Windows does not allow in file names';
  if (/[. ]$/.test(name)) return 'ends with a dot or space, which Windows drops';
  return undefined;
}

/** Creates the folder of `file` (once per folder and process). */
export function ensureDirSync(file: string): void {
  // Files come folder by folder: the folder of the last call is recognized without cutting the path.
  const last = lastDir;
  if (last !== '' && file.length > last.length + 1 && file.charCodeAt(last.length) === SEP_CODE && file.startsWith(last) && file.indexOf(sep, last.length + 1) < 0 && (sep === '/' || file.indexOf('/', last.length + 1) < 0)) return;
  const dir = dirname(file);
  if (!createdDirs.has(dir)) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw ioError(e, dir);
    }
    createdDirs.add(dir);
  }
  // Only a folder written as dirname gives it back (no trailing separator, no root) is taken by the quick check.
  lastDir = dir.length > 1 && !dir.endsWith(sep) && !dir.endsWith('/') ? dir : '';
}

/** The folder of ensureDirSync's last file (made, or found made). */
let lastDir = '';
// Not `sep.charCodeAt(0)`: the page's build stands in for node:path, and this module is loaded there too.
const SEP_CODE = sep === '\\' ? 0x5c : 0x2f;

/** Whether an interrupt began removing temporary files: no new one may be created. */
export function isAborting(): boolean {
  return aborting;
}

/** Temporary files in flight, so an interrupted process can remove them (see `abortWrites`). */
export const tempFilesInFlight = new Set<string>();
/** Opens of temporary files running on the thread pool: a file opened after cleanup would outlive it. */
let opening = 0;
let aborting = false;

/**
 * Creates a temporary file, registered for cleanup. Refused once `abortWrites` has begun, so no new temporary file
 * appears after an interrupted run cleaned up.
 */
export async function openTempFile(path: string, shownAs = path): Promise<FileHandle> {
  if (aborting) throw new IoStoreError('IO', 'interrupted', { file: shownAs });
  tempFilesInFlight.add(path);
  opening++;
  try {
    return await open(path, 'w');
  } catch (e) {
    tempFilesInFlight.delete(path);
    throw ioError(e, shownAs);
  } finally {
    opening--;
  }
}

/**
 * Writes a whole temporary file (see openTempFile), from one buffer or from pieces written in turn; its errors name
 * `shownAs` (the file it becomes).
 */
export async function writeTempFile(path: string, data: Uint8Array | readonly Uint8Array[], shownAs = path): Promise<void> {
  const fh = await openTempFile(path, shownAs);
  try {
    for (const piece of data instanceof Uint8Array ? [data] : data) {
      let o = 0;
      while (o < piece.length) o += (await fh.write(piece, o, piece.length - o)).bytesWritten;
    }
  } catch (e) {
    throw ioError(e, shownAs);
  } finally {
    await fh.close();
  }
}

/** How `abortWrites` goes about it. */
export interface AbortOptions {
  /** How long to wait for opens already on the thread pool (ms). */
  maxWaitMs?: number;
  /**
   * Removes a staged output folder (already under its hidden temporary name: the output folder itself was never
   * made). Default removeTreeSync, in this process; the CLI hands it to a detached process, so that an interrupted
   * run ends at once rather than after tens of thousands of unlinks (src/cli/detached-removal.ts).
   */
  removeTree?: (path: string) => void;
}

/**
 * For signal handlers: stops new temporary files, waits (up to `maxWaitMs`) for opens already on the thread pool,
 * then removes every temporary file and staged output folder. Final names only ever hold complete files.
 */
export async function abortWrites(unlinkSync: (p: string) => void, how: AbortOptions = {}): Promise<void> {
  aborting = true;
  await Promise.all([...abortHooks].map((h) => h().catch(() => {})));
  const until = Date.now() + (how.maxWaitMs ?? 2000);
  while (opening > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  removeTempFilesSync(unlinkSync);
  const removeTree = how.removeTree ?? removeTreeSync;
  for (const c of [...abortCleanups]) {
    try {
      c(removeTree);
    } catch {
      // best effort while exiting
    }
  }
}

/**
 * Run by `abortWrites` after the temporary files are gone (staged output folders remove themselves, with the
 * `removeTree` they are given).
 */
export const abortCleanups = new Set<(removeTree: (path: string) => void) => void>();

/**
 * Work that writes temporary files elsewhere (worker threads) registers how to stop it; `abortWrites` runs these
 * before it removes the temporary files, so none is created after the cleanup.
 */
export const abortHooks = new Set<() => Promise<void>>();

/** A fresh temporary name beside `path`, unique across this process's threads (see tempName). */
export function tempPathFor(path: string): string {
  return join(dirname(path), tempName());
}

/**
 * Writes a file under a temporary name in the same folder and renames it into place only once complete, so a
 * failed or interrupted write never leaves a partial file under the final name.
 */
export async function writeFileAtomic(
  path: string,
  /** The file's bytes in order: pieces, or groups of pieces (e.g. a reader's spans). */
  pieces: AsyncIterable<Uint8Array | readonly Uint8Array[]> | Iterable<Uint8Array | readonly Uint8Array[]>,
  /** Runs once every byte is written, before the rename: throwing keeps the file from its final name. */
  beforeRename?: () => void | Promise<void>,
  how: AtomicWriteOptions = {},
): Promise<number> {
  const ops = how.sync ? syncOps : asyncOps;
  const dir = dirname(path);
  if (!createdDirs.has(dir)) {
    await ops.mkdir(dir).catch((e) => {
      throw ioError(e, dir);
    });
    createdDirs.add(dir);
  }
  const tmp = how.tempPath ?? tempPathFor(path);
  let written = 0;
  try {
    // The folder may have gone since this process made it (a second run into a deleted output folder).
    const file = await ops.create(tmp, path).catch(async (e: unknown) => {
      if (!(e instanceof IoStoreError && e.code === 'NOT_FOUND')) throw e;
      await ops.mkdir(dir).catch((m) => {
        throw ioError(m, dir);
      });
      return ops.create(tmp, path);
    });
    try {
      // Pieces are gathered into one writev of up to WRITE_BATCH bytes: a syscall per 64 KiB block costs more
      // than the copy it saves.
      let batch: Uint8Array[] = [];
      let batchBytes = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        await file.writeAll(batch, batchBytes).catch((e) => {
          throw e instanceof IoStoreError ? e : ioError(e, path);
        });
        written += batchBytes;
        batch = [];
        batchBytes = 0;
      };
      for await (const group of pieces) {
        for (const piece of group instanceof Uint8Array ? [group] : group) {
          batch.push(piece);
          batchBytes += piece.length;
        }
        if (how.transient || batchBytes >= WRITE_BATCH) await flush();
      }
      await flush();
    } finally {
      await file.close();
    }
    await beforeRename?.();
    if (tmp !== path) {
      await ops.rename(tmp, path).catch((e) => {
        throw ioError(e, path);
      });
    }
    tempFilesInFlight.delete(tmp);
    return written;
  } catch (e) {
    await ops.unlink(tmp).catch(() => {});
    tempFilesInFlight.delete(tmp);
    throw e;
  }
}

export interface AtomicWriteOptions {
  /**
   * Blocking file calls: for worker threads, where a call's round trip through the libuv pool costs more than it
   * saves. Never on a thread that must stay responsive.
   */
  sync?: boolean;
  /** The temporary name to use (the caller registered it for cleanup); default: a fresh one beside `path`. */
  tempPath?: string;
  /** Each piece or group is overwritten once the next is pulled (a transient source): write each before pulling on. */
  transient?: boolean;
}

/** The file calls an atomic write makes, in a blocking and a non-blocking flavour. */
interface FileOps {
  mkdir(dir: string): Promise<unknown>;
  /** Creates the temporary file `tmp`; its errors name `shownAs` (the file it becomes). */
  create(tmp: string, shownAs: string): Promise<{ writeAll(pieces: Uint8Array[], total: number): Promise<void>; close(): Promise<void> }>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

const asyncOps: FileOps = {
  // Blocking, and refused once an interrupt began: a folder made after its cleanup would outlive the run (one call
  // per folder: `createdDirs`).
  mkdir: async (dir) => {
    if (aborting) throw new IoStoreError('IO', 'interrupted', { file: dir });
    return mkdirSync(dir, { recursive: true });
  },
  async create(tmp, shownAs) {
    const fh = await openTempFile(tmp, shownAs);
    return {
      async writeAll(pieces) {
        await writePieces(fh, pieces);
      },
      close: () => fh.close(),
    };
  },
  rename,
  unlink,
};

const syncOps: FileOps = {
  mkdir: async (dir) => {
    if (aborting) throw new IoStoreError('IO', 'interrupted', { file: dir });
    return mkdirSync(dir, { recursive: true });
  },
  async create(tmp, shownAs) {
    if (aborting) throw new IoStoreError('IO', 'interrupted', { file: shownAs });
    tempFilesInFlight.add(tmp);
    let fd: number;
    try {
      fd = openSync(tmp, 'w');
    } catch (e) {
      tempFilesInFlight.delete(tmp);
      throw ioError(e, shownAs);
    }
    return {
      async writeAll(pieces) {
        writePiecesSync(fd, pieces);
      },
      close: async () => closeSync(fd),
    };
  },
  rename: async (from, to) => renameSync(from, to),
  unlink: async (path) => unlinkSync(path),
};

const WRITE_BATCH = 4 << 20;



/** Best-effort removal of in-flight temporary files, for signal handlers. */
export function removeTempFilesSync(unlinkSync: (p: string) => void): void {
  for (const t of tempFilesInFlight) {
    try {
      unlinkSync(t);
    } catch {
      // already gone
    }
  }
  tempFilesInFlight.clear();
}
