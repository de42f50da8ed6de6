import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ContainerReader } from '../cas/container-reader.js';
import { IoStoreError } from '../errors.js';
import { packageIdFromName } from '../hash/names.js';
import { packageNameCandidates } from '../toc/package-path.js';
import type { IoStoreToc } from '../toc/toc.js';
import { parseContainerHeader, type ContainerHeader, type ContainerHeaderVersionName } from '../zen/container-header.js';
import type { StoreEntry } from '../zen/store-entry.js';
import { parseZenPackage, type ZenPackage } from '../zen/zen-package.js';
import { parseLoaderGlobalNames, parseLoaderInitialLoadMeta, parseScriptObjects, scriptObjectPaths, type ScriptObjectEntry } from '../zen/script-objects.js';
import { NAME_HASH_ALGORITHM_ID } from '../zen/name-batch.js';
import { quote } from '../util/quote.js';
import { hasExtension } from '../util/file-extension.js';

/** The container's header chunk, parsed; null when it has none (global containers). */
export async function readContainerHeader(reader: ContainerReader, version?: ContainerHeaderVersionName): Promise<ContainerHeader | null> {
  const toc = reader.toc;
  for (let i = 0; i < toc.chunkCount; i++) {
    if (toc.chunkTypeName(i) !== 'ContainerHeader') continue;
    const bytes = await reader.readChunk(i);
    return parseContainerHeader(bytes, { source: `${toc.source} (container header chunk ${toc.chunkIdHex(i)})`, ...(version ? { version } : {}) });
  }
  return null;
}

/** Package id -> long package name, for every package chunk whose path maps to its id. */
export function packageNamesFromToc(toc: IoStoreToc): Map<bigint, string> {
  const out = new Map<bigint, string>();
  for (let i = 0; i < toc.chunkCount; i++) {
    if (toc.chunkTypeName(i) !== 'ExportBundleData') continue;
    const path = toc.chunkPath(i);
    if (!path) continue;
    const id = toc.chunkId(i).id;
    const name = packageNameCandidates(path).find((n) => packageIdFromName(n) === id);
    if (name) out.set(id, name);
  }
  return out;
}

/**
 * Reads and parses the packages of one container by package id (each its ExportBundleData chunk, with its store
 * entry); undefined for a package the container does not hold.
 */
export function containerPackageLoader(reader: ContainerReader, header: ContainerHeader | null): (packageId: bigint) => Promise<ZenPackage | undefined> {
  const toc = reader.toc;
  let chunks: Map<bigint, number> | undefined;
  let entries: Map<bigint, StoreEntry> | undefined;
  return async (packageId) => {
    if (!chunks) {
      chunks = new Map();
      for (let i = 0; i < toc.chunkCount; i++) if (toc.chunkTypeName(i) === 'ExportBundleData') chunks.set(toc.chunkId(i).id, i);
      entries = new Map(header?.packages.map((p) => [p.packageId, p]));
    }
    const i = chunks.get(packageId);
    if (i === undefined) return undefined;
    const entry = entries!.get(packageId);
    return parseZenPackage(await reader.readChunk(i), { source: `${toc.source}: ${toc.chunkPath(i) ?? toc.chunkIdHex(i)}`, ...(header ? { containerHeaderVersion: header.version } : {}), ...(entry ? { storeEntry: entry } : {}) });
  };
}

/**
 * TOC index of a package given by path or by long package name, whole or a tail of whole path components, with or
 * without its extension (`Maps/Level.umap`, `Maps/Level`, `Level`, `/Game/Maps/Level`, `/Game/Maps/Level.Level`);
 * -1 when none matches. The closest kind of match wins (a whole path before a tail); a tail that several packages
 * share is an error naming them.
 */
