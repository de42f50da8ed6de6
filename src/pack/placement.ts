import { packageIdFromName } from '../hash/names.js';
import { packageNameCandidates } from '../toc/package-path.js';
import type { IoStoreToc } from '../toc/toc.js';
import type { ModChunk } from './mod-folder.js';

/**
 * Where a folder's files are laid out: below the engine root (`../../../`, as unpack and to-legacy write them:
 * `<Project>/Content/X.uasset`), or below the container's mount point (a mod folder: `X.uasset` for a mount point
 * of `../../../<Project>/Content/`).
 */
export type FolderLayout = 'root' | 'mount';

/**
 * Tells the layout of a folder's files (paths relative to the folder) for a container mounted at `mountPrefix`
 * (relative to the engine root): the reading under which more package files name packages the game holds
 * (`knownIds`); without such evidence, the root when a file lies below the mount folder itself (`<Project>/Content/...`
 * for a mount point of `../../../<Project>/Content/`), else the mount point.
 */
export function folderLayout(paths: readonly string[], mountPrefix: string, knownIds: ReadonlySet<bigint>): FolderLayout {
  if (mountPrefix === '') return 'mount';
  const headers = paths.filter((p) => /\.(uasset|umap)$/i.test(p));
  const known = (full: string) => packageNameCandidates(full).some((n) => knownIds.has(packageIdFromName(n)));
  if (knownIds.size > 0) {
    let root = 0;
    let mount = 0;
    for (const p of headers) {
      if (known(p)) root++;
      if (known(mountPrefix + p)) mount++;
    }
    if (root !== mount) return root > mount ? 'root' : 'mount';
  }
  const lower = mountPrefix.toLowerCase();
  return paths.some((p) => p.toLowerCase().startsWith(lower)) ? 'root' : 'mount';
}

/**
 * Where long package names live below the engine root, by their first component: `/Game/` -> `<Project>/Content/`,
 * `/Engine/` -> `Engine/Content/`, `/<Plugin>/` -> `.../Plugins/.../<Plugin>/Content/`. Learned from packages whose
 * path is known to be right: the game container's (its chunk ids are the hashes of their names) and a folder's own
 * packages whose path agrees with their name.
 */
export class PackageRoots {
  private readonly roots = new Map<string, string>([['engine', 'Engine/Content/']]);

  /** Learns the root of `name` from `stem`, its path below the engine root without extension; false if they disagree. */
  learn(name: string, stem: string): boolean {
    const m = /^\/([^/]+)\/(.+)$/.exec(name);
    if (!m) return false;
    const [, root, rest] = m;
    if (!stem.toLowerCase().endsWith(`/${rest!.toLowerCase()}`)) return false;
    const key = root!.toLowerCase();
    if (!this.roots.has(key)) this.roots.set(key, stem.slice(0, stem.length - rest!.length));
    return true;
  }

  /** Whether the root of `name` is known. */
  knows(name: string): boolean {
    return this.roots.has(rootOf(name) ?? '');
  }

  /** The path of `name` below the engine root, without extension, or undefined when its root is not known. */
  stemOf(name: string): string | undefined {
    const m = /^\/([^/]+)\/(.+)$/.exec(name);
    const at = m ? this.roots.get(m[1]!.toLowerCase()) : undefined;
    return at === undefined ? undefined : at + m![2]!;
  }

  /**
   * Learns the roots of `names` from packages whose place is right: `packages` gives each package chunk's path
   * below the engine root and its package id, and a path names its package when one of the names the path may
   * stand for hashes to that id.
   */
  learnFrom(packages: Iterable<{ path: string; id: bigint }>, names: Iterable<string>): void {
    const wanted = new Set<string>();
    for (const n of names) if (!this.knows(n)) wanted.add(rootOf(n) ?? '');
    wanted.delete('');
    if (wanted.size === 0) return;
    for (const { path, id } of packages) {
      for (const n of packageNameCandidates(path)) {
        const root = rootOf(n)!;
        if (!wanted.has(root) || packageIdFromName(n) !== id) continue;
        if (this.learn(n, path.replace(/\.[^/.]+$/, ''))) wanted.delete(root);
      }
      if (wanted.size === 0) return;
    }
  }

