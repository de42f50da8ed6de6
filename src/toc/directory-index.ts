import { IoStoreError } from '../errors.js';
import { ByteReader, latin1, LITTLE_ENDIAN } from '../util/bytes.js';
import { quote } from '../util/quote.js';
import { ByteList, IntList } from '../util/int-list.js';
import { i32sBeside, scanNames, u32sBeside, walkIndex, type IndexWalk } from './toc-scan.js';
import { KeyTable } from '../util/key-table.js';

const NONE = 0xffffffff;

/** FIoDirectoryIndexResource, as stored (after decryption). */
export interface DirectoryIndex {
  mountPoint: string;
  /** 4 u32 per directory: name, first child, next sibling, first file. Entry 0 is the root. */
  directories: Uint32Array;
  /** 3 u32 per file: name, next file, user data (the chunk's TOC index). */
  files: Uint32Array;
  /** The string table (names of directories and files): a `string[]`, or, parsed, the bytes it was read from. */
  strings: DirectoryNames;
}

/** The string table of an index: a name by its number (a `string[]` is one). */
export interface DirectoryNames {
  readonly length: number;
  at(i: number): string | undefined;
}

/** A file of the directory index with its path relative to the mount point. */
export interface DirectoryFile {
  path: string;
  tocIndex: number;
}

export function parseDirectoryIndex(bytes: Uint8Array, source: string, base: number): DirectoryIndex {
  const r: ByteReader = new ByteReader(bytes, source, base);
  const mountPoint = r.fstring('directory index mount point');
  const dirCount = r.u32('directory entry count');
  r.needArray(dirCount, 16, 'directory entries');
  const directories = readU32s(r, dirCount * 4);
  const fileCount = r.u32('file entry count');
  r.needArray(fileCount, 12, 'file entries');
  const files = readU32s(r, fileCount * 3);
  const stringCount = r.u32('string table count');
  // Each FString takes at least 4 bytes, which bounds the count before the array is built.
  r.needArray(stringCount, 4, 'string table');
  // Names are checked here and decoded when asked for (StoredNames): a string per name held for the run cost ~40
  // bytes each, in every thread that opened the container.
  // Over shared memory when the TOC's bytes are (worker threads take these arrays: see sharedDirectoryIndex).
  const starts = isShared(r.bytes) ? new Int32Array(new SharedArrayBuffer(stringCount * 4)) : (i32sBeside(r.bytes, stringCount) ?? new Int32Array(stringCount));
  const tableAt = r.pos;
  // Plain names are stepped over by WebAssembly (src/toc/toc-scan.ts); any other (UTF-16, or one to refuse) here.
  const tableSize = scanNames(r.bytes.subarray(tableAt), stringCount, starts, (i, pos) => {
    const at = (r.pos = tableAt + pos);
    if (!stepOverName(r, i)) {
      r.pos = at;
      const bad = r.fstring(`directory index string ${i}`);
      r.fail('UNSAFE_PATH', `directory index name ${quote(bad)} ${unsafeComponent(bad) ?? 'is not a valid name'}`, at);
    }
    return r.pos - tableAt;
  });
  r.pos = tableAt + tableSize;
  const strings = new StoredNames(r.bytes.subarray(tableAt, r.pos), starts);
  // What follows the index inside its D bytes is the encryption padding; anything beyond 15 bytes is not.
  if (r.remaining >= 16) r.fail('SIZE_MISMATCH', `directory index ends with ${r.remaining} unexplained bytes`);
  // The mount point only prefixes file paths. The engine writes `/` (or nothing) in the index of a container that
  // names no files (a patch container with no entries), and with no file nothing can be written below it.
  if (fileCount > 0) validateMountPoint(mountPoint, source, base);
  return { mountPoint, directories, files, strings };
}


/** `count` little-endian u32s at the cursor (already bounds-checked), copied in one call on little-endian hosts. */
function readU32s(r: ByteReader, count: number): Uint32Array {
  const at = r.bytes.byteOffset + r.pos;
  let out: Uint32Array | undefined;
  // Beside a .utoc read into module memory, the walk reads them there (src/toc/toc-scan.ts).
  if (LITTLE_ENDIAN) out = u32sBeside(r.bytes.subarray(r.pos), count) ?? new Uint32Array(r.bytes.buffer.slice(at, at + count * 4));
  else {
    out = new Uint32Array(count);
    for (let i = 0; i < count; i++) out[i] = r.view.getUint32(r.pos + i * 4, true);
  }
  r.pos += count * 4;
  return out;
}

