// The segments of a stored copy (see stored-copy.ts), shared by the threads copying them: each thread claims the
// next segment not yet taken, so no thread waits for another to hand it work, and the calling thread can do other
// work (the TOC's layout) while the workers copy, then join them.
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { IoStoreError } from '../errors.js';
import { eventLoopTurns } from '../util/turns.js';
import { SEGMENT_HASH_SIZE, type StoredSegment } from './stored-segment.js';

/** Words of a feed's control array. */
const CLAIMED = 0;
const PUBLISHED = 1;
const CLOSED = 2;
/** 1: interrupted or another thread failed; every thread stops between files. */
const STOP = 3;
const CONTROL_WORDS = 4;

/** What the threads share, in SharedArrayBuffers made once for the copy's files. */
export interface FeedShared {
  control: Int32Array;
  /** Per segment: its first file (in the copy's order) and its file count. */
  segmentFirst: Int32Array;
  segmentFiles: Int32Array;
  /** Per segment: 1 once copied. */
  done: Uint8Array;
  /** Per file: its size when the folder was read, where its stored bytes go, and its hash once copied. */
  sizes: Float64Array;
  positions: Float64Array;
  hashes: Uint8Array;
}

/** Where a feed's segments are written. */
export interface FeedTarget {
  fd: number;
  shownAs: string;
  blockSize: number;
}

/** The files of published segments, as the calling thread posts them (paths are strings: no shared memory for them). */
interface FeedBatch {
  first: number;
  files: string[];
}

/** How many segments the calling thread publishes at once (one message to each worker). */
const BATCH_SEGMENTS = 8;

function shared<T>(make: (b: SharedArrayBuffer) => T, bytes: number): T {
  return make(new SharedArrayBuffer(Math.max(8, bytes)));
}

/** The calling thread's side: publishes segments, claims some itself, tells when each is copied. */
export class SegmentFeed {
  readonly shared: FeedShared;
  /** Segments published, and the files of each until copied (the calling thread may claim any of them). */
  private segments = 0;
  private readonly files: Array<string | undefined> = [];
  private batch: string[] = [];
  private batchFirst = 0;
  private readonly ports: MessagePort[] = [];

  /** For `files` files at most (a segment holds one or more). */
  constructor(files: number) {
    this.shared = {
      control: shared((b) => new Int32Array(b), CONTROL_WORDS * 4),
      segmentFirst: shared((b) => new Int32Array(b), files * 4),
      segmentFiles: shared((b) => new Int32Array(b), files * 4),
      done: shared((b) => new Uint8Array(b), files),
      sizes: shared((b) => new Float64Array(b), files * 8),
      positions: shared((b) => new Float64Array(b), files * 8),
      hashes: shared((b) => new Uint8Array(b), files * SEGMENT_HASH_SIZE),
    };
  }

  /** A worker's port: it is sent every segment's files from now on. */
  connect(port: MessagePort): void {
    this.ports.push(port);
  }

  get published(): number {
    return this.segments;
  }

  /** Segments claimed by any thread (may run past those published). */
  get claimed(): number {
    return Atomics.load(this.shared.control, CLAIMED);
  }

  /** Publishes the next segment: files first..first+count-1 (sizes and positions already set), named by `files` (NUL-separated). */
  publish(first: number, count: number, files: string): void {
    const k = this.segments++;
    this.shared.segmentFirst[k] = first;
    this.shared.segmentFiles[k] = count;
    this.files[k] = files;
    this.batch.push(files);
    if (this.batch.length >= BATCH_SEGMENTS) this.post();
  }

  /** Sends the segments not yet sent, then lets the workers take them. */
  private post(): void {
    if (this.batch.length === 0) return;
    const m: FeedBatch = { first: this.batchFirst, files: this.batch };
    for (const p of this.ports) p.postMessage(m);
    this.batchFirst += this.batch.length;
    this.batch = [];
    // After the messages: a worker that sees the count finds their files waiting (see takeFiles).
    Atomics.store(this.shared.control, PUBLISHED, this.batchFirst);
    Atomics.notify(this.shared.control, PUBLISHED);
  }

  /** Every segment is published: workers stop once none is left to claim. */
  close(): void {
    this.post();
    Atomics.store(this.shared.control, CLOSED, 1);
    Atomics.notify(this.shared.control, PUBLISHED);
  }

