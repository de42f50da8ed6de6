import { readFileSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { IoStoreError } from '../errors.js';
import { cityHash64 } from '../hash/cityhash.js';
import { lowerAscii, packageIdFromName, utf16leBytes } from '../hash/names.js';
import { chunkTypeFromName, encodeChunkId } from '../toc/chunk-id.js';
import { unsafeComponent } from '../toc/directory-index.js';
import type { EngineGeneration } from '../toc/engine.js';
import { packageNameCandidates } from '../toc/package-path.js';
import { ioError, withIoError } from '../toc/read-file.js';
import { quote } from '../util/quote.js';

/** A file to pack: where it goes below the mount point and how to read it (from disk or from memory). */
export interface ModFile {
  /** Path below the mount point, `/`-separated. */
  path: string;
  /** What error messages name: the file on disk, or `archive.pak/inner/path`. */
  file: string;
  size: number;
  read(): Promise<Uint8Array>;
  /** True when `file` is a file on disk holding exactly these bytes (workers may read it themselves). */
  onDisk: boolean;
}

/** A file of a mod folder and the chunk it becomes. */
export interface ModChunk {
  file: string;
  /** Path below the mount point, `/`-separated. */
  path: string;
  id: Uint8Array;
  type: string;
  /** For package and bulk files: the long package name and id. */
  packageName?: string;
  packageId?: bigint;
  src: ModFile;
  /** The `.uexp` beside a `.uasset`/`.umap` (a legacy package's export data). */
  uexp?: ModFile;
}

/** What each file extension holds, as the engine names the chunk types. Longer suffixes first. */
const KINDS: Array<[string, string]> = [
  ['.m.ubulk', 'MemoryMappedBulkData'],
  ['.ubulk', 'BulkData'],
  ['.uptnl', 'OptionalBulkData'],
  ['.uasset', 'ExportBundleData'],
  ['.umap', 'ExportBundleData'],
  ['.ushaderbytecode', 'ShaderCodeLibrary'],
];

/**
 * Turns a folder of packages and bulk files (laid out below the mount point, e.g. `Game/Content/X.uasset`) into
 * chunks with the ids the engine derives: package id from the package name, the chunk type from the extension,
 * shader libraries from their file stem. `knownIds` (the ids of the game container being modded) decides between
 * the package names a plugin path may stand for.
 */
export async function scanModFolder(folder: string, mountPrefix: string, gen: EngineGeneration, knownIds?: ReadonlySet<bigint>, others?: ModLooseFile[]): Promise<ModChunk[]> {
  return classifyModFiles(await listModFolder(folder), mountPrefix, gen, knownIds, others);
}

/** A file of a mod folder that is not a package or bulk data (.ini, .json, .locres, AssetRegistry.bin ...). */
export interface ModLooseFile {
  file: string;
  /** Path below the mount point, `/`-separated. */
  path: string;
}

/** Every file below `folder`, sorted, with its path below the folder; unsafe path components are rejected. */
export async function listModFolder(folder: string): Promise<ModFile[]> {
  const files: string[] = [];
  await walkFiles(folder, files);
  return files.sort().map((file) => modFileAt(file, relative(folder, file).split(sep).join('/')));
}

/** The file `file` of a folder, at `path` (`/`-separated, relative to the folder). */
export function modFileAt(file: string, path: string): ModFile {
  // Blocking calls for the small files mods are made of: a libuv round trip per call costs more than the call.
  const size = withIoError(file, () => statSync(file)).size;
  const read = size <= SMALL_FILE
    ? async () => new Uint8Array(withIoError(file, () => readFileSync(file)))
    : async () => new Uint8Array(await readFile(file).catch((e) => { throw ioError(e, file); }));
  return { path, file, size, onDisk: true, read };
}

/** Files up to this size are stat'ed and read with blocking calls. */
const SMALL_FILE = 1 << 20;

/**
 * The chunks a list of files becomes (see scanModFolder); a `.uexp` joins the `.uasset`/`.umap` beside it.
 * `others`: when given, files a container cannot hold are collected there (they go into the companion .pak, as the
 * engine stages them) instead of being refused.
 */
export function classifyModFiles(files: readonly ModFile[], mountPrefix: string, gen: EngineGeneration, knownIds?: ReadonlySet<bigint>, others?: ModLooseFile[]): ModChunk[] {
  const out: ModChunk[] = [];
  const uexps = new Map<string, ModFile>();
  for (const f of files) {
    for (const part of f.path.split('/')) {
      const why = unsafeComponent(part);
      if (why) throw new IoStoreError('UNSAFE_PATH', `path component ${quote(part)} ${why}`, { file: f.file });
    }
    if (f.path.toLowerCase().endsWith('.uexp')) uexps.set(f.path.slice(0, -5).toLowerCase(), f);
  }
  for (const f of files) {
    const { path, file } = f;
    const lower = path.toLowerCase();
    if (lower.endsWith('.uexp')) {
      const stem = lower.slice(0, -5);
      if (!files.some((o) => o.path.toLowerCase() === `${stem}.uasset` || o.path.toLowerCase() === `${stem}.umap`)) {
        throw new IoStoreError('NOT_FOUND', 'a .uexp without its .uasset or .umap beside it', { file });
      }
      continue;
    }
    const kind = KINDS.find(([ext]) => lower.endsWith(ext));
    if (!kind && others) {
      if (path !== 'iostore-manifest.json' && !lower.endsWith('.iostore-tmp')) others.push({ file, path });
      continue;
    }
    if (!kind) throw new IoStoreError('UNSUPPORTED', `not a kind of file a container holds (expected ${KINDS.map(([e]) => e).join(', ')}, or .uexp beside a legacy package)`, { file });
    const [ext, type] = kind;
    const typeByte = chunkTypeFromName(type, gen);
    if (type === 'ShaderCodeLibrary') {
      const stem = path.split('/').pop()!.slice(0, -ext.length).replace(/^ShaderArchive-/, '');
      const id = cityHash64(utf16leBytes(lowerAscii(stem)));
      out.push({ file, path, type, src: f, id: encodeChunkId({ id, index: 0, pad: 0, type: typeByte }, gen) });
      continue;
    }
    const candidates = packageNameCandidates(mountPrefix + path.slice(0, -ext.length) + '.uasset');
    if (candidates.length === 0) throw new IoStoreError('BAD_VALUE', `${quote(mountPrefix + path)} is not below a Content folder, so it names no package`, { file });
    const packageName = candidates.find((n) => knownIds?.has(packageIdFromName(n))) ?? candidates[0]!;
    const packageId = packageIdFromName(packageName);
    const chunk: ModChunk = { file, path, type, packageName, packageId, src: f, id: encodeChunkId({ id: packageId, index: 0, pad: 0, type: typeByte }, gen) };
    const uexp = type === 'ExportBundleData' ? uexps.get(lower.slice(0, -ext.length)) : undefined;
    if (uexp) chunk.uexp = uexp;
    out.push(chunk);
  }
  checkDistinctIds(out);
  return out;
}

/** Two files must not become one chunk (e.g. two packages with one package id). */
export function checkDistinctIds(chunks: readonly ModChunk[]): void {
  const seen = new Map<string, string>();
  for (const c of chunks) {
    const key = Buffer.from(c.id).toString('hex');
    const other = seen.get(key);
    if (other) throw new IoStoreError('BAD_VALUE', `${quote(c.path)} and ${quote(other)} map to the same chunk id ${key}${c.packageName ? ` (package ${quote(c.packageName)})` : ''}`, { file: c.file, offset: 0 });
    seen.set(key, c.path);
  }
}

/** Appends every regular file below `dir` to `out` (symbolic links are not followed). */
export async function walkFiles(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e) => {
    throw ioError(e, dir);
  });
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await walkFiles(p, out);
    else if (e.isFile()) out.push(p);
  }
}
