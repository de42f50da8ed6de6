// The whole-chunk loop of unpack and verify: read, decode, hash and write chunks one after another with blocking
// calls, on the calling thread and (for blocks that need decoding, or many files) on worker threads running the same
// loop. Threads take chunks through shared counters (LoopCounters), so no message crosses between them per chunk.
//
// Why blocking calls: a chunk of the bench container is written in ~80 us of system calls (open, read, write, close,
// rename); each call through the libuv pool added a futex and an epoll round trip that cost as much as the call.
import { Buffer } from 'node:buffer';
import { constants as fsConstants, renameSync, unlinkSync } from 'node:fs';
import { closeSync, openSync } from '../util/sync-fs.js';
import { sep } from 'node:path';
import type { ContainerReader } from '../cas/container-reader.js';
import { IoStoreError } from '../errors.js';
import type { ChunkHasher } from '../hash/chunk-hash.js';
import { ioError } from '../toc/read-file.js';
import { toHex } from '../util/bytes.js';
import { ensureDirSync, isAborting as isAbortingShared, safeOutputPath, SafeOutputFolders, tempPathFor, openForWriteSync, writePiecesSync as writePiecesShared } from '../layout/output.js';
import { chunkOutputPath, unnamedChunkPath } from '../layout/unnamed.js';
import type { IoStoreToc } from '../toc/toc.js';
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import { IntList } from '../util/int-list.js';

/** One chunk for the loop: which container and chunk, and where to write it (absent: hash only). */
export interface LoopTask {
  container: number;
  index: number;
  target?: string;
}

/** Builds a LoopTasks a task at a time. */
export class LoopTaskBuilder {
  private containers = new IntList();
  private indices = new IntList();
  private starts = new IntList();
  private parts: string[] = [];
  private at = 0;

  /** `root`: the output folder that `addOwnPath` tasks write below. */
  constructor(private readonly root = '') {}

  add(container: number, index: number, target?: string): void {
    this.containers.push(container);
    this.indices.push(index);
    if (target === undefined) {
      this.starts.push(NO_TARGET);
      return;
    }
    this.parts.push(target);
    this.starts.push(this.at);
    this.at += target.length + 1;
  }

  /**
   * A task writing the chunk under its own output path (chunkOutputPath) below the root: the path is made from the
   * TOC and checked (as safeOutputPath does) when the task runs, so the list holds no string for it.
   */
  addOwnPath(container: number, index: number): void {
    this.containers.push(container);
    this.indices.push(index);
    this.starts.push(OWN_PATH);
  }

  /** addOwnPath for each of `indices` of one container, in that order (a whole container's chunks in one call). */
  addOwnPaths(container: number, indices: Int32Array): void {
    this.containers.pushRepeated(container, indices.length);
    this.indices.pushAll(indices);
    this.starts.pushRepeated(OWN_PATH, indices.length);
  }

  /** add (no target: a hash-only task) for each of `indices` of one container, in that order, in one call. */
  addAll(container: number, indices: Int32Array): void {
    this.containers.pushRepeated(container, indices.length);
    this.indices.pushAll(indices);
    this.starts.pushRepeated(NO_TARGET, indices.length);
  }

  /**
   * The task list, its arrays shared (SharedArrayBuffer: workers read them without a copy each); the builder is
   * emptied (a game's plan: its growing lists were 3 MB more held to the end of the run).
   */
  finish(): LoopTasks {
    const targets = this.parts.length > 0 ? `${this.parts.join('\0')}\0` : '';
    const tasks = LoopTasks.from({ containers: this.containers.toSharedInt32Array(), indices: this.indices.toSharedInt32Array(), targets, targetStarts: this.starts.toSharedInt32Array(), root: this.root });
    this.containers = new IntList();
    this.indices = new IntList();
    this.starts = new IntList();
    this.parts = [];
    this.at = 0;
    return tasks;
  }
}

/**
 * The output module's functions the loop calls per chunk, taken once: the CLI's bundles share that module (its
 * registry of files in flight is one per process), and each use of a shared module's export is a getter call there.
 */
const isAborting = isAbortingShared;
const writePiecesSync = writePiecesShared;
/** `openSync`'s 'w', as its number: the string is parsed per call. */
const WRITE_FLAGS = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC;

