import { existsSync, promises as fsp } from 'node:fs';
import { closeSync, fsizeSync, openSync } from '../util/sync-fs.js';
import { IoStoreError } from '../errors.js';
import { fsFailure } from '../util/fs-errors.js';
import { TOC_HEADER_SIZE, TOC_MAGIC } from './header.js';
import { readToc, type IoStoreToc, type ReadTocOptions } from './toc.js';
import { tocBytesInModule } from './toc-scan.js';
import { readFullSync } from '../util/read-full.js';
import { hasExtension } from '../util/file-extension.js';
import { sharedModuleBytes } from '../util/wasm.js';
import type { OpenedFile } from '../util/path-probe.js';

/** Address space past a shared .utoc's bytes for the manifest writer's tables, windows and output (see sharedModuleBytes). */
const SHARED_ROOM = 16 << 20;

/**
 * Reads and parses a .utoc file. The magic is checked on the first bytes before the whole file is read, so a
 * multi-gigabyte file passed by mistake (a .ucas) is rejected without loading it.
 */
export async function openToc(path: string, options: ReadTocOptions = {}, opened?: OpenedFile): Promise<IoStoreToc> {
  const bytes = await readTocBytes(path, { opened });
  return readToc(bytes, { source: path, ...options });
}

/**
 * The bytes of a .utoc (`shared`: in a SharedArrayBuffer, for ContainerOrigin.tocBytes). Read with blocking calls: a TOC is read whole and at once (kilobytes to tens of MB), and five
 * round trips through libuv's thread pool (open, stat, head, body, close) cost `list` and `info` more than the
 * reads themselves. `opened`: the path as a probe left it open (src/util/path-probe.ts), taken instead of opening it
 * again (and closed here as a file opened here is).
 */
export async function readTocBytes(path: string, o: { shared?: boolean; opened?: OpenedFile | undefined } = {}): Promise<Uint8Array> {
  if (hasExtension(path, '.ucas')) throw ucasGiven(path);
  const fd = o.opened?.take(path) ?? withIoError(path, () => openSync(path, 'r'));
  try {
    const head = new Uint8Array(TOC_HEADER_SIZE);
    const headSize = readFullSync(fd, head, 0, head.length, 0);
    const magicOk = headSize >= 16 && TOC_MAGIC.split('').every((c, i) => head[i] === c.charCodeAt(0));
    if (!magicOk) {
      throw new IoStoreError(headSize < 16 ? 'TRUNCATED' : 'BAD_MAGIC', headSize < 16 ? `file is ${headSize} bytes, too short for a .utoc` : `not a .utoc file: expected magic "${TOC_MAGIC}"`, { file: path, offset: 0 });
    }
    // Shared: worker threads opening the same container parse these bytes instead of reading a copy of their own; in a
    // shared WebAssembly memory, where a long unpack manifest's writer reads them in place (src/layout/manifest-wasm.ts).
    // Else in WebAssembly memory, where the TOC scan and the list rows read it without copies (src/toc/toc-scan.ts).
    // Sized by fsizeSync (no Stats object, whose class is compiled on first use: ~0.2 ms of a short `list` or
    // `info`, which need it nowhere else), then read at once.
    const size = fsizeSync(fd);
    const bytes = o.shared && typeof SharedArrayBuffer === 'function' ? (sharedModuleBytes(size, SHARED_ROOM) ?? new Uint8Array(new SharedArrayBuffer(size))) : (tocBytesInModule(size) ?? new Uint8Array(size));
    const done = readFullSync(fd, bytes, 0, size, 0);
    return done === size ? bytes : bytes.subarray(0, done);
  } catch (e) {
    throw e instanceof IoStoreError ? e : ioError(e, path);
  } finally {
    closeSync(fd);
  }
}

/**
 * A `.ucas` given where its `.utoc` belongs: the `.utoc` indexes it (its partitions `X_s1.ucas` ... too), and reading
 * the data file as a table of contents would only report a wrong magic number.
 */
export function ucasGiven(path: string): IoStoreError {
  const utoc = path.replace(/(_s\d+)?\.ucas$/i, '.utoc');
  const name = utoc.slice(Math.max(utoc.lastIndexOf('/'), utoc.lastIndexOf('\\')) + 1);
  const message = existsSync(utoc)
    ? `this is a .ucas data file: pass its .utoc (${name} beside it), which indexes it`
    : `this is a .ucas data file, and its .utoc (${name}), which indexes it, is missing: a container needs both`;
  return new IoStoreError('USAGE', message, { file: path });
}

export async function openForRead(path: string) {
  try {
    // fs.promises is reached when first used: `list` and `info` read with blocking calls and never load it.
    return await fsp.open(path, 'r');
  } catch (e) {
    throw ioError(e, path);
  }
}

/**
 * Maps an operating-system error to the library's error type: in plain words, naming the user's path (a temporary
 * name shown as the name it stands for, a long path shortened; see fsFailure).
 */
export function ioError(e: unknown, path: string): IoStoreError {
  if (e instanceof IoStoreError) return e;
  const f = fsFailure(e, path);
  return new IoStoreError(f.code, f.message, { file: f.file });
}

/** Runs a file-system call on `path`, its failure turned into the IoStoreError `ioError` makes. */
export function withIoError<T>(path: string, call: () => T): T {
  try {
    return call();
  } catch (e) {
    throw ioError(e, path);
  }
}
