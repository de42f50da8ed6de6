import { createReadStream } from 'node:fs';
import { IoStoreError } from '../../errors.js';
import { packageIdFromName } from '../../hash/names.js';
import { safeOutputPath, writeFileAtomic } from '../../layout/output.js';
import { isLegacyPackage } from '../../legacy/package.js';
import { decodeChunkId } from '../../toc/chunk-id.js';
import type { EngineVersion } from '../../toc/engine.js';
import { fromHex } from '../../util/bytes.js';
import { packagesById, parseContainerHeader, type ContainerHeaderVersionName } from '../../zen/container-header.js';
import { parseZenPackage, type ZenPackage } from '../../zen/zen-package.js';
import { readFilePrefix, readWholeFile, type FolderFile, type FolderInput } from '../folder-input.js';
import { readZenShaderLibrary } from '../shader-libraries.js';
import type { UnversionedHints } from '../unversioned.js';
import { engineFromToc, engineOpen } from './engine-release.js';
import { HEADER_PROBE, KEEP_BUDGET } from './package-headers.js';
import { convertPackage, legacyPaths } from './package-job.js';
import type { ToLegacyRun } from './run.js';
import { addShaderLibraryJob } from './shader-library-jobs.js';

/** Files above this size are streamed to the output rather than read whole and handed to the writer. */
const WHOLE_FILE_MAX = 16 << 20;

/** What a folder's container headers give its packages: the engine release (5.0 only) and the header's layout. */
interface FolderHeader {
  engine: EngineVersion | undefined;
  version: ContainerHeaderVersionName | undefined;
}

/** Bytes of small packages kept from the header read for their conversion, over every folder of the run. */
interface KeptBytes {
  bytes: number;
}

/**
 * Folders of loose chunk files: per folder, its container headers and shader libraries first (as for containers),
 * then every package's header (pass 1) and a job per package and per other file. Legacy packages in it are copied
 * as they are.
 */
export async function planFolders(run: ToLegacyRun, folders: readonly FolderInput[]): Promise<void> {
  const budget: KeptBytes = { bytes: 0 };
  for (const input of folders) {
    const header = readFolderContainerHeaders(run, input);
    const done = planFolderShaderLibraries(run, input);
    const converted = await planFolderPackages(run, input, header, done, budget);
    planFolderFiles(run, input, done, converted);
  }
}

function readFolderContainerHeaders(run: ToLegacyRun, input: FolderInput): FolderHeader {
  const header: FolderHeader = { engine: undefined, version: undefined };
  for (const f of input.files) {
    if (f.kind !== 'container-header') continue;
    try {
      const h = parseContainerHeader(readWholeFile(f.file), { source: f.file });
      for (const [id, p] of packagesById(h)) run.headers.stores.set(id, p);
      if (h.version === 'UE5Initial' || h.version === 'LocalizedPackages') header.engine = 'UE5_0';
      header.version = h.version;
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
      run.result.warnings.push(`${f.file}: container header not read (${e.message}); imports of 5.0-5.2 packages may stay unnamed`);
    }
  }
  return header;
}

/**
 * Notes the folder's ShaderCode files and plans its shader libraries in the IoStore form (their ShaderCode files
 * claimed); returns the files done with (converted, or failed), which get no job of their own.
 */
function planFolderShaderLibraries(run: ToLegacyRun, input: FolderInput): Set<FolderFile> {
  for (const f of input.files) if (f.kind === 'shader-code' && f.id !== undefined) run.codeChunks.set(f.id, { read: async () => readWholeFile(f.file) });
  const done = new Set<FolderFile>();
  for (const f of input.files) {
    if (f.kind !== 'shader-library' || (run.match && !run.match(f.path))) continue;
    try {
      const lib = readZenShaderLibrary(readWholeFile(f.file), f.path, f.file);
      if (!lib) continue; // the legacy form already: copied as it is
      for (const id of lib.groupIds) run.claimed.add(id);
      addShaderLibraryJob(run, lib, f.size);
    } catch (e) {
      run.fail(f.path, e);
    }
    done.add(f);
  }
  return done;
}

/**
 * The folder's zen packages (adds them to `done`); returns their legacy output paths, lower-cased. Packages first: a
 * converted package's .uexp replaces a stray one beside it (a zen .uasset never has one).
 */
