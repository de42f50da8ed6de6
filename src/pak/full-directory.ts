import { ByteOut } from './byte-out.js';
import { ByteReader } from '../util/bytes.js';
import { MAX_PAK_STRING, decodeUtf8, encodeUtf8, readPakFString, readUtf8String } from './strings.js';
import { PakVersion } from './version.js';
import { quote } from '../util/quote.js';

/**
 * The directory index maps directory -> file name -> entry location. Directory names are relative to the mount
 * point and end with '/', the mount point itself being "/". A location >= 0 is a byte offset into the encoded
 * entries; -1, -2, ... index the non-encodable list; INT32_MIN (and 0x7fffffff) mark a deleted file.
 */
export interface PakDirectoryFile {
  name: string;
  location: number;
}

export interface PakDirectory {
  name: string;
  files: PakDirectoryFile[];
}

/** 'PFDQ' read as a little-endian u32: the first bytes of a v13+ flat directory index. */
export const FLAT_DIRECTORY_MAGIC = 0x50464451;
/** Every this many directories the flat index stores a full name (no shared prefix) and an anchor offset. */
export const FLAT_RESTART_INTERVAL = 16;

/** Bytes of reconstructed names allowed per byte of index, so front-coded prefixes cannot blow up memory. */
const NAME_BUDGET_FACTOR = 64;
const NAME_BUDGET_FLOOR = 1 << 20;

export interface PathHashPair {
  hash: bigint;
  location: number;
}

export interface FullDirectoryIndex {
  directories: PakDirectory[];
  /** v13+ flat form only: the sorted (hash, location) table it embeds. */
  pathHashes?: PathHashPair[];
  flat: boolean;
}

/** What reading a directory index reports, in its order: each directory, then the files in it. */
export interface DirectoryVisitor {
  dir(name: string): void;
  file(name: string, location: number): void;
}

/**
 * Reads a full directory index in either form (tree, or the v13+ flat table when it starts with 'PFDQ').
 * `padded`: the part was AES-encrypted, so up to 15 bytes of block padding may follow it.
 */
export function readFullDirectoryIndex(bytes: Uint8Array, version: number, source: string, base: number, padded = false): FullDirectoryIndex {
  const r = new ByteReader(bytes, source, base);
  if (isFlat(r, version)) return readFlatDirectoryIndex(r, padded ? 16 : 1);
  const directories = readDirectoryTree(r, version);
  if (r.remaining >= (padded ? 16 : 1)) r.fail('BAD_VALUE', `${r.remaining} unexpected bytes after the directory index`);
  return { directories, flat: false };
}

function isFlat(r: ByteReader, version: number): boolean {
  return version >= PakVersion.SortedDirectoryIndex && r.bytes.length >= 4 && r.view.getUint32(0, true) === FLAT_DIRECTORY_MAGIC;
}

/**
 * The same index told to `visit` a directory and a file at a time, with no object per file (a pak's reader makes
 * its entries as it goes); the flat form's path hashes are skipped. Returns whether it was the flat form.
 */
export function visitFullDirectoryIndex(bytes: Uint8Array, version: number, source: string, base: number, padded: boolean, visit: DirectoryVisitor): boolean {
  const r = new ByteReader(bytes, source, base);
  if (isFlat(r, version)) {
    readFlatDirectoryIndex(r, padded ? 16 : 1, visit);
    return true;
  }
  visitDirectoryTree(r, version, visit);
  if (r.remaining >= (padded ? 16 : 1)) r.fail('BAD_VALUE', `${r.remaining} unexpected bytes after the directory index`);
  return false;
}

/** The tree form: i32 directory count, then per directory an FString name, i32 file count, (name, i32 location)s. */
export function readDirectoryTree(r: ByteReader, version: number): PakDirectory[] {
  const dirs: PakDirectory[] = [];
  let files: PakDirectoryFile[] = [];
  visitDirectoryTree(r, version, {
    dir: (name) => {
      files = [];
      dirs.push({ name, files });
    },
    file: (name, location) => files.push({ name, location }),
  });
  return dirs;
}

