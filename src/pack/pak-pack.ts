import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { defaultCodecs, encoderFor, type CodecRegistry } from '../codecs/registry.js';
import type { OodleEncoderName } from '../codecs/oodle/index.js';
import { IoStoreError } from '../errors.js';
import { openPakFile } from '../pak/pak-file.js';
import { PAK_READ_ROOM, writePak, type PakInputFile, type PakWriteResult, type PakWriterOptions } from '../pak/pak-writer.js';
import { pakMountRelative } from '../pak/safe-path.js';
import { PakVersion, pakVersionForEngine } from '../pak/version.js';
import { ioError, withIoError } from '../toc/read-file.js';
import { MANIFEST_NAME, type Manifest, type ManifestPak } from '../layout/manifest.js';
import { abortCleanups, isAborting, tempFilesInFlight, tempPathFor } from '../layout/output.js';
import { readManifest } from './manifest-input.js';
import { removeMadeFolders } from '../layout/file-set.js';
import { leftoversWarning, removeLeftovers } from '../layout/leftovers.js';
import { fileBelow, joinableBase, walkFiles } from './mod-folder.js';
import { tempSink } from './pak-sink.js';
import { pakDeflateAhead } from './pak-deflate-ahead.js';
import { StoredCopy } from './stored-copy.js';
import { plural } from '../util/plural.js';
import { hasExtension } from '../util/file-extension.js';

export interface PakPackOptions {
  /** Pak version number (wins over `engine` and `like`). */
  pakVersion?: number;
  /** Engine release whose pak version to write, e.g. `UE4_27`, `5.3`. */
  engine?: string;
  /** A pak of the target game: its version, mount point, compression, block size and key GUID. */
  like?: string;
  /** Mount point; default the manifest's, the --like pak's, else `../../../`. */
  mountPoint?: string;
  /** none, zlib, gzip, lz4, oodle (default: the manifest's or --like pak's method, else none). */
  compression?: string;
  /** 1 (fastest) to 9 (smallest), for Oodle (default 4), Zlib and Gzip (default 6). */
  compressionLevel?: number;
  /** Which Oodle codec writes Oodle entries (default Kraken). */
  oodleCodec?: OodleEncoderName;
  blockSize?: number;
  aesKey?: Uint8Array;
  /** Encrypt file data (default: when a key is given). */
  encryptEntries?: boolean;
  encryptIndex?: boolean;
  /** Which pak of an unpacked folder to rebuild, when it holds several. */
  container?: string;
  /** Write plain a pak the manifest says was encrypted (without it and without `aesKey` that rebuild is refused). */
  noEncrypt?: boolean;
  /** Allow overwriting the pak the folder was unpacked from. */
  force?: boolean;
  codecs?: CodecRegistry;
  /**
   * Worker threads copying a stored pak's files beside this one (default: one fewer than the cores, for 32 MiB or
   * more of files); 0 copies them all on this thread. The pak is the same.
   */
  threads?: number;
  onProgress?: (p: { chunksDone: number; chunksTotal: number; bytesDone: number; bytesTotal: number }) => void;
}

export interface PakPackResult extends PakWriteResult {
  pak: string;
  /** `manifest` (an unpacked pak rebuilt) or `folder` (a folder below the mount point). */
  from: 'manifest' | 'folder';
  warnings: string[];
}

/** `UE4_27`, `UE5.3`, `4.27` -> the engine version text pakVersionForEngine reads. */
function engineText(engine: string): string {
  return engine.replace(/(\d)_(\d)/g, '$1.$2');
}

/** The engine's method name for a user's choice (`zlib` -> `Zlib`). */
function methodName(c: string): string {
  const known = ['None', 'Zlib', 'Gzip', 'LZ4', 'Oodle', 'Zstd'];
  return known.find((k) => k.toLowerCase() === c.toLowerCase()) ?? c;
}

/**
 * A file to pack: its path in the pak, its size, and its file name made when it is read (the folder and the path
 * below it): no closure nor full file name per file (a 50,000-file pack had kept ~0.2 KB a file of them).
 */
class PakDiskFile implements PakInputFile {
  constructor(
    /** The folder, as joinableBase gives it. */
    private readonly base: string,
    /** The path below the folder, `/`-separated. */
    private readonly rel: string,
    readonly path: string,
    readonly size: number,
  ) {}

  read(room?: Uint8Array): Generator<Uint8Array> {
    return fileBytes(this.diskPath(), this.size, room);
  }

  diskPath(): string {
    return fileBelow(this.base, this.rel);
  }
}

/** A `/`-separated path with `.`, `..` or empty components, or a backslash: not one fileBelow takes as it is. */
const NOT_NORMAL = /(^|\/)\.{0,2}(\/|$)|\\/;