const NO_TARGET = -1;
const NO_INTS = new Int32Array(0);
/** An unnamed chunk's file name (unnamedChunkPath): its id in hex, then `.bin`. */
const BIN_SUFFIX = Buffer.from('.bin', 'latin1');
const UNNAMED_NAME_SIZE = 2 * CHUNK_ID_SIZE + BIN_SUFFIX.length;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const OWN_PATH = -2;
/** Where a plain ASCII name is a safe file name as it is (LoopTasks.targetBytes); Windows has more rules. */
const PLAIN_PLATFORM = process.platform !== 'win32';
const DOT = 0x2e;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** No view yet of `b` for any length up to its own (at full length, as `dirBytes`). */
function noViews(b: Buffer): Array<Buffer | undefined> {
  return new Array<Buffer | undefined>(b.length + 1).fill(undefined);
}

/** A LoopTasks as plain data: what a worker is sent, and rebuilds with `LoopTasks.from`. */
export interface LoopTaskData {
  containers: Int32Array;
  indices: Int32Array;
  /** The targets, each followed by a NUL (no path holds one); '' when no task writes. */
  targets: string;
  /** Where each task's target starts in `targets` (-1: no target; -2: its own path below `root`). */
  targetStarts: Int32Array;
  /** The output folder of tasks that write under their own path. */
  root: string;
}

/**
 * The loop's task list, packed: a game's plan has tens of thousands of chunks, and an object and a path string per
 * chunk cost the calling thread ~1 KB each, and each worker as much again in its copy (a plan of 30,000 chunks:
 * +57 MB of peak RSS for one worker). Most tasks hold no path at all (LoopTaskBuilder.addOwnPath): 12 bytes a task.
 */
export class LoopTasks {
  /** The task arrays of `d`, as fields: read per chunk, in a short run's code without TurboFan (a load each less). */
  private readonly containers: Int32Array;
  private readonly indices: Int32Array;
  private readonly starts: Int32Array;

  private constructor(private readonly d: LoopTaskData) {
    this.containers = d.containers;
    this.indices = d.indices;
    this.starts = d.targetStarts;
  }

  static of(tasks: readonly LoopTask[]): LoopTasks {
    const b = new LoopTaskBuilder();
    for (const t of tasks) b.add(t.container, t.index, t.target);
    return b.finish();
  }

  static from(d: LoopTaskData): LoopTasks {
    return new LoopTasks(d);
  }

  get data(): LoopTaskData {
    return this.d;
  }

  get length(): number {
    return this.d.indices.length;
  }

  container(t: number): number {
    return this.containers[t]!;
  }

  index(t: number): number {
    return this.indices[t]!;
  }

  /** Whether task t writes a file (else it only hashes its chunk). */
  writes(t: number): boolean {
    return this.starts[t] !== NO_TARGET;
  }

  /**
   * The file task t writes, or undefined for a hash task; `toc`: its container's. A path is checked here, as
   * safeOutputPath checks it (an unsafe one throws its UNSAFE_PATH error, a failure of that chunk).
   */
  target(t: number, toc?: IoStoreToc): string | undefined {
    const start = this.starts[t]!;
    if (start === OWN_PATH) {
      if (!toc) throw new Error('LoopTasks.target: a task writing under its own path needs its TOC');
      return this.ownTarget(toc, this.indices[t]!);
    }
    return start < 0 ? undefined : this.d.targets.substring(start, this.d.targets.indexOf('\0', start));
  }