export function findPackageChunk(toc: IoStoreToc, query: string, names: ReadonlyMap<bigint, string>): number {
  const q = query.replace(/\\/g, '/').replace(/^\.?\//, (m) => (m === '/' ? '/' : '')).toLowerCase();
  // An object path (`/Game/X.X`) names its package; a file name keeps its extension for the path match.
  const stem = q.replace(/\.(uasset|umap|uzenasset)$/, '');
  const object = q.startsWith('/') ? q.replace(/\.[^/.]+$/, '') : undefined;
  const tiers: number[][] = [[], [], []];
  for (let i = 0; i < toc.chunkCount; i++) {
    if (toc.chunkTypeName(i) !== 'ExportBundleData') continue;
    const path = (toc.chunkPath(i) ?? '').toLowerCase();
    const pathStem = path.replace(/\.(uasset|umap)$/, '');
    const name = names.get(toc.chunkId(i).id)?.toLowerCase();
    if (path === q || name === q || (object !== undefined && name === object)) tiers[0]!.push(i);
    else if (path.endsWith(`/${q}`) || pathStem === stem || pathStem.endsWith(`/${stem}`)) tiers[1]!.push(i);
    else if (name !== undefined && name.endsWith(`/${stem}`)) tiers[2]!.push(i);
  }
  for (const found of tiers) {
    if (found.length === 1) return found[0]!;
    if (found.length > 1) {
      const shown = found.slice(0, 5).map((i) => toc.chunkPath(i) ?? toc.chunkIdHex(i));
      throw new IoStoreError('USAGE', `${found.length} packages end with ${quote(query)}: ${shown.join(', ')}${found.length > 5 ? ', ...' : ''}; give more of the path`, { file: toc.source });
    }
  }
  return -1;
}

/**
 * Script object paths by global index, from the global container (UE5 ScriptObjects, or UE4 LoaderGlobalNames +
 * LoaderInitialLoadMeta) or from its ScriptObjects chunk as `unpack` writes it (`_chunks/ScriptObjects/<id>.bin`).
 * Unless a path is given, looks where the global container usually is (findGlobalScriptObjects).
 */
export async function loadScriptObjects(nextTo: string, globalUtoc?: string): Promise<Map<bigint, string> | undefined> {
  const path = globalUtoc ?? findGlobalScriptObjects(nextTo);
  if (path === undefined) return undefined;
  if (!existsSync(path)) throw new IoStoreError('NOT_FOUND', 'no such file', { file: path });
  if (!hasExtension(path, '.utoc')) return scriptObjectMap(parseScriptObjects(new Uint8Array(readFileSync(path)), { source: path }));
  const reader = await ContainerReader.open(path);
  try {
    return await scriptObjectsFromReader(reader);
  } finally {
    await reader.close();
  }
}

/**
 * Where the script objects for a container or package file usually are: `global.utoc` beside it, in a `global`
 * folder beside its folder, or one folder up; for a file of an unpacked folder, the ScriptObjects chunk unpack wrote
 * at the folder's root (`_chunks/ScriptObjects/`). Undefined when none is found.
 */
export function findGlobalScriptObjects(nextTo: string): string | undefined {
  const dir = dirname(nextTo);
  for (const c of [join(dir, 'global.utoc'), join(dirname(dir), 'global', 'global.utoc'), join(dirname(dir), 'global.utoc')]) if (existsSync(c)) return c;
  for (let d = dir, depth = 0; depth < 32; depth++) {
    const so = join(d, '_chunks', 'ScriptObjects');
    if (existsSync(so)) {
      const chunk = readdirSync(so).find((f) => /\.bin$/i.test(f));
      if (chunk) return join(so, chunk);
    }
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return undefined;
}

/** Whether bytes start like a ScriptObjects chunk: a name batch (count, string bytes, the hash algorithm id). */
export function looksLikeScriptObjects(bytes: Uint8Array): boolean {
  if (bytes.length < 20) return false;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return v.getBigUint64(8, true) === NAME_HASH_ALGORITHM_ID && v.getUint32(0, true) > 0;
}

function scriptObjectMap(parsed: { names: string[]; objects: readonly ScriptObjectEntry[] }): Map<bigint, string> {
  const paths = scriptObjectPaths(parsed.names, parsed.objects);
  const out = new Map<bigint, string>();
  parsed.objects.forEach((o, i) => {
    const p = paths[i];
    if (p) out.set(o.globalIndex, p);
  });
  return out;
}

/** Script object paths by global index from an open global container; undefined when it holds none. */
export async function scriptObjectsFromReader(reader: ContainerReader): Promise<Map<bigint, string> | undefined> {
  const toc = reader.toc;
  const path = toc.source;
  const byType = (t: string) => {
    for (let i = 0; i < toc.chunkCount; i++) if (toc.chunkTypeName(i) === t) return i;
    return -1;
  };
  let names: string[];
  let objects;
  const so = byType('ScriptObjects');
  if (so >= 0) {
    const parsed = parseScriptObjects(await reader.readChunk(so), { source: path });
    names = parsed.names;
    objects = parsed.objects;
  } else {
    const gn = byType('LoaderGlobalNames');
    const meta = byType('LoaderInitialLoadMeta');
    if (gn < 0 || meta < 0) return undefined;
    names = parseLoaderGlobalNames(await reader.readChunk(gn), { source: path });
    objects = parseLoaderInitialLoadMeta(await reader.readChunk(meta), { source: path });
  }
  return scriptObjectMap({ names, objects });
}