/** The file `rel` (`/`-separated) of the folder `base` (see joinableBase), at `path` in the pak. */
function diskFile(base: string, rel: string, path: string): PakDiskFile {
  return new PakDiskFile(base, rel, path, sizeOf(fileBelow(base, rel)));
}

/** Largest piece of a file read at once. */
const PIECE = PAK_READ_ROOM;

/**
 * A file's bytes with blocking reads into buffers sized to what is left (a read stream's 1 MiB buffer per small
 * file kept V8 collecting: a 50,000-file pak took over a minute). The last read asks for one byte more, so a file
 * grown since its size was taken yields more bytes than that size (writePak then refuses it); a short read is the
 * end. Not ChunkFileReader's reused buffers: the writer and the blocks read ahead of it (pakDeflateAhead) read files
 * at the same time, each into its own `room` (a new buffer per file, when there is none, had left hundreds of MB of
 * dead buffers to V8).
 */
function* fileBytes(file: string, size: number, room?: Uint8Array): Generator<Uint8Array> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw ioError(e, file);
  }
  try {
    for (let at = 0; ; ) {
      const want = Math.max(1, Math.min(PIECE, size - at + 1));
      const buf = room && room.length >= want ? room.subarray(0, want) : new Uint8Array(want);
      let n: number;
      try {
        n = readSync(fd, buf, 0, want, at);
      } catch (e) {
        throw ioError(e, file);
      }
      if (n === 0) return;
      at += n;
      if (n === want) {
        yield buf;
        continue;
      }
      // A regular file's read comes back short only at its end: no read more to find it (one call per file).
      yield buf.subarray(0, n);
      return;
    }
  } finally {
    closeSync(fd);
  }
}

/** The pak of an unpacked folder's manifest to rebuild: the one named, or the only one. */
function pickPak(m: Manifest, name: string | undefined, source: string, outName: string): ManifestPak | undefined {
  const paks = m.paks ?? [];
  if (paks.length === 0) return undefined;
  const byName = (n: string) => paks.find((x) => x.name.toLowerCase() === n.toLowerCase() || x.name.toLowerCase() === `${n.toLowerCase()}.pak`);
  if (name !== undefined) {
    const p = byName(name);
    if (!p) throw new IoStoreError('USAGE', `no pak "${name}" in the manifest (it has ${paks.map((x) => x.name).join(', ')})`, { file: source });
    return p;
  }
  if (paks.length === 1) return paks[0];
  const named = byName(outName);
  if (named) return named;
  throw new IoStoreError('USAGE', `the folder holds ${paks.length} paks (${paks.map((x) => x.name).join(', ')}): choose one with --container <name>, or name the output after it`, { file: source });
}

/** What the build starts from: the files to pack and the writer settings the sources gave. */
interface PakSources {
  files: PakInputFile[];
  from: PakPackResult['from'];
  settings: Partial<PakWriterOptions>;
  version?: number;
  mountPoint?: string;
}

/**
 * Builds a `.pak` from a folder: an unpacked pak (its manifest gives the paths, version, mount point and
 * compression; files added below its mount folder are packed too) or a folder laid out below the mount point.
 * Written under a temporary name and renamed when complete.
 */
export async function packPak(folder: string, outPak: string, o: PakPackOptions = {}): Promise<PakPackResult> {
  if (!hasExtension(outPak, '.pak')) throw new IoStoreError('USAGE', 'the output must be a .pak path', { file: outPak });
  const warnings: string[] = [];
  const outAbs = resolve(outPak);
  const src: PakSources = { files: [], from: 'folder', settings: {}, mountPoint: o.mountPoint };
  if (o.like !== undefined) await takeLikePak(o, src);
  const manifestPath = join(folder, MANIFEST_NAME);
  const manifest = existsSync(manifestPath) ? await readManifest(folder) : undefined;
  const picked = manifest ? pickPak(manifest, o.container, folder, basename(outPak)) : undefined;
  if (picked) await takeUnpackedPak(folder, manifest!, picked, outPak, o, src);
  else {
    src.files = await folderFiles(folder, '', outAbs, new Set());
    if (manifest) warnings.push(`${MANIFEST_NAME} names no .pak: packed the folder's files as they lie below the mount point`);
  }
  if (src.files.length === 0) throw new IoStoreError('NOT_FOUND', 'no files to pack', { file: folder });
  applyUserSettings(o, src);
  const files = src.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const r = await writePakFile(outPak, files, writerOptions(o, src, files), warnings);
  if (r.storedRaw > 0) warnings.push(`${plural(r.storedRaw, 'file')} did not shrink with ${r.compression} and ${r.storedRaw === 1 ? 'is' : 'are'} stored as ${r.storedRaw === 1 ? 'it is' : 'they are'}`);
  return { ...r, pak: outPak, from: src.from, warnings };
}

