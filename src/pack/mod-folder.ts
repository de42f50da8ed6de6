import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { IoStoreError } from '../errors.js';
import { cityHash64 } from '../hash/cityhash.js';
import { lowerAscii, packageIdFromName, utf16leBytes } from '../hash/names.js';
import { chunkTypeFromName, encodeChunkId } from '../toc/chunk-id.js';
import { unsafeComponent } from '../toc/directory-index.js';
import type { EngineGeneration } from '../toc/engine.js';
import { packageNameCandidates } from '../toc/package-path.js';
import { ioError } from '../toc/read-file.js';
import { quote } from '../util/quote.js';

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
 * Turns a folder of zen packages and bulk files (laid out below the mount point, e.g. `Game/Content/X.uasset`) into
 * chunks with the ids the engine derives: package id from the package name, the chunk type from the extension,
 * shader libraries from their file stem. `knownIds` (the ids of the game container being modded) decides between
 * the package names a plugin path may stand for.
 */
/** A file of a mod folder that is not a package or bulk data (.ini, .json, .locres, AssetRegistry.bin ...). */
export interface ModLooseFile {
  file: string;
  /** Path below the mount point, `/`-separated. */
  path: string;
}

/**
 * `others`: when given, files a container cannot hold are collected there (they go into the companion .pak, as
 * the engine stages them) instead of being refused.
 */
export async function scanModFolder(folder: string, mountPrefix: string, gen: EngineGeneration, knownIds?: ReadonlySet<bigint>, others?: ModLooseFile[]): Promise<ModChunk[]> {
  const files: string[] = [];
  await walk(folder, files);
  const out: ModChunk[] = [];
  for (const file of files.sort()) {
    const path = relative(folder, file).split(sep).join('/');
    for (const part of path.split('/')) {
      const why = unsafeComponent(part);
      if (why) throw new IoStoreError('UNSAFE_PATH', `path component ${quote(part)} ${why}`, { file });
    }
    const lower = path.toLowerCase();
    if (lower.endsWith('.uexp')) throw new IoStoreError('UNSUPPORTED', 'a legacy .uexp file: pack takes zen packages (.uasset without .uexp); convert legacy packages first', { file });
    const kind = KINDS.find(([ext]) => lower.endsWith(ext));
    if (!kind && others) {
      if (path !== 'iostore-manifest.json' && !lower.endsWith('.iostore-tmp')) others.push({ file, path });
      continue;
    }
    if (!kind) throw new IoStoreError('UNSUPPORTED', `not a kind of file a container holds (expected ${KINDS.map(([e]) => e).join(', ')})`, { file });
    const [ext, type] = kind;
    const typeByte = chunkTypeFromName(type, gen);
    if (type === 'ShaderCodeLibrary') {
      const stem = path.split('/').pop()!.slice(0, -ext.length).replace(/^ShaderArchive-/, '');
      const id = cityHash64(utf16leBytes(lowerAscii(stem)));
      out.push({ file, path, type, id: encodeChunkId({ id, index: 0, pad: 0, type: typeByte }, gen) });
      continue;
    }
    const candidates = packageNameCandidates(mountPrefix + path.slice(0, -ext.length) + '.uasset');
    if (candidates.length === 0) throw new IoStoreError('BAD_VALUE', `${quote(mountPrefix + path)} is not below a Content folder, so it names no package`, { file });
    const packageName = candidates.find((n) => knownIds?.has(packageIdFromName(n))) ?? candidates[0]!;
    const packageId = packageIdFromName(packageName);
    out.push({ file, path, type, packageName, packageId, id: encodeChunkId({ id: packageId, index: 0, pad: 0, type: typeByte }, gen) });
  }
  const seen = new Map<string, string>();
  for (const c of out) {
    const key = Buffer.from(c.id).toString('hex');
    const other = seen.get(key);
    if (other) throw new IoStoreError('BAD_VALUE', `${quote(c.path)} and ${quote(other)} map to the same chunk id ${key}`, { file: c.file });
    seen.set(key, c.path);
  }
  return out;
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e) => {
    throw ioError(e, dir);
  });
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await walk(p, out);
    else if (e.isFile()) out.push(p);
  }
}