  /**
   * Task t's file as the bytes of its path (a view of one buffer, valid until the next call), when it writes under
   * its own path, a named chunk's folder passed its check and its stored name is plain ASCII that needs none (no
   * `/`, `\\`, `:`, control character, not `.` or `..`); else undefined, and `target` gives it (and its error). Per
   * chunk this makes no string: a game's path strings (the name decoded, joined, then encoded again by each open)
   * were the largest part of the loop's own CPU.
   */
  targetBytes(t: number, toc: IoStoreToc): Buffer | undefined {
    if (this.starts[t] !== OWN_PATH || !PLAIN_PLATFORM) return undefined;
    if (toc !== this.bytesOf) this.bytesFor(toc);
    const i = this.indices[t]!;
    const f = i < this.folderOf.length ? this.folderOf[i]! : -1;
    if (f < 0) return this.unnamedBytes(toc, i);
    const names = this.names;
    if (names === undefined) return undefined;
    const dir = this.dirBytes[f] ?? this.folderBytes(toc, f);
    if (dir === undefined) return undefined;
    const at = this.nameStarts[this.nameOf[i]!]! + 4;
    // The FString's length counts its NUL; < 0 is UTF-16.
    const n = (names[at - 4]! | (names[at - 3]! << 8) | (names[at - 2]! << 16) | (names[at - 1]! << 24)) - 1;
    if (n < 1 || (n <= 2 && names[at] === DOT && (n === 1 || names[at + 1] === DOT))) return undefined;
    const start = dir.length;
    if (this.pathBytes.length < start + n) {
      this.pathBytes = Buffer.alloc(Math.max(start + n, 2 * this.pathBytes.length));
      this.pathDir = undefined;
      this.pathViews = noViews(this.pathBytes);
    }
    const out = this.pathBytes;
    if (dir !== this.pathDir) {
      out.set(dir);
      this.pathDir = dir;
    }
    for (let k = 0, to = start; k < n; k++, to++) {
      const c = names[at + k]!;
      if (c < 0x20 || c > 0x7f || c === SLASH || c === BACKSLASH || c === COLON) return undefined;
      out[to] = c;
    }
    // The open takes a view of exactly the path: one kept per length (a game's paths have a few dozen), not made per chunk.
    return (this.pathViews[start + n] ??= out.subarray(0, start + n));
  }

  /**
   * An unnamed chunk's file (`_chunks/<type>/<id>.bin`, unnamedChunkPath) as the bytes of its path, its folder checked
   * once per type: the id's hex goes straight into the path's bytes, with no id, path or folder string per chunk (a
   * container of unnamed chunks, such as bulk data, made and checked three strings a chunk on each thread).
   */
  private unnamedBytes(toc: IoStoreToc, i: number): Buffer | undefined {
    const ids = toc.chunkIds;
    const at = i * CHUNK_ID_SIZE;
    const type = ids[at + CHUNK_ID_SIZE - 1]!;
    const dir = this.typeDirBytes[type] ?? this.unnamedFolderBytes(toc, i, type);
    if (dir === undefined) return undefined;
    const start = dir.length;
    const end = start + UNNAMED_NAME_SIZE;
    if (this.pathBytes.length < end) {
      this.pathBytes = Buffer.alloc(Math.max(end, 2 * this.pathBytes.length));
      this.pathDir = undefined;
      this.pathViews = noViews(this.pathBytes);
    }
    const out = this.pathBytes;
    if (dir !== this.pathDir) {
      out.set(dir);
      out.set(BIN_SUFFIX, end - BIN_SUFFIX.length);
      this.pathDir = dir;
    }
    for (let k = 0, to = start; k < CHUNK_ID_SIZE; k++, to += 2) {
      const b = ids[at + k]!;
      out[to] = HEX_DIGITS[b >> 4]!;
      out[to + 1] = HEX_DIGITS[b & 15]!;
    }
    return (this.pathViews[end] ??= out.subarray(0, end));
  }

  /** The checked folder of unnamed chunks of chunk i's type and a separator as UTF-8, kept; undefined if it fails. */
  private unnamedFolderBytes(toc: IoStoreToc, i: number, type: number): Uint8Array | undefined {
    let path: string;
    try {
      path = safeOutputPath(this.d.root, unnamedChunkPath(toc.chunkTypeName(i), toc.chunkIdHex(i)));
    } catch {
      return undefined;
    }
    const cut = path.lastIndexOf(sep) + 1;
    // The name written after the folder is the one the path has (unnamedChunkPath: the id's hex and `.bin`).
    if (path.length - cut !== UNNAMED_NAME_SIZE || !path.endsWith('.bin')) return undefined;
    return (this.typeDirBytes[type] = Buffer.from(path.slice(0, cut), 'utf8'));
  }