function visitDirectoryTree(r: ByteReader, version: number, visit: DirectoryVisitor): void {
  const countAt = r.pos;
  const dirCount = r.i32('directory count');
  if (dirCount < 0) r.fail('BAD_VALUE', `negative directory count ${dirCount}`, countAt);
  // Smallest directory record: empty-string length + file count.
  r.needArray(dirCount, 8, 'directory index');
  const utf8Names = version >= PakVersion.Utf8PakDirectory;
  for (let d = 0; d < dirCount; d++) {
    const name = readPakFString(r, 'directory name');
    const filesAt = r.pos;
    const fileCount = r.i32('directory file count');
    if (fileCount < 0) r.fail('BAD_VALUE', `directory ${quote(name)} has a negative file count ${fileCount}`, filesAt);
    r.needArray(fileCount, 8, `files of directory ${quote(name)}`);
    visit.dir(name);
    for (let f = 0; f < fileCount; f++) {
      const fileName = utf8Names ? readUtf8String(r, 'file name') : readPakFString(r, 'file name');
      visit.file(fileName, r.i32('entry location'));
    }
  }
}

export function writeDirectoryTree(dirs: readonly PakDirectory[], version: number): Uint8Array {
  const out = new ByteOut();
  writeDirectoryTreeTo(out, dirs, version);
  return out.done();
}

/** The tree form appended to `out`. */
export function writeDirectoryTreeTo(out: ByteOut, dirs: readonly PakDirectory[], version: number): void {
  const utf8Names = version >= PakVersion.Utf8PakDirectory;
  out.i32(dirs.length);
  for (const d of dirs) {
    out.fstring(d.name);
    out.i32(d.files.length);
    for (const f of d.files) {
      if (utf8Names) out.utf8String(f.name);
      else out.fstring(f.name);
      out.i32(f.location);
    }
  }
}

/*
 * Flat form (v13+), all little-endian:
 *   u32 'PFDQ', i32 dirCount, i32 fileCount, i32 restartInterval, i32 dirBlobBytes, i32 fileBlobBytes,
 *   i32 pathHashCount, i32 pad (8-aligns the hash table),
 *   u64 sortedPathHashes[pathHashCount], i32 hashLocations[pathHashCount],
 *   i32 dirAnchorOffsets[ceil(dirCount / restartInterval) + 1],
 *   i32 dirFileStart[dirCount + 1], i32 fileNameOffsets[fileCount + 1], i32 fileLocations[fileCount],
 *   dirBlob: per directory (sorted) i32 sharedPrefixBytes, i32 suffixBytes, suffix (UTF-8),
 *   fileBlob: the file names (UTF-8) back to back.
 */
