import { safeOutputPath } from '../../layout/output.js';
import type { EngineVersion } from '../../toc/engine.js';
import { parseZenPackage, type ZenPackage } from '../../zen/zen-package.js';
import { zenToLegacy } from '../zen-to-legacy.js';
import type { ToLegacyRun } from './run.js';

/** The legacy pair beside a package's unpack path (`X.uasset`/`X.umap` and `X.uexp`). */
export function legacyPaths(path: string): { uasset: string; uexp: string } {
  const ext = /\.umap$/i.test(path) ? '.umap' : '.uasset';
  const stem = path.replace(/\.(uasset|umap|uzenasset|bin)$/i, '');
  return { uasset: stem + ext, uexp: `${stem}.uexp` };
}

/**
 * The work of a package's job in pass 2: converts it (`z` its header from pass 1, `parsed` its full parse when kept)
 * and hands its pair to the writer. A dry run converts (to report what would fail or stay unnamed) and writes nothing.
 */
export function convertPackage(run: ToLegacyRun, bytes: Uint8Array, z: ZenPackage, source: string, out: { uasset: string; uexp: string }, engine: EngineVersion | undefined, parsed?: ZenPackage): { written?: Promise<void> } {
  const e = run.options.engine ?? engine;
  const full = parsed ?? parseZenPackage(bytes, { source, ...(e ? { engine: e } : {}) });
  run.headers.addParsed(full, z);
  const r = zenToLegacy(bytes, { source, parsed: full, resolver: run.resolver, ...(e ? { engine: e } : {}) });
  const result = run.result;
  if (r.unnamed.length > 0) {
    const shown = r.unnamed.slice(0, 3).join('; ');
    result.warnings.push(`${out.uasset}: ${r.unnamed.length} unnamed (${shown}${r.unnamed.length > 3 ? '; ...' : ''})`);
  }
  result.packageBytes += bytes.length;
  if (run.options.dryRun) return {};
  // One path check for the pair: the .uexp differs from the checked .uasset/.umap path only by its extension.
  const uasset = safeOutputPath(run.root, out.uasset);
  const uexp = uasset.slice(0, uasset.lastIndexOf('.')) + '.uexp';
  return { written: run.writer!.write([{ path: uasset, pieces: [r.uasset] }, { path: uexp, pieces: [r.uexp] }]).then(run.wrotePair) };
}
