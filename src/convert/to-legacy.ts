import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import picomatch from 'picomatch';
import { ContainerReader } from '../cas/container-reader.js';
import { fileSourceSync } from '../cas/source.js';
import type { CodecRegistry } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import { packageIdFromName } from '../hash/names.js';
import type { EngineVersion } from '../toc/engine.js';
import { KeyRing } from '../mount/keys.js';
import { discoverContainers, mountEntry, type MountEntry } from '../mount/mount.js';
import { isAborting, safeOutputPath, writeFileAtomic } from '../layout/output.js';
import { eventLoopTurns } from '../util/turns.js';
import { StagedFolder } from '../layout/staged-folder.js';
import { OutputNames, ignoresCase, renamedWarning } from '../layout/names.js';
import { leftoversWarning } from '../layout/leftovers.js';
import { openContainer } from '../mount/open.js';
import { unnamedChunkPath } from '../layout/unnamed.js';
import { writeChunkFile } from '../chunks/write-chunk.js';
import { packagesById, parseContainerHeader, type ContainerPackage } from '../zen/container-header.js';
import { NULL_OBJECT_INDEX } from '../zen/object-index.js';
import { parseLoaderGlobalNames, parseLoaderInitialLoadMeta, readScriptObjectTable } from '../zen/script-objects.js';
import { parseZenPackage, type ZenPackage } from '../zen/zen-package.js';
import { FileWriter, useWriterThread } from './file-writer.js';
import { RawRangeReader } from './raw-range.js';
import { ScriptObjectIndex, ZenResolver, type PackageDirectory } from './naming.js';
import { serializeShaderAssetInfo, shaderAssetInfoName } from '../shaders/asset-info.js';
import { toHex } from '../util/bytes.js';
import { legacyShaderLibraryPieces, readZenShaderLibrary, type LegacyShaderLibraryReport, type PendingShaderLibrary, type ShaderChunkSource } from './shader-libraries.js';
import { zenToLegacy } from './zen-to-legacy.js';
import { isLooseFolder, readFilePrefix, readWholeFile, scanFolder, type FolderFile, type FolderInput } from './folder-input.js';
import { decodeChunkId } from '../toc/chunk-id.js';
import { fromHex } from '../util/bytes.js';
import { isLegacyPackage } from '../legacy/package.js';
import { settledEngine, unversionedError, zenEngineCandidates, type UnversionedHints } from './unversioned.js';
import type { ContainerHeaderVersionName } from '../zen/container-header.js';
import { readTocBytes } from '../toc/read-file.js';
import { parseTocHeader } from '../toc/header.js';

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

const HEADER_PROBE = 64 * 1024;
/** Chunks up to this size are read whole and handed to the writer; larger ones are streamed in spans. */
const WHOLE_CHUNK_MAX = 16 << 20;
const ZEN_FILE = /\.(uzenasset|uasset|umap)$/i;
/** Shader libraries given as files: the IoStore form as unpack writes it, or as the engine's .uzenshaderbytecode. */
const SHADER_FILE = /\.(uzenshaderbytecode|ushaderbytecode)$/i;

/** The engine release the TOC version implies, when it settles the legacy layout of unversioned packages. */
function engineFromToc(tocVersion: number): EngineVersion | undefined {
  if (tocVersion <= 3) return 'UE4_27';
  if (tocVersion === 6) return 'UE5_4';
  if (tocVersion === 10) return 'UE6_0';
  return undefined;
}

function findGlobal(inputs: readonly string[], entries: readonly MountEntry[], folders: readonly FolderInput[], explicit?: string): string | undefined {
  if (explicit) return explicit;
  const among = entries.find((e) => e.isGlobal);
  if (among) return among.utoc;
  const unpacked = folders.flatMap((f) => f.files).find((f) => f.kind === 'script-objects');
  if (unpacked) return unpacked.file;
  for (const p of inputs) {
    const dir = existsSync(p) && statSync(p).isDirectory() ? p : dirname(p);
    for (const cand of [join(dir, 'global.utoc'), join(dirname(dir), 'global', 'global.utoc'), join(dirname(dir), 'global.utoc')]) {
      if (existsSync(cand)) return cand;
    }
  }
  return undefined;
}