  /**
   * Makes `toc`'s tables the ones targetBytes reads (`names` undefined: it has no stored names, nothing goes as
   * bytes), taken once per TOC rather than through ChunkPaths' accessors per chunk.
   */
  private bytesFor(toc: IoStoreToc): void {
    // May throw (a broken index), as each chunk's path would: nothing is changed then.
    const paths = toc.chunkPaths;
    this.bytesOf = toc;
    // Kept per TOC: folders are a TOC's, and type names depend on its version (chunkTypeName).
    let kept = (this.dirsByToc ??= new Map()).get(toc);
    if (kept === undefined) {
      // At full length: reading past an array's end deoptimized this (optimized code met a folder first seen later).
      kept = { folders: new Array<Uint8Array | undefined>(paths?.folderCount ?? 0).fill(undefined), types: new Array<Uint8Array | undefined>(256).fill(undefined) };
      this.dirsByToc.set(toc, kept);
    }
    this.dirBytes = kept.folders;
    this.typeDirBytes = kept.types;
    const names = paths?.storedNames;
    const tables = paths?.tables;
    this.names = tables?.nameStarts ? names : undefined;
    this.folderOf = tables?.folderOf ?? NO_INTS;
    this.nameOf = tables?.nameOf ?? NO_INTS;
    this.nameStarts = tables?.nameStarts ?? NO_INTS;
  }

  /** Folder f's checked output path and a separator as UTF-8, kept; undefined (not kept) if it fails its check. */
  private folderBytes(toc: IoStoreToc, f: number): Uint8Array | undefined {
    let dir: string;
    try {
      dir = this.outputFolder(toc, f);
    } catch {
      return undefined;
    }
    return (this.dirBytes[f] = Buffer.from(`${dir}${sep}`, 'utf8'));
  }

  /** The path targetBytes last gave (its bytes at the start), and the folders' bytes of the TOC last asked for and by TOC. */
  private pathBytes: Buffer = Buffer.alloc(1024);
  private pathDir: Uint8Array | undefined;
  private pathViews = noViews(this.pathBytes);
  private dirBytes: Array<Uint8Array | undefined> = [];
  private bytesOf: IoStoreToc | undefined;
  /** The tables of `bytesOf` that targetBytes reads (see ChunkPaths.tables and storedNames). */
  private names: Uint8Array | undefined;
  private folderOf: Int32Array = NO_INTS;
  private nameOf: Int32Array = NO_INTS;
  private nameStarts: Int32Array = NO_INTS;
  /** The checked folders of unnamed chunks (and a separator) as UTF-8, by chunk type, of `bytesOf`. */
  private typeDirBytes: Array<Uint8Array | undefined> = [];
  /** Both kinds of checked folders' bytes, by TOC. */
  private dirsByToc: Map<IoStoreToc, { folders: Array<Uint8Array | undefined>; types: Array<Uint8Array | undefined> }> | undefined;

  /**
   * Chunk i's own output path below the root: a named chunk's folder is checked and resolved once (a game's chunks
   * lie in a few hundred folders), then each file is its folder and its name, with no path string made to be cut.
   */
  private ownTarget(toc: IoStoreToc, i: number): string {
    const paths = toc.chunkPaths;
    const f = paths ? paths.folder(i) : -1;
    if (f < 0) return safeOutputPath(this.d.root, chunkOutputPath(toc, i));
    const prefix = paths!.folderPath(f);
    const name = paths!.name(i)!;
    const dir = this.outputFolder(toc, f, name);
    return this.safe!.file(dir, name, prefix);
  }

  /** Folder f's checked output folder (`name`: a file in it, for the error message of a folder that fails). */
  private outputFolder(toc: IoStoreToc, f: number, name = ''): string {
    this.safe ??= new SafeOutputFolders(this.d.root);
    if (this.foldersOf !== toc) {
      this.foldersOf = toc;
      this.folders = (this.byToc ??= new Map()).get(toc) ?? [];
      this.byToc.set(toc, this.folders);
    }
    const prefix = toc.chunkPaths!.folderPath(f);
    // A folder that fails its check is not kept: each of its files fails with its own path.
    return (this.folders[f] ??= this.safe.folder(prefix === '' ? '' : prefix.slice(0, -1), prefix + name));
  }

  private safe: SafeOutputFolders | undefined;
  /** Output folders by directory-index folder (ChunkPaths.folder), of the TOC last asked for and by TOC. */
  private folders: Array<string | undefined> = [];
  private foldersOf: IoStoreToc | undefined;
  private byToc: Map<IoStoreToc, Array<string | undefined>> | undefined;
}

