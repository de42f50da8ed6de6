// Whether one container's output paths can collide at all, worked out from its directory index as stored (without
// one, from its chunk ids): when they cannot, an unpack of it alone claims no path (OutputNames), which for a game's
// 150,000 chunks was ~0.3-0.45 s of the calling thread before its workers had any work.
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import type { IoStoreToc } from '../toc/toc.js';
import { UNNAMED_CHUNKS_FOLDER } from './unnamed.js';

/**
 * True when no two of the TOC's chunks have the same output path (chunkOutputPath), no output path is also a folder
 * of another, and none is (or lies below) one of `reserved`: then OutputNames, on a file system that does not ignore
 * case, would give every chunk of the container (and of any subset of it) its own path. False whenever that is not
 * shown quickly (names stored as UTF-16, folders of the same text, unnamed chunks beside a `_chunks` of the index):
 * the caller then claims each path as usual.
 */
export function outputPathsDistinct(toc: IoStoreToc, reserved: readonly string[]): boolean {
  const paths = toc.chunkPaths;
  const n = toc.chunkCount;
  // No directory index: every chunk is unnamed (a game's bulk or shader containers, the Oodle scale set), and its
  // claims were the calling thread's largest step before the workers got work (150,000 chunk ids made hex and claimed).
  if (!paths) return !unnamedFolderReserved(reserved) && unnamedIdsDistinct(toc, null);
  const stored = paths.storedNames;
  if (!stored) return false;
  // Folder texts: each distinct, and none at or below a reserved name or the unnamed chunks' folder.
  const folderOf = new Map<string, number>();
  for (let f = 0; f < paths.folderCount; f++) {
    const text = paths.folderPath(f);
    if (folderOf.has(text)) return false;
    folderOf.set(text, f);
  }
  const hasUnnamed = paths.hasUnnamed;
  for (const text of folderOf.keys()) {
    for (const r of reserved) if (text.startsWith(`${r}/`)) return false;
    if (hasUnnamed && text.startsWith(`${UNNAMED_CHUNKS_FOLDER}/`)) return false;
  }
  // Named chunks: (folder, name bytes) distinct. Latin-1 names only: their bytes and their text are the same thing.
  const size = tableSize(n);
  const slots = new Int32Array(size);
  const mask = size - 1;
  // The path tables read in place (ChunkPaths.tables), not through its accessors per chunk: this runs before the
  // workers get work, once, so it is not optimized.
  const { folderOf: folderOfChunk, nameOf, nameStarts } = paths.tables;
  if (!nameStarts) return false;
  for (let i = 0; i < n; i++) {
    const f = folderOfChunk[i]!;
    if (f < 0) continue;
    const at = nameStarts[nameOf[i]!]!;
    const len = storedLength(stored, at);
    if (len <= 0) return false;
    let s: number = nameHash(f, stored, at + 4, len - 1) & mask;
    for (; slots[s] !== 0; s = (s + 1) & mask) {
      const j = slots[s]! - 1;
      if (folderOfChunk[j] === f && sameName(stored, at, nameStarts[nameOf[j]!]!)) return false;
    }
    slots[s] = i + 1;
  }
  const findFile = (folder: number, name: string): boolean => {
    for (let k = 0; k < name.length; k++) if (name.charCodeAt(k) > 0xff) return false;
    for (let s = nameHashText(folder, name) & mask; slots[s] !== 0; s = (s + 1) & mask) {
      const j = slots[s]! - 1;
      if (folderOfChunk[j] === folder && nameEquals(stored, nameStarts[nameOf[j]!]!, name)) return true;
    }
    return false;
  };
  // A file where a folder is (or a reserved name): each folder's path, and each of its parents, looked up as a file.
  const asFile = (path: string): boolean => {
    const cut = path.lastIndexOf('/');
    const f = folderOf.get(path.slice(0, cut + 1));
    return f !== undefined && findFile(f, path.slice(cut + 1));
  };
  const seen = new Set<string>();
  for (const text of folderOf.keys()) {
    for (let cut = text.indexOf('/'); cut >= 0; cut = text.indexOf('/', cut + 1)) {
      const folder = text.slice(0, cut);
      if (seen.has(folder)) continue;
      seen.add(folder);
      if (asFile(folder)) return false;
    }
  }
  for (const r of reserved) if (asFile(r)) return false;
  if (!hasUnnamed) return true;
  // Unnamed chunks: `_chunks/<Type>/<id>.bin`, distinct by id; the folder itself must not be a file of the index.
  if (asFile(UNNAMED_CHUNKS_FOLDER) || unnamedFolderReserved(reserved)) return false;
  return unnamedIdsDistinct(toc, folderOfChunk);
}