/**
 * Steps over one string-table entry, checking its bytes for characters that could escape a folder: a directory
 * index of a big container holds thousands of names, and this is the hot loop of opening one. Returns false for an
 * unsafe name (the caller re-reads it to say why).
 */
function stepOverName(r: ByteReader, i: number): boolean {
  const at = r.pos;
  const len = r.i32('string length');
  if (len <= 0) {
    r.pos = at;
    return unsafeComponent(r.fstring(`directory index string ${i}`)) === undefined;
  }
  if (len > r.remaining) r.fail('TRUNCATED', `directory index string ${i}: length ${len} exceeds the ${r.remaining} bytes that remain`, at);
  const b = r.bytes;
  const start = r.pos;
  const end = start + len - 1;
  if (b[end] !== 0) r.fail('BAD_VALUE', `directory index string ${i} is not NUL-terminated`, at);
  for (let k = start; k < end; k++) {
    const c = b[k]!;
    // '/', '\', ':' and control characters never belong in one path component.
    if (c < 0x20 || c === 0x2f || c === 0x5c || c === 0x3a) return false;
  }
  r.pos = end + 1;
  // '', '.' and '..'
  return !(len === 1 || (b[start] === 0x2e && (len === 2 || (len === 3 && b[start + 1] === 0x2e))));
}

/**
 * A parsed string table: the FStrings as stored (already checked by parseDirectoryIndex) and where each starts.
 * A name is decoded each time it is asked for.
 */
class StoredNames implements DirectoryNames {
  constructor(
    /** The string table as stored: its FStrings back to back (serializeDirectoryIndex copies them as they are). */
    readonly bytes: Uint8Array,
    readonly starts: Int32Array,
  ) {}

  get length(): number {
    return this.starts.length;
  }

  at(i: number): string | undefined {
    if (i < 0 || i >= this.starts.length) return undefined;
    return decodeFString(this.bytes, this.starts[i]!);
  }

  /** Where name i's FString (its i32 length, then its characters) starts in `bytes`. */
  startOf(i: number): number {
    return this.starts[i]!;
  }
}

/**
 * A parsed index's arrays, when they lie in shared memory (a TOC read from a SharedArrayBuffer): what another thread
 * needs to use the same index without parsing and checking it again, or undefined.
 */
export interface SharedDirectoryIndex {
  mountPoint: string;
  directories: Uint32Array;
  files: Uint32Array;
  names: Uint8Array;
  nameStarts: Int32Array;
}

export function sharedDirectoryIndex(index: DirectoryIndex): SharedDirectoryIndex | undefined {
  const { directories, files, strings } = index;
  if (!(strings instanceof StoredNames) || !isShared(directories) || !isShared(files) || !isShared(strings.bytes) || !isShared(strings.starts)) return undefined;
  return { mountPoint: index.mountPoint, directories, files, names: strings.bytes, nameStarts: strings.starts };
}

/** The index another thread parsed (sharedDirectoryIndex), used as it is. */
export function directoryIndexFromShared(s: SharedDirectoryIndex): DirectoryIndex {
  return { mountPoint: s.mountPoint, directories: s.directories, files: s.files, strings: new StoredNames(s.names, s.nameStarts) };
}

function isShared(a: ArrayBufferView): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && a.buffer instanceof SharedArrayBuffer;
}

/** The FString at `bytes[at]` (one already checked: see stepOverName). */
function decodeFString(b: Uint8Array, at: number): string {
  const len = b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);
  if (len > 0) return latin1(b.subarray(at + 4, at + 3 + len));
  const r = new ByteReader(b, 'directory index');
  r.pos = at;
  return r.fstring();
}

/** Why a single path component is unsafe to join into an output path, or undefined when it is fine. */
export function unsafeComponent(s: string): string | undefined {
  // One scan for the common case; the specific reason is worked out only for a bad name.
  if (s !== '' && s !== '.' && s !== '..' && !UNSAFE_CHARS.test(s)) return undefined;
  if (s === '') return 'is empty';
  if (s === '.' || s === '..') return 'is a relative directory reference';
  if (/[/\\]/.test(s)) return 'contains a path separator';
  if (s.includes(':')) return 'contains a drive or stream separator (":")';
  return 'contains a control character';
}
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[/\\:\x00-\x1f]/;