/** `--like`: the version, mount point, compression, block size and key GUID of a pak of the target game. */
async function takeLikePak(o: PakPackOptions, src: PakSources): Promise<void> {
  const like = await openPakFile(o.like!, o.aesKey ? { keyFor: () => o.aesKey } : {});
  await like.close();
  const { settings } = src;
  src.version = like.pak.version;
  if (like.pak.footer.compressionSlots === 4) settings.compressionSlots = 4;
  src.mountPoint ??= like.pak.mountPoint;
  const compressed = like.pak.entries.filter((e) => e.compressionMethodIndex !== 0);
  if (compressed.length > 0) {
    settings.compression = compressed[0]!.compressionMethod;
    settings.blockSize = Math.max(...compressed.filter((e) => e.blocks && e.blocks.length > 1).map((e) => e.compressionBlockSize), 65536);
  }
  if (like.pak.footer.encryptionKeyGuid.some((b) => b !== 0)) settings.encryptionKeyGuid = like.pak.footer.encryptionKeyGuid;
}

/** An unpacked pak: its manifest's files and settings, and files added below its mount folder since. */
async function takeUnpackedPak(folder: string, manifest: Manifest, picked: ManifestPak, outPak: string, o: PakPackOptions, src: PakSources): Promise<void> {
  const { settings } = src;
  src.from = 'manifest';
  if (!o.force && resolve(picked.pak) === resolve(outPak)) throw new IoStoreError('USAGE', 'the output would overwrite the pak this folder was unpacked from (pass --force to allow)', { file: outPak });
  src.version ??= picked.version;
  src.mountPoint ??= picked.mountPoint;
  if (picked.compressionSlots === 4) settings.compressionSlots = 4;
  // The seed UnrealPak derived from the pak's name: the same seed gives the same path hashes.
  if (picked.pathHashSeed !== null) settings.pathHashSeed = BigInt(picked.pathHashSeed);
  if (settings.compression === undefined) takeCommonCompression(picked, settings);
  if (o.noEncrypt && o.aesKey) throw new IoStoreError('USAGE', '--no-encrypt and --aes-key exclude each other');
  // An encrypted pak is rebuilt encrypted, or plain only when asked: never without a word.
  if ((picked.encryptedIndex || picked.files.some((f) => f.encrypted)) && !o.aesKey && !o.noEncrypt) {
    throw new IoStoreError('USAGE', `the pak was encrypted (key GUID ${picked.encryptionKeyGuid}): give --aes-key, or --no-encrypt to write it plain`, { file: folder });
  }
  const base = joinableBase(folder);
  // A path the manifest gives with `.`, `..` or empty components (an edited manifest) is joined as before, normalized.
  for (const f of picked.files) src.files.push(NOT_NORMAL.test(f.path) ? diskFile('', join(folder, ...f.path.split('/')), f.pakPath) : diskFile(base, f.path, f.pakPath));
  const known = new Set<string>();
  for (const p of manifest.paks ?? []) for (const f of p.files) known.add(f.path.toLowerCase());
  for (const c of manifest.containers) for (const ch of c.chunks) known.add(ch.path.toLowerCase());
  const prefix = pakMountRelative(picked.mountPoint, picked.pak);
  src.files.push(...(await folderFiles(folder, prefix, resolve(outPak), known)));
}

/** The compression most of the unpacked pak's files had, and the largest block size they used with it. */
function takeCommonCompression(picked: ManifestPak, settings: Partial<PakWriterOptions>): void {
  const counts = new Map<string, number>();
  for (const f of picked.files) if (f.compression !== 'None') counts.set(f.compression, (counts.get(f.compression) ?? 0) + 1);
  const common = [...counts].sort((a, b) => b[1] - a[1])[0];
  if (!common) return;
  settings.compression = common[0];
  const sizes = picked.files.filter((f) => f.compression === common[0] && f.size > f.blockSize).map((f) => f.blockSize);
  settings.blockSize = sizes.length > 0 ? Math.max(...sizes) : 65536;
}

/**
 * The files below `folder`/`prefix` (the pak's mount folder; '' for all) that are none of `known` (lower-case paths
 * relative to the folder), the manifest, the output or a temporary file, with pak paths relative to the prefix.
 */