  /** Makes every thread stop between files. */
  stop(): void {
    Atomics.store(this.shared.control, STOP, 1);
    Atomics.notify(this.shared.control, PUBLISHED);
  }

  get stopped(): boolean {
    return Atomics.load(this.shared.control, STOP) !== 0;
  }

  /** The next published segment for this thread, or undefined when every published one is claimed. */
  claim(target: FeedTarget): { index: number; segment: StoredSegment } | undefined {
    if (this.stopped) return undefined;
    // Only a published segment: a worker may claim one ahead and wait for it, this thread must not.
    let k = Atomics.load(this.shared.control, CLAIMED);
    for (;;) {
      if (k >= this.segments) return undefined;
      const seen = Atomics.compareExchange(this.shared.control, CLAIMED, k, k + 1);
      if (seen === k) break;
      k = seen;
    }
    const segment = segmentAt(this.shared, target, k, this.files[k]!);
    this.files[k] = undefined;
    return { index: k, segment };
  }

  /** Marks a segment this thread copied. */
  copied(k: number): void {
    this.files[k] = undefined;
    Atomics.store(this.shared.done, k, 1);
  }

  isDone(k: number): boolean {
    if (Atomics.load(this.shared.done, k) === 0) return false;
    this.files[k] = undefined;
    return true;
  }
}

function segmentAt(f: FeedShared, target: FeedTarget, k: number, files: string): StoredSegment {
  const first = f.segmentFirst[k]!;
  const end = first + f.segmentFiles[k]!;
  return { ...target, files, sizes: f.sizes.subarray(first, end), positions: f.positions.subarray(first, end) };
}

/**
 * A worker's side: claims segments until every one is claimed (after the feed is closed), copying each with `copy`
 * into the shared hashes; stops with an error when the feed is stopped. Returns how many it copied.
 */
export async function copyFromFeed(f: FeedShared, port: MessagePort, target: FeedTarget, copy: (segment: StoredSegment, hashes: Uint8Array, stopped: () => void) => void): Promise<number> {
  const files: Array<string | undefined> = [];
  let received = 0;
  let copied = 0;
  let low = 0;
  const stopped = () => {
    if (Atomics.load(f.control, STOP) !== 0) throw new IoStoreError('IO', 'interrupted');
  };
  // The thread's event loop gets a turn now and then, for V8's own tasks.
  const turn = eventLoopTurns();
  try {
    for (;;) {
      await turn();
      stopped();
      const k = Atomics.add(f.control, CLAIMED, 1);
      if (!waitPublished(f, k)) return copied;
      // Segments before k were claimed already (by this thread or another): their files are not needed here.
      while (received <= k) received = takeFiles(port, files, received);
      const names = files[k]!;
      for (; low <= k; low++) files[low] = undefined;
      const segment = segmentAt(f, target, k, names);
      const first = f.segmentFirst[k]!;
      copy(segment, f.hashes.subarray(first * SEGMENT_HASH_SIZE, (first + f.segmentFiles[k]!) * SEGMENT_HASH_SIZE), stopped);
      Atomics.store(f.done, k, 1);
      copied++;
    }
  } catch (e) {
    // The other threads stop too: the copy has failed.
    Atomics.store(f.control, STOP, 1);
    Atomics.notify(f.control, PUBLISHED);
    throw e;
  }
}

/** Waits until segment k is published (true) or the feed is closed without it (false). */
function waitPublished(f: FeedShared, k: number): boolean {
  for (;;) {
    const published = Atomics.load(f.control, PUBLISHED);
    if (k < published) return true;
    if (Atomics.load(f.control, STOP) !== 0) throw new IoStoreError('IO', 'interrupted');
    // Closed after its last publish: the count read again decides.
    if (Atomics.load(f.control, CLOSED) !== 0) return k < Atomics.load(f.control, PUBLISHED);
    Atomics.wait(f.control, PUBLISHED, published, 50);
  }
}

/** Takes the next batch of segment files from the port (posted before their count was published); returns the count received. */
function takeFiles(port: MessagePort, files: Array<string | undefined>, received: number): number {
  for (let tries = 0; ; tries++) {
    const m = receiveMessageOnPort(port)?.message as FeedBatch | undefined;
    if (m) {
      m.files.forEach((s, j) => (files[m.first + j] = s));
      return m.first + m.files.length;
    }
    if (tries > 1000) throw new IoStoreError('IO', `a copy worker got no file names for segment ${received}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
  }
}
