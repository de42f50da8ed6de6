import { IoStoreError } from '../errors.js';
import { ByteReader, toHex } from '../util/bytes.js';
import { decodeEntry, PAK_ENTRY_FLAG_DELETED, PAK_ENTRY_FLAG_ENCRYPTED, type PakBlock, type PakEntryRecord } from './entry.js';
import { PakEncryptionMethod, readPakFooter, type PakFooter } from './footer.js';
import { visitFullDirectoryIndex, type DirectoryVisitor } from './full-directory.js';
import { openIndexPart } from './pak-crypto.js';
import { readLegacyIndex, readPrimaryIndex, type PakIndexPart } from './pak-index.js';
import { countPathHashIndex } from './path-hash.js';
import { isSafePakPath } from './safe-path.js';
import { PakVersion, pakVersionName } from './version.js';
import { quote } from '../util/quote.js';

export interface ReadPakOptions {
  /** Name used in error messages. */
  source?: string;
  /** 32-byte AES-256 key, needed when the index is encrypted. */
  aesKey?: Uint8Array;
  /** Check the SHA-1 of each unencrypted index part (default true; encrypted parts are always checked). */
  verifyHashes?: boolean;
  /**
   * Absolute file offset of `bytes[0]` when `bytes` holds only the file's tail (from the index to the end), so a
   * many-GB pak is listed without reading its data. Default 0: `bytes` is the whole file.
   */
  base?: number;
}

export interface PakEntry {
  /** Path relative to the mount point, '/'-separated, e.g. `Config/DefaultGame.ini`. */
  path: string;
  /** Absolute offset of the entry's in-place header; the stored bytes follow it. */
  offset: number;
  /** Stored size (compressed size when compressed, before AES padding). */
  size: number;
  uncompressedSize: number;
  /** `None` or the footer's method name, e.g. `Zlib`, `Oodle`. */
  compressionMethod: string;
  compressionMethodIndex: number;
  encrypted: boolean;
  compressionBlockSize: number;
  /** Compressed blocks as absolute offsets in the pak (end exclusive, before AES padding). */
  blocks?: PakBlock[];
  /** SHA-1 of the stored bytes; only pre-v10 indexes keep it (the in-place header always has it). */
  hash?: Uint8Array;
  /** v15 AES-CTR only. */
  encryptionIv?: Uint8Array;
  /** False when the path is absolute, climbs with `..`, has a drive letter or control characters. */
  safe: boolean;
  /** Why this entry cannot be read although the index is sound (its data lies past the end, an unnamed method). */
  problem?: { code: 'BAD_VALUE' | 'TRUNCATED'; offset: number; message: string };
}

export interface PakFile {
  source: string;
  version: number;
  versionName: string;
  footer: PakFooter;
  /** Hex of the 16-byte key GUID; all zeros = the embedded key. */
  encryptionKeyGuid: string;
  encryptedIndex: boolean;
  indexOffset: number;
  indexSize: number;
  /** Hex SHA-1 of the primary index. */
  indexHash: string;
  /** Named compression methods, in footer slot order. */
  compressionMethods: string[];
  mountPoint: string;
  /** v10+: seed of the path hashes (the engine derives it from the pak's file name). */
  pathHashSeed?: bigint;
  /** v10+: where the secondary indexes are. */
  pathHashIndex?: PakIndexPart & { count: number };
  fullDirectoryIndex?: PakIndexPart & { flat: boolean };
  /** Entry count the index declares (delete records included). */
  declaredEntryCount: number;
  entries: PakEntry[];
  /** Paths the pak deletes (patch paks). */
  deleted: string[];
}

/** Path characters allowed per index byte; a hostile index could otherwise multiply long directory names. */
const PATH_BUDGET_FACTOR = 64;
const PATH_BUDGET_FLOOR = 1 << 20;

function methodName(footer: PakFooter, index: number): string | undefined {
  if (index === 0) return 'None';
  return footer.compressionMethods[index - 1];
}

/**
 * One entry of the index. An entry the rest of the pak does not depend on (its data runs past the data area, or
 * it names a compression slot the footer leaves empty) keeps its place with a `problem`, so the other entries can
 * still be read; a broken index structure throws instead.
 */
