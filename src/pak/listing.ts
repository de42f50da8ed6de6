import picomatch from 'picomatch';
import { toHex } from '../util/bytes.js';
import type { PakFile } from './read.js';

/** One file of a pak as `iostore list` shows it (the `files` rows of its JSON). */
export interface PakFileRow {
  /** Path below the mount point. */
  path: string;
  size: number;
  storedSize: number;
  compression: string;
  encrypted: boolean;
  /** Hex SHA-1 of the stored bytes as the index records it ('' for v10+ indexes, which keep it only in the data). */
  hash: string;
}

export interface PakListQuery {
  /** Glob on the path below the mount point. */
  filter?: string;
  sort?: 'index' | 'size' | 'path' | 'type';
}

/** The rows of a pak's files in index order, or sorted (`type` sorts by compression method). */
export function listPakFiles(pak: PakFile, q: PakListQuery = {}): PakFileRow[] {
  const match = q.filter === undefined ? undefined : picomatch(q.filter, { dot: true, nocase: true });
  const rows = pak.entries
    .filter((e) => !match || match(e.path))
    .map((e) => ({ path: e.path, size: e.uncompressedSize, storedSize: e.size, compression: e.compressionMethod, encrypted: e.encrypted, hash: e.hash ? toHex(e.hash) : '' }));
  const by = q.sort ?? 'index';
  if (by === 'size') rows.sort((a, b) => b.size - a.size);
  else if (by === 'path') rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  else if (by === 'type') rows.sort((a, b) => (a.compression < b.compression ? -1 : a.compression > b.compression ? 1 : 0));
  return rows;
}

/** What `iostore info` shows of a pak, as data. */
export interface PakInfo {
  file: string;
  kind: 'pak';
  version: number;
  versionName: string;
  mountPoint: string;
  entryCount: number;
  /** Delete records of a patch pak. */
  deletedCount: number;
  encryptedIndex: boolean;
  encryptedEntries: number;
  encryptionKeyGuid: string;
  /** `AES-ECB` or `AES-CTR` (v15 names it; earlier versions are ECB). */
  encryptionMethod: string;
  /** The methods the footer names (before v8: the engine's fixed list), and those the entries use. */
  compressionMethods: string[];
  compressionUsed: string[];
  rawSize: number;
  storedSize: number;
  fileSize: number;
  indexOffset: number;
  indexSize: number;
  indexHash: string;
  pathHashSeed: string | null;
  pathHashIndex: boolean;
  fullDirectoryIndex: boolean;
}

export function pakInfo(pak: PakFile, fileSize: number): PakInfo {
  const used = [...new Set(pak.entries.map((e) => e.compressionMethod))];
  return {
    file: pak.source,
    kind: 'pak',
    version: pak.version,
    versionName: pak.versionName,
    mountPoint: pak.mountPoint,
    entryCount: pak.entries.length,
    deletedCount: pak.deleted.length,
    encryptedIndex: pak.encryptedIndex,
    encryptedEntries: pak.entries.filter((e) => e.encrypted).length,
    encryptionKeyGuid: pak.encryptionKeyGuid.toUpperCase(),
    encryptionMethod: pak.footer.encryptionMethod === 2 ? 'AES-CTR' : 'AES-ECB',
    compressionMethods: pak.footer.compressionMethods.slice(),
    compressionUsed: used,
    rawSize: pak.entries.reduce((a, e) => a + e.uncompressedSize, 0),
    storedSize: pak.entries.reduce((a, e) => a + e.size, 0),
    fileSize,
    indexOffset: pak.indexOffset,
    indexSize: pak.indexSize,
    indexHash: pak.indexHash,
    pathHashSeed: pak.pathHashSeed === undefined ? null : pak.pathHashSeed.toString(),
    pathHashIndex: pak.pathHashIndex !== undefined,
    fullDirectoryIndex: pak.fullDirectoryIndex !== undefined,
  };
}
