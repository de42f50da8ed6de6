import { closeSync, openSync, readSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { isLegacyPackage } from '../legacy/package.js';
import { MANIFEST_NAME, type Manifest, type ManifestChunk, type ManifestContainer, type ManifestPak } from '../layout/manifest.js';
import { UNNAMED_CHUNKS_FOLDER } from '../layout/unnamed.js';
import { packageKey } from '../layout/package-files.js';
import { withIoError } from '../toc/read-file.js';
import { modFileAt, walkFiles, type ModFile } from './mod-folder.js';

/** What an unpack folder holds for the container being packed, against what its manifest lists. */
export interface FolderSurvey {
  /** The container's chunks to pack from the files the manifest lists for them. */
  listed: ManifestChunk[];
  /** Chunks whose package another source supplied (`overriddenBy`) and whose file that source did not have. */
  absent: ManifestChunk[];
  /**
   * Files to pack from their own contents: files the manifest lists for no container or pak (added since unpack),
   * and the files of a package the folder now holds in legacy form (`.uasset` + `.uexp`, from a pak or to-legacy)
   * where the container had it in zen form. Paths are below the engine root, as the folder holds them.
   */
  extra: ModFile[];
  /** Files under `_chunks/` that nothing lists: no chunk id can be told for them, so they are left out. */
  unknownChunks: string[];
}

/**
 * Compares the folder with the manifest for container `c` (and its companion pak): which listed chunks are there,
 * which files were added, which packages changed form. Files that other containers or paks of the manifest list
 * belong to them and are not looked at.
 */
export async function surveyFolder(folder: string, manifest: Manifest, c: ManifestContainer, companion: ManifestPak | undefined): Promise<FolderSurvey> {
  const found: string[] = [];
  await walkFiles(folder, found);
  const onDisk = new Map<string, string>();
  for (const file of found) {
    const rel = relative(folder, file).split(sep).join('/');
    if (rel === MANIFEST_NAME || rel.endsWith('.iostore-tmp')) continue;
    onDisk.set(rel.toLowerCase(), rel);
  }
  const own = new Set(c.chunks.map((ch) => ch.path.toLowerCase()));
  const known = new Set(own);
  for (const f of companion?.files ?? []) known.add(f.path.toLowerCase());
  for (const x of manifest.containers) if (x !== c) for (const ch of x.chunks) known.add(ch.path.toLowerCase());
  for (const p of manifest.paks ?? []) if (p !== companion) for (const f of p.files) known.add(f.path.toLowerCase());

  // A package header the container listed in zen form but that has a .uexp beside it now is a legacy package.
  const legacyStems = new Set<string>();
  for (const ch of c.chunks) {
    if (ch.type !== 'ExportBundleData') continue;
    const stem = packageKey(ch.path);
    if (stem === undefined || !onDisk.has(`${stem}.uexp`) || !onDisk.has(ch.path.toLowerCase())) continue;
    if (startsLegacy(join(folder, ...ch.path.split('/')))) legacyStems.add(stem);
  }
  const survey: FolderSurvey = { listed: [], absent: [], extra: [], unknownChunks: [] };
  const extraPaths: string[] = [];
  for (const ch of c.chunks) {
    const key = ch.path.toLowerCase();
    const stem = packageKey(ch.path);
    if (stem !== undefined && legacyStems.has(stem)) continue;
    if (!onDisk.has(key) && ch.overriddenBy !== undefined) survey.absent.push(ch);
    else survey.listed.push(ch);
  }
  for (const [key, rel] of onDisk) {
    const stem = packageKey(rel);
    if (stem !== undefined && legacyStems.has(stem)) extraPaths.push(rel);
    else if (!known.has(key)) {
      if (rel.startsWith(`${UNNAMED_CHUNKS_FOLDER}/`)) survey.unknownChunks.push(rel);
      else extraPaths.push(rel);
    }
  }
  survey.extra = extraPaths.sort().map((rel) => modFileAt(join(folder, ...rel.split('/')), rel));
  survey.unknownChunks.sort();
  return survey;
}

/** Whether a file starts as a legacy package does (its first 8 bytes). */
function startsLegacy(file: string): boolean {
  const head = new Uint8Array(8);
  const fd = withIoError(file, () => openSync(file, 'r'));
  try {
    return withIoError(file, () => readSync(fd, head, 0, 8, 0)) === 8 && isLegacyPackage(head);
  } finally {
    closeSync(fd);
  }
}
