import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IoStoreError } from '../errors.js';
import { ioError } from '../toc/read-file.js';
import { MANIFEST_NAME, type Manifest, type ManifestContainer, type ManifestPak } from './manifest.js';

/**
 * Reads and checks the manifest `unpack` wrote into `folder`; errors name the field that is wrong. `missing` is the
 * message when there is none (undefined: return undefined instead).
 */
export function readManifestFile(folder: string, missing: string): Manifest;
export function readManifestFile(folder: string, missing?: undefined): Manifest | undefined;
export function readManifestFile(folder: string, missing?: string): Manifest | undefined {
  const path = join(folder, MANIFEST_NAME);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const err = ioError(e, path);
    if (err.code !== 'NOT_FOUND') throw err;
    if (missing === undefined) return undefined;
    throw new IoStoreError('NOT_FOUND', missing, { file: path });
  }
  let m: Manifest;
  try {
    m = JSON.parse(text) as Manifest;
  } catch (e) {
    throw new IoStoreError('BAD_VALUE', `not valid JSON: ${(e as Error).message}`, { file: path });
  }
  const bad = (what: string): never => {
    throw new IoStoreError('BAD_VALUE', `manifest: ${what}`, { file: path });
  };
  if (m?.tool !== 'iostore-toolkit' || !Array.isArray(m.containers)) bad('not an iostore-toolkit manifest');
  for (const c of m.containers) {
    if (typeof c.name !== 'string' || !Number.isInteger(c.tocVersion) || !Number.isInteger(c.blockSize) || !Array.isArray(c.chunks)) {
      bad(`container ${JSON.stringify(c?.name)} lacks name, tocVersion, blockSize or chunks`);
    }
    for (const ch of c.chunks) {
      if (typeof ch.id !== 'string' || !/^[0-9a-f]{24}$/.test(ch.id)) bad(`container ${c.name}: chunk id ${JSON.stringify(ch?.id)} is not 24 hex digits`);
      if (typeof ch.path !== 'string') bad(`container ${c.name}: chunk ${ch.id} has no path`);
    }
  }
  if (m.paks !== undefined) {
    if (!Array.isArray(m.paks)) bad('paks is not a list');
    for (const p of m.paks) {
      if (typeof p?.name !== 'string' || !Array.isArray(p.files)) bad(`pak ${JSON.stringify(p?.name)} lacks name or files`);
      for (const f of p.files) if (typeof f?.path !== 'string' || typeof f.pakPath !== 'string') bad(`pak ${p.name}: a file lacks path or pakPath`);
    }
  }
  return m;
}

/** A manifest entry (container or pak) as merge sees it: a name and the files it lists. */
type Entry<T> = T & { name: string };

/**
 * One manifest per folder: a second unpack into a folder keeps the entries of the first (containers and paks it
 * did not unpack again) and marks their files that the new run wrote over as `overriddenBy` the new writer, so the
 * manifest lists every container unpacked into the folder and says what each file holds. `written` maps an output
 * path (lower case) to the container or pak the new run wrote it from. Returns the entries to keep, in their order,
 * and a warning for each entry replaced by a same-named one from another file.
 */
export function keptManifestEntries<C extends Pick<ManifestContainer, 'name' | 'utoc'>, P extends Pick<ManifestPak, 'name' | 'pak'>>(
  old: Manifest,
  fresh: { containers: readonly C[]; paks?: readonly P[] },
  written: ReadonlyMap<string, string>,
): { containers: ManifestContainer[]; paks: ManifestPak[]; warnings: string[] } {
  const warnings: string[] = [];
  const keep = <T extends { name: string }>(olds: readonly Entry<T>[], news: readonly { name: string }[], source: (x: T) => string, newSource: (name: string) => string | undefined, files: (x: T) => Array<{ path: string; overriddenBy?: string }>) => {
    const out: T[] = [];
    for (const x of olds) {
      const again = news.find((n) => n.name.toLowerCase() === x.name.toLowerCase());
      if (again) {
        const was = source(x);
        const now = newSource(again.name);
        if (now !== undefined && was !== now) warnings.push(`${x.name}: its manifest entry (unpacked from ${was}) is replaced by the one from ${now}`);
        continue;
      }
      for (const f of files(x)) {
        const by = written.get(f.path.toLowerCase());
        if (by !== undefined && f.overriddenBy === undefined) f.overriddenBy = by;
      }
      out.push(x);
    }
    return out;
  };
  const containers = keep(old.containers, fresh.containers, (c) => c.utoc, (n) => fresh.containers.find((c) => c.name === n)?.utoc, (c) => c.chunks);
  const paks = keep(old.paks ?? [], fresh.paks ?? [], (p) => p.pak, (n) => fresh.paks?.find((p) => p.name === n)?.pak, (p) => p.files);
  return { containers, paks, warnings };
}
