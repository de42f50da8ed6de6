import picomatch from 'picomatch';
import type { ContainerReader } from '../../cas/container-reader.js';
import { IoStoreError } from '../../errors.js';
import { leftoversWarning } from '../../layout/leftovers.js';
import { isAborting } from '../../layout/output.js';
import { StagedFolder } from '../../layout/staged-folder.js';
import type { MountEntry } from '../../mount/mount.js';
import type { EngineVersion } from '../../toc/engine.js';
import { eventLoopTurns } from '../../util/turns.js';
import type { ContainerHeaderVersionName } from '../../zen/container-header.js';
import { FileWriter, useWriterThread } from '../file-writer.js';
import { ZenResolver, type ScriptObjectIndex } from '../naming.js';
import { RawRangeReader } from '../raw-range.js';
import type { ShaderChunkSource } from '../shader-libraries.js';
import type { ToLegacyOptions, ToLegacyResult } from '../to-legacy.js';
import type { Unversioned } from './engine-release.js';
import { PackageHeaders } from './package-headers.js';

/**
 * A job converts or reads on this thread and hands its files to the writer; `written` settles once they are on disk.
 * `outputs`: the files it writes (relative), claimed before pass 2 (see OutputNames); `run` reads them from there.
 */
export interface Job {
  path: string;
  kind: 'package' | 'chunk';
  size: number;
  outputs: string[];
  run: () => Promise<{ written?: Promise<void> }>;
}

/** A container at hand, opened for blocking reads, with the engine release and layout its container header gives. */
export interface OpenedContainer {
  entry: MountEntry;
  reader: ContainerReader;
  /** UE 5.0, when its container header is of a form only 5.0 wrote. */
  headerEngine?: EngineVersion;
  headerVersion?: ContainerHeaderVersionName;
}

/**
 * What the steps of one to-legacy run share: the result being filled, the package headers at hand, the jobs planned
 * for pass 2 and where their files go. Per-package state lives in the jobs, not here.
 */
export class ToLegacyRun {
  readonly result: ToLegacyResult;
  /** The filter on output paths; undefined: every path. */
  readonly match: ((path: string) => boolean) | undefined;
  /** Where files go: `outdir`, or its staged copy once the writer starts (see StagedFolder). */
  root: string;
  stage: StagedFolder | undefined;
  writer: FileWriter | undefined;
  readonly headers = new PackageHeaders();
  /** Names imports in pass 2 (see useScriptObjects). */
  resolver = new ZenResolver(undefined, this.headers);
  readonly jobs: Job[] = [];
  /** Each job's row of `planned` (which follows the job's first output when it is renamed). */
  readonly plannedRows = new Map<Job, { path: string }>();
  /** Unversioned packages whose engine release the options do not give, settled together once every header is read. */
  readonly unversioned: Unversioned[] = [];
  /** ShaderCode chunks at hand, by chunk id (filled while the containers and folders are read). */
  readonly codeChunks = new Map<string, ShaderChunkSource>();
  /** ShaderCode chunks (ids) that converted shader libraries take in: not files of their own. */
  readonly claimed = new Set<string>();
  readonly containers: OpenedContainer[] = [];
  /** Chunk id -> the container (index) providing it: later ones override earlier ones, as the engine's lookup does. */
  readonly owner = new Map<string, number>();
  readonly raw = new RawRangeReader();
  /**
   * Conversion is synchronous work between promises already resolved: the event loop gets a turn now and then, so
   * an interrupt is heard, and once one began no further file is started (see abortWrites).
   */
  readonly turn = eventLoopTurns();

  constructor(
    readonly outdir: string,
    readonly options: ToLegacyOptions,
  ) {
    this.root = outdir;
    this.result = { outdir, global: null, packages: 0, otherChunks: 0, threads: 0, filesWritten: 0, bytesWritten: 0, packageBytes: 0, planned: [], failures: [], shaderLibraries: [], warnings: [] };
    this.match = options.filter === undefined ? undefined : picomatch(options.filter, { dot: true, nocase: true });
  }

  /** Adds a job and its row of `planned`. */
  addJob(job: Job, plannedSize = job.size): void {
    const row = { path: job.outputs[0]!, kind: job.kind, size: plannedSize };
    this.result.planned.push(row);
    this.jobs.push(job);
    this.plannedRows.set(job, row);
  }

  /** Reports an IoStoreError as a failure of `path` (the run goes on); any other error ends the run. */
  fail(path: string, e: unknown): void {
    if (!(e instanceof IoStoreError)) throw e;
    this.result.failures.push({ path, code: e.code, message: e.message });
  }

  /** Counts a file written (the writer's promises resolve with the bytes). */
  readonly wroteFile = (bytes: number): void => {
    this.result.bytesWritten += bytes;
    this.result.filesWritten += 1;
  };

  /** Counts a package's pair written. */
  readonly wrotePair = (bytes: number): void => {
    this.result.bytesWritten += bytes;
    this.result.filesWritten += 2;
  };

  /** Hands one whole file to the writer (`target` checked by safeOutputPath). */
  writeFile(target: string, bytes: Uint8Array): Promise<void> {
    return this.writer!.write([{ path: target, pieces: [bytes] }]).then(this.wroteFile);
  }

  /** Names imports with the script objects (the result then names the global container) and the headers at hand. */
  useScriptObjects(script: ScriptObjectIndex | undefined, globalPath: string | undefined): void {
    if (script) this.result.global = globalPath!;
    this.resolver = new ZenResolver(script, this.headers);
  }

  stopIfInterrupted(): void {
    if (isAborting()) throw new IoStoreError('IO', 'interrupted', { file: this.outdir });
  }

  /** Opens the output folder (staged) and the writer, for a run of at most `files` files; a dry run opens neither. */
  startOutput(files: number): void {
    if (!this.options.dryRun) {
      const stage = (this.stage = StagedFolder.open(this.outdir));
      if (stage.leftovers.length > 0) this.result.warnings.push(leftoversWarning(stage.leftovers));
      this.root = stage.root;
      this.writer = new FileWriter(useWriterThread(files, this.options.threads), stage.staged);
    }
    this.result.threads = this.writer?.threaded ? 1 : 0;
  }

  /** Stops the writer and closes the containers; a run that did not complete takes what it wrote with its staged folder. */
  async close(complete: boolean): Promise<void> {
    await this.writer?.close();
    this.raw.close();
    await Promise.all(this.containers.map(({ reader }) => reader.close()));
    if (!complete) this.stage?.discard();
  }

  /** Puts the output folder in place; the result, with shader libraries in path order (jobs finish in any order). */
  finish(): ToLegacyResult {
    this.stage?.commit();
    this.result.shaderLibraries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return this.result;
  }
}
