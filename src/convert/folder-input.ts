import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ioError, withIoError } from '../toc/read-file.js';
import { MANIFEST_NAME } from '../layout/manifest.js';
import { UNNAMED_CHUNKS_FOLDER } from '../layout/unnamed.js';
import { readFullSync } from '../util/read-full.js';
import { hasExtension } from '../util/file-extension.js';

/**
 * A folder of loose chunk files as `unpack` writes it (zen packages at their paths, bulk data beside them, unnamed
 * chunks under `_chunks/<Type>/<id>.bin`, `iostore-manifest.json`), or any folder of zen packages: what to-legacy
 * reads in place of containers. Each file's role comes from the manifest when it names it, else from where it lies
 * and its extension; a `.uasset` that turns out to be legacy already is copied as it is.
 */
export type FolderFileKind = 'package' | 'container-header' | 'script-objects' | 'shader-library' | 'shader-code' | 'file';

export interface FolderFile {
  /** Path below the folder, `/`-separated: the output path of everything but converted packages. */
  path: string;
  /** The file on disk. */
  file: string;
  size: number;
  kind: FolderFileKind;
  /** Chunk id (24 hex digits), from the manifest or an `_chunks/<Type>/<id>.bin` name. */
  id?: string;
  /** TOC version of the container the file came from, as the manifest records it. */
  tocVersion?: number;
}

export interface FolderInput {
  root: string;
  files: FolderFile[];
}

/** Chunk types whose unnamed files have a role of their own in a conversion. */
const UNNAMED_KIND: Record<string, FolderFileKind> = {
  ExportBundleData: 'package',
  ContainerHeader: 'container-header',
  ScriptObjects: 'script-objects',
  ShaderCodeLibrary: 'shader-library',
  ShaderCode: 'shader-code',
};

const PACKAGE_FILE = /\.(uasset|umap|uzenasset)$/i;
const SHADER_LIBRARY_FILE = /\.(ushaderbytecode|uzenshaderbytecode)$/i;
const UNNAMED = new RegExp(`^${UNNAMED_CHUNKS_FOLDER}/([A-Za-z]+)/([0-9a-fA-F]{24})\\.bin$`);

/** Whether a folder is one to-legacy reads as loose files: it holds no container but a manifest or zen packages. */
export function isLooseFolder(path: string): boolean {
  if (existsSync(join(path, MANIFEST_NAME))) return true;
  let found = false;
  const containers = !walk(path, '', (rel) => {
    if (hasExtension(rel, '.utoc')) return false;
    if (PACKAGE_FILE.test(rel) || rel.startsWith(`${UNNAMED_CHUNKS_FOLDER}/`)) found = true;
    return true;
  });
  return found && !containers;
}

/** Lists a folder's files with their roles. */
export function scanFolder(root: string): FolderInput {
  const known = manifestRoles(root);
  const files: FolderFile[] = [];
  walk(root, '', (rel, file) => {
    if (rel === MANIFEST_NAME) return true;
    const size = statSync(file).size;
    const m = known.get(rel.toLowerCase());
    const unnamed = UNNAMED.exec(rel);
    const type = m?.type ?? unnamed?.[1];
    let kind: FolderFileKind = (type !== undefined ? UNNAMED_KIND[type] : undefined) ?? 'file';
    if (type === undefined && PACKAGE_FILE.test(rel)) kind = 'package';
    if (type === undefined && SHADER_LIBRARY_FILE.test(rel)) kind = 'shader-library';
    const f: FolderFile = { path: rel, file, size, kind };
    const id = m?.id ?? unnamed?.[2]?.toLowerCase();
    if (id !== undefined) f.id = id;
    if (m?.tocVersion !== undefined) f.tocVersion = m.tocVersion;
    files.push(f);
    return true;
  });
  return { root, files };
}

/** `length` bytes from the start of a file (fewer when it is shorter). */
export function readFilePrefix(file: string, length: number): Uint8Array {
  const fd = withIoError(file, () => openSync(file, 'r'));
  try {
    const out = new Uint8Array(length);
    const at = readFullSync(fd, out, 0, length, 0);
    return at === length ? out : out.subarray(0, at);
  } catch (e) {
    throw ioError(e, file);
  } finally {
    closeSync(fd);
  }
}

export function readWholeFile(file: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (e) {
    throw ioError(e, file);
  }
}

/** Files below `dir` in name order; `visit` returns false to stop early. Links and special files are left out. */
function walk(root: string, rel: string, visit: (rel: string, file: string) => boolean): boolean {
  const dir = rel === '' ? root : join(root, rel);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw ioError(e, dir);
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const r = rel === '' ? e.name : `${rel}/${e.name}`;
    // Names a staged or interrupted run leaves behind are not part of the folder.
    if (e.name.endsWith('.iostore-tmp')) continue;
    if (e.isDirectory()) {
      if (!walk(root, r, visit)) return false;
    } else if (e.isFile() && !visit(r, join(root, r))) return false;
  }
  return true;
}

/**
 * Output path (lower-cased) -> chunk type, id and TOC version from the folder's manifest. A manifest that is absent
 * or unreadable names nothing: the files are then known by where they lie.
 */
function manifestRoles(root: string): Map<string, { type: string; id: string; tocVersion?: number }> {
  const out = new Map<string, { type: string; id: string; tocVersion?: number }>();
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(root, MANIFEST_NAME), 'utf8'));
  } catch {
    return out;
  }
  const containers = (manifest as { containers?: unknown }).containers;
  if (!Array.isArray(containers)) return out;
  for (const c of containers as Array<{ tocVersion?: unknown; chunks?: unknown }>) {
    if (!Array.isArray(c?.chunks)) continue;
    const tocVersion = typeof c.tocVersion === 'number' ? c.tocVersion : undefined;
    for (const k of c.chunks as Array<{ path?: unknown; type?: unknown; id?: unknown; overriddenBy?: unknown }>) {
      // A chunk another container overrode is not the file's content: the winner's entry names it.
      if (typeof k?.path !== 'string' || typeof k.type !== 'string' || typeof k.id !== 'string' || k.overriddenBy !== undefined) continue;
      out.set(k.path.toLowerCase(), { type: k.type, id: k.id.toLowerCase(), ...(tocVersion !== undefined ? { tocVersion } : {}) });
    }
  }
  return out;
}