async function planFolderPackages(run: ToLegacyRun, input: FolderInput, header: FolderHeader, done: Set<FolderFile>, budget: KeptBytes): Promise<Set<string>> {
  const converted = new Set<string>();
  for (const f of input.files) {
    if (f.kind !== 'package' || done.has(f)) continue;
    const out = await planFolderPackage(run, f, header, input.root, budget);
    if (!out) continue;
    done.add(f);
    converted.add(out.uasset.toLowerCase()).add(out.uexp.toLowerCase());
  }
  return converted;
}

/**
 * A zen package file of a folder: its header read now, its conversion a job; returns its legacy output paths.
 * Undefined for a legacy package (copied as it is).
 */
async function planFolderPackage(run: ToLegacyRun, f: FolderFile, header: FolderHeader, folder: string, budget: KeptBytes): Promise<{ uasset: string; uexp: string } | undefined> {
  const out = legacyPaths(f.path.replace(/\.uzenasset$/i, '.uasset'));
  const probe = readFilePrefix(f.file, Math.min(f.size, HEADER_PROBE));
  if (isLegacyPackage(probe)) return undefined;
  let engine = (f.tocVersion !== undefined ? engineFromToc(f.tocVersion) : undefined) ?? header.engine;
  const given = run.options.engine ?? engine;
  const hints = { source: f.file, ...(given ? { engine: given } : {}) };
  const whole = probe.length === f.size;
  // Small packages are kept from this read for their conversion, within the same budget as a container's.
  const keep = whole && budget.bytes + f.size <= KEEP_BUDGET;
  if (keep) budget.bytes += f.size;
  let kept: Uint8Array | undefined = keep ? probe : undefined;
  let z: ZenPackage;
  try {
    try {
      z = parseZenPackage(probe, hints);
    } catch (e) {
      if (whole || !(e instanceof IoStoreError) || e.code !== 'TRUNCATED') throw e;
      z = parseZenPackage(readWholeFile(f.file), hints);
    }
  } catch (e) {
    run.fail(f.path, e);
    return out;
  }
  run.headers.add(f.id !== undefined ? decodeChunkId(fromHex(f.id), 0, 'UE5').id : packageIdFromName(z.packageName), z);
  if (run.match && !run.match(out.uasset)) return out;
  if (engineOpen(run, z, engine)) {
    const known: UnversionedHints = { ...(f.tocVersion !== undefined ? { tocVersion: f.tocVersion } : {}), ...(header.version ? { containerHeaderVersion: header.version } : {}) };
    run.unversioned.push({ z, path: f.path, where: folder, hints: known, settle: (e) => (engine = e) });
  }
  run.result.packages++;
  const pair = [out.uasset, out.uexp];
  run.addJob({ path: out.uasset, kind: 'package', size: f.size, outputs: pair, run: async () => {
    const bytes = kept ?? readWholeFile(f.file);
    kept = undefined;
    return convertPackage(run, bytes, z, f.file, { uasset: pair[0]!, uexp: pair[1]! }, engine);
  } });
  return out;
}

/** A job per other file the filter takes, written as it is (ShaderCode files a library took in are not). */
function planFolderFiles(run: ToLegacyRun, input: FolderInput, done: ReadonlySet<FolderFile>, converted: ReadonlySet<string>): void {
  for (const f of input.files) {
    if (done.has(f) || converted.has(f.path.toLowerCase()) || (f.kind === 'shader-code' && f.id !== undefined && run.claimed.has(f.id))) continue;
    if (run.match && !run.match(f.path)) continue;
    run.result.otherChunks++;
    const outputs = [f.path];
    run.addJob({ path: f.path, kind: 'chunk', size: f.size, outputs, run: async () => {
      const target = safeOutputPath(run.root, outputs[0]!);
      if (f.size > WHOLE_FILE_MAX) {
        run.wroteFile(await writeFileAtomic(target, createReadStream(f.file, { highWaterMark: 1 << 20 }) as AsyncIterable<Uint8Array>));
        return {};
      }
      return { written: run.writeFile(target, readWholeFile(f.file)) };
    } });
  }
}
