// Whether one container's output paths can collide at all, worked out from its directory index as stored (without
// one, from its chunk ids): when they cannot, an unpack of it alone claims no path (OutputNames), which for a game's
// 150,000 chunks was ~0.3-0.45 s of the calling thread before its workers had any work.
import type { IoStoreToc } from '../toc/toc.js';
import { chunkIdsDistinct, chunkNamesDistinct } from '../toc/toc-scan.js';
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
  // The path tables read in place (ChunkPaths.tables), not through its accessors per chunk.
  const { folderOf: folderOfChunk, nameOf, nameStarts } = paths.tables;
  if (!stored || !nameStarts) return false;
  // Named chunks: (folder, name bytes) distinct, by WebAssembly (src/toc/toc-scan.ts); Latin-1 names only: their
  // bytes and their text are the same thing. Its table of them by hash serves the lookups by text below.
  const named = chunkNamesDistinct(folderOfChunk.subarray(0, n), nameOf, nameStarts, stored);
  if (!named?.distinct) return false;
  const { slots } = named;
  const mask = slots.length - 1;
  // Folder texts: each distinct, and none at or below a reserved name or the unnamed chunks' folder.
  const folderOf = new Map<string, number>();
  for (let f = 0; f < paths.folderCount; f++) {
    const text = paths.folderPath(f);
    if (folderOf.has(text)) return false;
    folderOf.set(text, f);
  }
  const hasUnnamed = named.named < n;
  const below = reserved.map((r) => `${r}/`);
  if (hasUnnamed) below.push(`${UNNAMED_CHUNKS_FOLDER}/`);
  for (const text of folderOf.keys()) for (const r of below) if (text.startsWith(r)) return false;
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
 * Whether the unnamed chunks (those of folder -1 in `folderOf`, ChunkPaths.tables; without it, every chunk) have
 * distinct ids: their paths (`_chunks/<Type>/<id>.bin`, the type being the id's last byte) are then distinct.
 */
function unnamedIdsDistinct(toc: IoStoreToc, folderOf: Int32Array | null): boolean {
  return chunkIdsDistinct(toc.chunkIds, toc.chunkCount, folderOf) === true;
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
 * The hash assembly/toc `namesDistinct` keys the named chunks by (the folder number, then the name's Latin-1 bytes, a
 * little-endian word a step), of a name given as text (code units below 0x100): the same words from its code units.
 */
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

/** Whether the FString at `at` holds `name` (Latin-1). */
function nameEquals(s: Uint8Array, at: number, name: string): boolean {
  const len = storedLength(s, at);
  if (len !== name.length + 1) return false;
  for (let k = 0; k < name.length; k++) if (s[at + 4 + k] !== name.charCodeAt(k)) return false;
  return true;
}