/**
 * The mount point is engine-relative (`../../../` then an optional folder). Leading `../` are the engine's own
 * convention; any other `..`, an absolute path or a drive letter would let a path escape an output folder.
 */
function validateMountPoint(mountPoint: string, source: string, base: number): void {
  const m = mountPoint.replaceAll('\\', '/');
  let rest = m;
  while (rest.startsWith('../')) rest = rest.slice(3);
  const parts = rest.split('/').filter((p) => p !== '');
  if (rest.startsWith('/') || startsWithDrive(m) || parts.some((p) => p === '..' || p === '.' || p.includes(':'))) {
    throw new IoStoreError('UNSAFE_PATH', `directory index mount point ${quote(mountPoint)} is not a relative engine path`, { file: source, offset: base });
  }
}

/** Whether `path` starts with a drive letter and its colon (`C:`): what `/^[a-zA-Z]:/` tells, without compiling one. */
function startsWithDrive(path: string): boolean {
  const letter = path.charCodeAt(0) | 0x20;
  return letter >= 0x61 && letter <= 0x7a && path.charCodeAt(1) === 0x3a;
}

/** The mount point without the engine's leading `../` hops and slashes, e.g. `Game/Content/` or ``. */
export function mountPointRelative(mountPoint: string): string {
  let s = mountPoint.replaceAll('\\', '/');
  for (;;) {
    if (s.startsWith('../')) s = s.slice(3);
    else break;
  }
  if (s !== '' && !s.endsWith('/')) s += '/';
  return s;
}

/**
 * Walks the index from the root, checking it as it goes (entries in range, no entry reached twice; by WebAssembly:
 * src/toc/toc-scan.ts): the files in the order the engine's own walk lists them, and the folders' tree.
 */
function walkDirectoryIndex(index: DirectoryIndex, chunkCount: number, source: string, into?: { chunkFolder: Int32Array; chunkName: Int32Array }): IndexWalk {
  const { directories, files, strings } = index;
  const walk = walkIndex(directories, files, strings.length, chunkCount, into);
  if ('error' in walk) {
    const { entry, value } = walk;
    const what = [
      '',
      `file entry ${entry} is out of range (${files.length / 3} entries)`,
      `file entry ${entry} is reached twice (a loop)`,
      `file entry ${entry} points at chunk ${value} but the TOC has ${chunkCount}`,
      `file entry ${entry} names string ${value} but the table has ${strings.length}`,
      `directory entry ${entry} is out of range (${directories.length / 4} entries)`,
      `directory entry ${entry} is reached twice (a loop)`,
      `directory entry ${entry} names string ${value} but the table has ${strings.length}`,
    ][walk.error];
    throw new IoStoreError('BAD_VALUE', `directory index: ${what}`, { file: source });
  }
  return walk;
}

/**
 * Each folder's path prefix, `head` then the folders below the root each followed by `/`, from the walk's tree
 * (`parents`: a folder comes after its parent; `names`: numbers in the string table).
 */
function folderPrefixes(parents: Int32Array, names: Int32Array, strings: DirectoryNames, head: string): string[] {
  const prefixes: string[] = parents.length > 0 ? [head] : [];
  for (let f = 1; f < parents.length; f++) prefixes.push(`${prefixes[parents[f]!]}${strings.at(names[f]!)}/`);
  return prefixes;
}

/**
 * Walks the tree and returns every file with its path relative to the mount point. A corrupt index that loops or
 * points out of range fails with its entry number; nothing here can run forever.
 */
export function directoryIndexFiles(index: DirectoryIndex, chunkCount: number, source: string): DirectoryFile[] {
  const { order, folderOfFile, parents, folderNames } = walkDirectoryIndex(index, chunkCount, source);
  const prefixes = folderPrefixes(parents, folderNames, index.strings, '');
  const out: DirectoryFile[] = [];
  for (let k = 0; k < order.length; k++) {
    const f = order[k]!;
    out.push({ path: prefixes[folderOfFile[k]!]! + index.strings.at(index.files[f * 3]!)!, tocIndex: index.files[f * 3 + 2]! });
  }
  return out;
}