/**
 * Counters the threads of one run share (a SharedArrayBuffer, so a worker needs no message to take work). The task
 * list is cut into one segment per thread, each walked front to back by its own thread and, once that is done, by
 * threads that have finished theirs. Threads then work apart (in plan order, mostly in different folders): two
 * threads creating files in one folder contend for its lock, which cost more system time than a second thread saved.
 */
export class LoopCounters {
  /** [tasks done, stop flag, segment count, unused, then per segment: next task, end] */
  readonly ints: Int32Array;
  /** [bytes done] */
  readonly bytes: BigInt64Array;
  /** The segment this thread takes from, and how many it has found empty. */
  private at: number;
  private emptied = 0;
  /** Shared counters for `taskCount` tasks over `threads` threads (the calling one included). */
  static create(taskCount: number, threads: number): SharedArrayBuffer {
    const n = Math.max(1, threads);
    const buffer = new SharedArrayBuffer(8 + 16 + 8 * n);
    const ints = new Int32Array(buffer, 8);
    ints[2] = n;
    for (let s = 0; s < n; s++) {
      ints[4 + 2 * s] = Math.floor((s * taskCount) / n);
      ints[5 + 2 * s] = Math.floor(((s + 1) * taskCount) / n);
    }
    return buffer;
  }
  /** `self`: this thread's segment (0 for the calling thread, 1.. for workers). */
  constructor(readonly buffer: SharedArrayBuffer, self = 0) {
    this.bytes = new BigInt64Array(buffer, 0, 1);
    this.ints = new Int32Array(buffer, 8);
    this.at = self % this.ints[2]!;
  }
  /** The next task for this thread, or -1 when every segment is taken. */
  take(): number {
    const ints = this.ints;
    const n = ints[2]!;
    while (this.emptied < n) {
      const s = this.at;
      const t = Atomics.add(ints, 4 + 2 * s, 1);
      // The move to the next segment is worked out on every call, taken or not: arithmetic first run once this
      // thread's segment is empty has no type feedback, and TurboFan's code of the chunk loop (which inlines this)
      // was thrown away there ("insufficient type feedback"): in a run with a worker, the thread done first took the
      // other's chunks in the unoptimized loop, or paid a second compile of it on the other core (issue 28y).
      const empty = t < ints[5 + 2 * s]! ? 0 : 1;
      this.at = (s + empty) % n;
      this.emptied += empty;
      if (empty === 0) return t;
    }
    return -1;
  }
  finished(bytes: number): void {
    Atomics.add(this.bytes, 0, BigInt(bytes));
    Atomics.add(this.ints, 0, 1);
  }
  get done(): number {
    return Atomics.load(this.ints, 0);
  }
  get bytesDone(): number {
    return Number(Atomics.load(this.bytes, 0));
  }
  stop(): void {
    Atomics.store(this.ints, 1, 1);
  }
  get stopped(): boolean {
    return Atomics.load(this.ints, 1) !== 0;
  }
}

/** What one thread's loop did: tasks (by position in the task list) that succeeded, failed, or hashed wrong. */
export interface LoopOutcome {
  /** Tasks done (hash tasks: whether or not the hash matched), by container; and their bytes (written, or hashed). */
  done: number[];
  bytes: number;
  failures: Array<{ task: number; code: string; message: string }>;
  /** Hash tasks whose digest differs from the chunk meta: the position and the digest. */
  mismatches: Array<{ task: number; actual: Uint8Array }>;
}

export interface LoopOptions {
  readers: readonly ContainerReader[];
  tasks: LoopTasks;
  counters: LoopCounters;
  /** Hashers by container (write tasks: check before the rename; hash tasks: compare with the meta). */
  hashers?: ReadonlyArray<ChunkHasher | undefined>;
  /** The calling thread lets its event loop run this often (ms), so progress, timers and signals get through. */
  yieldEveryMs?: number;
  /** Called after each task on this thread (and on each yield) for progress. */
  onTick?: () => void;
  /**
   * Write each file under its final name, removed again if it fails: the targets lie in a staged output folder
   * (StagedFolder), which is renamed into place once whole. Otherwise each file gets a temporary name beside it.
   */
  finalNames?: boolean;
}

