import { IoStoreError } from '../errors.js';
import { quote } from '../util/quote.js';
import { concatBytes } from '../toc/directory-index.js';
import { ByteOut } from './byte-out.js';
import { encodeEntryTo, writeFullEntry, type PakEntryRecord } from './entry.js';
import { defaultSlots, writePakFooter } from './footer.js';
import { writeDirectoryTree, writeFlatDirectoryIndex, type PakDirectory } from './full-directory.js';
import { sha1 } from './pak-crypto.js';
import { writeLegacyIndex, writePrimaryIndex, type PakIndexPart } from './pak-index.js';
import { pathHasher, writePathHashIndex } from './path-hash.js';
import { recordList, type PakIndexRecords } from './record-table.js';
import { unsafePakPathReason } from './safe-path.js';
import { MAX_PAK_STRING } from './strings.js';
import { PAK_VERSION_LATEST, PAK_VERSION_MIN, PakVersion } from './version.js';

export interface CompanionPakFile {
  /** Path relative to the mount point, '/'-separated, e.g. `AssetRegistry.bin` or `Config/DefaultGame.ini`. */
  path: string;
  data: Uint8Array;
}

export interface CompanionPakOptions {
  /** Pak version to write, 1 to 15 (see pakVersionForEngine). */
  version: number;
  /** Default `../../../`, the engine root as IoStore tools use it. UnrealPak wrote `/` for empty companion paks. */
  mountPoint?: string;
  /** Small files stored uncompressed and unencrypted, in this order. Default: none (an empty pak). */
  files?: readonly CompanionPakFile[];
  /**
   * v10+: seed of the path hashes. UnrealPak uses the CRC32 of its lower-cased output file name; any value works
   * since readers take the seed from the pak itself. Default 0 (as repak and retoc write).
   */
  pathHashSeed?: number | bigint;
  /** v14+: the pakchunk index recorded in the footer. Default -1 (none), as the UE 6.0 paks of the corpus. */
  pakchunkIndex?: number;
  /** v8 only: 5 name slots (UE 4.23+, default) or 4 (UE 4.22, which also narrows the entry method to a byte). */
  compressionSlots?: 4 | 5;
  /**
   * v10+: files (mount-relative paths) to list in the pruned directory index, as the project's
   * `[Pak] DirectoryIndexKeepFiles` wildcards would select them (UnrealPak kept `*.ini` and `Localization` files
   * in the corpus companion paks). Default: none, an empty pruned index.
   */
  keepInPrunedIndex?: (path: string) => boolean;
}

function usage(message: string): never {
  throw new IoStoreError('USAGE', message);
}

/** Directory of a mount-relative path in the index's convention ("/" for the mount point itself). */
function splitPath(path: string): [string, string] {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? ['/', path] : [path.slice(0, cut + 1), path.slice(cut + 1)];
}

function parentDir(dir: string): string | undefined {
  if (dir === '/') return undefined;
  const cut = dir.lastIndexOf('/', dir.length - 2);
  return cut < 0 ? '/' : dir.slice(0, cut + 1);
}

/**
 * Groups files by directory in the order the engine's directory map gets them: for each file, the missing
 * parents of its directory (nearest first, up to "/"), then the directory itself. The order only matters for the
 * tree form (v10-12); the flat form of v13+ is sorted.
 */
function buildDirectories(records: PakIndexRecords, locations: Int32Array): PakDirectory[] {
  const dirs = new Map<string, PakDirectory>();
  for (let i = 0; i < records.length; i++) {
    const [dir, name] = splitPath(records.path(i));
    if (!dirs.has(dir)) {
      for (let d = parentDir(dir); d !== undefined && !dirs.has(d); d = parentDir(d)) dirs.set(d, { name: d, files: [] });
      dirs.set(dir, { name: dir, files: [] });
    }
    dirs.get(dir)!.files.push({ name, location: locations[i]! });
  }
  return [...dirs.values()];
}

/**
 * The pruned directory index stored after the path hashes: what a shipping game keeps in memory when it drops
 * the full directory (files matching the project's DirectoryIndexKeepFiles wildcards). Built as the engine does:
 * directories holding kept files, in directory order, then every other kept directory (the parents of those).
 */
function buildPrunedDirectories(dirs: readonly PakDirectory[], keep: (path: string) => boolean): PakDirectory[] {
  const pruned = new Map<string, PakDirectory>();
  const keepDir = new Map<string, boolean>();
  for (const d of dirs) {
    const prefix = d.name === '/' ? '' : d.name;
    let kept = false;
    for (const f of d.files) {
      if (!keep(prefix + f.name)) continue;
      kept = true;
      if (!pruned.has(d.name)) pruned.set(d.name, { name: d.name, files: [] });
      pruned.get(d.name)!.files.push(f);
    }
    keepDir.set(d.name, kept);
  }
  for (const [name, kept] of [...keepDir]) {
    if (!kept) continue;
    for (let p = parentDir(name); p !== undefined && keepDir.get(p) !== true; p = parentDir(p)) keepDir.set(p, true);
  }
  for (const [name, kept] of keepDir) if (kept && !pruned.has(name)) pruned.set(name, { name, files: [] });
  return [...pruned.values()];
}