/** ChunkPaths' tables over shared memory, for another thread (ChunkPaths.shared). */
export interface SharedChunkPaths {
  prefixOf: Int32Array;
  nameOf: Int32Array;
  tree: FolderTree;
  fileCount: number;
}

/**
 * The folders of an index's paths (folder 0 the root): each one's parent folder and its name's number in the string
 * table (-1 for the root), a folder after its parent; every path starts with `mountPrefix`.
 */
export interface FolderTree {
  parents: Int32Array;
  names: Int32Array;
  mountPrefix: string;
}

/**
 * Chunk paths kept packed: per chunk, its directory's path prefix and its name (indexes into the prefixes and the
 * index's string table), so that a path costs 8 bytes until asked for, rather than a string per chunk held for the
 * whole run (a large game has 500,000+ chunks). A chunk named by two file entries takes the later one's path. The
 * folders' prefixes are made as text when first asked for: a listing makes its folders' cells from `tree` instead
 * (src/cli/chunk-rows.ts).
 */
export class ChunkPaths {
  private readonly prefixOf: Int32Array;
  private readonly nameOf: Int32Array;
  /** The folders (see FolderTree). */
  readonly tree: FolderTree;
  private prefixes: string[] | undefined;
  /** File entries of the index. */
  readonly fileCount: number;
  /** Chunks a file entry names (counted when first asked for, for tables another thread made). */
  private named = -1;

  constructor(
    private readonly index: DirectoryIndex,
    chunkCount: number,
    source: string,
    /** Put before every path (the mount point without its `../` hops). */
    mountPrefix: string,
    /** The tables another thread made of the same index (`shared`), taken as they are. */
    given?: SharedChunkPaths,
  ) {
    if (given && given.prefixOf.length === chunkCount && given.nameOf.length === chunkCount) {
      this.prefixOf = given.prefixOf;
      this.nameOf = given.nameOf;
      this.tree = given.tree;
      this.fileCount = given.fileCount;
      return;
    }
    // Over shared memory when the index is (worker threads then take them: see `shared`).
    const shared = isShared(index.files);
    // Else beside a .utoc read into module memory, where the list rows read them (src/toc/toc-scan.ts).
    this.prefixOf = shared ? new Int32Array(new SharedArrayBuffer(chunkCount * 4)) : (i32sBeside(index.files, chunkCount) ?? new Int32Array(chunkCount));
    this.nameOf = shared ? new Int32Array(new SharedArrayBuffer(chunkCount * 4)) : (i32sBeside(index.files, chunkCount) ?? new Int32Array(chunkCount));
    const walk = walkDirectoryIndex(index, chunkCount, source, { chunkFolder: this.prefixOf, chunkName: this.nameOf });
    if (walk.chunkFolder !== this.prefixOf) this.prefixOf.set(walk.chunkFolder);
    if (walk.chunkName !== this.nameOf) this.nameOf.set(walk.chunkName);
    this.tree = { parents: walk.parents, names: walk.folderNames, mountPrefix };
    this.fileCount = walk.reached;
  }

  /** The tables, when in shared memory: another thread's ChunkPaths of the same index takes them (constructor). */
  get shared(): SharedChunkPaths | undefined {
    if (!isShared(this.prefixOf) || !isShared(this.nameOf)) return undefined;
    return { prefixOf: this.prefixOf, nameOf: this.nameOf, tree: this.tree, fileCount: this.fileCount };
  }

  private prefixList(): string[] {
    return (this.prefixes ??= folderPrefixes(this.tree.parents, this.tree.names, this.index.strings, this.tree.mountPrefix));
  }

  /** Path of chunk i, or undefined if no file entry names it. */
  get(i: number): string | undefined {
    const p = this.prefixOf[i]!;
    return p < 0 ? undefined : this.prefixList()[p]! + this.index.strings.at(this.nameOf[i]!)!;
  }

  /**
   * The folder of chunk i's path, as a number for `folderPath` (-1: no file entry names it). A container's chunks lie
   * in a few hundred folders: what is worked out per folder (an output folder, its text) is then made once.
   */
  folder(i: number): number {
    return this.prefixOf[i]!;
  }

