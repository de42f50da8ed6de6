import { IoStoreError } from '../errors.js';
import { isLegacyPackage } from '../legacy/package.js';
import { isVersionedLegacyPackage, legacyEngineCandidates } from '../legacy/unversioned.js';
import { ENGINE_VERSIONS, engineListText, enginesWritingTocVersion, parseEngineVersion, type EngineVersion } from '../toc/engine.js';
import { objectVersionsOfEngine } from '../legacy/versions.js';
import type { ModFile } from './mod-folder.js';
import { parseTocHeader } from '../toc/header.js';
import { readTocBytes } from '../toc/read-file.js';

/** Releases that write the same object versions read an unversioned package alike. */
function sameLayout(engines: readonly EngineVersion[]): boolean {
  const key = (e: EngineVersion) => JSON.stringify(objectVersionsOfEngine(e));
  return engines.every((e) => key(e) === key(engines[0]!));
}

const PACKAGE = /\.(uasset|umap)$/i;

/** What the legacy packages of a to-zen run say about the engine release (see settleTargetEngine). */
export interface TargetEngine {
  /** The release to convert and write with; undefined when the options give the target and nothing narrows it. */
  engine?: EngineVersion;
  /** How it was settled, for the report (absent when the options named it). */
  from?: string;
}

/**
 * The engine release of a to-zen run, checked against its legacy packages before anything is converted. A
 * versioned package names its release (its object versions); an unversioned one fits the releases whose layouts read
 * its summary consistently. The release named (`engine`), else the releases that write the `like` container's TOC
 * version, else every release, narrowed by the packages: one left settles it; several, with unversioned packages
 * among the inputs, stop the run with one error that names them.
 */
export async function settleTargetEngine(files: readonly ModFile[], o: { engine?: string; likeTocVersion?: number }, label: string): Promise<TargetEngine> {
  const named = o.engine !== undefined ? parseEngineVersion(o.engine) : undefined;
  const allowed: readonly EngineVersion[] = named ? [named] : o.likeTocVersion !== undefined ? enginesWritingTocVersion(o.likeTocVersion) : ENGINE_VERSIONS;
  let common = [...allowed];
  let unversioned = 0;
  let legacy = 0;
  let example: string | undefined;
  for (const f of files) {
    if (!PACKAGE.test(f.path)) continue;
    const bytes = await f.read();
    if (!isLegacyPackage(bytes)) continue;
    const fits = legacyEngineCandidates(bytes);
    // A package no release reads (damaged, or of a layout this reader lacks) fails its conversion, which names
    // the offset of what is wrong.
    if (fits.length === 0) continue;
    legacy++;
    if (isVersionedLegacyPackage(bytes)) {
      // A versioned package is read with its own versions whatever the target: it narrows only an open choice.
      if (!named) common = common.filter((e) => fits.includes(e));
      continue;
    }
    unversioned++;
    example ??= f.file;
    const here = common.filter((e) => fits.includes(e));
    if (here.length === 0) {
      throw new IoStoreError('USAGE', `unversioned package: give --engine (${engineListText(fits)} fit${named ? `, not ${engineListText([named])}` : ''})`, { file: f.file });
    }
    common = here;
  }
  if (named) return { engine: named };
  if (legacy === 0) {
    if (o.likeTocVersion !== undefined) return {};
    throw new IoStoreError('USAGE', 'to-zen needs --engine <release, e.g. UE5_4> or --like <game .utoc>: no legacy package among the inputs tells the release', { file: label });
  }
  if (common.length === 1) return { engine: common[0]!, from: o.likeTocVersion !== undefined ? 'the --like container and the packages' : "the packages' own versions" };
  if (o.likeTocVersion !== undefined && unversioned === 0) return {};
  // Releases of the same object versions read an unversioned package alike: the newest of them.
  if (o.likeTocVersion !== undefined && sameLayout(common)) return { engine: common[common.length - 1]!, from: 'the --like container and the packages' };
  if (unversioned === 1) throw new IoStoreError('USAGE', `unversioned package: give --engine (${engineListText(common)} fit)`, { file: example! });
  const why = unversioned > 0 ? `unversioned packages: give --engine (${engineListText(common)} fit): ${unversioned} packages store no engine version (e.g. ${example})` : `give --engine or --like: the packages' versions are written by ${engineListText(common)}`;
  throw new IoStoreError('USAGE', why, { file: label });
}

/**
 * The options of a pack `--like` a game container, with the engine release its TOC version and the folder's legacy
 * packages settle (unchanged when `engine` is given or nothing settles it; an unversioned package that no release
 * of the game's reads stops the run).
 */
export async function withLikeEngine<O extends { engine?: string; like?: string; aesKey?: Uint8Array }>(files: readonly ModFile[], o: O, label: string, warnings: string[]): Promise<O> {
  if (o.engine !== undefined || o.like === undefined) return o;
  const likeTocVersion = parseTocHeader(await readTocBytes(o.like), o.like).version;
  const target = await settleTargetEngine(files, { likeTocVersion }, label);
  if (!target.engine) return o;
  warnings.push(`legacy packages read as ${engineListText([target.engine])}, from ${target.from}`);
  return { ...o, engine: target.engine };
}
