import { readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { IoStoreError } from '../errors.js';
import { ioError, ucasGiven } from '../toc/read-file.js';
import { hasExtension, withoutExtension } from '../util/file-extension.js';

/** A container to mount, with its engine priority. */
export interface MountEntry {
  utoc: string;
  /** Base name without extension, e.g. `pakchunk0-Windows_0_P`. */
  name: string;
  /** Higher wins when two containers hold the same chunk id. */
  priority: number;
  isGlobal: boolean;
}

/**
 * The engine's pak order as it applies to IoStore: containers whose name ends in `_P` are patches and rank above
 * base ones, `_<n>_P` by (n + 1) * 100, a bare `_P` by 100. Equal priorities keep name order (later name wins),
 * which makes the choice deterministic.
 */
export function containerPriority(name: string): number {
  const m = /_(\d+)_P$/i.exec(name);
  if (m) return (Number(m[1]) + 1) * 100;
  if (/_P$/i.test(name)) return 100;
  return 0;
}

export function mountEntry(utoc: string): MountEntry {
  const name = withoutExtension(basename(utoc), '.utoc');
  return { utoc, name, priority: containerPriority(name), isGlobal: name.toLowerCase() === 'global' };
}

/** A `.pak` archive to mount, with the same engine priority rule as containers. */
export interface PakMountEntry {
  pak: string;
  /** Base name without extension, e.g. `pakchunk0-Windows_1_P`. */
  name: string;
  priority: number;
}

export function pakMountEntry(pak: string): PakMountEntry {
  const name = withoutExtension(basename(pak), '.pak');
  return { pak, name, priority: containerPriority(name) };
}

const byMountOrder = (a: { priority: number; name: string }, b: { priority: number; name: string }) =>
  a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Expands inputs (.utoc files or folders searched recursively, as a game's Paks folder with ~mods) into containers
 * sorted by mount priority, lowest first, so later entries override earlier ones.
 */
export async function discoverContainers(inputs: readonly string[]): Promise<MountEntry[]> {
  const { containers } = await discoverMounts(inputs, { paks: false });
  if (containers.length === 0) throw new IoStoreError('NOT_FOUND', `no .utoc files in ${inputs.join(', ')}`);
  checkDistinctNames(containers, []);
  return containers;
}

/**
 * Mounting merges what the inputs hold, and a container's name is its identity there (its id is the hash of the
 * name, and only a `_N_P` name makes a patch): two containers (or two paks) of one name from different folders
 * are not a base and its patch but two things the engine would not mount together. They are refused, naming both.
 */
export function checkDistinctNames(containers: readonly MountEntry[], paks: readonly PakMountEntry[]): void {
  const clash = (files: readonly string[], ext: string) => {
    const seen = new Map<string, string>();
    for (const f of files) {
      const key = basename(f).toLowerCase();
      const other = seen.get(key);
      if (other !== undefined) {
        throw new IoStoreError('USAGE', `two ${ext} files named ${basename(f)} in different folders: ${other} and ${f}; only a _N_P name makes a patch of a base: give one of them (or the folder holding one)`);
      }
      seen.set(key, f);
    }
  };
  clash(containers.map((c) => c.utoc), '.utoc');
  clash(paks.map((p) => p.pak), '.pak');
}

/**
 * Containers and `.pak` archives of the inputs (files, or folders searched recursively), each list in mount order,
 * lowest priority first: `_N_P` patches above their base, higher N above lower, equal priorities by name.
 */
export async function discoverMounts(inputs: readonly string[], o: { paks?: boolean } = {}): Promise<{ containers: MountEntry[]; paks: PakMountEntry[] }> {
  const withPaks = o.paks ?? true;
  const found: string[] = [];
  for (const input of inputs) {
    let st;
    try {
      // Blocking calls: a handful per run, and none then needs libuv's thread pool started.
      st = statSync(input);
    } catch (e) {
      throw ioError(e, input);
    }
    if (st.isDirectory()) await walk(input, found, withPaks);
    else if (hasExtension(input, '.utoc') || (withPaks && hasExtension(input, '.pak'))) found.push(input);
    else if (hasExtension(input, '.ucas')) throw ucasGiven(input);
    else throw new IoStoreError('USAGE', `expected a .utoc${withPaks ? ' or .pak' : ''} file or a folder of containers`, { file: input });
  }
  // One file given twice (`a/x.utoc` and `./a/x.utoc`, or a file and its folder) mounts once.
  const byPath = new Map<string, string>();
  for (const f of found) if (!byPath.has(resolve(f))) byPath.set(resolve(f), f);
  const unique = [...byPath.values()];
  const containers = unique.filter((f) => hasExtension(f, '.utoc')).map(mountEntry).sort(byMountOrder);
  const paks = unique.filter((f) => hasExtension(f, '.pak')).map(pakMountEntry).sort(byMountOrder);
  if (containers.length + paks.length === 0) throw new IoStoreError('NOT_FOUND', `no .utoc${withPaks ? ' or .pak' : ''} files in ${inputs.join(', ')}`);
  return { containers, paks };
}

async function walk(dir: string, out: string[], withPaks: boolean): Promise<void> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw ioError(e, dir);
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await walk(p, out, withPaks);
    else if (hasExtension(e.name, '.utoc') || (withPaks && hasExtension(e.name, '.pak'))) out.push(p);
  }
}