function toEntry(path: string, rec: PakEntryRecord, footer: PakFooter, r: ByteReader, at: number): PakEntry {
  const method = methodName(footer, rec.compressionMethodIndex);
  const e: PakEntry = {
    path,
    offset: rec.offset,
    size: rec.size,
    uncompressedSize: rec.uncompressedSize,
    compressionMethod: method ?? `#${rec.compressionMethodIndex}`,
    compressionMethodIndex: rec.compressionMethodIndex,
    encrypted: (rec.flags & PAK_ENTRY_FLAG_ENCRYPTED) !== 0,
    compressionBlockSize: rec.compressionBlockSize,
    safe: isSafePakPath(path),
  };
  if (rec.blocks.length > 0) e.blocks = rec.blocks;
  if (rec.hash && rec.hash.some((b) => b !== 0)) e.hash = rec.hash;
  if (rec.encryptionIv) e.encryptionIv = rec.encryptionIv;
  if (method === undefined) {
    e.problem = { code: 'BAD_VALUE', offset: r.base + at, message: `entry ${quote(path)} uses compression method ${rec.compressionMethodIndex} but the footer names ${footer.compressionMethods.length}` };
  } else if (rec.offset + rec.size > footer.offset || (e.blocks ?? []).some((b) => b.end > footer.offset)) {
    e.problem = { code: 'TRUNCATED', offset: rec.offset, message: `entry ${quote(path)} at ${rec.offset} of ${rec.size} bytes runs past the data area, which ends at ${footer.offset}` };
  }
  return e;
}

/** Reads a pak's footer and index and lists its files. File data is not touched (see readPakEntryData). */
export function readPak(bytes: Uint8Array, options: ReadPakOptions = {}): PakFile {
  const source = options.source ?? 'pak';
  const verify = options.verifyHashes ?? true;
  const base = options.base ?? 0;
  const footer = readPakFooter(bytes, source, base);
  // Index parts by absolute offset; a part before the bytes held is refused rather than read from the wrong place.
  const region = (offset: number, size: number): Uint8Array => {
    if (offset < base) throw new IoStoreError('TRUNCATED', `index part at ${offset} lies before the ${bytes.length} bytes read from offset ${base}`, { file: source, offset });
    return bytes.subarray(offset - base, offset - base + size);
  };
  if (footer.frozenIndex) {
    throw new IoStoreError('UNSUPPORTED', 'frozen (memory-image) pak indexes are not supported; the engine itself refuses them', { file: source, offset: footer.offset });
  }
  const cryptOpts = (offset: number) => {
    const o: { source: string; offset: number; aesKey?: Uint8Array; verify: boolean } = { source, offset, verify };
    if (options.aesKey) o.aesKey = options.aesKey;
    return o;
  };
  const stored = region(footer.indexOffset, footer.indexSize);
  const index = openIndexPart(stored, footer, 'primary', footer.indexHash, cryptOpts(footer.indexOffset));

  const result: PakFile = {
    source,
    version: footer.version,
    versionName: pakVersionName(footer.version),
    footer,
    encryptionKeyGuid: toHex(footer.encryptionKeyGuid),
    encryptedIndex: footer.encryptedIndex,
    indexOffset: footer.indexOffset,
    indexSize: footer.indexSize,
    indexHash: toHex(footer.indexHash),
    compressionMethods: footer.version >= PakVersion.FNameBasedCompressionMethod ? [...footer.compressionMethods] : [],
    mountPoint: '',
    declaredEntryCount: 0,
    entries: [],
    deleted: [],
  };
  const r = new ByteReader(index, source, footer.indexOffset);

  if (footer.version < PakVersion.PathHashIndex) {
    const legacy = readLegacyIndex(index, footer, source, footer.indexOffset);
    result.mountPoint = legacy.mountPoint;
    result.declaredEntryCount = legacy.entries.length;
    for (const { path, record } of legacy.entries) {
      if (record.flags & PAK_ENTRY_FLAG_DELETED) result.deleted.push(path);
      else result.entries.push(toEntry(path, record, footer, r, 0));
    }
    return result;
  }

  const primary = readPrimaryIndex(index, footer, source, footer.indexOffset);
  result.mountPoint = primary.mountPoint;
  result.declaredEntryCount = primary.entryCount;
  result.pathHashSeed = primary.pathHashSeed;

  if (primary.pathHashIndex) {
    const ph = primary.pathHashIndex;
    const phBytes = openIndexPart(region(ph.offset, ph.size), footer, 'pathHash', ph.hash, cryptOpts(ph.offset));
    result.pathHashIndex = { ...ph, count: countPathHashIndex(phBytes, footer.version, source, ph.offset, footer.encryptedIndex) };
  }
  const fd = primary.fullDirectoryIndex;
  if (!fd) {
    throw new IoStoreError('UNSUPPORTED', 'pak has no full directory index (only path hashes), so its file names cannot be listed', { file: source, offset: footer.indexOffset });
  }
  const fdBytes = openIndexPart(region(fd.offset, fd.size), footer, 'fullDirectory', fd.hash, cryptOpts(fd.offset));
  // Read twice: once to check its structure (so a broken index is refused as it was when it was parsed whole before
  // its entries were made), then to make the entries, with no object per directory file in between.
  const ignore = { dir: () => {}, file: () => {} };
  const flat = visitFullDirectoryIndex(fdBytes, footer.version, source, fd.offset, footer.encryptedIndex, ignore);
  result.fullDirectoryIndex = { ...fd, flat };
  visitFullDirectoryIndex(fdBytes, footer.version, source, fd.offset, footer.encryptedIndex, entryCollector(result, primary, footer, r, fdBytes.length));
  return result;
}

