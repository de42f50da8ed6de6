import { unlinkSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { IoStoreError } from '../errors.js';
import { abortHooks, tempFilesInFlight, tempPathFor } from '../layout/output.js';
import { newWorker, runnableUrl } from '../util/worker-pool.js';
import { writeGroupSync, type FileToWrite, type WriteReply, type WriteRequest } from './file-writer-worker.js';

/**
 * Below this many files a writer thread costs more to start (10-20 ms cold) than it saves: the files are written
 * with blocking calls on the calling thread even when a thread was asked for.
 */
export const WRITER_THREAD_MIN_FILES = 48;
/** Bytes handed to the writer thread and not yet written, at most (the converter waits above it). */
const MAX_IN_FLIGHT = 64 << 20;
/**
 * Groups sent to the writer thread in one message: a message costs more than copying a small file, and buffers
 * handed over one message at a time cost more than in batches (measured: 200 packages, 15-35 ms one by one, 2 ms
 * in batches of 8).
 */
const BATCH_GROUPS = 8;
const BATCH_BYTES = 1 << 20;

/**
 * Whether a run writing `files` files gets a writer thread: only when asked for (`threads` 1 or more), with more
 * than one core and enough files. Not by default: on the corpus containers (~200 files) the thread measured no
 * faster than blocking calls on the converting thread, warm or cold (ue5.8, 10:10 UTC, load 2-4 on 2 cores:
 * 346/360 ms with it against 334/326 ms without, warm medians). Non-blocking calls through libuv's pool from the
 * converting thread were tried too (session 5): no faster either, as each call's round trip costs ~20 us of this
 * thread's time, and a package's files go to one folder, whose creates the file system runs one at a time anyway.
 */
export function useWriterThread(files: number, threads: number | undefined): boolean {
  if (threads === undefined || threads === 0) return false;
  return availableParallelism() > 1 && files >= WRITER_THREAD_MIN_FILES;
}

/**
 * Writes groups of whole files atomically (each under a temporary name beside it, renamed once complete; or, in a
 * staged output folder, under its final name, removed with the rest of its group if one fails). With a
 * thread, the file system's per-file work (create, write, rename: most of a small package's cost) runs beside the
 * conversion instead of after it; without one, with blocking calls, which for small files cost less than a round
 * trip through the libuv pool. Paths must already be checked (`safeOutputPath`).
 */
export class FileWriter {
  private worker: Worker | undefined;
  private readonly dirs = new Set<string>();
  private readonly waiting = new Map<number, { resolve: (n: number) => void; reject: (e: unknown) => void; bytes: number; temps: string[] }>();
  private batch: WriteRequest[] = [];
  private batchTransfer: ArrayBuffer[] = [];
  private batchBytes = 0;
  private inFlight = 0;
  private wake: (() => void) | undefined;
  private broken: Error | undefined;
  /** Temporary files of writes the thread never reported (it failed or was stopped): removed at close. */
  private readonly orphans: string[] = [];
  private readonly stop = () => this.close();

  /** `finalNames`: the paths lie in a staged output folder (StagedFolder), where no file needs a temporary name. */
  constructor(thread: boolean, private readonly finalNames = false) {
    if (!thread) return;
    // One writer thread serves every run of this process in turn: a fresh thread per run would start cold (its
    // code unoptimized) every time. It holds the process open only while a run uses it.
    shared ??= startSharedWriter();
    shared.users.add(this);
    shared.worker.ref();
    this.worker = shared.worker;
    this.run = ++runCounter;
    abortHooks.add(this.stop);
  }

  private run = 0;

  /** Replies of the shared thread, routed here by `startSharedWriter`. */
  owns(id: number): boolean {
    return this.waiting.has(id);
  }

  get threaded(): boolean {
    return this.worker !== undefined;
  }

  /** Writes the files of one group (all or none get their final names); resolves with the bytes written. */
  write(files: ReadonlyArray<{ path: string; pieces: Uint8Array[] }>): Promise<number> {
    const group: FileToWrite[] = files.map((f) => ({ path: f.path, tmp: this.finalNames ? f.path : tempPathFor(f.path), pieces: f.pieces }));
    const temps = group.map((f) => f.tmp);
    // Registered on this thread: after an interrupt the writer is stopped first, then these are removed.
    for (const t of temps) tempFilesInFlight.add(t);
    if (!this.worker) {
      const r = writeGroupSync(group, this.dirs);
      for (const t of temps) tempFilesInFlight.delete(t);
      return 'error' in r ? Promise.reject(new IoStoreError(r.error.code, r.error.message, { file: r.error.file })) : Promise.resolve(r.bytes);
    }
    if (this.broken) return Promise.reject(this.broken);
    const id = nextId++;
    let bytes = 0;
    const transfer = this.batchTransfer;
    for (const f of group) {
      f.pieces = f.pieces.map((p) => {
        bytes += p.length;
        // A view of part of a larger buffer would be copied whole: send a copy of the view alone.
        if (p.byteOffset !== 0 || p.byteLength !== p.buffer.byteLength || !(p.buffer instanceof ArrayBuffer)) return p.slice();
        if (!transfer.includes(p.buffer)) transfer.push(p.buffer);
        return p;
      });
    }
    this.inFlight += bytes;
    this.batchBytes += bytes;
    const done = new Promise<number>((resolve, reject) => this.waiting.set(id, { resolve, reject, bytes, temps }));
    this.batch.push({ id, run: this.run, files: group });
    if (this.batch.length >= BATCH_GROUPS || this.batchBytes >= BATCH_BYTES) this.flush();
    return done;
  }

  /** Hands the groups gathered so far to the writer thread (call before waiting for their writes). */
  flush(): void {
    if (!this.worker || this.batch.length === 0 || this.broken) return;
    this.worker.postMessage(this.batch, this.batchTransfer);
    this.batch = [];
    this.batchTransfer = [];
    this.batchBytes = 0;
  }

  /** Waits while too many bytes are queued for the writer thread. */
  async room(): Promise<void> {
    if (this.inFlight > MAX_IN_FLIGHT) this.flush();
    while (this.worker && !this.broken && this.inFlight > MAX_IN_FLIGHT) await new Promise<void>((r) => (this.wake = r));
  }

  settle(m: WriteReply): void {
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    this.done(w);
    if ('error' in m) w.reject(new IoStoreError(m.error.code, m.error.message, { file: m.error.file }));
    else w.resolve(m.bytes);
  }

  private done(w: { bytes: number; temps: string[] }): void {
    for (const t of w.temps) tempFilesInFlight.delete(t);
    this.inFlight -= w.bytes;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  fail(e: Error): void {
    this.broken ??= e instanceof IoStoreError ? e : new IoStoreError('IO', `the writer thread failed: ${e.message}`);
    this.batch = [];
    this.batchTransfer = [];
    for (const w of this.waiting.values()) {
      // Its temporary files stay registered until close removes them (or an interrupt's cleanup does).
      this.orphans.push(...w.temps);
      this.inFlight -= w.bytes;
      w.reject(this.broken);
    }
    this.waiting.clear();
    this.wake?.();
  }

  /** Stops the writer thread; writes not yet reported fail, and their temporary files are removed. */
  async close(): Promise<void> {
    abortHooks.delete(this.stop);
    const w = this.worker;
    if (!w) return;
    const healthy = !this.broken && this.waiting.size === 0;
    this.fail(new IoStoreError('IO', 'the writer thread was stopped'));
    const s = shared;
    if (s && s.worker === w) {
      s.users.delete(this);
      if (healthy && s.users.size === 0) {
        // Idle and kept for the next run, without holding the process open.
        w.unref();
        return;
      }
      if (!healthy) shared = undefined;
    }
    if (!healthy) await w.terminate();
    for (const t of this.orphans.splice(0)) {
      try {
        unlinkSync(t);
      } catch {
        // never created, or renamed before the thread stopped
      }
      tempFilesInFlight.delete(t);
    }
  }
}

let nextId = 0;
let runCounter = 0;
let shared: { worker: Worker; users: Set<FileWriter> } | undefined;

function startSharedWriter(): { worker: Worker; users: Set<FileWriter> } {
  const worker = newWorker(runnableUrl('./file-writer-worker.js', import.meta.url), { workerData: { iostoreFileWriter: true }, execArgv: [] });
  const s = { worker, users: new Set<FileWriter>() };
  worker.on('message', (replies: WriteReply[]) => {
    for (const m of replies) for (const u of s.users) if (u.owns(m.id)) u.settle(m);
  });
  const broken = (e: Error) => {
    if (shared === s) shared = undefined;
    for (const u of s.users) u.fail(e);
  };
  worker.on('error', broken);
  worker.on('exit', (code) => broken(new Error(`the writer thread stopped (exit code ${code})`)));
  return s;
}