function readFlatDirectoryIndex(r: ByteReader, slack: number, visit?: DirectoryVisitor): FullDirectoryIndex {
  r.skip(4, 'flat directory index magic');
  const headerAt = r.pos;
  const dirCount = r.i32('directory count');
  const fileCount = r.i32('file count');
  const restart = r.i32('restart interval');
  const dirBlobBytes = r.i32('directory blob size');
  const fileBlobBytes = r.i32('file blob size');
  const hashCount = r.i32('path hash count');
  r.skip(4, 'flat directory index padding');
  if (dirCount < 0 || fileCount < 0 || restart <= 0 || dirBlobBytes < 0 || fileBlobBytes < 0 || hashCount < 0) {
    r.fail('BAD_VALUE', `flat directory index header is corrupt (dirs ${dirCount}, files ${fileCount}, restart ${restart}, blobs ${dirBlobBytes}/${fileBlobBytes}, hashes ${hashCount})`, headerAt);
  }
  const anchorCount = Math.ceil(dirCount / restart) + 1;
  // Everything below is sized by the header: check it all fits before reading (or allocating) any of it.
  r.need(12 * hashCount + 4 * (anchorCount + dirCount + 1 + 2 * fileCount + 1) + dirBlobBytes + fileBlobBytes, 'flat directory index tables');

  const pathHashes: PathHashPair[] = [];
  if (visit) r.skip(12 * hashCount, 'path hashes');
  else {
    const hashes: bigint[] = [];
    for (let i = 0; i < hashCount; i++) hashes.push(r.u64('path hash'));
    for (const hash of hashes) pathHashes.push({ hash, location: r.i32('path hash location') });
  }
  const ints = (n: number, what: string) => {
    const a = new Int32Array(n);
    for (let i = 0; i < n; i++) a[i] = r.i32(what);
    return a;
  };
  const anchorsAt = r.pos;
  const anchors = ints(anchorCount, 'directory anchor');
  const dirStartAt = r.pos;
  const dirFileStart = ints(dirCount + 1, 'directory file start');
  const nameOffsetsAt = r.pos;
  const nameOffsets = ints(fileCount + 1, 'file name offset');
  const locations = ints(fileCount, 'file location');
  const dirBlobAt = r.pos;
  const dirBlob = r.bytesView(dirBlobBytes, 'directory blob');
  const fileBlob = r.bytesView(fileBlobBytes, 'file blob');
  if (r.remaining >= slack) r.fail('BAD_VALUE', `${r.remaining} unexpected bytes after the flat directory index`);

  checkRuns(r, dirFileStart, fileCount, 'directory file starts', dirStartAt);
  checkRuns(r, nameOffsets, fileBlobBytes, 'file name offsets', nameOffsetsAt);

  const budget = Math.max(NAME_BUDGET_FLOOR, NAME_BUDGET_FACTOR * r.bytes.length);
  let spent = 0;
  const blob = new ByteReader(dirBlob, r.source, r.base + dirBlobAt);
  let prev: Uint8Array = new Uint8Array(0);
  const directories: PakDirectory[] = [];
  for (let d = 0; d < dirCount; d++) {
    const at = blob.pos;
    if (d % restart === 0 && anchors[d / restart] !== at) {
      r.fail('BAD_VALUE', `directory anchor ${d / restart} is ${anchors[d / restart]} but directory ${d} starts at ${at}`, anchorsAt);
    }
    const shared = blob.i32('shared prefix length');
    const suffixLen = blob.i32('suffix length');
    if (shared < 0 || shared > prev.length || suffixLen < 0 || shared + suffixLen > MAX_PAK_STRING) {
      blob.fail('BAD_VALUE', `directory ${d}: shared prefix ${shared} and suffix ${suffixLen} do not fit the previous name of ${prev.length} bytes`, at);
    }
    const suffix = blob.bytesView(suffixLen, 'directory name suffix');
    const nameBytes = new Uint8Array(shared + suffixLen);
    nameBytes.set(prev.subarray(0, shared), 0);
    nameBytes.set(suffix, shared);
    spent += nameBytes.length;
    if (spent > budget) blob.fail('BAD_VALUE', `directory names expand to more than ${budget} bytes; the index is corrupt`, at);
    prev = nameBytes;
    const name = decodeUtf8(nameBytes) ?? blob.fail('BAD_VALUE', `directory ${d}: name is not valid UTF-8`, at);
    const files: PakDirectoryFile[] = [];
    visit?.dir(name);
    for (let f = dirFileStart[d]!; f < dirFileStart[d + 1]!; f++) {
      const raw = fileBlob.subarray(nameOffsets[f]!, nameOffsets[f + 1]!);
      const fileName = decodeUtf8(raw) ?? r.fail('BAD_VALUE', `file ${f}: name is not valid UTF-8`, nameOffsetsAt + 4 * f);
      if (visit) visit.file(fileName, locations[f]!);
      else files.push({ name: fileName, location: locations[f]! });
    }
    if (!visit) directories.push({ name, files });
  }
  if (blob.remaining !== 0) blob.fail('BAD_VALUE', `${blob.remaining} bytes left over in the directory blob`);
  if (anchors[anchorCount - 1] !== dirBlobBytes) r.fail('BAD_VALUE', `last directory anchor ${anchors[anchorCount - 1]} is not the blob size ${dirBlobBytes}`, anchorsAt);
  return { directories, pathHashes, flat: true };
}