function checkOptions(o: CompanionPakOptions): { mountPoint: string; seed: bigint; slots: number } {
  const v = o.version;
  if (!Number.isInteger(v) || v < PAK_VERSION_MIN || v > PAK_VERSION_LATEST) usage(`pak version must be an integer from ${PAK_VERSION_MIN} to ${PAK_VERSION_LATEST}, got ${v}`);
  const mountPoint = o.mountPoint ?? '../../../';
  if (typeof mountPoint !== 'string' || mountPoint.length > MAX_PAK_STRING || mountPoint.includes('\0')) usage('mount point must be a string without NUL of at most 65535 characters');
  let seed: bigint;
  try {
    seed = BigInt(o.pathHashSeed ?? 0);
  } catch {
    usage(`path hash seed must be an integer, got ${String(o.pathHashSeed)}`);
  }
  if (seed < 0n || seed >= 1n << 64n) usage(`path hash seed ${seed} does not fit in 64 bits`);
  if (o.pakchunkIndex !== undefined && (!Number.isInteger(o.pakchunkIndex) || o.pakchunkIndex < -0x80000000 || o.pakchunkIndex > 0x7fffffff)) usage(`pakchunk index must be a 32-bit integer, got ${o.pakchunkIndex}`);
  let slots = defaultSlots(v);
  if (o.compressionSlots !== undefined) {
    if (v !== PakVersion.FNameBasedCompressionMethod || (o.compressionSlots !== 4 && o.compressionSlots !== 5)) usage('compressionSlots (4 or 5) only applies to pak version 8');
    slots = o.compressionSlots;
  }
  const seen = new Set<string>();
  for (const f of o.files ?? []) {
    if (!f || typeof f.path !== 'string' || !(f.data instanceof Uint8Array)) usage('each file needs a string path and Uint8Array data');
    const why = unsafePakPathReason(f.path);
    if (why !== undefined) throw new IoStoreError('UNSAFE_PATH', `pak path ${quote(f.path)} ${why}`);
    if (f.path.includes('\\')) usage(`pak path ${quote(f.path)} must use "/" separators`);
    if (f.path.length > MAX_PAK_STRING) usage(`pak path of ${f.path.length} characters is too long`);
    // The engine finds files by a case-insensitive path hash, so two paths differing only in case collide.
    const key = f.path.toLowerCase();
    if (seen.has(key)) usage(`pak path ${JSON.stringify(f.path)} is given twice (paths are case-insensitive)`);
    seen.add(key);
  }
  return { mountPoint, seed, slots };
}

/**
 * Writes a pak as UnrealPak lays it out: each file as an in-place entry header (offset field 0) and its bytes,
 * then the index, then the footer. By default the pak is empty, which is what an IoStore container needs beside
 * it: the engine mounts `X.utoc/X.ucas` only when it finds `X.pak`.
 *
 * v10+ writes the primary index, the path-hash index (pruned directories only on request) and the full directory index (the
 * flat sorted form from v13, as UE 6.0 does); older versions write the single legacy index. All index hashes are
 * SHA-1 of the bytes written. Files are stored uncompressed and unencrypted.
 */
export function writeCompanionPak(options: CompanionPakOptions): Uint8Array {
  const { mountPoint, seed, slots } = checkOptions(options);
  const version = options.version;
  const methodWidth: 1 | 4 = version === PakVersion.FNameBasedCompressionMethod && slots === 4 ? 1 : 4;
  const files = options.files ?? [];

  const parts: Uint8Array[] = [];
  const records: { path: string; record: PakEntryRecord }[] = [];
  let pos = 0;
  for (const f of files) {
    const record: PakEntryRecord = {
      offset: pos,
      size: f.data.length,
      uncompressedSize: f.data.length,
      compressionMethodIndex: 0,
      hash: sha1(f.data),
      blocks: [],
      compressionBlockSize: 0,
      flags: 0,
    };
    const header = writeFullEntry({ ...record, offset: 0 }, version, methodWidth);
    parts.push(header, f.data);
    pos += header.length + f.data.length;
    records.push({ path: f.path, record });
  }
  const indexOffset = pos;
  const built = buildPakIndex({ version, mountPoint, seed, methodWidth, records: recordList(records), indexOffset, ...(options.keepInPrunedIndex ? { keepInPrunedIndex: options.keepInPrunedIndex } : {}) });
  const index = built.primary;
  const secondary = built.secondary;

  const footerInit: Parameters<typeof writePakFooter>[0] = {
    version,
    compressionSlots: slots,
    indexOffset,
    indexSize: index.length,
    indexHash: built.primaryHash,
  };
  if (options.pakchunkIndex !== undefined) footerInit.pakchunkIndex = options.pakchunkIndex;
  return concatBytes([...parts, index, ...secondary, writePakFooter(footerInit)]);
}