  /** Whether some chunk has no file entry (its `folder` is -1). */
  get hasUnnamed(): boolean {
    if (this.named < 0) {
      let named = 0;
      for (let i = 0; i < this.prefixOf.length; i++) if (this.prefixOf[i]! >= 0) named++;
      this.named = named;
    }
    return this.named < this.prefixOf.length;
  }

  /** Folders (`folder`) there are. */
  get folderCount(): number {
    return this.tree.parents.length;
  }

  /** Folder f's path: the mount point's, then the folders below it, each followed by `/` (`` for the root). */
  folderPath(f: number): string {
    return this.prefixList()[f]!;
  }

  /** The file name of chunk i's path (after its folder's), or undefined if no file entry names it. */
  name(i: number): string | undefined {
    return this.prefixOf[i]! < 0 ? undefined : this.index.strings.at(this.nameOf[i]!)!;
  }

  /**
   * The index's string table as stored (FStrings back to back: an i32 length, then, > 0, that many Latin-1 bytes
   * ending with a NUL, or, < 0, as many UTF-16LE units), or undefined when the index was not parsed from bytes. With
   * `storedNameAt`, for writers that copy a name without making a string of it.
   */
  get storedNames(): Uint8Array | undefined {
    return this.index.strings instanceof StoredNames ? this.index.strings.bytes : undefined;
  }

  /**
   * The per-chunk tables themselves (not copies: read only), for writers that work over every chunk at once: each
   * chunk's folder (`folder`, -1 when unnamed) and its name's number in the string table, with where each name's FString
   * starts in `storedNames` (undefined when the index was not parsed from bytes).
   */
  get tables(): { folderOf: Int32Array; nameOf: Int32Array; nameStarts: Int32Array | undefined } {
    const strings = this.index.strings;
    return { folderOf: this.prefixOf, nameOf: this.nameOf, nameStarts: strings instanceof StoredNames ? strings.starts : undefined };
  }

  /** Where chunk i's file name starts in `storedNames` (-1: unnamed, or no stored table). */
  storedNameAt(i: number): number {
    const strings = this.index.strings;
    if (this.prefixOf[i]! < 0 || !(strings instanceof StoredNames)) return -1;
    return strings.startOf(this.nameOf[i]!);
  }
}

/**
 * Builds an index from paths relative to the mount point, deduplicating names as the engine does. The names are kept
 * as the FStrings the index stores (StoredNames), entries in growing integer arrays: an index of a game's 500,000
 * files is built without an object or string per file.
 */
export function buildDirectoryIndex(mountPoint: string, entries: Iterable<DirectoryFile>): DirectoryIndex {
  const names = new ByteList(1 << 12);
  const starts = new IntList();
  const ids = new KeyTable((id) => decodeFString(names.view(), starts.get(id)));
  const intern = (s: string): number => {
    let id = ids.find(s);
    if (id < 0) {
      id = starts.push(names.length);
      names.append(encodeFString(s));
      ids.set(s, id);
    }
    return id;
  };
  // Per directory: name, first child, next sibling, first file; per file: name, next file, TOC index.
  const dirs = new IntList(64);
  dirs.push(-1), dirs.push(-1), dirs.push(-1), dirs.push(-1);
  const files = new IntList(1024);
  const dirByPath = new Map<string, number>([['', 0]]);
  const dirFor = (dirPath: string, path: string): number => {
    const known = dirByPath.get(dirPath);
    if (known !== undefined) return known;
    let cur = 0;
    let at = '';
    for (const p of dirPath.split('/')) {
      checkComponent(path, p);
      at = at === '' ? p : `${at}/${p}`;
      let d = dirByPath.get(at);
      if (d === undefined) {
        d = dirs.length / 4;
        // New children go to the front of the sibling list: order is free and this needs no tail pointer.
        dirs.push(intern(p)), dirs.push(-1), dirs.push(dirs.get(cur * 4 + 1)), dirs.push(-1);
        dirs.set(cur * 4 + 1, d);
        dirByPath.set(at, d);
      }
      cur = d;
    }
    return cur;
  };
  for (const e of entries) {
    const cut = e.path.lastIndexOf('/');
    const fileName = e.path.slice(cut + 1);
    const d = cut < 0 ? 0 : dirFor(e.path.slice(0, cut), e.path);
    checkComponent(e.path, fileName);
    const f = files.length / 3;
    files.push(intern(fileName)), files.push(dirs.get(d * 4 + 3)), files.push(e.tocIndex);
    dirs.set(d * 4 + 3, f);
  }
  const u32 = (l: IntList) => new Uint32Array(l.toInt32Array().buffer);
  return { mountPoint, directories: u32(dirs), files: u32(files), strings: new StoredNames(names.view().slice(), starts.toInt32Array()) };
}