/** A [0 .. total] table of run starts must start at 0, never go back, and end at the total. */
function checkRuns(r: ByteReader, runs: Int32Array, total: number, what: string, at: number): void {
  if (runs[0] !== 0 || runs[runs.length - 1] !== total) r.fail('BAD_VALUE', `${what} must run from 0 to ${total}`, at);
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]! < runs[i - 1]!) r.fail('BAD_VALUE', `${what} go backwards at ${i}`, at + 4 * i);
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * Two names in the order of their UTF-8 bytes without encoding them: below the surrogates a UTF-16 unit is its code
 * point, whose order UTF-8 keeps; where both differ at or above 0xD800 (pairs, lone surrogates, which encode as
 * U+FFFD) the bytes decide.
 */
function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 || y < 0xd800) return x - y;
    return compareBytes(encodeUtf8(a), encodeUtf8(b));
  }
  return a.length - b.length;
}

/**
 * Writes the v13+ flat form. Directories and the files in each are sorted by their UTF-8 bytes, as in the
 * engine-made UE 6.0 paks; path hashes (low and high u32 per entry, see pathHasher, with `locations` in the same
 * order) are sorted as unsigned 64-bit numbers.
 */
export function writeFlatDirectoryIndex(dirs: readonly PakDirectory[], hashes: Uint32Array, hashLocations: Int32Array): Uint8Array {
  const sortedDirs = dirs
    .map((d) => ({ bytes: encodeUtf8(d.name), files: d.files.slice().sort((a, b) => compareUtf8(a.name, b.name)) }))
    .sort((a, b) => compareBytes(a.bytes, b.bytes));
  const hashCount = hashLocations.length;
  // Stable, as the sort of (hash, location) objects was: equal hashes keep their index order.
  const order = new Uint32Array(hashCount);
  for (let k = 0; k < hashCount; k++) order[k] = k;
  order.sort((a, b) => hashes[2 * a + 1]! - hashes[2 * b + 1]! || hashes[2 * a]! - hashes[2 * b]!);

  const dirBlob = new ByteOut();
  const anchors: number[] = [];
  let prev: Uint8Array = new Uint8Array(0);
  sortedDirs.forEach((d, i) => {
    let shared = 0;
    if (i % FLAT_RESTART_INTERVAL === 0) anchors.push(dirBlob.length);
    else while (shared < prev.length && shared < d.bytes.length && prev[shared] === d.bytes[shared]) shared++;
    const suffix = d.bytes.subarray(shared);
    dirBlob.i32(shared);
    dirBlob.i32(suffix.length);
    dirBlob.bytes(suffix);
    prev = d.bytes;
  });
  anchors.push(dirBlob.length);

  let fileCount = 0;
  for (const d of sortedDirs) fileCount += d.files.length;
  const dirFileStart = new ByteOut(4 * (sortedDirs.length + 1));
  const nameOffsets = new ByteOut(4 * (fileCount + 1));
  const locations = new ByteOut(4 * fileCount);
  const fileBlob = new ByteOut();
  dirFileStart.i32(0);
  nameOffsets.i32(0);
  let files = 0;
  for (const d of sortedDirs) {
    for (const f of d.files) {
      fileBlob.utf8(f.name);
      nameOffsets.i32(fileBlob.length);
      locations.i32(f.location);
    }
    files += d.files.length;
    dirFileStart.i32(files);
  }

  const out = new ByteOut(32 + 12 * hashCount + 4 * (anchors.length + 2 * fileCount + sortedDirs.length + 2) + dirBlob.length + fileBlob.length);
  for (const v of [FLAT_DIRECTORY_MAGIC, sortedDirs.length, fileCount, FLAT_RESTART_INTERVAL, dirBlob.length, fileBlob.length, hashCount, 0]) out.u32(v);
  for (let k = 0; k < hashCount; k++) out.u64(hashes[2 * order[k]!]!, hashes[2 * order[k]! + 1]!);
  for (let k = 0; k < hashCount; k++) out.i32(hashLocations[order[k]!]!);
  for (const a of anchors) out.i32(a);
  for (const part of [dirFileStart, nameOffsets, locations, dirBlob, fileBlob]) out.bytes(part.done());
  return out.done();
}