  /** learnFrom the package chunks of a container (their paths are below the engine root). */
  learnFromContainer(toc: IoStoreToc, names: Iterable<string>): void {
    this.learnFrom(
      (function* () {
        for (let i = 0; i < toc.chunkCount; i++) {
          if (toc.chunkTypeName(i) !== 'ExportBundleData') continue;
          const path = toc.chunkPath(i);
          if (path !== undefined) yield { path, id: toc.chunkId(i).id };
        }
      })(),
      names,
    );
  }
}

function rootOf(name: string): string | undefined {
  return /^\/([^/]+)\//.exec(name)?.[1]?.toLowerCase();
}

/** A path without its package-file extension (`.m.ubulk` whole). */
const stemOf = (path: string) => path.replace(/(\.m)?\.[^/.]+$/, '');

/**
 * Files each package where its own name puts it (below the engine root), with its bulk files, rather than where the
 * folder holds it: a folder laid out otherwise than assumed, or a package moved or renamed on disk, then still lands
 * on the path the game looks for. A package whose name's root is unknown stays where it is. Paths on `mod` are
 * below the engine root. Each package filed elsewhere than its folder says is a warning.
 */
export function placeByOwnNames(mod: ModChunk[], ownNames: ReadonlyMap<ModChunk, string>, roots: PackageRoots, warnings: string[]): void {
  // Packages whose folder agrees with their name teach the roots of the others.
  for (const [m, name] of ownNames) if (packageNameCandidates(m.path).some((n) => n.toLowerCase() === name.toLowerCase())) roots.learn(name, stemOf(m.path));
  // The packages filed elsewhere, by their stem here: only their files are looked up (a map of every file's stem
  // was strings and arrays per file of a big mod, for the few packages that move).
  const moves = new Map<string, { here: string; target: string }>();
  for (const [m, name] of ownNames) {
    const target = roots.stemOf(name);
    const here = stemOf(m.path);
    if (target === undefined || target.toLowerCase() === here.toLowerCase()) continue;
    warnings.push(`${m.file}: the package is ${name}, so it goes to ${target}${m.path.slice(here.length)}, not where its folder puts it (${m.path})`);
    if (!moves.has(here.toLowerCase())) moves.set(here.toLowerCase(), { here, target });
  }
  if (moves.size === 0) return;
  for (const c of mod) {
    if (c.packageId === undefined) continue;
    const move = moves.get(stemOf(c.path).toLowerCase());
    if (move) c.path = move.target + c.path.slice(move.here.length);
  }
}

/**
 * The mount folder (below the engine root) for files at `paths`: `preferred` (the game container's) when it holds
 * them all, else the deepest folder that does.
 */
export function mountFolderFor(paths: readonly string[], preferred: string): string {
  // The engine root holds every path (no path lower-cased for it).
  if (preferred === '') return preferred;
  const lower = preferred.toLowerCase();
  if (paths.every((p) => p.toLowerCase().startsWith(lower))) return preferred;
  let common: string[] | undefined;
  for (const p of paths) {
    const dirs = p.split('/').slice(0, -1);
    if (common === undefined) common = dirs;
    else {
      let k = 0;
      while (k < common.length && k < dirs.length && common[k]!.toLowerCase() === dirs[k]!.toLowerCase()) k++;
      common = common.slice(0, k);
    }
  }
  return common && common.length > 0 ? `${common.join('/')}/` : '';
}

/** `mountPoint` moved to `folder` (below the engine root), keeping the `../` hops it starts with. */
export function mountPointAt(mountPoint: string, folder: string): string {
  const head = /^(?:\.\.\/)*/.exec(mountPoint.replace(/\\/g, '/'))![0];
  return (head || '../../../') + folder;
}
