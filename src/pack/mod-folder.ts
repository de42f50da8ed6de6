import { readFileSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import { IoStoreError } from '../errors.js';
import { cityHash64 } from '../hash/cityhash.js';
import { lowerAscii, packageIdFromName, utf16leBytes } from '../hash/names.js';
import { CHUNK_ID_SIZE, chunkTypeFromName, encodeChunkId } from '../toc/chunk-id.js';
import { unsafeComponent } from '../toc/directory-index.js';
import type { EngineGeneration } from '../toc/engine.js';
import { packageNameCandidates } from '../toc/package-path.js';
import { ioError, withIoError } from '../toc/read-file.js';
import { quote } from '../util/quote.js';
import { toHex } from '../util/bytes.js';
import { sizeSync } from '../util/sync-fs.js';

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

/**
 * A file of a mod folder and the chunk it becomes. Its id is made from the id value and type when asked for, and its
 * file name from its source: a plan of 150,000 files holds one of these per file while it is made.
 */
export class ModChunk {
  /** The `.uexp` beside a `.uasset`/`.umap` (a legacy package's export data). */
  uexp?: ModFile;

  constructor(
    readonly src: ModFile,
    /** Path below the mount point, `/`-separated. */
    public path: string,
    readonly type: string,
    private readonly typeByte: number,
    /** The id's 64-bit value: the package id, or a shader library's hash. */
    private idValue: bigint,
    /** For package and bulk files: the long package name (the id value is then its package id). */
    public packageName?: string,
  ) {}

  get file(): string {
    return this.src.file;
  }

  get packageId(): bigint | undefined {
    return this.packageName === undefined ? undefined : this.idValue;
  }

  /** The chunk id (made per call; index and padding 0, as every file chunk's). */
  get id(): Uint8Array {
    return encodeChunkId({ id: this.idValue, index: 0, pad: 0, type: this.typeByte }, 'UE5');
  }

  /** The id's value with its type in the top byte (see checkDistinctIds): equal for equal ids. */
  get idKey(): bigint {
    return this.idValue ^ TYPE_KEYS[this.typeByte]!;
  }

  /** Gives the chunk the ids of another package name (see renamePackage). */
  rename(packageName: string, packageId: bigint): void {
    this.packageName = packageName;
    this.idValue = packageId;
  }
}

/** Each chunk type byte moved to the top byte of a 64-bit key, made once. */
const TYPE_KEYS = Array.from({ length: 256 }, (_, t) => BigInt(t) << 56n);

/** The kind of a file by its lower-cased path (see KINDS), without a closure per file. */
function kindOf(lower: string): [string, string] | undefined {
  for (const kind of KINDS) if (lower.endsWith(kind[0])) return kind;
  return undefined;
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
  const base = joinableBase(folder);
  if (sep === '/') {
    await walkSorted(folder, '', files);
    return files.map((rel) => folderFile(base, rel));
  }
  await walkFiles(folder, files, '');
  // Sorted as their full paths were (`/` and the platform's separator sort alike against names).
  return files.sort((a, b) => compareAsPaths(a, b)).map((rel) => folderFile(base, rel));
}

/**
 * walkFiles with `rel`, its paths in the order of the full paths (where the separator is `/`): each folder's entries
 * are sorted natively, a subfolder as its name and a `/` (as the paths below it begin), a file as its name, which
 * orders the paths of two entries as their first differing component does. A comparison function over the full
 * paths had cost a 30,000-file pack ~30 ms.
 */
async function walkSorted(dir: string, rel: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e) => {
    throw ioError(e, dir);
  });
  const keys: string[] = [];
  for (const e of entries) {
    if (e.isDirectory()) keys.push(`${e.name}/`);
    else if (e.isFile()) keys.push(e.name);
  }
  keys.sort();
  for (const key of keys) {
    if (key.endsWith('/')) {
      const name = key.slice(0, -1);
      await walkSorted(join(dir, name), rel === '' ? name : `${rel}/${name}`, out);
    } else {
      out.push(rel === '' ? key : `${rel}/${key}`);
    }
  }
}

/**
 * `folder` as join() would begin a path below it, so that a file's name is this and its path (see fileBelow): join
 * normalizing the whole name again was ~3 us a file, made twice for each file of a pack.
 */
export function joinableBase(folder: string): string {
  const b = normalize(folder);
  return b === '.' || b === `.${sep}` ? '' : b;
}

/** join(base, rel) for a base from joinableBase and a `/`-separated path found by walkFiles (already normal). */
export function fileBelow(base: string, rel: string): string {
  if (sep !== '/') return join(base, rel);
  if (base === '') return rel;
  return base.endsWith('/') ? base + rel : `${base}/${rel}`;
}

