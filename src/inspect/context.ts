import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ContainerReader } from '../cas/container-reader.js';
import { IoStoreError } from '../errors.js';
import { packageIdFromName } from '../hash/names.js';
import { packageNameCandidates } from '../toc/package-path.js';
import type { IoStoreToc } from '../toc/toc.js';
import { parseContainerHeader, type ContainerHeader, type ContainerHeaderVersionName } from '../zen/container-header.js';
import type { StoreEntry } from '../zen/store-entry.js';
import { parseZenPackage, type ZenPackage } from '../zen/zen-package.js';
import { parseLoaderGlobalNames, parseLoaderInitialLoadMeta, parseScriptObjects, scriptObjectPaths } from '../zen/script-objects.js';

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

/** TOC index of a package given by path (or its tail) or by long package name; -1 when absent. */
export function findPackageChunk(toc: IoStoreToc, query: string, names: ReadonlyMap<bigint, string>): number {
  const q = query.replace(/\\/g, '/').toLowerCase();
  for (let i = 0; i < toc.chunkCount; i++) {
    if (toc.chunkTypeName(i) !== 'ExportBundleData') continue;
    const path = (toc.chunkPath(i) ?? '').toLowerCase();
    if (path === q || path.endsWith(`/${q}`)) return i;
    if (names.get(toc.chunkId(i).id)?.toLowerCase() === q) return i;
  }
  return -1;
}

/**
 * Script object paths by global index, from the global container (UE5 ScriptObjects, or UE4 LoaderGlobalNames +
 * LoaderInitialLoadMeta). Looks for `global.utoc` beside the given container unless a path is given.
 */
export async function loadScriptObjects(nextTo: string, globalUtoc?: string): Promise<Map<bigint, string> | undefined> {
  const path = globalUtoc ?? join(dirname(nextTo), 'global.utoc');
  if (!existsSync(path)) {
    if (globalUtoc) throw new IoStoreError('NOT_FOUND', 'no such file', { file: globalUtoc });
    return undefined;
  }
  const reader = await ContainerReader.open(path);
  try {
    return await scriptObjectsFromReader(reader);
  } finally {
    await reader.close();
  }
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
  const paths = scriptObjectPaths(names, objects);
  const out = new Map<bigint, string>();
  objects.forEach((o, i) => {
    const p = paths[i];
    if (p) out.set(o.globalIndex, p);
  });
  return out;
}