async function readScriptObjects(utoc: string, o: ToLegacyOptions): Promise<ScriptObjectIndex | undefined> {
  // The ScriptObjects chunk on its own, as unpack writes it.
  if (!/\.utoc$/i.test(utoc)) return new ScriptObjectIndex(readScriptObjectTable(readWholeFile(utoc), { source: utoc }));
  const reader = await openSyncReader(mountEntry(utoc), o);
  try {
    const byType = (t: string) => {
      for (let i = 0; i < reader.toc.chunkCount; i++) if (reader.toc.chunkTypeName(i) === t) return i;
      return -1;
    };
    const so = byType('ScriptObjects');
    if (so >= 0) {
      // 2-3 MB read once: straight into its own buffer when stored raw.
      const raw = new RawRangeReader();
      try {
        const bytes = raw.read(reader, so, 0, reader.toc.chunkSize(so)) ?? (await reader.readChunk(so));
        return new ScriptObjectIndex(readScriptObjectTable(bytes, { source: utoc }));
      } finally {
        raw.close();
      }
    }
    // UE 4.26/4.27 globals: the global names and the initial load meta hold the same entries.
    const gn = byType('LoaderGlobalNames');
    const meta = byType('LoaderInitialLoadMeta');
    if (gn < 0 || meta < 0) return undefined;
    const names = parseLoaderGlobalNames(await reader.readChunk(gn), { source: utoc });
    return new ScriptObjectIndex({ names, nameHashes: [], objects: parseLoaderInitialLoadMeta(await reader.readChunk(meta), { source: utoc }) });
  } finally {
    await reader.close();
  }
}

/**
 * A reader whose reads are blocking calls: packages are read one after another and are small, and a read from the
 * page cache costs less than a round trip through the libuv pool (spans are at most the reader's 2 MiB).
 */
async function openSyncReader(entry: MountEntry, o: ToLegacyOptions): Promise<ContainerReader> {
  const r = await openContainer(entry, o);
  const origin = r.origin!;
  await r.close();
  return new ContainerReader(r.toc, origin.partitions.map((p) => fileSourceSync(p)), { ...(origin.aesKey ? { aesKey: origin.aesKey } : {}), codecs: r.codecs, origin });
}

/**
 * Reads a package header: small packages whole (kept for the conversion, within a memory budget), large ones by a
 * prefix first (headers are small), the whole chunk only when the prefix is too short.
 */
async function readHeader(reader: ContainerReader, raw: RawRangeReader, i: number, source: string, engine: EngineVersion | undefined, keep: boolean): Promise<{ z: ZenPackage; bytes?: Uint8Array }> {
  const size = reader.toc.chunkSize(i);
  const hints = { source, ...(engine ? { engine } : {}) };
  if (size > HEADER_PROBE || !keep) {
    try {
      const probe = Math.min(size, HEADER_PROBE);
      return { z: parseZenPackage(raw.read(reader, i, 0, probe) ?? (await reader.readRange(i, 0, probe)), hints) };
    } catch (e) {
      if (!(e instanceof IoStoreError) || e.code !== 'TRUNCATED' || size <= HEADER_PROBE) throw e;
    }
  }
  const bytes = raw.read(reader, i, 0, size) ?? (await reader.readChunk(i));
  return keep ? { z: parseZenPackage(bytes, hints), bytes } : { z: parseZenPackage(bytes, hints) };
}

/** Package chunks kept in memory between the two passes, at most this many bytes. */
const KEEP_BUDGET = 256 * 1024 * 1024;
/** Of those, packages whose full parse is kept too (a parse takes a few times the bytes), at most this many bytes. */
const KEEP_PARSED_BUDGET = 32 * 1024 * 1024;

/** The legacy pair beside a package's unpack path (`X.uasset`/`X.umap` and `X.uexp`). */
function legacyPaths(path: string): { uasset: string; uexp: string } {
  const ext = /\.umap$/i.test(path) ? '.umap' : '.uasset';
  const stem = path.replace(/\.(uasset|umap|uzenasset|bin)$/i, '');
  return { uasset: stem + ext, uexp: `${stem}.uexp` };
}

/**
 * Converts every package of the given containers (files or Paks folders, patches applied by mount order) or zen
 * package files to legacy `.uasset`/`.umap` + `.uexp` under `outdir`; bulk data and other chunks are written as
 * `unpack` writes them. A package that fails is reported and the others continue.
 */
