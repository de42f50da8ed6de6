// The bench's Node floor (issue 14): the least a Node process can do to unpack or check the bench container. It
// gets the work as a ready plan (see writeNodeFloorPlan in bench-side.mjs: no TOC to parse, no paths to check, no
// manifest) and does only the system calls and the inflating, on the main thread and on one worker thread started
// first thing, which take chunks from one shared counter. What it takes, whole process, is a bound no Node program
// can go below on the machine measured; set beside retoc's time, it says how far the goals are reachable
// from Node at all.
// Usage: node node-floor.mjs <plan.json> <unpack|verify> [outdir]
//   unpack: every chunk read (and inflated where its blocks are compressed) and written to a file of its own;
//   verify: every chunk read, inflated and hashed (BLAKE3, with the native addon the toolkit uses), nothing written.
import { closeSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import { constants, createInflate } from 'node:zlib';

const args = isMainThread ? { plan: process.argv[2], mode: process.argv[3], outdir: process.argv[4], counter: new Int32Array(new SharedArrayBuffer(4)) } : workerData;
const worker = isMainThread ? new Worker(new URL(import.meta.url), { workerData: args }) : undefined;

/** @type {{ ucas: string, blockSize: number, chunks: Array<[string, number, number, number[]]> }} */
const plan = JSON.parse(readFileSync(args.plan, 'utf8'));
const ucas = openSync(plan.ucas, 'r');
// One inflate stream per thread, reset between blocks, writing into the chunk's buffer (as the toolkit does).
const stream = createInflate();
const handle = stream._handle;
const state = stream._writeState;
// Reads and inflates go through windows of at most WINDOW bytes, as the toolkit's loop does: memory stays flat.
const WINDOW = 2 << 20;
const span = Buffer.allocUnsafe(WINDOW);
const out = Buffer.allocUnsafe(WINDOW);
const dirs = new Set();
const hasher = args.mode === 'verify' ? new (createRequire(import.meta.url)('@napi-rs/blake-hash-linux-x64-gnu').Blake3Hasher)() : undefined;
for (let k = Atomics.add(args.counter, 0, 1); k < plan.chunks.length; k = Atomics.add(args.counter, 0, 1)) {
  // [path, length, offset in the first block, blocks as (offset, stored size, size, method) quadruples]
  const [path, length, skip, blocks] = plan.chunks[k];
  let fd = -1;
  if (args.mode === 'unpack') {
    const target = `${args.outdir}/${path}`;
    const dir = target.slice(0, target.lastIndexOf('/'));
    if (!dirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      dirs.add(dir);
    }
    fd = openSync(target, 'w');
  }
  // Runs of blocks whose stored bytes and sizes each fit a window: one read, then a write of the chunk's part.
  for (let b = 0, raw = 0; b < blocks.length; ) {
    let e = b;
    let stored = 0;
    let size = 0;
    while (e < blocks.length && (e === b || (stored + blocks[e + 1] <= WINDOW && size + blocks[e + 2] <= WINDOW))) {
      stored = blocks[e] + blocks[e + 1] - blocks[b];
      size += blocks[e + 2];
      e += 4;
    }
    readSync(ucas, span, 0, stored, blocks[b]);
    let data = span;
    if (blocks.some((m, i) => i >= b && i < e && i % 4 === 3 && m !== 0)) {
      for (let i = b, at = 0; i < e; at += blocks[i + 2], i += 4) {
        const from = blocks[i] - blocks[b];
        if (blocks[i + 3] === 0) span.copy(out, at, from, from + blocks[i + 2]);
        else {
          handle.reset();
          handle.writeSync(constants.Z_FINISH, span, from, blocks[i + 1], out, at, blocks[i + 2]);
          if (state[0] !== 0) throw new Error(`${path}: block ${i / 4} did not inflate whole`);
        }
      }
      data = out;
    }
    const from = Math.max(skip, raw);
    const to = Math.min(skip + length, raw + size);
    if (fd >= 0 && to > from) writeSync(fd, data, from - raw, to - from);
    if (hasher && to > from) hasher.update(data.subarray(from - raw, to - raw));
    raw += size;
    b = e;
  }
  if (fd >= 0) closeSync(fd);
  if (hasher) {
    hasher.digestBuffer();
    hasher.reset();
  }
}
if (worker) await new Promise((done) => worker.once('exit', done));