/** Makes the entries of the directory index's files as it is read (see visitFullDirectoryIndex). */
function entryCollector(result: PakFile, primary: ReturnType<typeof readPrimaryIndex>, footer: PakFooter, r: ByteReader, fdSize: number): DirectoryVisitor {
  const ctr = footer.encryptionMethod === PakEncryptionMethod.AesCtr;
  const encoded = new ByteReader(primary.encodedEntries, r.source, r.base + primary.encodedEntriesAt);
  // Decode each location once: many names may point at the same record, and its block list must not be copied.
  const decoded = new Map<number, PakEntryRecord>();
  const budget = Math.max(PATH_BUDGET_FLOOR, PATH_BUDGET_FACTOR * (fdSize + primary.encodedEntries.length));
  let spent = 0;
  let prefix = '';
  return {
    dir(name) {
      prefix = name.replace(/^\/+/, '');
      if (prefix !== '' && !prefix.endsWith('/')) prefix += '/';
    },
    file(name, loc) {
      const path = prefix + name;
      spent += path.length;
      if (spent > budget) r.fail('BAD_VALUE', `file paths add up to more than ${budget} characters; the directory index is corrupt`, primary.encodedEntriesAt);
      // INT32_MIN marks a delete record; 0x7fffffff is reserved and also invalid.
      if (loc === -0x80000000 || loc === 0x7fffffff) {
        result.deleted.push(path);
        return;
      }
      let rec = decoded.get(loc);
      if (!rec) {
        if (loc >= 0) {
          if (loc >= primary.encodedEntries.length) {
            r.fail('BAD_VALUE', `${quote(path)} points at encoded entry offset ${loc} beyond the ${primary.encodedEntries.length} encoded bytes`, primary.encodedEntriesAt);
          }
          encoded.pos = loc;
          rec = decodeEntry(encoded, footer.version, ctr);
        } else {
          rec = primary.nonEncodedEntries[-loc - 1];
          if (!rec) r.fail('BAD_VALUE', `${quote(path)} points at non-encoded entry ${-loc - 1} of ${primary.nonEncodedEntries.length}`, primary.encodedEntriesAt);
        }
        decoded.set(loc, rec);
      }
      result.entries.push(toEntry(path, rec, footer, r, primary.encodedEntriesAt + Math.max(0, loc)));
    },
  };
}
