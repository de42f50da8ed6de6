import { IoStoreError } from '../errors.js';
import { ByteReader, latin1 } from '../util/bytes.js';
import { quote } from '../util/quote.js';

const NONE = 0xffffffff;

/** FIoDirectoryIndexResource, as stored (after decryption). */
export interface DirectoryIndex {
  mountPoint: string;
  /** 4 u32 per directory: name, first child, next sibling, first file. Entry 0 is the root. */
  directories: Uint32Array;
  /** 3 u32 per file: name, next file, user data (the chunk's TOC index). */
  files: Uint32Array;
  strings: string[];
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
  const strings: string[] = new Array(stringCount);
  // The rest of the index decoded at once: 8-bit names are cut from it rather than built a character at a time.
  const tableAt = r.pos;
  const table = latin1(r.bytes.subarray(tableAt));
  for (let i = 0; i < stringCount; i++) {
    const at = r.pos;
    const s = readName(r, i, table, tableAt);
    if (s === undefined) {
      r.pos = at;
      const bad = r.fstring(`directory index string ${i}`);
      r.fail('UNSAFE_PATH', `directory index name ${quote(bad)} ${unsafeComponent(bad) ?? 'is not a valid name'}`, at);
    }
    strings[i] = s;
  }
  // What follows the index inside its D bytes is the encryption padding; anything beyond 15 bytes is not.
  if (r.remaining >= 16) r.fail('SIZE_MISMATCH', `directory index ends with ${r.remaining} unexplained bytes`);
  // The mount point only prefixes file paths. The engine writes `/` (or nothing) in the index of a container that
  // names no files (a patch container with no entries), and with no file nothing can be written below it.
  if (fileCount > 0) validateMountPoint(mountPoint, source, base);
  return { mountPoint, directories, files, strings };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** `count` little-endian u32s at the cursor (already bounds-checked), copied in one call on little-endian hosts. */
function readU32s(r: ByteReader, count: number): Uint32Array {
  const at = r.bytes.byteOffset + r.pos;
  let out: Uint32Array;
  if (LITTLE_ENDIAN) out = new Uint32Array(r.bytes.buffer.slice(at, at + count * 4));
  else {
    out = new Uint32Array(count);
    for (let i = 0; i < count; i++) out[i] = r.view.getUint32(r.pos + i * 4, true);
  }
  r.pos += count * 4;
  return out;
}

/**
 * Reads one string-table entry, checking its bytes for characters that could escape a folder while decoding it:
 * a directory index of a big container holds thousands of names, and this is the hot loop of opening one.
 * Returns undefined for an unsafe name (the caller re-reads it to say why).
 */
function readName(r: ByteReader, i: number, table: string, tableAt: number): string | undefined {
  const at = r.pos;
  const len = r.i32('string length');
  if (len <= 0) {
    r.pos = at;
    const s = r.fstring(`directory index string ${i}`);
    return unsafeComponent(s) ? undefined : s;
  }
  if (len > r.remaining) r.fail('TRUNCATED', `directory index string ${i}: length ${len} exceeds the ${r.remaining} bytes that remain`, at);
  const b = r.bytes;
  const start = r.pos;
  const end = start + len - 1;
  if (b[end] !== 0) r.fail('BAD_VALUE', `directory index string ${i} is not NUL-terminated`, at);
  for (let k = start; k < end; k++) {
    const c = b[k]!;
    // '/', '\', ':' and control characters never belong in one path component.
    if (c < 0x20 || c === 0x2f || c === 0x5c || c === 0x3a) return undefined;
  }
  const s = table.substring(start - tableAt, end - tableAt);
  r.pos = end + 1;
  if (s === '.' || s === '..' || s === '') return undefined;
  return s;
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
  const m = mountPoint.replace(/\\/g, '/');
  let rest = m;
  while (rest.startsWith('../')) rest = rest.slice(3);
  const parts = rest.split('/').filter((p) => p !== '');
  if (rest.startsWith('/') || /^[a-zA-Z]:/.test(m) || parts.some((p) => p === '..' || p === '.' || p.includes(':'))) {
    throw new IoStoreError('UNSAFE_PATH', `directory index mount point ${quote(mountPoint)} is not a relative engine path`, { file: source, offset: base });
  }
}

/** The mount point without the engine's leading `../` hops and slashes, e.g. `Game/Content/` or ``. */
export function mountPointRelative(mountPoint: string): string {
  let s = mountPoint.replace(/\\/g, '/');
  for (;;) {
    if (s.startsWith('../')) s = s.slice(3);
    else break;
  }
  if (s !== '' && !s.endsWith('/')) s += '/';
  return s;
}

/**
 * Walks the index from the root, checking it as it goes (entries in range, no entry reached twice): `onFile` gets
 * each file's entry, its directory's path prefix (ending with `/` below the root), its TOC index and the prefix's
 * index in the array returned, in the order the engine's own walk lists them.
 */
function walkDirectoryIndex(index: DirectoryIndex, chunkCount: number, source: string, onFile: (file: number, prefix: string, tocIndex: number, prefixIndex: number) => void): string[] {
  const { directories, files, strings } = index;
  const dirCount = directories.length / 4;
  const fileCount = files.length / 3;
  const prefixes: string[] = [];
  if (dirCount === 0) return prefixes;
  const seenDirs = new Uint8Array(dirCount);
  const seenFiles = new Uint8Array(fileCount);
  const bad = (what: string): never => {
    throw new IoStoreError('BAD_VALUE', `directory index: ${what}`, { file: source });
  };
  const name = (i: number, what: string): string => {
    if (i >= strings.length) bad(`${what} names string ${i} but the table has ${strings.length}`);
    return strings[i]!;
  };
  // Directories are marked when first reached, so a sibling chain that loops back fails at once.
  const stack: Array<[number, number]> = [[0, 0]];
  prefixes.push('');
  seenDirs[0] = 1;
  while (stack.length > 0) {
    const [dir, prefix] = stack.pop()!;
    for (let f = directories[dir * 4 + 3]!; f !== NONE; f = files[f * 3 + 1]!) {
      if (f >= fileCount) bad(`file entry ${f} is out of range (${fileCount} entries)`);
      if (seenFiles[f]) bad(`file entry ${f} is reached twice (a loop)`);
      seenFiles[f] = 1;
      const tocIndex = files[f * 3 + 2]!;
      if (tocIndex >= chunkCount) bad(`file entry ${f} points at chunk ${tocIndex} but the TOC has ${chunkCount}`);
      name(files[f * 3]!, `file entry ${f}`);
      onFile(f, prefixes[prefix]!, tocIndex, prefix);
    }
    for (let c = directories[dir * 4 + 1]!; c !== NONE; c = directories[c * 4 + 2]!) {
      if (c >= dirCount) bad(`directory entry ${c} is out of range (${dirCount} entries)`);
      if (seenDirs[c]) bad(`directory entry ${c} is reached twice (a loop)`);
      seenDirs[c] = 1;
      stack.push([c, prefixes.push(`${prefixes[prefix]}${name(directories[c * 4]!, `directory entry ${c}`)}/`) - 1]);
    }
  }
  return prefixes;
}

/**
 * Walks the tree and returns every file with its path relative to the mount point. A corrupt index that loops or
 * points out of range fails with its entry number; nothing here can run forever.
 */
export function directoryIndexFiles(index: DirectoryIndex, chunkCount: number, source: string): DirectoryFile[] {
  const out: DirectoryFile[] = [];
  walkDirectoryIndex(index, chunkCount, source, (f, prefix, tocIndex) => {
    out.push({ path: prefix + index.strings[index.files[f * 3]!]!, tocIndex });
  });
  return out;
}

/**
 * Chunk paths kept packed: per chunk, its directory's path prefix and its name (indexes into the prefixes and the
 * index's string table), so that a path costs 8 bytes until asked for, rather than a string per chunk held for the
 * whole run (a large game has 500,000+ chunks). A chunk named by two file entries takes the later one's path.
 */
export class ChunkPaths {
  private readonly prefixOf: Int32Array;
  private readonly nameOf: Int32Array;
  private readonly prefixes: string[];
  /** File entries of the index. */
  readonly fileCount: number;

