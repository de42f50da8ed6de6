import { IoStoreError } from '../errors.js';
import { objectVersionsOfEngine } from '../legacy/versions.js';
import { ENGINE_VERSIONS, engineListText, enginesWritingTocVersion, type EngineVersion } from '../toc/engine.js';
import type { ContainerHeaderVersionName } from '../zen/container-header.js';
import { layoutFromContainerHeaderVersion, layoutFromEngine, type PartialLayout, type ZenPackageLayout } from '../zen/zen-layout.js';

/**
 * Unversioned zen packages store no object versions: the legacy layout they convert to follows from the engine
 * release, which the package's own layout narrows (5.6+ has Verse cell maps, 5.4+ a padded bulk-data map ...) and
 * what is at hand narrows further: the TOC version of its container (or of the global container) and the container
 * header's layout.
 */
export interface UnversionedHints {
  tocVersion?: number;
  containerHeaderVersion?: ContainerHeaderVersionName;
}

const fits = (layout: ZenPackageLayout, p: PartialLayout): boolean =>
  (p.format === undefined || p.format === layout.format) &&
  (p.summarySize === undefined || p.summarySize === layout.summarySize) &&
  (p.cellMaps === undefined || p.cellMaps === layout.cellMaps) &&
  (p.bulkDataMap === undefined || p.bulkDataMap.includes(layout.bulkDataMap));

/** The engine releases that write zen packages of this layout and fit the hints, oldest first. */
export function zenEngineCandidates(layout: ZenPackageLayout, hints: UnversionedHints = {}): EngineVersion[] {
  const toc = hints.tocVersion === undefined ? undefined : enginesWritingTocVersion(hints.tocVersion);
  const header = hints.containerHeaderVersion === undefined ? undefined : layoutFromContainerHeaderVersion(hints.containerHeaderVersion);
  return ENGINE_VERSIONS.filter((e) => fits(layout, layoutFromEngine(e)) && (toc === undefined || toc.length === 0 || toc.includes(e)) && (header === undefined || fits(layout, header)));
}

/** The release to convert with when every candidate gives the same legacy object versions (the newest of them). */
export function settledEngine(candidates: readonly EngineVersion[]): EngineVersion | undefined {
  if (candidates.length === 0) return undefined;
  const key = (e: EngineVersion) => {
    const v = objectVersionsOfEngine(e);
    return `${v.fileVersionUE4}/${v.fileVersionUE5}`;
  };
  return candidates.every((e) => key(e) === key(candidates[0]!)) ? candidates[candidates.length - 1] : undefined;
}

/**
 * The one error for unversioned packages whose engine release is not settled: named once, before anything is
 * written, with the releases that fit (`unversioned packages: give --engine (UE 5.6, 5.7 or 5.8 fit)`).
 */
export function unversionedError(file: string, count: number, candidates: readonly EngineVersion[], example?: string): IoStoreError {
  const fit = candidates.length > 0 ? ` (${engineListText(candidates)} fit)` : '';
  const which = count === 1 ? `1 package stores no engine version${example ? ` (${example})` : ''}` : `${count} packages store no engine version${example ? ` (e.g. ${example})` : ''}`;
  return new IoStoreError('USAGE', `unversioned packages: give --engine${fit}: ${which}`, { file });
}