/** `a` < `b` as the same paths below one folder with the platform's separator would sort. */
function compareAsPaths(a: string, b: string): number {
  if (sep === '/') return a < b ? -1 : a > b ? 1 : 0;
  const x = a.split('/').join(sep);
  const y = b.split('/').join(sep);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The file `file` of a folder, at `path` (`/`-separated, relative to the folder). */
export function modFileAt(file: string, path: string): ModFile {
  return new DiskFile(file, '', path, withIoError(file, () => statSync(file)).size);
}

/** File `rel` (`/`-separated, as walkFiles found it) of the folder `base` (see joinableBase), at its own path. */
function folderFile(base: string, rel: string): ModFile {
  const file = fileBelow(base, rel);
  // No closure per file (withIoError): the listing of a 30,000-file folder made one for each stat. Nor a Stats object
  // (sizeSync): statSync made one with four Dates per file.
  let size: number;
  try {
    size = sizeSync(file);
  } catch (e) {
    throw ioError(e, file);
  }
  return new DiskFile(base, rel, rel, size);
}

/**
 * A ModFile on disk: its path and size, its file name made when asked for (the folder and the path below it), and
 * no closure: a mod folder of 150,000 files keeps one of these per file for the run.
 */
class DiskFile implements ModFile {
  constructor(
    /** The file itself (when `rel` is ''), or the folder `rel` is below (see joinableBase). */
    private readonly base: string,
    private readonly rel: string,
    public path: string,
    readonly size: number,
  ) {}

  get file(): string {
    return this.rel === '' ? this.base : fileBelow(this.base, this.rel);
  }

  get onDisk(): boolean {
    return true;
  }

  read(): Promise<Uint8Array> {
    const file = this.file;
    // Blocking calls for the small files mods are made of: a libuv round trip per call costs more than the call.
    if (this.size <= SMALL_FILE) return Promise.resolve().then(() => new Uint8Array(withIoError(file, () => readFileSync(file))));
    return readFile(file).then((b) => new Uint8Array(b), (e) => { throw ioError(e, file); });
  }

  at(path: string): DiskFile {
    return new DiskFile(this.base, this.rel, path, this.size);
  }
}

/**
 * The files with `prefix` before their paths: those listModFolder made are moved in place (the caller's list is
 * theirs), others copied.
 */
export function prefixPaths(files: readonly ModFile[], prefix: string): ModFile[] {
  return files.map((f) => {
    if (!(f instanceof DiskFile)) return { path: prefix + f.path, file: f.file, size: f.size, onDisk: f.onDisk, read: () => f.read() };
    f.path = prefix + f.path;
    return f;
  });
}

/** `f` at another path below the mount point (its bytes and file the same). */
export function modFileAtPath(f: ModFile, path: string): ModFile {
  if (f instanceof DiskFile) return f.at(path);
  return { path, file: f.file, size: f.size, onDisk: f.onDisk, read: () => f.read() };
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
  // Stems (lower case) of the .uasset and .umap files, for their .uexp files.
  const packages = new Set<string>();
  const checked = new Set<string>();
  for (const f of files) {
    // Each folder's components are checked once, then each file's name.
    const cut = f.path.lastIndexOf('/');
    const dir = cut < 0 ? '' : f.path.slice(0, cut);
    for (const part of checked.has(dir) ? [f.path.slice(cut + 1)] : f.path.split('/')) {
      const why = unsafeComponent(part);
      if (why) throw new IoStoreError('UNSAFE_PATH', `path component ${quote(part)} ${why}`, { file: f.file });
    }
    checked.add(dir);
    // Only a name ending in p or t (.uexp, .umap, .uasset) is lower-cased here: a bulk file's path is not.
    const last = f.path.charCodeAt(f.path.length - 1) | 0x20;
    if (last !== 0x70 && last !== 0x74) continue;
    const lower = f.path.toLowerCase();
    if (lower.endsWith('.uexp')) uexps.set(lower.slice(0, -5), f);
    else if (lower.endsWith('.uasset') || lower.endsWith('.umap')) packages.add(lower.slice(0, lower.lastIndexOf('.')));
  }
  const typeBytes = new Map<string, number>();
  for (const f of files) {
    const { path } = f;
    const lower = path.toLowerCase();
    if (lower.endsWith('.uexp')) {
      if (!packages.has(lower.slice(0, -5))) throw new IoStoreError('NOT_FOUND', 'a .uexp without its .uasset or .umap beside it', { file: f.file });
      continue;
    }
    const kind = kindOf(lower);
    if (!kind && others) {
      if (path !== 'iostore-manifest.json' && !lower.endsWith('.iostore-tmp')) others.push({ file: f.file, path });
      continue;
    }
    // The file's name (f.file) is made only for an error: a string per file of a big mod otherwise.
    if (!kind) throw new IoStoreError('UNSUPPORTED', `not a kind of file a container holds (expected ${KINDS.map(([e]) => e).join(', ')}, or .uexp beside a legacy package)`, { file: f.file });
    const [ext, type] = kind;
    // Each kind's type byte found once (chunkTypeFromName lower-cases the names of the table it searches).
    let typeByte = typeBytes.get(type);
    if (typeByte === undefined) typeBytes.set(type, (typeByte = chunkTypeFromName(type, gen)));
    if (type === 'ShaderCodeLibrary') {
      const stem = path.split('/').pop()!.slice(0, -ext.length).replace(/^ShaderArchive-/, '');
      out.push(new ModChunk(f, path, type, typeByte, cityHash64(utf16leBytes(lowerAscii(stem)))));
      continue;
    }
    const candidates = packageNameCandidates(mountPrefix + path.slice(0, -ext.length) + '.uasset');
    if (candidates.length === 0) throw new IoStoreError('BAD_VALUE', `${quote(mountPrefix + path)} is not below a Content folder, so it names no package`, { file: f.file });
    // Without the game's ids to match, the first candidate (no hash of each candidate first).
    const packageName = knownIds !== undefined && knownIds.size > 0 ? (candidates.find((n) => knownIds.has(packageIdFromName(n))) ?? candidates[0]!) : candidates[0]!;
    const packageId = packageIdFromName(packageName);
    const chunk = new ModChunk(f, path, type, typeByte, packageId, packageName);
    const uexp = type === 'ExportBundleData' ? uexps.get(lower.slice(0, -ext.length)) : undefined;
    if (uexp) chunk.uexp = uexp;
    out.push(chunk);
  }
  checkDistinctIds(out);
  return out;
}

/** Two files must not become one chunk (e.g. two packages with one package id). */
export function checkDistinctIds(chunks: readonly ModChunk[]): void {
  // Each id folded into one 64-bit key (its value, the type in the top byte: file chunks differ in nothing else) and
  // the keys sorted natively: only a repeated key (the same id twice, or two ids folding alike) compares the ids
  // themselves. A 12-byte array per id and a comparison function had cost a 30,000-file pack ~40 ms, twice.
  const keys = new BigUint64Array(chunks.length);
  for (let i = 0; i < chunks.length; i++) keys[i] = chunks[i]!.idKey;
  keys.sort();
  for (let k = 1; k < keys.length; k++) if (keys[k] === keys[k - 1]) return checkDistinctIdBytes(chunks);
}

/** checkDistinctIds over the ids' bytes: throws for the first pair of files with one id. */
function checkDistinctIdBytes(chunks: readonly ModChunk[]): void {
  // Sorted by id (then by position), neighbours compared: a map of the ids as hex held a string per file.
  const ids = new Uint8Array(chunks.length * CHUNK_ID_SIZE);
  chunks.forEach((c, i) => ids.set(c.id, i * CHUNK_ID_SIZE));
  const order = new Int32Array(chunks.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  const compare = (a: number, b: number) => {
    for (let k = 0, x = a * CHUNK_ID_SIZE, y = b * CHUNK_ID_SIZE; k < CHUNK_ID_SIZE; k++) if (ids[x + k] !== ids[y + k]) return ids[x + k]! - ids[y + k]!;
    return 0;
  };
  order.sort((a, b) => compare(a, b) || a - b);
  for (let k = 1; k < order.length; k++) {
    if (compare(order[k - 1]!, order[k]!) !== 0) continue;
    const c = chunks[order[k]!]!;
    const key = toHex(c.id);
    throw new IoStoreError('BAD_VALUE', `${quote(c.path)} and ${quote(chunks[order[k - 1]!]!.path)} map to the same chunk id ${key}${c.packageName ? ` (package ${quote(c.packageName)})` : ''}`, { file: c.file, offset: 0 });
  }
}

/** Appends every regular file below `dir` to `out` (symbolic links are not followed). */
export async function walkFiles(dir: string, out: string[]): Promise<void>;
/** With `rel`: the files' paths below the walk's top folder (`/`-separated, `rel` being `dir`'s) instead. */
export async function walkFiles(dir: string, out: string[], rel: string): Promise<void>;
export async function walkFiles(dir: string, out: string[], rel?: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e) => {
    throw ioError(e, dir);
  });
  for (const e of entries) {
    const r = rel === undefined ? undefined : rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) await (r === undefined ? walkFiles(join(dir, e.name), out) : walkFiles(join(dir, e.name), out, r));
    else if (e.isFile()) out.push(r ?? join(dir, e.name));
  }
}
