import type { EngineVersion } from '../../toc/engine.js';

/** The engine release the TOC version implies, when it settles the legacy layout of unversioned packages. */
export function engineFromToc(tocVersion: number): EngineVersion | undefined {
  if (tocVersion <= 3) return 'UE4_27';
  if (tocVersion === 6) return 'UE5_4';
  if (tocVersion === 10) return 'UE6_0';
  return undefined;
}