async function folderFiles(folder: string, prefix: string, outAbs: string, known: ReadonlySet<string>): Promise<PakInputFile[]> {
  const top = prefix.split('/').filter(Boolean);
  const dir = join(folder, ...top);
  if (prefix !== '' && !existsSync(dir)) return [];
  // Paths below the folder, `/`-separated, as walkFiles finds them below the prefix's folder.
  const found: string[] = [];
  const topRel = top.join('/');
  await walkFiles(dir, found, topRel);
  const outRel = relative(resolve(folder), outAbs).split(sep).join('/');
  const base = joinableBase(folder);
  const files: PakInputFile[] = [];
  for (const rel of found.sort()) {
    if (rel === MANIFEST_NAME || known.has(rel.toLowerCase()) || rel === outRel || /\.iostore-tmp$/.test(rel)) continue;
    files.push(diskFile(base, rel, rel.slice(prefix.length)));
  }
  return files;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (e) {
    throw ioError(e, file);
  }
}

/** The options that win over what the sources said: --engine, --pak-version, --compression, --block-size. */
function applyUserSettings(o: PakPackOptions, src: PakSources): void {
  const { settings } = src;
  if (o.engine !== undefined) {
    src.version = pakVersionForEngine(engineText(o.engine));
    if (/^\D*4[._]22$/.test(o.engine.trim())) settings.compressionSlots = 4;
  }
  if (o.pakVersion !== undefined) src.version = o.pakVersion;
  src.version ??= PakVersion.Fnv64BugFix;
  if (settings.compressionSlots === 4 && src.version !== PakVersion.FNameBasedCompressionMethod) delete settings.compressionSlots;
  if (o.compression !== undefined) settings.compression = methodName(o.compression);
  if (o.blockSize !== undefined) settings.blockSize = o.blockSize;
}

/** The writer's options, with a progress count per file written. */
function writerOptions(o: PakPackOptions, src: PakSources, files: readonly PakInputFile[]): PakWriterOptions {
  const total = { chunksDone: 0, chunksTotal: files.length, bytesDone: 0, bytesTotal: files.reduce((a, f) => a + f.size, 0) };
  const codecs = withEncoderSettings(o, src.settings.compression);
  return {
    ...src.settings,
    version: src.version!,
    mountPoint: src.mountPoint ?? '../../../',
    ...(codecs ? { codecs } : {}),
    ...(o.aesKey ? { aesKey: o.aesKey, encryptEntries: o.encryptEntries ?? true } : {}),
    ...(o.encryptIndex ? { encryptIndex: true } : {}),
    compressAhead: pakDeflateAhead,
    copyStored: (direct, bytes, layout, hashes) => StoredCopy.forPak(direct.fd, direct.shownAs, bytes, layout, hashes, o.threads),
    onFile: (_path, _stored, index) => {
      total.chunksDone++;
      total.bytesDone += files[index]!.size;
      o.onProgress?.({ ...total });
    },
  };
}

/**
 * Writes the pak under a temporary name and renames it into place. Folders made here go again if the run fails;
 * what a killed run left beside the output goes first.
 */
async function writePakFile(outPak: string, files: PakInputFile[], w: PakWriterOptions, warnings: string[]): Promise<PakWriteResult> {
  if (isAborting()) throw new IoStoreError('IO', 'interrupted', { file: outPak });
  const outAbs = resolve(outPak);
  const made = withIoError(dirname(outAbs), () => mkdirSync(dirname(outAbs), { recursive: true }));
  const unmake = () => removeMadeFolders(dirname(outAbs), made);
  abortCleanups.add(unmake);
  const leftovers = removeLeftovers(dirname(outAbs));
  if (leftovers.length > 0) warnings.push(leftoversWarning(leftovers));
  const tmp = tempPathFor(outAbs);
  try {
    const sink = await tempSink(tmp, outPak);
    let r: PakWriteResult;
    try {
      r = await writePak(sink, files, w);
    } finally {
      await sink.close();
    }
    await rename(tmp, outAbs).catch((e) => {
      throw ioError(e, outPak);
    });
    return r;
  } catch (e) {
    await unlink(tmp).catch(() => {});
    removeMadeFolders(dirname(outAbs), made);
    throw e;
  } finally {
    tempFilesInFlight.delete(tmp);
    abortCleanups.delete(unmake);
  }
}

/**
 * The registry to write with: the given one (or the built-ins) with the compression method set up for the level and
 * Oodle codec asked for; undefined when neither was asked for.
 */
function withEncoderSettings(o: PakPackOptions, method: string | undefined): CodecRegistry | undefined {
  if (o.compressionLevel === undefined && o.oodleCodec === undefined) return o.codecs;
  if (method === undefined || /^none$/i.test(method)) throw new IoStoreError('USAGE', 'a compression level or Oodle codec needs a compression method (pass --compression oodle, zlib or gzip)');
  const registry = (o.codecs ?? defaultCodecs()).clone();
  registry.register(encoderFor(method, { ...(o.compressionLevel !== undefined ? { level: o.compressionLevel } : {}), ...(o.oodleCodec !== undefined ? { oodleCodec: o.oodleCodec } : {}) }));
  return registry;
}