export interface PakIndexInput {
  version: number;
  mountPoint: string;
  seed: bigint;
  methodWidth: 1 | 4;
  /** Entries in index order; record offsets are absolute. */
  records: PakIndexRecords;
  /** Where the primary index will start in the file. */
  indexOffset: number;
  keepInPrunedIndex?: (path: string) => boolean;
  /** Encrypts one index part (already padded to 16 bytes): the footer's encrypted-index flag must then be set. */
  encrypt?: (padded: Uint8Array) => Uint8Array;
}

/**
 * Pads to the AES block as UnrealPak does: the padding repeats the data from its start (checked on the decrypted
 * index of the corpus's pak-repak `_encryptindex` paks).
 */
export function padAes(b: Uint8Array): Uint8Array {
  if (b.length % 16 === 0) return b;
  const out = new Uint8Array(Math.ceil(b.length / 16) * 16);
  out.set(b);
  for (let i = b.length; i < out.length; i++) out[i] = b[(i - b.length) % b.length]!;
  return out;
}

/**
 * The index as the engine writes it: before v10 one legacy index, from v10 the primary index followed by the
 * path-hash and full directory indexes. With `encrypt` each part is zero-padded to the AES block, hashed padded and
 * stored encrypted; the hashes (and sizes) recorded are those of the padded plaintext.
 */
export function buildPakIndex(o: PakIndexInput): { primary: Uint8Array; primaryHash: Uint8Array; secondary: Uint8Array[] } {
  const { version, mountPoint, records } = o;
  const seal = (plain: Uint8Array): { stored: Uint8Array; hash: Uint8Array } => {
    if (!o.encrypt) return { stored: plain, hash: sha1(plain) };
    const padded = padAes(plain);
    return { stored: o.encrypt(padded), hash: sha1(padded) };
  };
  if (version < PakVersion.PathHashIndex) {
    const sealed = seal(writeLegacyIndex(mountPoint, records, version, o.methodWidth));
    return { primary: sealed.stored, primaryHash: sealed.hash, secondary: [] };
  }
  // Per entry: its location (an offset into the encoded entries, or -1, -2, ... into the full ones) and its path
  // hash, in typed arrays; the encoded entries written into one growing buffer.
  const n = records.length;
  const encoded = new ByteOut();
  const nonEncoded: PakEntryRecord[] = [];
  const locations = new Int32Array(n);
  const hashes = new Uint32Array(2 * n);
  const hashPath = pathHasher(o.seed, version);
  for (let i = 0; i < n; i++) {
    const record = records.record(i);
    const at = encoded.length;
    if (encodeEntryTo(encoded, record, version)) locations[i] = at;
    else {
      // The index copy of a non-encodable entry carries no hash; the in-place header keeps it.
      locations[i] = -nonEncoded.length - 1;
      nonEncoded.push({ ...record, hash: new Uint8Array(20) });
    }
    hashPath(records.path(i), hashes, i);
  }
  const dirs = buildDirectories(records, locations);
  const pruned = o.keepInPrunedIndex ? buildPrunedDirectories(dirs, o.keepInPrunedIndex) : [];
  const ph = seal(writePathHashIndex(hashes, locations, pruned, version));
  const fd = seal(version >= PakVersion.SortedDirectoryIndex ? writeFlatDirectoryIndex(dirs, hashes, locations) : writeDirectoryTree(dirs, version));
  const encodedEntries = encoded.done();
  const primary = (phPart: PakIndexPart, fdPart: PakIndexPart) =>
    writePrimaryIndex({ mountPoint, entryCount: records.length, pathHashSeed: o.seed, pathHashIndex: phPart, fullDirectoryIndex: fdPart, encodedEntries, nonEncodedEntries: nonEncoded, version });
  // The primary index has a fixed length whatever the offsets, so measure it once with placeholders.
  const placeholder = { offset: 0, size: 0, hash: new Uint8Array(20) };
  const plainLen = primary(placeholder, placeholder).length;
  const primaryLen = o.encrypt ? Math.ceil(plainLen / 16) * 16 : plainLen;
  const phPart = { offset: o.indexOffset + primaryLen, size: ph.stored.length, hash: ph.hash };
  const fdPart = { offset: phPart.offset + phPart.size, size: fd.stored.length, hash: fd.hash };
  const sealed = seal(primary(phPart, fdPart));
  return { primary: sealed.stored, primaryHash: sealed.hash, secondary: [ph.stored, fd.stored] };
}
