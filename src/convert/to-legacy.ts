import { existsSync, statSync } from 'node:fs';
import type { CodecRegistry } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import type { KeyRing } from '../mount/keys.js';
import type { EngineVersion } from '../toc/engine.js';
import type { FolderInput } from './folder-input.js';
import type { LegacyShaderLibraryReport } from './shader-libraries.js';
import { openContainers, planContainerChunks, planContainerPackages, readContainerHeaders } from './to-legacy/containers.js';
import { settleUnversioned } from './to-legacy/engine-release.js';
import { planFolders } from './to-legacy/folders.js';
import { classifyInputs } from './to-legacy/inputs.js';
import { claimOutputNames } from './to-legacy/output-names.js';
import { planPackageFiles } from './to-legacy/package-files.js';
import { runJobs } from './to-legacy/run-jobs.js';
import { ToLegacyRun } from './to-legacy/run.js';
import { loadScriptObjects } from './to-legacy/script-objects.js';
import { planContainerShaderLibraries, planShaderFiles } from './to-legacy/shader-library-jobs.js';

export interface ToLegacyOptions {
  /**
   * The global container (`global.utoc`), or its ScriptObjects chunk as `unpack` writes it
   * (`_chunks/ScriptObjects/<id>.bin`), whose script objects name `/Script/...` imports. Default: found among, inside
   * or beside the inputs.
   */
  global?: string;
  /** Engine release for unversioned packages whose container does not settle it. */
  engine?: EngineVersion;
  keys?: KeyRing;
  codecs?: CodecRegistry;
  /** Glob on output paths (`.uasset`/`.umap` paths for packages). */
  filter?: string;
  dryRun?: boolean;
  /** Accepted for symmetry with `unpack`; conversion runs in order on the calling thread. */
  jobs?: number;
  /**
   * 1 or more: files are written by a writer thread beside the conversion (when there are enough of them and more
   * than one core). 0 or absent (the default, measured no slower on the corpus): everything on the calling thread.
   */
  threads?: number;
  onProgress?: (p: ToLegacyProgress) => void;
}

export interface ToLegacyProgress {
  done: number;
  total: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface ToLegacyFailure {
  /** The package (output path) or container that failed. */
  path: string;
  code: string;
  message: string;
}

export interface ToLegacyResult {
  outdir: string;
  /** The global container used for script imports, or null. */
  global: string | null;
  packages: number;
  /** Non-package chunks written as `unpack` writes them. */
  otherChunks: number;
  /** Writer threads used (0: every file written on the calling thread). */
  threads: number;
  filesWritten: number;
  bytesWritten: number;
  /** Bytes of zen package chunks read and converted. */
  packageBytes: number;
  planned: Array<{ path: string; kind: 'package' | 'chunk'; size: number }>;
  failures: ToLegacyFailure[];
  /** Shader libraries written in their legacy form (from the IoStore form and its ShaderCode chunks). */
  shaderLibraries: LegacyShaderLibraryReport[];
  /** One line per package with imports that stayed unnamed; one per shader library with code stored uncompressed. */
  warnings: string[];
}

/**
 * Converts every package of the given containers (files or Paks folders, patches applied by mount order) or zen
 * package files to legacy `.uasset`/`.umap` + `.uexp` under `outdir`; bulk data and other chunks are written as
 * `unpack` writes them. A package that fails is reported and the others continue.
 */
export async function toLegacy(inputs: readonly string[], outdir: string, o: ToLegacyOptions = {}): Promise<ToLegacyResult> {
  if (inputs.length === 0) throw new IoStoreError('USAGE', 'no input given');
  if (existsSync(outdir) && !statSync(outdir).isDirectory()) throw new IoStoreError('USAGE', 'the output exists and is not a folder', { file: outdir });
  const input = await classifyInputs(inputs, o.global);
  const run = new ToLegacyRun(outdir, o);
  // The global container is read while the package headers are (it is needed only to convert).
  const scripts = loadScriptObjects(run, input.global);
  planPackageFiles(run, input.packageFiles);
  planShaderFiles(run, input.shaderFiles);
  let complete = false;
  try {
    await openContainers(run, input.containers);
    // Started now, so the thread's start overlaps the header pass.
    run.startOutput(filesAtMost(run, input.folders));
    const libraries = await planContainerShaderLibraries(run);
    await readContainerHeaders(run);
    // Pass 1: every package header, so imports can be named from the packages at hand.
    planContainerPackages(run, await planContainerChunks(run, libraries));
    await planFolders(run, input.folders);
    await settleUnversioned(run, input.global);
    claimOutputNames(run);
    // Pass 2: convert and write.
    run.useScriptObjects(await scripts, input.global);
    await runJobs(run);
    complete = true;
  } finally {
    await run.close(complete);
  }
  return run.finish();
}

/** Files the run may write: at most two per chunk or file at hand (a package's pair). */
function filesAtMost(run: ToLegacyRun, folders: readonly FolderInput[]): number {
  const looseFiles = folders.reduce((n, f) => n + f.files.length, 0);
  return run.containers.reduce((n, c) => n + 2 * c.reader.toc.chunkCount, 2 * (run.jobs.length + looseFiles));
}
