import { OutputNames, ignoresCase, renamedWarning } from '../../layout/names.js';
import type { ToLegacyRun } from './run.js';

/**
 * Files that would be one file in the output (a .uasset and a .umap of one stem share their .uexp; a chunk named
 * like a package's .uexp; names that differ only in case where case is ignored) are all kept, later ones under
 * a suffixed name (OutputNames). Packages claim first: their pairs keep their names.
 */
export function claimOutputNames(run: ToLegacyRun): void {
  const names = new OutputNames(run.stage ? ignoresCase(run.stage.root) : process.platform === 'win32' || process.platform === 'darwin', []);
  for (const j of [...run.jobs.filter((x) => x.kind === 'package'), ...run.jobs.filter((x) => x.kind !== 'package')]) {
    const claimed = names.claimGroup(j.outputs);
    claimed.forEach((c, k) => (j.outputs[k] = c));
    j.path = claimed[0]!;
    run.plannedRows.get(j)!.path = claimed[0]!;
  }
  run.result.warnings.push(...names.renamed.map(renamedWarning));
}
