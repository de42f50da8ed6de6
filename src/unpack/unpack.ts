import { existsSync, statSync } from 'node:fs';
import { defaultCodecs, type CodecRegistry } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import type { EngineVersion } from '../toc/engine.js';
import { KeyRing } from '../mount/keys.js';
import { readManifestFile, keptManifestEntries } from '../layout/manifest-read.js';
import { MANIFEST_NAME, MANIFEST_VERSION, type Manifest } from '../layout/manifest.js';
import { checkDistinctNames, discoverMounts, type MountEntry, type PakMountEntry } from '../mount/mount.js';
import type { OpenedPaks, PakClaims, PakUnpackOutcome } from './pak-unpack.js';
import { safeOutputPath, writeFileAtomic } from '../layout/output.js';
import { StagedFolder } from '../layout/staged-folder.js';
import { OutputNames, ignoresCase, renamedWarning } from '../layout/names.js';
import { outputPathsDistinct } from '../layout/distinct-paths.js';
import { leftoversWarning } from '../layout/leftovers.js';
import { metaHashAlgorithm } from '../chunks/write-chunk.js';
import { defaultWriteThreads, runChunkTasks, startLoopWorkers, type LoopWorkers, type WorkersAhead } from '../chunks/loop-pool.js';
import { jsonPieces, utf8Batches } from '../util/json-pieces.js';
import { openContainer } from '../mount/open.js';
import { KeyTable } from '../util/key-table.js';
import { PlannedChunks, type ChunkPlan, type PlannedChunk } from './chunk-plan.js';
import { PackageForms, packageWinners } from './package-winners.js';
import { planContainers, type ContainersPlan, type LazyManifest, type OpenedContainer } from './plan-containers.js';
import { planTasks } from './task-list.js';
import { AfterWorkerStart } from './after-worker-start.js';

export interface UnpackOptions {
  keys?: KeyRing;
  engine?: EngineVersion;
  codecs?: CodecRegistry;
  /** Glob on the output path (named chunks: their directory-index path; others: `_chunks/<Type>/<id>.bin`). */
  filter?: string;
  /** Only chunks of this type name. */
  type?: string;
  /** Plan only: nothing is written. */
  dryRun?: boolean;
  /**
   * No longer used (kept so callers that set it still compile): pak files are written on this thread, one after
   * another in the order of their bytes in the pak, with blocking calls.
   */
  jobs?: number;
  onProgress?: (p: UnpackProgress) => void;
  /**
   * Worker threads beside this one, each reading, decoding and writing whole chunks with blocking calls, each
   * taking its own stretch of the plan first (0: this thread alone). Default, from the containers before the plan:
   * one per other core (at most 7) when 16 MiB or more of blocks need decoding or decrypting, else one for 1,024
   * chunks or more (creating files is system time a second thread shares), else none. They start while the plan is
   * made. Codecs without a recipe keep the work on this thread. A pak's files stored as they are, unencrypted, get
   * one worker beside this thread for 1,024 of them or more (`threads` of them when given: PakStoredOut); its other
   * files are written on this thread.
   */
  threads?: number;
  /**
   * Workers started before the containers were opened (`new WorkersAhead(aheadThreads('write', ...))`): used as the
   * first of those `threads` asks for, the others terminated. The caller still discards them once the run is over.
   */
  workersAhead?: WorkersAhead;
  /**
   * Hash each chunk as it is written and give it its final name only if the hash matches its chunk meta
   * (BLAKE3-160 for UE5, SHA-1 for UE4); a mismatch is a failure (code HASH_MISMATCH) and leaves no file.
   */
  verify?: boolean;
}