  constructor(
    private readonly index: DirectoryIndex,
    chunkCount: number,
    source: string,
    /** Put before every path (the mount point without its `../` hops). */
    mountPrefix: string,
  ) {
    this.prefixOf = new Int32Array(chunkCount).fill(-1);
    this.nameOf = new Int32Array(chunkCount);
    let files = 0;
    const prefixes = walkDirectoryIndex(index, chunkCount, source, (f, _prefix, tocIndex, prefix) => {
      this.prefixOf[tocIndex] = prefix;
      this.nameOf[tocIndex] = index.files[f * 3]!;
      files++;
    });
    this.prefixes = prefixes.map((p) => mountPrefix + p);
    this.fileCount = files;
  }

  /** Path of chunk i, or undefined if no file entry names it. */
  get(i: number): string | undefined {
    const p = this.prefixOf[i]!;
    return p < 0 ? undefined : this.prefixes[p]! + this.index.strings[this.nameOf[i]!]!;
  }
}

/** Builds an index from paths relative to the mount point, deduplicating names as the engine does. */
export function buildDirectoryIndex(mountPoint: string, entries: readonly DirectoryFile[]): DirectoryIndex {
  const strings: string[] = [];
  const stringIds = new Map<string, number>();
  const intern = (s: string): number => {
    let id = stringIds.get(s);
    if (id === undefined) {
      id = strings.length;
      strings.push(s);
      stringIds.set(s, id);
    }
    return id;
  };
  const dirs: number[][] = [[NONE, NONE, NONE, NONE]];
  const dirByPath = new Map<string, number>([['', 0]]);
  const fileRows: number[][] = [];
  const dirFor = (parts: string[]): number => {
    let cur = 0;
    let path = '';
    for (const p of parts) {
      path += `${p}/`;
      let d = dirByPath.get(path);
      if (d === undefined) {
        d = dirs.length;
        // New children go to the front of the sibling list: order is free and this needs no tail pointer.
        dirs.push([intern(p), NONE, dirs[cur]![1]!, NONE]);
        dirs[cur]![1] = d;
        dirByPath.set(path, d);
      }
      cur = d;
    }
    return cur;
  };
  for (const e of entries) {
    const parts = e.path.split('/');
    const fileName = parts.pop()!;
    for (const p of [...parts, fileName]) {
      const why = unsafeComponent(p);
      if (why) throw new IoStoreError('UNSAFE_PATH', `path ${quote(e.path)}: component ${quote(p)} ${why}`);
    }
    const d = dirFor(parts);
    const f = fileRows.length;
    fileRows.push([intern(fileName), dirs[d]![3]!, e.tocIndex]);
    dirs[d]![3] = f;
  }
  return {
    mountPoint,
    directories: Uint32Array.from(dirs.flat()),
    files: Uint32Array.from(fileRows.flat()),
    strings,
  };
}

/** Serialises an index to its on-disk form (unencrypted, unpadded). */
export function serializeDirectoryIndex(index: DirectoryIndex): Uint8Array {
  const parts: Uint8Array[] = [];
  const u32 = (v: number) => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, true);
    parts.push(b);
  };
  const fstr = (s: string) => parts.push(encodeFString(s));
  fstr(index.mountPoint);
  u32(index.directories.length / 4);
  parts.push(new Uint8Array(index.directories.buffer, index.directories.byteOffset, index.directories.byteLength).slice());
  u32(index.files.length / 3);
  parts.push(new Uint8Array(index.files.buffer, index.files.byteOffset, index.files.byteLength).slice());
  u32(index.strings.length);
  for (const s of index.strings) fstr(s);
  return concatBytes(parts);
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
  const same = (s: number, want: string) => s < strings.length && strings[s]!.toLowerCase() === want;
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