export async function toLegacy(inputs: readonly string[], outdir: string, o: ToLegacyOptions = {}): Promise<ToLegacyResult> {
  if (inputs.length === 0) throw new IoStoreError('USAGE', 'no input given');
  if (existsSync(outdir) && !statSync(outdir).isDirectory()) throw new IoStoreError('USAGE', 'the output exists and is not a folder', { file: outdir });
  const isFile = (p: string) => existsSync(p) && statSync(p).isFile();
  const files = inputs.filter((p) => ZEN_FILE.test(p) && isFile(p));
  const shaderFiles = inputs.filter((p) => SHADER_FILE.test(p) && isFile(p));
  // Folders of loose chunk files (an unpack's output) rather than of containers.
  const looseInputs = inputs.filter((p) => !files.includes(p) && !shaderFiles.includes(p) && existsSync(p) && statSync(p).isDirectory() && isLooseFolder(p));
  const containers = inputs.filter((p) => !files.includes(p) && !shaderFiles.includes(p) && !looseInputs.includes(p));
  const entries = containers.length > 0 ? await discoverContainers(containers) : [];
  const folders = looseInputs.map(scanFolder);
  const globalPath = findGlobal(inputs, entries, folders, o.global);
  // Where files go: `outdir`, or its staged copy once the writer starts (see StagedFolder).
  let root = outdir;
  let stage: StagedFolder | undefined;
  const result: ToLegacyResult = { outdir, global: null, packages: 0, otherChunks: 0, threads: 0, filesWritten: 0, bytesWritten: 0, packageBytes: 0, planned: [], failures: [], shaderLibraries: [], warnings: [] };
  // The global container is read while the package headers are (it is needed only to convert).
  const scriptLoad: Promise<ScriptObjectIndex | undefined> = globalPath
    ? readScriptObjects(globalPath, o).catch((e: unknown) => {
        if (!(e instanceof IoStoreError)) throw e;
        result.warnings.push(`${globalPath}: the global container could not be read (${e.message}); script imports stay unnamed`);
        return undefined;
      })
    : Promise.resolve(undefined);

  const match = o.filter === undefined ? undefined : picomatch(o.filter, { dot: true, nocase: true });
  const headers = new Map<bigint, ZenPackage>();
  const stores = new Map<bigint, ContainerPackage>();
  const idOf = new WeakMap<ZenPackage, bigint>();
  // Headers of every package at hand, without what only the conversion of the package itself needs: a game's worth
  // of full headers would not fit in memory. Each package is parsed again, whole, when it is converted.
  const addHeader = (id: bigint, z: ZenPackage) => {
    const slim: ZenPackage = {
      ...z,
      nameHashes: [],
      bulkData: [],
      dependencyBundleEntries: [],
      dependencyBundleHeaders: [],
      exportBundleEntries: [],
      exportBundles: [],
      internalArcs: [],
      externalArcs: [],
      referencedPackages: [],
      sections: [],
      cellExports: [],
      cellImports: [],
    };
    headers.set(id, slim);
    idOf.set(slim, id);
  };
  const directory: PackageDirectory = {
    get: (id) => headers.get(id),
    importedPackageIds: (pkg) => {
      const id = idOf.get(pkg);
      return id === undefined ? undefined : stores.get(id)?.importedPackages;
    },
    globalImport: (index) => {
      if (!globalImports) {
        globalImports = new Map();
        for (const z of headers.values()) {
          if (z.layout.format !== 'UE4') continue;
          z.exports.forEach((e, i) => {
            if (e.publicExportHash !== NULL_OBJECT_INDEX) globalImports!.set(e.publicExportHash, { pkg: z, exportIndex: i });
          });
        }
      }
      return globalImports.get(index);
    },
  };
  let globalImports: Map<bigint, { pkg: ZenPackage; exportIndex: number }> | undefined;
  let resolver = new ZenResolver(undefined, directory);
  // A job converts or reads on this thread and hands its files to the writer; `written` settles once they are on disk.
  // `outputs`: the files it writes (relative), claimed before pass 2 (see OutputNames); `run` reads them from there.
  type Job = { path: string; kind: 'package' | 'chunk'; size: number; outputs: string[]; run: () => Promise<{ written?: Promise<void> }> };
  const jobs: Job[] = [];
  /** Adds a job and its row of `planned` (which follows the job's first output when it is renamed). */
  const addJob = (job: Job, plannedSize = job.size) => {
    const row = { path: job.outputs[0]!, kind: job.kind, size: plannedSize };
    result.planned.push(row);
    jobs.push(job);
    plannedRows.set(job, row);
  };
  const plannedRows = new Map<Job, { path: string }>();
  let writer: FileWriter | undefined;
  const wrote = (files: number) => (n: number) => {
    result.bytesWritten += n;
    result.filesWritten += files;
  };
  // Unversioned packages whose engine release the options do not give, settled together once every header is read.
  type Unversioned = { z: ZenPackage; path: string; where: string; hints: UnversionedHints; settle: (e: EngineVersion) => void };
  const unversioned: Unversioned[] = [];
  const noteVersions = (u: Unversioned, engine: EngineVersion | undefined) => {
    if (!u.z.versioningInfo && o.engine === undefined && engine === undefined) unversioned.push(u);
  };

  // Zen package files given one by one (with their bulk files beside them).
  for (const f of files) {
    const bytes = new Uint8Array(readFileSync(f));
    let z: ZenPackage;
    try {
      z = parseZenPackage(bytes, { source: f, ...(o.engine ? { engine: o.engine } : {}) });
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
      result.failures.push({ path: f, code: e.code, message: e.message });
      continue;
    }
    addHeader(packageIdFromName(z.packageName), z);
    const rel = basename(f).replace(/\.uzenasset$/i, '.uasset');
    const out = legacyPaths(rel);
    if (match && !match(out.uasset)) continue;
    result.packages++;
    const pair = [out.uasset, out.uexp];
    let engine: EngineVersion | undefined;
    noteVersions({ z, path: f, where: f, hints: {}, settle: (e) => (engine = e) }, undefined);
    addJob({ path: out.uasset, kind: 'package', size: bytes.length, outputs: pair, run: async () => convertOne(bytes, z, f, { uasset: pair[0]!, uexp: pair[1]! }, engine, z) });
    const stem = f.replace(/\.[^.]+$/, '');
    for (const ext of ['.ubulk', '.uptnl', '.m.ubulk']) {
      if (!existsSync(stem + ext)) continue;
      const target = [basename(stem) + ext];
      result.otherChunks++;
      addJob({ path: target[0]!, kind: 'chunk', size: 0, outputs: target, run: async () => ({ written: writer!.write([{ path: safeOutputPath(root, target[0]!), pieces: [new Uint8Array(readFileSync(stem + ext))] }]).then(wrote(1)) }) }, statSync(stem + ext).size);
    }
  }

  // ShaderCode chunks of the containers at hand, by chunk id (filled while the containers are read).
  const codeChunks = new Map<string, ShaderChunkSource>();
  const shaderJob = (lib: PendingShaderLibrary, size: number, fallback?: (idHex: string) => ShaderChunkSource | undefined) => {
    result.otherChunks++;
    const target = [lib.path];
    addJob({ path: lib.path, kind: 'chunk', size, outputs: target, run: async () => {
      lib.path = target[0]!;
      const { pieces, report } = legacyShaderLibraryPieces(lib, (id) => codeChunks.get(id) ?? fallback?.(id));
      // A library can be large: streamed on this thread rather than held whole for the writer.
      wrote(1)(await writeFileAtomic(safeOutputPath(root, lib.path), pieces()));
      result.shaderLibraries.push(report);
      await writeAssetInfo(lib);
      if (report.rawShaders > 0) {
        result.warnings.push(`${lib.path}: ${report.rawShaders} of ${report.shaders} shaders stored uncompressed (Oodle did not shrink them; the engine reads shaders whose stored size equals their size as they are)`);
      }
      return {};
    } });
  };
  // Which packages use the library's shader maps (from the store entries at hand), in the cooker's asset-info file
  // beside it: pack and to-zen read it back into the store entries, as UnrealPak does.
  const writeAssetInfo = async (lib: PendingShaderLibrary) => {
    const name = shaderAssetInfoName(lib.path.split('/').pop()!);
    if (!name) return;
    const maps = new Set(lib.zen.shaderMapHashes.map((h) => toHex(h)));
    const shaderMaps = new Map<string, string[]>();
    for (const [id, p] of stores) {
      const pkg = headers.get(id)?.packageName;
      if (!pkg) continue;
      for (const h of p.shaderMapHashes) {
        const hex = toHex(h);
        if (maps.has(hex)) shaderMaps.set(hex, [...(shaderMaps.get(hex) ?? []), pkg]);
      }
    }
    if (shaderMaps.size === 0) return;
    const dir = lib.path.includes('/') ? lib.path.slice(0, lib.path.lastIndexOf('/') + 1) : '';
    wrote(1)(await writeFileAtomic(safeOutputPath(root, dir + name), [new TextEncoder().encode(serializeShaderAssetInfo({ shaderMaps }))]));
  };
  for (const f of shaderFiles) {
    const bytes = new Uint8Array(readFileSync(f));
    const target = basename(f).replace(/\.uzenshaderbytecode$/i, '.ushaderbytecode');
    if (match && !match(target)) continue;
    let lib: PendingShaderLibrary | null;
    try {
      lib = readZenShaderLibrary(bytes, target, f);
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
      result.failures.push({ path: f, code: e.code, message: e.message });
      continue;
    }
    if (!lib) {
      // Already in the legacy form: written as it is.
      result.otherChunks++;
      const outputs = [target];
      addJob({ path: target, kind: 'chunk', size: bytes.length, outputs, run: async () => ({ written: writer!.write([{ path: safeOutputPath(root, outputs[0]!), pieces: [bytes] }]).then(wrote(1)) }) });
      continue;
    }
    shaderJob(lib, bytes.length, (id) => unpackedShaderChunk(f, id));
  }

  function convertOne(bytes: Uint8Array, z: ZenPackage, source: string, out: { uasset: string; uexp: string }, engine: EngineVersion | undefined, parsed?: ZenPackage): { written?: Promise<void> } {
    const e = o.engine ?? engine;
    const full = parsed ?? parseZenPackage(bytes, { source, ...(e ? { engine: e } : {}) });
    idOf.set(full, idOf.get(z) ?? packageIdFromName(full.packageName));
    const r = zenToLegacy(bytes, { source, parsed: full, resolver, ...(e ? { engine: e } : {}) });
    if (r.unnamed.length > 0) {
      const shown = r.unnamed.slice(0, 3).join('; ');
      result.warnings.push(`${out.uasset}: ${r.unnamed.length} unnamed (${shown}${r.unnamed.length > 3 ? '; ...' : ''})`);
    }
    result.packageBytes += bytes.length;
    if (o.dryRun) return {};
    // One path check for the pair: the .uexp differs from the checked .uasset/.umap path only by its extension.
    const uasset = safeOutputPath(root, out.uasset);
    const uexp = uasset.slice(0, uasset.lastIndexOf('.')) + '.uexp';
    return { written: writer!.write([{ path: uasset, pieces: [r.uasset] }, { path: uexp, pieces: [r.uexp] }]).then(wrote(2)) };
  }

  /**
   * A folder of loose chunk files: its container headers and shader libraries first (as for containers), then every
   * package's header (pass 1) and a job per package and per other file. Legacy packages in it are copied as they are.
   */
  let looseKept = 0;
  async function planFolder(input: FolderInput, claimed: Set<string>): Promise<void> {
    let headerEngine: EngineVersion | undefined;
    let headerVersion: ContainerHeaderVersionName | undefined;
    for (const f of input.files) {
      if (f.kind !== 'container-header') continue;
      try {
        const header = parseContainerHeader(readWholeFile(f.file), { source: f.file });
        for (const [id, p] of packagesById(header)) stores.set(id, p);
        if (header.version === 'UE5Initial' || header.version === 'LocalizedPackages') headerEngine = 'UE5_0';
        headerVersion = header.version;
      } catch (e) {
        if (!(e instanceof IoStoreError)) throw e;
        result.warnings.push(`${f.file}: container header not read (${e.message}); imports of 5.0-5.2 packages may stay unnamed`);
      }
    }
    for (const f of input.files) if (f.kind === 'shader-code' && f.id !== undefined) codeChunks.set(f.id, { read: async () => readWholeFile(f.file) });
    const done = new Set<FolderFile>();
    for (const f of input.files) {
      if (f.kind !== 'shader-library' || (match && !match(f.path))) continue;
      try {
        const lib = readZenShaderLibrary(readWholeFile(f.file), f.path, f.file);
        if (!lib) continue; // the legacy form already: copied as it is
        for (const id of lib.groupIds) claimed.add(id);
        shaderJob(lib, f.size);
      } catch (e) {
        if (!(e instanceof IoStoreError)) throw e;
        result.failures.push({ path: f.path, code: e.code, message: e.message });
      }
      done.add(f);
    }
    // Packages first: a converted package's .uexp replaces a stray one beside it (a zen .uasset never has one).
    const converted = new Set<string>();
    for (const f of input.files) {
      if (f.kind !== 'package' || done.has(f)) continue;
      const out = await planFolderPackage(f, headerEngine, input.root, headerVersion);
      if (!out) continue;
      done.add(f);
      converted.add(out.uasset.toLowerCase()).add(out.uexp.toLowerCase());
    }
    for (const f of input.files) {
      if (done.has(f) || converted.has(f.path.toLowerCase()) || (f.kind === 'shader-code' && f.id !== undefined && claimed.has(f.id))) continue;
      if (match && !match(f.path)) continue;
      result.otherChunks++;
      const outputs = [f.path];
      addJob({ path: f.path, kind: 'chunk', size: f.size, outputs, run: async () => {
        const target = safeOutputPath(root, outputs[0]!);
        if (f.size > WHOLE_CHUNK_MAX) {
          wrote(1)(await writeFileAtomic(target, createReadStream(f.file, { highWaterMark: 1 << 20 }) as AsyncIterable<Uint8Array>));
          return {};
        }
        return { written: writer!.write([{ path: target, pieces: [readWholeFile(f.file)] }]).then(wrote(1)) };
      } });
    }
  }

  /**
   * A zen package file of a folder: its header read now, its conversion a job; returns its legacy output paths.
   * Undefined for a legacy package (copied as it is).
   */
  async function planFolderPackage(f: FolderFile, headerEngine: EngineVersion | undefined, folder: string, headerVersion: ContainerHeaderVersionName | undefined): Promise<{ uasset: string; uexp: string } | undefined> {
    const out = legacyPaths(f.path.replace(/\.uzenasset$/i, '.uasset'));
    const probe = readFilePrefix(f.file, Math.min(f.size, HEADER_PROBE));
    if (isLegacyPackage(probe)) return undefined;
    let engine = (f.tocVersion !== undefined ? engineFromToc(f.tocVersion) : undefined) ?? headerEngine;
    const hints = { source: f.file, ...((o.engine ?? engine) ? { engine: (o.engine ?? engine)! } : {}) };
    const whole = probe.length === f.size;
    // Small packages are kept from this read for their conversion, within the same budget as a container's.
    const keep = whole && looseKept + f.size <= KEEP_BUDGET;
    if (keep) looseKept += f.size;
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
      if (!(e instanceof IoStoreError)) throw e;
      result.failures.push({ path: f.path, code: e.code, message: e.message });
      return out;
    }
    addHeader(f.id !== undefined ? decodeChunkId(fromHex(f.id), 0, 'UE5').id : packageIdFromName(z.packageName), z);
    if (match && !match(out.uasset)) return out;
    const known: UnversionedHints = { ...(f.tocVersion !== undefined ? { tocVersion: f.tocVersion } : {}), ...(headerVersion ? { containerHeaderVersion: headerVersion } : {}) };
    noteVersions({ z, path: f.path, where: folder, hints: known, settle: (e) => (engine = e) }, engine);
    result.packages++;
    const pair = [out.uasset, out.uexp];
    addJob({ path: out.uasset, kind: 'package', size: f.size, outputs: pair, run: async () => {
      const bytes = kept ?? readWholeFile(f.file);
      kept = undefined;
      return convertOne(bytes, z, f.file, { uasset: pair[0]!, uexp: pair[1]! }, engine);
    } });
    return out;
  }

  /**
   * Unversioned packages convert with the engine release their layout and what is at hand settle (the container's
   * TOC version, else the global container's; the container header's layout). Where none settles a layout that
   * the releases lay out differently, the run stops here, before anything is written, with one error.
   */
  async function settleUnversioned(): Promise<void> {
    if (unversioned.length === 0) return;
    let globalToc: number | undefined;
    if (globalPath && /\.utoc$/i.test(globalPath)) {
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

  const opened: Array<{ entry: MountEntry; reader: ContainerReader }> = [];
  const raw = new RawRangeReader();
  let complete = false;
  // Conversion is synchronous work between promises already resolved: the event loop gets a turn now and then, so
  // an interrupt is heard, and once one began no further file is started (see abortWrites).
  const turn = eventLoopTurns();
  const stopIfInterrupted = () => {
    if (isAborting()) throw new IoStoreError('IO', 'interrupted', { file: outdir });
  };
  try {
    let openError: IoStoreError | undefined;
    for (const entry of entries) {
      try {
        opened.push({ entry, reader: await openSyncReader(entry, o) });
      } catch (e) {
        if (!(e instanceof IoStoreError)) throw e;
        openError ??= e;
        result.failures.push({ path: entry.utoc, code: e.code, message: e.message });
      }
    }
    // Nothing at hand could be read: the one error, as unpack gives it, rather than a failure among no successes.
    if (openError && opened.length === 0 && jobs.length === 0) throw openError;
    // Started now, so the thread's start overlaps the header pass; at most two files per chunk (a package's pair).
    if (!o.dryRun) {
      stage = StagedFolder.open(outdir);
      if (stage.leftovers.length > 0) result.warnings.push(leftoversWarning(stage.leftovers));
      root = stage.root;
      const looseFiles = folders.reduce((n, f) => n + f.files.length, 0);
      writer = new FileWriter(useWriterThread(opened.reduce((n, c) => n + 2 * c.reader.toc.chunkCount, 2 * (jobs.length + looseFiles)), o.threads), stage.staged);
    }
    result.threads = writer?.threaded ? 1 : 0;
    const headerEngine = new Map<ContainerReader, EngineVersion>();
    const headerVersions = new Map<ContainerReader, ContainerHeaderVersionName>();
    // Later containers override earlier ones chunk by chunk, as the engine's lookup does.
    const owner = new Map<string, number>();
    opened.forEach(({ reader }, c) => {
      for (let i = 0; i < reader.toc.chunkCount; i++) owner.set(reader.toc.chunkIdHex(i), c);
    });
    // Shader libraries first: the ShaderCode chunks of those converted become part of them, not files of their own.
    // Libraries converted, or failed (reported, not written in a form a legacy reader would misread).
    const libraries = new Set<string>();
    const claimed = new Set<string>();
    for (const [c, { reader }] of opened.entries()) {
      const toc = reader.toc;
      for (let i = 0; i < toc.chunkCount; i++) {
        const idHex = toc.chunkIdHex(i);
        if (owner.get(idHex) !== c) continue;
        const type = toc.chunkTypeName(i);
        if (type === 'ShaderCode') codeChunks.set(idHex, { reader, index: i });
        if (type !== 'ShaderCodeLibrary') continue;
        const path = toc.chunkPath(i) ?? unnamedChunkPath(type, idHex);
        if (match && !match(path)) continue;
        try {
          const lib = readZenShaderLibrary(await reader.readChunk(i), path, `${toc.source}: ${path}`);
          if (!lib) continue;
          libraries.add(idHex);
          for (const id of lib.groupIds) claimed.add(id);
          shaderJob(lib, toc.chunkSize(i));
        } catch (e) {
          if (!(e instanceof IoStoreError)) throw e;
          result.failures.push({ path, code: e.code, message: e.message });
          libraries.add(idHex);
        }
      }
    }
    for (const [c, { reader }] of opened.entries()) {
      for (let i = 0; i < reader.toc.chunkCount; i++) {
        if (reader.toc.chunkTypeName(i) !== 'ContainerHeader' || owner.get(reader.toc.chunkIdHex(i)) !== c) continue;
        try {
          const header = parseContainerHeader(await reader.readChunk(i), { source: reader.toc.source });
          for (const [id, p] of packagesById(header)) stores.set(id, p);
          // UE 5.0 wrote LocalizedPackages headers (the corpus UE5.0 header), 5.1 OptionalSegmentPackages (patchtest).
          if (header.version === 'UE5Initial' || header.version === 'LocalizedPackages') headerEngine.set(reader, 'UE5_0');
          headerVersions.set(reader, header.version);
        } catch (e) {
          if (!(e instanceof IoStoreError)) throw e;
          result.warnings.push(`${reader.toc.source}: container header not read (${e.message}); imports of 5.0-5.2 packages may stay unnamed`);
        }
      }
    }
    // Pass 1: every package header, so imports can be named from the packages at hand.
    const packageChunks: Array<{ reader: ContainerReader; i: number; path: string; z: ZenPackage; engine: EngineVersion | undefined; bytes?: Uint8Array; full?: ZenPackage }> = [];
    let kept = 0;
    let keptParsed = 0;
    for (const [c, { reader }] of opened.entries()) {
      const toc = reader.toc;
      const engine = engineFromToc(toc.version) ?? headerEngine.get(reader);
      for (let i = 0; i < toc.chunkCount; i++) {
        await turn();
        stopIfInterrupted();
        const idHex = toc.chunkIdHex(i);
        if (owner.get(idHex) !== c) continue;
        const type = toc.chunkTypeName(i);
        const path = toc.chunkPath(i) ?? unnamedChunkPath(type, idHex);
        if (type === 'ExportBundleData') {
          try {
            const size = toc.chunkSize(i);
            const keep = size <= HEADER_PROBE && kept + size <= KEEP_BUDGET;
            const { z, bytes } = await readHeader(reader, raw, i, `${toc.source}: ${path}`, o.engine ?? engine, keep);
            if (bytes) kept += bytes.length;
            addHeader(toc.chunkId(i).id, z);
            // A whole package parsed here is kept parsed too (within its own, smaller budget), not parsed again.
            const full = bytes && keptParsed + bytes.length <= KEEP_PARSED_BUDGET ? z : undefined;
            if (full) keptParsed += bytes!.length;
            packageChunks.push({ reader, i, path, z, engine, ...(bytes ? { bytes } : {}), ...(full ? { full } : {}) });
          } catch (e) {
            if (!(e instanceof IoStoreError)) throw e;
            result.failures.push({ path, code: e.code, message: e.message });
          }
          continue;
        }
        if ((type === 'ShaderCodeLibrary' && libraries.has(idHex)) || (type === 'ShaderCode' && claimed.has(idHex))) continue;
        if (match && !match(path)) continue;
        const size = toc.chunkSize(i);
        result.otherChunks++;
        const outputs = [path];
        addJob({ path, kind: 'chunk', size, outputs, run: async () => {
          const target = safeOutputPath(root, outputs[0]!);
          // Large chunks stream through in spans (bounded memory) rather than whole through the writer.
          if (size > WHOLE_CHUNK_MAX) {
            wrote(1)(await writeChunkFile(reader, i, target));
            return {};
          }
          return { written: writer!.write([{ path: target, pieces: [raw.read(reader, i, 0, size) ?? (await reader.readChunk(i))] }]).then(wrote(1)) };
        } });
      }
    }
    for (const p of packageChunks) {
      const out = legacyPaths(p.path);
      if (match && !match(out.uasset)) continue;
      const toc = p.reader.toc;
      const hv = headerVersions.get(p.reader);
      noteVersions({ z: p.z, path: p.path, where: toc.source, hints: { tocVersion: toc.version, ...(hv ? { containerHeaderVersion: hv } : {}) }, settle: (e) => (p.engine = e) }, p.engine);
      const size = p.reader.toc.chunkSize(p.i);
      result.packages++;
      const pair = [out.uasset, out.uexp];
      addJob({ path: out.uasset, kind: 'package', size, outputs: pair, run: async () => {
        const bytes = p.bytes ?? raw.read(p.reader, p.i, 0, size) ?? (await p.reader.readChunk(p.i));
        const full = p.bytes ? p.full : undefined;
        delete p.bytes;
        delete p.full;
        return convertOne(bytes, p.z, `${p.reader.toc.source}: ${p.path}`, { uasset: pair[0]!, uexp: pair[1]! }, p.engine, full);
      } });
    }

    for (const f of folders) await planFolder(f, claimed);
    await settleUnversioned();

    // Files that would be one file in the output (a .uasset and a .umap of one stem share their .uexp; a chunk named
    // like a package's .uexp; names that differ only in case where case is ignored) are all kept, later ones under
    // a suffixed name (OutputNames). Packages claim first: their pairs keep their names.
    const names = new OutputNames(stage ? ignoresCase(stage.root) : process.platform === 'win32' || process.platform === 'darwin', []);
    for (const j of [...jobs.filter((x) => x.kind === 'package'), ...jobs.filter((x) => x.kind !== 'package')]) {
      const claimed = names.claimGroup(j.outputs);
      claimed.forEach((c, k) => (j.outputs[k] = c));
      j.path = claimed[0]!;
      plannedRows.get(j)!.path = claimed[0]!;
    }
    result.warnings.push(...names.renamed.map(renamedWarning));

    // Pass 2: convert and write.
    const script = await scriptLoad;
    if (script) result.global = globalPath!;
    resolver = new ZenResolver(script, directory);
    const progress: ToLegacyProgress = { done: 0, total: jobs.length, bytesDone: 0, bytesTotal: jobs.reduce((a, j) => a + j.size, 0) };
    o.onProgress?.({ ...progress });
    const finish = (j: Job, e?: unknown) => {
      if (e !== undefined) {
        if (!(e instanceof IoStoreError)) throw e;
        result.failures.push({ path: j.path, code: e.code, message: e.message });
      }
      progress.done++;
      progress.bytesDone += j.size;
      o.onProgress?.({ ...progress });
    };
    const written: Promise<void>[] = [];
    for (const j of jobs) {
      await turn();
      stopIfInterrupted();
      // A dry run still converts packages (to report what would fail or stay unnamed) but writes nothing.
      if (o.dryRun && j.kind !== 'package') {
        finish(j);
        continue;
      }
      let w: Promise<void> | undefined;
      try {
        w = (await j.run()).written;
      } catch (e) {
        finish(j, e);
        continue;
      }
      if (!w) finish(j);
      else {
        written.push(w.then(() => finish(j), (e: unknown) => finish(j, e)));
        await writer!.room();
      }
    }
    writer?.flush();
    await Promise.all(written);
    complete = true;
  } finally {
    await writer?.close();
    raw.close();
    await Promise.all(opened.map(({ reader }) => reader.close()));
    // An error ended the run: what it wrote goes with the staged folder.
    if (!complete) stage?.discard();
  }
  stage?.commit();
  // Jobs finish in any order: reported in path order.
  result.shaderLibraries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return result;
}

/**
 * A ShaderCode chunk as unpack writes it (`_chunks/ShaderCode/<id>.bin` at the root of the unpack folder), looked
 * for in the folders above a shader library file given on its own.
 */
function unpackedShaderChunk(libraryFile: string, idHex: string): ShaderChunkSource | undefined {
  for (let dir = dirname(libraryFile), depth = 0; depth < 16; depth++) {
    const p = join(dir, unnamedChunkPath('ShaderCode', idHex));
    if (existsSync(p)) return { read: async () => new Uint8Array(readFileSync(p)) };
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}