/** Stops the loop mid-chunk (an interrupt or another thread's fatal error); never reported as a chunk failure. */
class Stopped extends Error {}

/**
 * Runs tasks until the shared counter passes the end or the run is stopped. Chunk failures (IoStoreError) are
 * collected; any other error stops every thread (through the counters) and is thrown.
 */
export async function runChunkLoop(o: LoopOptions): Promise<LoopOutcome> {
  const out: LoopOutcome = { done: o.readers.map(() => 0), bytes: 0, failures: [], mismatches: [] };
  const { tasks, counters } = o;
  const yieldEvery = o.yieldEveryMs ?? Infinity;
  // Date.now, not performance.now: the latter's first use loads node:perf_hooks (~15 ms of a thread's start).
  const yields = yieldEvery !== Infinity;
  let lastYield = yields ? Date.now() : 0;
  const stopCheck = () => {
    if (counters.stopped || isAborting()) throw new Stopped();
  };
  // Files under their final names, unhashed: a plain path goes to the open as bytes (LoopTasks.targetBytes).
  const byBytes = o.finalNames === true;
  let current = 0;
  const currentTarget = () => tasks.target(current, o.readers[tasks.container(current)]!.toc)!;
  try {
    for (;;) {
      if (counters.stopped || isAborting()) break;
      const t = counters.take();
      if (t < 0) break;
      const container = tasks.container(t);
      const index = tasks.index(t);
      const reader = o.readers[container]!;
      const hasher = o.hashers?.[container];
      let n = 0;
      try {
        current = t;
        const path = byBytes && hasher === undefined ? tasks.targetBytes(t, reader.toc) : undefined;
        n = path === undefined ? -1 : writeChunkAtSync(reader, index, path, stopCheck, currentTarget);
        if (n < 0) {
          // A task under its own path checks it here (as safeOutputPath does): an unsafe one fails as its chunk.
          const target = tasks.target(t, reader.toc);
          if (target !== undefined) {
            n = writeChunkSync(reader, index, target, hasher, stopCheck, o.finalNames);
          } else {
            hashChunkSync(reader, index, hasher!, stopCheck);
            n = reader.toc.chunkSize(index);
            if (!hasher!.matches(reader.toc.chunkHash(index))) out.mismatches.push({ task: t, actual: hasher!.digest() });
          }
        }
        out.done[container]!++;
        out.bytes += n;
      } catch (e) {
        if (e instanceof Stopped) break;
        if (!(e instanceof IoStoreError)) throw e;
        out.failures.push({ task: t, code: e.code, message: e.message });
      }
      counters.finished(reader.toc.chunkSize(index));
      o.onTick?.();
      if (yields && Date.now() - lastYield >= yieldEvery) {
        await new Promise((r) => setImmediate(r));
        lastYield = Date.now();
      }
    }
  } catch (e) {
    counters.stop();
    throw e;
  }
  return out;
}

function hashChunkSync(reader: ContainerReader, i: number, hasher: ChunkHasher, stopCheck: () => void): void {
  hasher.reset();
  reader.eachChunkPieceSync(i, (piece) => hasher.update(piece), stopCheck);
}

/**
 * Writes chunk i to `target` under a temporary name beside it, renamed into place once whole (and, with a hasher,
 * only if the chunk matches its meta hash); with `finalName`, under its own name, removed if it fails (see
 * LoopOptions.finalNames). The pieces of each span read (a stored chunk's bytes: one read of them alone) go out in
 * one write, through callbacks made once per thread (ChunkFile), not per chunk.
 */
