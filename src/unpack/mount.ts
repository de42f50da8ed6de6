import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { IoStoreError } from '../errors.js';
import { ioError } from '../toc/read-file.js';

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
  const name = basename(utoc).replace(/\.utoc$/i, '');
  return { utoc, name, priority: containerPriority(name), isGlobal: name.toLowerCase() === 'global' };
}

/**
 * Expands inputs (.utoc files or folders searched recursively, as a game's Paks folder with ~mods) into containers
 * sorted by mount priority, lowest first, so later entries override earlier ones.
 */
export async function discoverContainers(inputs: readonly string[]): Promise<MountEntry[]> {
  const found: string[] = [];
  for (const input of inputs) {
    let st;
    try {
      st = await stat(input);
    } catch (e) {
      throw ioError(e, input);
    }
    if (st.isDirectory()) await walk(input, found);
    else if (/\.utoc$/i.test(input)) found.push(input);
    else throw new IoStoreError('USAGE', 'expected a .utoc file or a folder of containers', { file: input });
  }
  if (found.length === 0) throw new IoStoreError('NOT_FOUND', `no .utoc files in ${inputs.join(', ')}`);
  const unique = [...new Set(found)];
  return unique.map(mountEntry).sort((a, b) => a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e) => {
    throw ioError(e, dir);
  });
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await walk(p, out);
    else if (/\.utoc$/i.test(e.name)) out.push(p);
  }
}