function unnamedFolderReserved(reserved: readonly string[]): boolean {
  return reserved.some((r) => r === UNNAMED_CHUNKS_FOLDER || r.startsWith(`${UNNAMED_CHUNKS_FOLDER}/`));
}

/**
 * Whether the unnamed chunks (those of folder -1 in `folderOf`, ChunkPaths.tables; without it, every chunk) have distinct ids: their
 * paths (`_chunks/<Type>/<id>.bin`, the type being the id's last byte) are then distinct. Compared as the TOC's 12 id
 * bytes in one table, no hex string per chunk.
 */
function unnamedIdsDistinct(toc: IoStoreToc, folderOf: Int32Array | null): boolean {
  const ids = toc.chunkIds;
  const n = toc.chunkCount;
  const size = tableSize(n);
  const slots = new Int32Array(size);
  const mask = size - 1;
  for (let i = 0; i < n; i++) {
    if (folderOf !== null && folderOf[i]! >= 0) continue;
    const at = i * CHUNK_ID_SIZE;
    // The id as three words, mixed (its bytes one at a time were ~40 ms of 150,000 ids, run once, not optimized).
    const a = word(ids, at);
    const b = word(ids, at + 4);
    const c = word(ids, at + 8);
    let s = mix(Math.imul(mix(Math.imul(mix(a), 0x01000193) ^ b), 0x01000193) ^ c) & mask;
    for (; slots[s] !== 0; s = (s + 1) & mask) {
      const j = (slots[s]! - 1) * CHUNK_ID_SIZE;
      if (word(ids, j) === a && word(ids, j + 4) === b && word(ids, j + 8) === c) return false;
    }
    slots[s] = i + 1;
  }
  return true;
}

function word(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);
}

function tableSize(n: number): number {
  let size = 64;
  while (size < n * 2) size *= 2;
  return size;
}

/** The i32 length of the FString at `at` (> 0: Latin-1 bytes with their NUL; < 0: UTF-16 units). */
function storedLength(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);
}

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return h ^ (h >>> 13);
}

/**
 * A hash of the folder number, then the name's `len` Latin-1 bytes at `from`, four bytes (a little-endian word) a
 * step: a byte a step (FNV-1a) was the largest part of this check, ~11 multiply calls a name in code not optimized.
 */
function nameHash(folder: number, b: Uint8Array, from: number, len: number): number {
  let h = Math.imul(0x811c9dc5 ^ folder, 0x01000193);
  const end = from + len;
  let k = from;
  for (; k + 4 <= end; k += 4) h = step(h, b[k]! | (b[k + 1]! << 8) | (b[k + 2]! << 16) | (b[k + 3]! << 24));
  let tail = 0;
  for (let shift = 0; k < end; k++, shift += 8) tail |= b[k]! << shift;
  return mix(step(h, tail ^ len));
}

/** nameHash of a name given as text (code units below 0x100): the same words from its code units. */
function nameHashText(folder: number, name: string): number {
  let h = Math.imul(0x811c9dc5 ^ folder, 0x01000193);
  const len = name.length;
  let k = 0;
  for (; k + 4 <= len; k += 4) h = step(h, name.charCodeAt(k) | (name.charCodeAt(k + 1) << 8) | (name.charCodeAt(k + 2) << 16) | (name.charCodeAt(k + 3) << 24));
  let tail = 0;
  for (let shift = 0; k < len; k++, shift += 8) tail |= name.charCodeAt(k) << shift;
  return mix(step(h, tail ^ len));
}

/** One word into the hash: multiplied in, and its high bits folded down (a word's last byte reaches the low bits). */
function step(h: number, word: number): number {
  h = Math.imul(h ^ word, 0x01000193);
  return h ^ (h >>> 15);
}

/** Whether the Latin-1 FStrings at `a` and `b` are the same. */
function sameName(s: Uint8Array, a: number, b: number): boolean {
  const len = storedLength(s, a);
  if (storedLength(s, b) !== len) return false;
  for (let k = 4; k < 4 + len; k++) if (s[a + k] !== s[b + k]) return false;
  return true;
}

/** Whether the FString at `at` holds `name` (Latin-1). */
function nameEquals(s: Uint8Array, at: number, name: string): boolean {
  const len = storedLength(s, at);
  if (len !== name.length + 1) return false;
  for (let k = 0; k < name.length; k++) if (s[at + 4 + k] !== name.charCodeAt(k)) return false;
  return true;
}