export interface UnpackProgress {
  chunksDone: number;
  chunksTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface UnpackFailure {
  container: string;
  /** Chunk index in its container, or -1 when the whole container failed. */
  index: number;
  id?: string;
  path?: string;
  code: string;
  message: string;
}

export interface UnpackResult {
  outdir: string;
  /**
   * Per container and pak: chunks (files) it lists, how many were written, and how many were left to another
   * source, named in `overriddenBy` (a patch, or the mount-order winner of a package held in both forms).
   */
  containers: Array<{ name: string; priority: number; chunks: number; written: number; overridden: number; overriddenBy: string[] }>;
  chunksWritten: number;
  bytesWritten: number;
  /** What the run writes (or, dry, would write), in plan order: made a chunk at a time when read. */
  planned: PlannedChunks;
  failures: UnpackFailure[];
  warnings: string[];
  manifest: string | null;
  /** Worker threads that did the work (0: the calling thread). */
  threads: number;
}


/**
 * Unpacks containers (files or Paks folders) into `outdir`: every chunk the mount order makes visible, named ones
 * under their directory-index paths, unnamed ones under `_chunks/<Type>/`, and a manifest that `pack` reads. A chunk
 * that fails is reported in `failures` and the rest continue.
 */
export async function unpack(inputs: readonly string[], outdir: string, o: UnpackOptions = {}): Promise<UnpackResult> {
  const { containers, paks } = await discoverMounts(inputs);
  checkDistinctNames(containers, paks);
  if (existsSync(outdir) && !statSync(outdir).isDirectory()) throw new IoStoreError('USAGE', 'the output exists and is not a folder', { file: outdir });
  return unpackWith(containers, outdir, o, paks);
}

async function unpackWith(entries: MountEntry[], outdir: string, o: UnpackOptions, paks: readonly PakMountEntry[] = []): Promise<UnpackResult> {
  const failures: UnpackFailure[] = [];
  const warnings: string[] = [];
  const { opened, firstError } = await openContainers(entries, o, failures);
  // Nothing to unpack: the first container's own error, its file and offset as it said them.
  if (opened.length === 0 && paks.length === 0 && firstError) throw firstError;
  // The manifest of an earlier unpack into the folder: read (and checked) before anything is written.
  const previous = o.dryRun ? undefined : previousManifest(outdir);
  const codecs = o.codecs ?? defaultCodecs();
  const loopWorkers = startWorkers(opened, codecs, o);
  let stage: StagedFolder | undefined;
  let pakPlan: PakUnpackOutcome | undefined;
  try {
    stage = openStage(outdir, o, warnings);
    const run: UnpackRun = { o, outdir, root: stage?.root ?? outdir, stage, opened, codecs, failures, warnings };
    // Paks are opened first: a package held by a pak (legacy) and by a container (zen) comes out in one form.
    // --type selects chunk types, which pak files do not have.
    const pakOpen = paks.length > 0 && o.type === undefined ? await (await import('./pak-unpack.js')).openPaks(paks, o.keys) : undefined;
    const winners = packageWinners(opened, pakOpen);
    const forms = winners ? new PackageForms(winners, warnings) : undefined;
    const match = await pathMatcher(o.filter);
    const planned = planContainers(opened, { ...(o.type !== undefined ? { type: o.type } : {}), ...(match ? { match } : {}), ...(forms ? { forms } : {}), codecs }, warnings, failures);
    const names = claimOutputNames(run, planned, pakOpen !== undefined);
    pakPlan = pakOpen ? await planPakFiles(run, pakOpen, planned.plan, names, match, forms) : undefined;
    warnings.push(...names.renamed.map(renamedWarning));
    const manifest: LazyManifest = { tool: 'iostore-toolkit', manifestVersion: MANIFEST_VERSION, containers: planned.manifest, ...(pakPlan && pakPlan.manifests.length > 0 ? { paks: pakPlan.manifests } : {}) };
    const result = planResult(run, planned, pakPlan);
    if (o.dryRun) return result;
    const manifestFile = new ManifestFile(manifest, run);
    // A new manifest in a staged folder does not depend on how the chunks fare (nothing is seen before the folder is
    // put in place): this thread writes it while the workers take the first chunks. Serialized after the loop, its
    // 150,000 entries were ~2 s of one thread with the other idle. Added to an earlier manifest, it waits for the
    // outcome of the run.
    const early = !previous && stage?.staged === true;
    await writeContainerChunks(run, planned, result, loopWorkers, early ? () => manifestFile.write(result) : undefined);
    if (pakPlan) await writePaks(run, pakPlan, result);
    if (previous) mergePreviousManifest(previous, manifest, result, warnings);
    if (!early) await manifestFile.write(result);
    if (manifestFile.error) {
      // A failure among the others (a full disk fails the files before it too): each is reported, not only this one.
      failures.push({ container: '', index: -1, path: MANIFEST_NAME, code: manifestFile.error.code, message: manifestFile.error.message });
      result.manifest = null;
      // Nothing written at all: no output folder either.
      if (result.chunksWritten === 0) return result;
    }
    stage?.commit();
    return result;
  } finally {
    await loopWorkers?.terminate();
    // Not committed: an error ended the run, and what it wrote goes with the staged folder.
    stage?.discard();
    await Promise.all(opened.map(({ reader }) => reader.close()));
    await Promise.all((pakPlan?.archives ?? []).map((a) => a.close()));
  }
}

/** What the steps of one unpack share. */
interface UnpackRun {
  o: UnpackOptions;
  outdir: string;
  /** Where files are written: the staged folder, or `outdir`. */
  root: string;
  stage: StagedFolder | undefined;
  opened: OpenedContainer[];
  codecs: CodecRegistry;
  failures: UnpackFailure[];
  warnings: string[];
  /** Progress of the whole run (container chunks, then pak files), once the writing has started. */
  progress?: UnpackProgress;
}

/** The containers that open; each that does not is a failure of the whole container (the first one's error kept). */
async function openContainers(entries: readonly MountEntry[], o: UnpackOptions, failures: UnpackFailure[]): Promise<{ opened: OpenedContainer[]; firstError?: IoStoreError }> {
  const opened: OpenedContainer[] = [];
  let firstError: IoStoreError | undefined;
  for (const entry of entries) {
    try {
      opened.push({ entry, reader: await openContainer(entry, o) });
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
      firstError ??= e;
      failures.push({ container: entry.name, index: -1, code: e.code, message: e.message });
    }
  }
  return firstError ? { opened, firstError } : { opened };
}

/** Workers start now, from the containers alone, and open them while this thread plans. */
function startWorkers(opened: readonly OpenedContainer[], codecs: CodecRegistry, o: UnpackOptions): LoopWorkers | undefined {
  if (o.dryRun || opened.length === 0) {
    void o.workersAhead?.discard();
    return undefined;
  }
  const readers = opened.map((x) => x.reader);
  return startLoopWorkers(readers, codecs, o.threads ?? defaultWriteThreads(readers), { paths: true, ...(o.workersAhead ? { ahead: o.workersAhead } : {}) });
}

/** A new output folder is written under a temporary name and renamed into place at the end (see StagedFolder). */
function openStage(outdir: string, o: UnpackOptions, warnings: string[]): StagedFolder | undefined {
  if (o.dryRun) return undefined;
  const stage = StagedFolder.open(outdir);
  if (stage.leftovers.length > 0) warnings.push(leftoversWarning(stage.leftovers));
  return stage;
}

/** The --filter glob, loaded only when used (as the pak modules are: a run over containers alone does not pay for them). */
async function pathMatcher(filter: string | undefined): Promise<((path: string) => boolean) | undefined> {
  return filter === undefined ? undefined : (await import('picomatch')).default(filter, { dot: true, nocase: true });
}

/**
 * Two files of the run that would be one file in the output (the same path, case, a file where a folder is) are both
 * kept, the later under a suffixed name (see OutputNames); a dry run asks no file system. A path is kept as a string
 * only when renamed: the others are made again from the plan.
 */
function claimOutputNames(run: UnpackRun, planned: ContainersPlan, withPaks: boolean): OutputNames {
  const { plan, renamedAt } = planned;
  const names = new OutputNames(run.stage ? ignoresCase(run.root) : process.platform === 'win32' || process.platform === 'darwin', undefined, (k) => plan.path(k));
  // One container whose paths cannot collide (most games' containers) needs no claim per chunk: its workers wait
  // for this plan.
  const distinct = run.opened.length === 1 && !withPaks && !names.caseInsensitive && outputPathsDistinct(run.opened[0]!.reader.toc, [MANIFEST_NAME]);
  for (let k = 0; k < (distinct ? 0 : plan.length); k++) {
    const path = plan.path(k);
    const written = names.claim(path, k);
    if (written === path) continue;
    plan.rename(k, written);
    renamedAt[plan.container(k)]!.set(plan.index(k), written);
  }
  return names;
}

/** Paks come after the containers: their files go beside the packages, and a path a container writes stays its. */
async function planPakFiles(run: UnpackRun, pakOpen: OpenedPaks, plan: ChunkPlan, names: OutputNames, match: ((path: string) => boolean) | undefined, forms: PackageForms | undefined): Promise<PakUnpackOutcome> {
  const { planPaks } = await import('./pak-unpack.js');
  const { o, opened, failures } = run;
  const winners = forms?.winners;
  const packageWinner = winners
    ? (key: string, pak: string, path: string) => {
        const w = winners.byPackage.get(key);
        if (w === undefined || winners.sources[w]!.form === 'legacy') return undefined;
        forms!.leftOut(key, path, pak, 'legacy', w);
        return winners.sources[w]!.name;
      }
    : undefined;
  // Paths (lower case) the containers write, by container name: a pak file of the same path is left out.
  const lower = new KeyTable((k) => plan.path(k).toLowerCase());
  for (let k = 0; k < plan.length; k++) lower.set(plan.path(k).toLowerCase(), k);
  const claimed: PakClaims = { get: (path) => { const k = lower.find(path); return k < 0 ? undefined : opened[plan.container(k)]!.entry.name; } };
  const pakPlan = planPaks(pakOpen, { outdir: run.root, codecs: run.codecs, ...(o.keys ? { keys: o.keys } : {}), ...(match ? { match } : {}), claimed, names, ...(packageWinner ? { packageWinner } : {}) });
  if (opened.length === 0 && pakPlan.archives.length === 0 && pakPlan.openError) throw pakPlan.openError;
  failures.push(...pakPlan.failures);
  pakPlan.failures = failures;
  run.warnings.push(...pakPlan.warnings);
  return pakPlan;
}

/** The run's result as planned: nothing written yet. */
function planResult(run: UnpackRun, planned: ContainersPlan, pakPlan: PakUnpackOutcome | undefined): UnpackResult {
  const pakPlanned: PlannedChunk[] = (pakPlan?.planned ?? []).map((p) => ({ container: p.container, index: p.index, id: '', type: 'PakFile', path: p.path, size: p.size }));
  return {
    outdir: run.outdir,
    containers: [...planned.summary, ...(pakPlan?.summary ?? [])],
    chunksWritten: 0,
    bytesWritten: 0,
    planned: new PlannedChunks(planned.plan, pakPlanned),
    failures: run.failures,
    warnings: run.warnings,
    manifest: null,
    threads: 0,
  };
}

/**
 * The containers' chunks, written by the chunk loop (this thread and the workers); `first` runs on this thread while
 * the workers take the first chunks. Chunk failures are added in plan order.
 */
async function writeContainerChunks(run: UnpackRun, planned: ContainersPlan, result: UnpackResult, loopWorkers: LoopWorkers | undefined, first: (() => Promise<void>) | undefined): Promise<void> {
  const { o, opened, root } = run;
  const { plan } = planned;
  const total: UnpackProgress = { chunksDone: 0, chunksTotal: result.planned.length, bytesDone: 0, bytesTotal: plan.totalSize() + pakBytes(result.planned, plan.length) };
  run.progress = total;
  o.onProgress?.({ ...total });
  const readers = opened.map((x) => x.reader);
  const chunkFailures: Array<{ k: number; f: UnpackFailure }> = [];
  const fail = (k: number, code: string, message: string) => {
    const p = plan.entry(k);
    chunkFailures.push({ k, f: { container: p.container, index: p.index, id: p.id, path: p.path, code, message } });
  };
  const { tasks, taskPlan } = planTasks(plan, readers.map((r) => r.toc), root, (k, e) => {
    fail(k, e.code, e.message);
    total.chunksDone++;
    total.bytesDone += plan.size(k);
  });
  const base = { chunks: total.chunksDone, bytes: total.bytesDone };
  // With a worker, the manifest waits until the worker has done a chunk: by then it has loaded its code and set the
  // run's V8 flags (a short run's --no-opt), so the manifest's ~25 functions are not sent to TurboFan, as they were
  // when written first thing, while the worker was still loading (see AfterWorkerStart).
  const later = first && loopWorkers ? new AfterWorkerStart(first) : undefined;
  const running = runChunkTasks(readers, tasks, {
    ...(first && !later ? { first } : {}),
    ...(loopWorkers ? { workers: loopWorkers } : { threads: 0 }),
    codecs: run.codecs,
    hash: readers.map((r) => (o.verify ? metaHashAlgorithm(r.toc) : undefined)),
    ...(run.stage?.staged ? { finalNames: true } : {}),
    // Called after each chunk of this thread: given only when something listens (a bar, or the manifest waiting for
    // the worker's first chunk), as each call reads the shared counters (a BigInt among them) in interpreted code.
    ...(o.onProgress || later
      ? {
          onProgress: (chunks: number, bytes: number) => {
            later?.tick(chunks);
            // Quiet: once the manifest has started, nothing listens for the rest of the run.
            if (!o.onProgress) return !later!.started;
            total.chunksDone = base.chunks + chunks;
            total.bytesDone = base.bytes + bytes;
            o.onProgress?.({ ...total });
          },
        }
      : {}),
  });
  let done;
  try {
    done = await running;
  } catch (e) {
    // Not started after a failed loop; finished if it was (its file lies in the staged folder, discarded with it).
    await later?.done().catch(() => {});
    throw e;
  }
  await later?.finish();
  result.threads = done.threads;
  done.done.forEach((n, c) => {
    result.chunksWritten += n;
    result.containers[c]!.written += n;
  });
  result.bytesWritten += done.bytes;
  for (const x of done.failures) fail(taskPlan.get(x.task), x.code, x.message);
  // Threads finish out of order: failures are listed in the order of the plan.
  chunkFailures.sort((a, b) => a.k - b.k);
  run.failures.push(...chunkFailures.map((x) => x.f));
}

/** The bytes of the pak files planned (after the plan's `containerChunks` container chunks). */
function pakBytes(planned: PlannedChunks, containerChunks: number): number {
  let n = 0;
  for (let k = containerChunks; k < planned.length; k++) n += planned.at(k)!.size;
  return n;
}

/** The pak files planned, written after the containers' chunks. */
async function writePaks(run: UnpackRun, pakPlan: PakUnpackOutcome, result: UnpackResult): Promise<void> {
  const { o } = run;
  const total = run.progress!;
  const { writePakFiles } = await import('./pak-unpack.js');
  await writePakFiles(pakPlan, { outdir: run.root, codecs: run.codecs, ...(run.stage?.staged ? { finalNames: true } : {}), ...(o.verify ? { verify: true } : {}), ...(o.keys ? { keys: o.keys } : {}), ...(o.threads !== undefined ? { threads: o.threads } : {}), claimed: new Map() }, (p, n, ok) => {
    if (ok) {
      result.chunksWritten++;
      result.bytesWritten += n;
    }
    total.chunksDone++;
    total.bytesDone += p.size;
    o.onProgress?.({ ...total });
  });
}

/** One manifest per folder: the earlier unpack's entries stay, their files written over marked as such. */
function mergePreviousManifest(previous: Manifest, manifest: LazyManifest, result: UnpackResult, warnings: string[]): void {
  const failed = new Set(result.failures.map((f) => f.path?.toLowerCase()));
  const written = new Map<string, string>();
  for (const p of result.planned) if (!failed.has(p.path.toLowerCase())) written.set(p.path.toLowerCase(), p.container);
  const kept = keptManifestEntries(previous, manifest, written);
  manifest.containers = [...kept.containers, ...manifest.containers];
  const allPaks = [...kept.paks, ...(manifest.paks ?? [])];
  if (allPaks.length > 0) manifest.paks = allPaks;
  warnings.push(...kept.warnings);
}

/** The run's manifest file: written as it is serialized (a game's manifest, an entry per chunk, is tens of MB of text). */
class ManifestFile {
  /** Why it could not be written. */
  error: IoStoreError | undefined;

  constructor(
    private readonly manifest: LazyManifest,
    private readonly run: UnpackRun,
  ) {}

  async write(result: UnpackResult): Promise<void> {
    const manifest = this.manifest;
    const text = function* () {
      yield* jsonPieces(manifest);
      yield '\n';
    };
    try {
      await writeFileAtomic(safeOutputPath(this.run.root, MANIFEST_NAME), utf8Batches(text()), undefined, { sync: true, transient: true });
      result.manifest = safeOutputPath(this.run.outdir, MANIFEST_NAME);
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
      this.error = e;
    }
  }
}

/** The manifest already in the output folder, if any; one that is not a manifest of this tool stops the run. */
function previousManifest(outdir: string): Manifest | undefined {
  if (!existsSync(outdir)) return undefined;
  try {
    return readManifestFile(outdir);
  } catch (e) {
    if (!(e instanceof IoStoreError) || e.code !== 'BAD_VALUE') throw e;
    throw new IoStoreError('BAD_VALUE', `${e.message}; unpack adds to the manifest of the folder it writes into: remove it or unpack into another folder`);
  }
}
