import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { packageIdFromName } from '../../hash/names.js';
import { safeOutputPath } from '../../layout/output.js';
import type { EngineVersion } from '../../toc/engine.js';
import { parseZenPackage, type ZenPackage } from '../../zen/zen-package.js';
import { engineOpen } from './engine-release.js';
import { convertPackage, legacyPaths } from './package-job.js';
import type { ToLegacyRun } from './run.js';

/** Bulk files the engine writes beside a package, copied with it. */
const BULK_EXTENSIONS = ['.ubulk', '.uptnl', '.m.ubulk'];

/**
 * Zen package files given one by one: each read and parsed whole now (its header at hand for the others), converted
 * by a job, with a job per bulk file beside it.
 */
export function planPackageFiles(run: ToLegacyRun, files: readonly string[]): void {
  for (const f of files) {
    const bytes = new Uint8Array(readFileSync(f));
    let z: ZenPackage;
    try {
      z = parseZenPackage(bytes, { source: f, ...(run.options.engine ? { engine: run.options.engine } : {}) });
    } catch (e) {
      run.fail(f, e);
      continue;
    }
    run.headers.add(packageIdFromName(z.packageName), z);
    const rel = basename(f).replace(/\.uzenasset$/i, '.uasset');
    const out = legacyPaths(rel);
    if (run.match && !run.match(out.uasset)) continue;
    run.result.packages++;
    const pair = [out.uasset, out.uexp];
    let engine: EngineVersion | undefined;
    if (engineOpen(run, z, undefined)) run.unversioned.push({ z, path: f, where: f, hints: {}, settle: (e) => (engine = e) });
    run.addJob({ path: out.uasset, kind: 'package', size: bytes.length, outputs: pair, run: async () => convertPackage(run, bytes, z, f, { uasset: pair[0]!, uexp: pair[1]! }, engine, z) });
    const stem = f.replace(/\.[^.]+$/, '');
    for (const ext of BULK_EXTENSIONS) {
      if (!existsSync(stem + ext)) continue;
      const target = [basename(stem) + ext];
      run.result.otherChunks++;
      run.addJob({ path: target[0]!, kind: 'chunk', size: 0, outputs: target, run: async () => ({ written: run.writeFile(safeOutputPath(run.root, target[0]!), new Uint8Array(readFileSync(stem + ext))) }) }, statSync(stem + ext).size);
    }
  }
}