export function writeChunkSync(reader: ContainerReader, i: number, target: string, hasher: ChunkHasher | undefined, stopCheck: () => void = () => {}, finalName = false): number {
  ensureDirSync(target);
  const tmp = finalName ? target : tempPathFor(target);
  // Not in tempFilesInFlight (abortWrites): this call blocks from the open to the rename, so an interrupt's handler
  // never runs while the file is in flight on the calling thread, and a worker's set is its own, which nothing reads
  // (a stopped worker removes its file below). Added and removed per chunk, it cost a string hash and a table entry.
  const file = chunkFile;
  try {
    try {
      // A folder removed since this process made it is made again (openForWriteSync).
      file.fd = openForWriteSync(tmp);
    } catch (e) {
      throw ioError(e, target);
    }
    file.start(target, hasher, stopCheck);
    hasher?.reset();
    reader.eachChunkPieceSync(i, file.take, file.flush);
    const written = file.written;
    const fd = file.fd;
    file.fd = -1;
    closeSync(fd);
    if (hasher && !hasher.matches(reader.toc.chunkHash(i))) {
      const expected = reader.toc.chunkHash(i).subarray(0, 20);
      throw new IoStoreError('HASH_MISMATCH', `chunk ${reader.toc.chunkIdHex(i)} hashes to ${toHex(hasher.digest())}, its meta says ${toHex(expected)}`, { file: reader.toc.source });
    }
    if (tmp !== target) {
      try {
        renameSync(tmp, target);
      } catch (e) {
        throw ioError(e, target);
      }
    }
    return written;
  } catch (e) {
    dropFailedFile(tmp);
    throw e;
  }
}

/**
 * Writes chunk i, unhashed, to the file whose path's bytes are `path` (LoopTasks.targetBytes), under that final name
 * (LoopOptions.finalNames), removed if it fails; `shownAs` names it in an error. Returns -1, having written nothing,
 * when the file cannot be created (a folder not made yet, or any error): writeChunkSync then takes the path as text,
 * makes its folder, and fails as it always did.
 */
export function writeChunkAtSync(reader: ContainerReader, i: number, path: Buffer, stopCheck: () => void, shownAs: () => string): number {
  const file = chunkFile;
  try {
    file.fd = openSync(path, WRITE_FLAGS);
  } catch {
    return -1;
  }
  try {
    file.start(shownAs, undefined, stopCheck);
    reader.eachChunkPieceSync(i, file.take, file.flush);
    const fd = file.fd;
    file.fd = -1;
    closeSync(fd);
    return file.written;
  } catch (e) {
    dropFailedFile(path);
    throw e;
  }
}

/** After a failed write: this thread's file closed and removed (one never created, or already gone, is fine). */
function dropFailedFile(path: string | Buffer): void {
  chunkFile.end();
  try {
    unlinkSync(path);
  } catch {
    // never created, or already gone
  }
}

/**
 * The file writeChunkSync is writing on this thread, with the callbacks it gives the reader: made once, so that a
 * chunk costs no closures (150,000 chunks: a few hundred thousand objects less for the young generation).
 */
class ChunkFile {
  fd = -1;
  written = 0;
  /** The file's path, or how to make it (for an error's message only). */
  private target: string | (() => string) = '';
  private hasher: ChunkHasher | undefined;
  private stopCheck: () => void = () => {};
  /**
   * The pieces of the current span, written together at its end: the first `count`. Not emptied by `length = 0`,
   * which gave the array's store back, to be grown again by the next chunk's push (~0.4% of a game's profile).
   */
  private readonly pieces: Uint8Array[] = [];
  private count = 0;

  start(target: string | (() => string), hasher: ChunkHasher | undefined, stopCheck: () => void): void {
    this.target = target;
    this.hasher = hasher;
    this.stopCheck = stopCheck;
    this.written = 0;
    this.count = 0;
  }

  /** Closes the file after a failure (a thrown error leaves it open). */
  end(): void {
    this.release();
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    closeSync(fd);
  }

  /** A piece of the span just read (valid until the span's end: see ContainerReader.eachChunkPieceSync). */
  readonly take = (piece: Uint8Array): void => {
    this.hasher?.update(piece);
    this.pieces[this.count++] = piece;
  };

  /** The span's end: its pieces written in one call (the list kept, not emptied: see `pieces`). */
  readonly flush = (): void => {
    const count = this.count;
    if (count > 0) {
      try {
        this.written += writePiecesSync(this.fd, this.pieces, count);
      } catch (e) {
        throw ioError(e, typeof this.target === 'string' ? this.target : this.target());
      } finally {
        this.release();
      }
    }
    this.stopCheck();
  };

  /** Forgets the span's pieces (views of a reader's buffers, or decoded blocks: not to be held past the chunk). */
  private release(): void {
    for (let k = 0; k < this.count; k++) this.pieces[k] = EMPTY;
    this.count = 0;
  }
}

const EMPTY = new Uint8Array(0);

const chunkFile = new ChunkFile();
