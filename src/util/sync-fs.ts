import { closeSync as nodeCloseSync, fstatSync as nodeFstatSync, openSync as nodeOpenSync, readSync as nodeReadSync, statSync as nodeStatSync, writeSync as nodeWriteSync } from 'node:fs';

/**
 * Blocking open, read, write and close of files, as node:fs's openSync, readSync, writeSync and closeSync, and a
 * file's size (`sizeSync`: statSync's, without the Stats object and its four Dates, which pack made for every file of
 * a mod folder; `fsizeSync`, an open file's: fstatSync's). Run from the CLI's bundles, the loader's (bin/bundle-loader.js `syncFs`, which reads the bundles with
 * them): on the Node releases whose fs binding it knows (RAW_FS_NODES, POSIX), it calls the binding as those functions
 * call it. Their JavaScript (argument checks, flags and mode parsing, the write's error context: ~5 KB of Node's
 * source) was compiled on first use in every run: a short `list` -0.45M instructions. The binding CHECKs its
 * arguments and ends the process on a mismatch, so anything but a path (text, or its bytes without a NUL) opened 'r'
 * or with numeric flags, a path stat'ed, a read of whole numbers within its buffer at a position, or a write of a byte
 * view goes to node:fs, as does a failed write (made again, for node:fs's error).
 * Elsewhere (tests, the library used from source, IOSTORE_NODE_FS=1) node:fs's own. Named imports: a namespace
 * import of node:fs is copied into an object of getters when the bundle loads.
 */
interface SyncFs {
  openSync: typeof nodeOpenSync;
  readSync: typeof nodeReadSync;
  writeSync: typeof nodeWriteSync;
  closeSync: typeof nodeCloseSync;
  /** statSync(path).size. */
  sizeSync: (path: string) => number;
  /** fstatSync(fd).size. */
  fsizeSync: (fd: number) => number;
}

const loaders = (globalThis as { __iostoreSyncFs?: SyncFs }).__iostoreSyncFs;

const nodeSizeSync = (path: string): number => nodeStatSync(path).size;
const nodeFsizeSync = (fd: number): number => nodeFstatSync(fd).size;

export const { openSync, readSync, writeSync, closeSync, sizeSync, fsizeSync }: SyncFs = loaders ?? { openSync: nodeOpenSync, readSync: nodeReadSync, writeSync: nodeWriteSync, closeSync: nodeCloseSync, sizeSync: nodeSizeSync, fsizeSync: nodeFsizeSync };
