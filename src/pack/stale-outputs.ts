import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { plural } from '../util/plural.js';
import { quote } from '../util/quote.js';
import { withoutExtension } from '../util/file-extension.js';

/**
 * The `.ucas` partitions beside `outBase` (`<name>_s<k>.ucas`) that a container of `partitions` partitions does not
 * have: an earlier, more partitioned output of the same name left them, and `verify` of the folder would not see
 * them. They are removed with the commit of the new container.
 */
export function stalePartitions(outBase: string, partitions: number): string[] {
  const dir = dirname(outBase);
  const name = basename(outBase);
  const caseless = process.platform === 'win32' || process.platform === 'darwin';
  const pattern = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_s(\\d+)\\.ucas$`, caseless ? 'i' : '');
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.filter((e) => Number(pattern.exec(e)?.[1] ?? 0) >= Math.max(1, partitions)).map((e) => join(dir, e));
}

/** What becomes of the companion `.pak` beside a new container. */
export interface CompanionChoice {
  /** Write the new companion (replacing a `.pak` there). */
  write: boolean;
  /** Remove the `.pak` there without writing one. */
  remove: boolean;
  warning?: string;
}

/**
 * An existing `<outBase>.pak` is the companion of the container it sits beside: when the new container replaces that
 * one, its pak goes too (replaced, or removed with --no-pak), else it would ship files of the old container beside
 * the new one. It is kept when no container is there (a file of the user's), and when the new container is written
 * over the one the folder was unpacked from and the folder holds none of its pak's files (--force).
 */
export function companionChoice(outBase: string, o: { pak: boolean; files: number; source?: string }): CompanionChoice {
  const pakPath = `${outBase}.pak`;
  const had = existsSync(pakPath);
  const replaces = existsSync(`${outBase}.utoc`) && !(o.source !== undefined && withoutExtension(resolve(o.source), '.utoc') === resolve(outBase));
  if (o.pak && o.files > 0) return { write: true, remove: false, ...(had ? { warning: `replaced ${pakPath} with a pak of the folder's ${plural(o.files, 'non-package file')}` } : {}) };
  if (o.pak) {
    if (!had) return { write: true, remove: false };
    if (replaces) return { write: true, remove: false, warning: `replaced ${quote(pakPath)}, the companion of the container this one replaces, with an empty companion .pak` };
    return { write: false, remove: false, warning: `kept the existing ${pakPath}` };
  }
  if (had && replaces) return { write: false, remove: true, warning: `removed ${quote(pakPath)}, the companion of the container this one replaces (--no-pak writes none)` };
  return { write: false, remove: false };
}