function checkComponent(path: string, p: string): void {
  const why = unsafeComponent(p);
  if (why) throw new IoStoreError('UNSAFE_PATH', `path ${quote(path)}: component ${quote(p)} ${why}`);
}

/** Serialises an index to its on-disk form (unencrypted, unpadded), in one buffer. */
export function serializeDirectoryIndex(index: DirectoryIndex): Uint8Array {
  const mount = encodeFString(index.mountPoint);
  const stored = index.strings instanceof StoredNames ? index.strings.bytes : undefined;
  const names: Uint8Array[] = [];
  if (!stored) for (let i = 0; i < index.strings.length; i++) names.push(encodeFString(index.strings.at(i)!));
  const namesSize = stored ? stored.length : names.reduce((a, n) => a + n.length, 0);
  const out = new Uint8Array(mount.length + 12 + index.directories.byteLength + index.files.byteLength + namesSize);
  const view = new DataView(out.buffer);
  let at = 0;
  const bytes = (b: Uint8Array) => {
    out.set(b, at);
    at += b.length;
  };
  const u32s = (a: Uint32Array) => {
    view.setUint32(at, a.length / (a === index.directories ? 4 : 3), true);
    at += 4;
    for (let i = 0; i < a.length; i++, at += 4) view.setUint32(at, a[i]!, true);
  };
  bytes(mount);
  u32s(index.directories);
  u32s(index.files);
  view.setUint32(at, index.strings.length, true);
  at += 4;
  if (stored) bytes(stored);
  else for (const n of names) bytes(n);
  return out;
}

/** FString encoding as the engine writes it: 8-bit when every char fits, else UTF-16LE; NUL-terminated. */
export function encodeFString(s: string): Uint8Array {
  if (s === '') return new Uint8Array(4);
  // eslint-disable-next-line no-control-regex
  const wide = /[^\x00-\x7f]/.test(s);
  if (!wide) {
    const out = new Uint8Array(4 + s.length + 1);
    new DataView(out.buffer).setInt32(0, s.length + 1, true);
    for (let i = 0; i < s.length; i++) out[4 + i] = s.charCodeAt(i);
    return out;
  }
  const out = new Uint8Array(4 + (s.length + 1) * 2);
  const view = new DataView(out.buffer);
  view.setInt32(0, -(s.length + 1), true);
  for (let i = 0; i < s.length; i++) view.setUint16(4 + i * 2, s.charCodeAt(i), true);
  return out;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * TOC index of the file at `relPath` (below the mount point, `/`-separated, compared case-insensitively as the
 * engine's file system does), or -1. Walks down one directory per component: no table over every file is built,
 * and a corrupt index that loops ends after as many steps as it has entries.
 */
export function findDirectoryIndexFile(index: DirectoryIndex, relPath: string): number {
  const { directories, files, strings } = index;
  const parts = relPath.split('/').filter((p) => p !== '');
  if (parts.length === 0 || directories.length === 0) return -1;
  let budget = directories.length / 4 + files.length / 3;
  const same = (s: number, want: string) => s < strings.length && strings.at(s)!.toLowerCase() === want;
  let dir = 0;
  for (let k = 0; k < parts.length - 1; k++) {
    const want = parts[k]!.toLowerCase();
    let c = directories[dir * 4 + 1]!;
    while (c !== NONE && c * 4 < directories.length && !same(directories[c * 4]!, want)) {
      if (--budget < 0) return -1;
      c = directories[c * 4 + 2]!;
    }
    if (c === NONE || c * 4 >= directories.length) return -1;
    dir = c;
  }
  const want = parts[parts.length - 1]!.toLowerCase();
  for (let f = directories[dir * 4 + 3]!; f !== NONE && f * 3 < files.length; f = files[f * 3 + 1]!) {
    if (same(files[f * 3]!, want)) return files[f * 3 + 2]!;
    if (--budget < 0) return -1;
  }
  return -1;
}
