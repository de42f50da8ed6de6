import { IoStoreError } from '../../errors.js';
import type { EngineVersion } from '../../toc/engine.js';
import { parseTocHeader } from '../../toc/header.js';
import { readTocBytes } from '../../toc/read-file.js';
import type { ZenPackage } from '../../zen/zen-package.js';
import { settledEngine, unversionedError, zenEngineCandidates, type UnversionedHints } from '../unversioned.js';
import type { ToLegacyRun } from './run.js';
import { hasExtension } from '../../util/file-extension.js';

/** The engine release the TOC version implies, when it settles the legacy layout of unversioned packages. */
export function engineFromToc(tocVersion: number): EngineVersion | undefined {
  if (tocVersion <= 3) return 'UE4_27';
  if (tocVersion === 6) return 'UE5_4';
  if (tocVersion === 10) return 'UE6_0';
  return undefined;
}

/** A package whose engine release is still open; `settle` hands the release found to its job. */
export interface Unversioned {
  z: ZenPackage;
  path: string;
  where: string;
  hints: UnversionedHints;
  settle: (e: EngineVersion) => void;
}

/** Whether a package's engine release is open: it stores none, and neither the options nor its container give one. */
export function engineOpen(run: ToLegacyRun, z: ZenPackage, engine: EngineVersion | undefined): boolean {
  return !z.versioningInfo && run.options.engine === undefined && engine === undefined;
}

/**
 * Unversioned packages convert with the engine release their layout and what is at hand settle (the container's
 * TOC version, else the global container's; the container header's layout). Where none settles a layout that
 * the releases lay out differently, the run stops here, before anything is written, with one error.
 */
export async function settleUnversioned(run: ToLegacyRun, globalPath: string | undefined): Promise<void> {
  const unversioned = run.unversioned;
  if (unversioned.length === 0) return;
  let globalToc: number | undefined;
  if (globalPath && hasExtension(globalPath, '.utoc')) {
    try {
      globalToc = parseTocHeader(await readTocBytes(globalPath), globalPath).version;
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
    }
  }
  const open: Array<{ u: Unversioned; candidates: EngineVersion[] }> = [];
  for (const u of unversioned) {
    const hints = u.hints.tocVersion === undefined && globalToc !== undefined ? { ...u.hints, tocVersion: globalToc } : u.hints;
    const candidates = zenEngineCandidates(u.z.layout, hints);
    const e = settledEngine(candidates);
    if (e) u.settle(e);
    // Other layouts keep the conversion's own choice (legacyVersionsFor): their releases lay them out alike.
    else if (u.z.layout.cellMaps) open.push({ u, candidates });
  }
  unversioned.length = 0;
  if (open.length > 0) throw unversionedError(open[0]!.u.where, open.length, open[0]!.candidates, open[0]!.u.path);
}
