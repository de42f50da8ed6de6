import { embeddedWasm, type WasmMemory } from '../util/wasm.js';
import { TOC_SCAN_WASM_BASE64 } from './toc-scan-wasm.generated.js';

/**
 * The .utoc reader's loops over every chunk, block and name, run by a small WebAssembly module (assembly/toc) over a
 * copy of the section in its memory. Opening a container is most often a short process (`iostore list`, `info`):
 * there V8 ran these loops in its interpreter, ~60M instructions for the 3,000 chunks of the bench's container, where
 * compiled code takes well under 1M. Each function returns where the first problem is; the reader says what it is.
 */

interface ScanWasm {
  memory: WasmMemory;
  base(): number;
  spans(src: number, n: number, offsets: number, lengths: number, blockSize: number, blockCount: number): number;
  firstBadMethod(src: number, count: number, methodCount: number): number;
  firstOversized(src: number, count: number, blockSize: number): number;
  storedTotal(src: number, count: number): number;
  sum(src: number, count: number): number;
  names(table: number, size: number, from: number, pos: number, count: number, starts: number): number;
  at: { value: number };
  walk(
    dirs: number, dirCount: number, files: number, fileCount: number, stringCount: number, chunkCount: number, seen: number, stack: number,
    parents: number, nameOfFolder: number, order: number, folderOfFile: number, chunkFolder: number, chunkName: number,
  ): number;
  walkError: { value: number };
  walkEntry: { value: number };
  walkValue: { value: number };
  folders: { value: number };
}

const newScanWasm = embeddedWasm<ScanWasm>(TOC_SCAN_WASM_BASE64);
/** One instance per thread: its memory, reused by every call, is as large as the largest section it was handed. */
let instance: ScanWasm | undefined;

function scanWasm(): ScanWasm {
  return (instance ??= newScanWasm());
}

/** Room for `n` bytes at the module's base (what the last call placed there is gone); returns the module. */
function room(n: number): ScanWasm {
  const w = scanWasm();
  const need = w.base() + n - w.memory.buffer.byteLength;
  if (need > 0) w.memory.grow(Math.ceil(need / 65536));
  return w;
}

function place(w: ScanWasm, at: number, bytes: ArrayBufferView): void {
  new Uint8Array(w.memory.buffer, at, bytes.byteLength).set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

const align8 = (n: number) => (n + 7) & ~7;

/**
 * Decodes the TOC's chunk offsets and lengths (`n` 10-byte entries: 5-byte big-endian offset, then length) into
 * `offsets` and `lengths`; returns the first chunk whose blocks reach past `blockCount` blocks of `blockSize`, or -1.
 */
export function decodeChunkSpans(entries: Uint8Array, n: number, blockSize: number, blockCount: number, offsets: Float64Array, lengths: Float64Array): number {
  const src = align8(10 * n);
  const w = room(src + 16 * n);
  const base = w.base();
  place(w, base, entries.subarray(0, 10 * n));
  const bad = w.spans(base, n, base + src, base + src + 8 * n, blockSize, blockCount);
  offsets.set(new Float64Array(w.memory.buffer, base + src, n));
  lengths.set(new Float64Array(w.memory.buffer, base + src + 8 * n, n));
  return bad;
}

/** Checks of the block table (12-byte entries): its first block with a method index >= `methodCount`, and its first that decodes to more than `blockSize` (-1: none). */
export function checkBlocks(blocks: Uint8Array, methodCount: number, blockSize: number): { badMethod: number; oversized: number } {
  const count = Math.floor(blocks.length / 12);
  const w = room(12 * count);
  place(w, w.base(), blocks.subarray(0, 12 * count));
  return { badMethod: w.firstBadMethod(w.base(), count, methodCount), oversized: w.firstOversized(w.base(), count, Math.min(blockSize, 0xffffffff)) };
}

/** The stored sizes of a block table's blocks, summed. */
export function blocksStoredTotal(blocks: Uint8Array): number {
  const count = Math.floor(blocks.length / 12);
  const w = room(12 * count);
  place(w, w.base(), blocks.subarray(0, 12 * count));
  return w.storedTotal(w.base(), count);
}

/** The values summed in order (as a loop adding each would). */
export function sumOf(values: Float64Array): number {
  const w = room(8 * values.length);
  place(w, w.base(), values);
  return w.sum(w.base(), values.length);
}

/**
 * Steps over the `count` FStrings of a directory index's string table (`table`: from its first name to the end of
 * the index), writing where each starts into `starts`. A name the module does not take as plain (see
 * assembly/toc `names`) goes to `other(i, pos)`, which checks it (throwing for a bad one) and returns where the next
 * name starts. Returns where the table ends.
 */
export function scanNames(table: Uint8Array, count: number, starts: Int32Array, other: (i: number, pos: number) => number): number {
  const startsAt = align8(table.length);
  const w = room(startsAt + 4 * count);
  const base = w.base();
  place(w, base, table);
  let i = 0;
  let pos = 0;
  for (;;) {
    i = w.names(base, table.length, i, pos, count, base + startsAt);
    if (i >= count) break;
    const at = w.at.value;
    pos = other(i, at);
    new Int32Array(w.memory.buffer, base + startsAt, count)[i] = at;
    i++;
  }
  starts.set(new Int32Array(w.memory.buffer, base + startsAt, count));
  return w.at.value;
}

/** A directory index walked from its root (walkIndex): the files it reaches, in the engine's order, and their folders. */
export interface IndexWalk {
  /** File entries reached, in order, and the folder of each. */
  order: Int32Array;
  folderOfFile: Int32Array;
  /** Per folder reached (0: the root): its parent folder and its name's number in the string table (-1 for the root). */
  parents: Int32Array;
  folderNames: Int32Array;
  /** Per chunk: its folder (-1: no file names it) and its name's number (a chunk named twice: the later file's). */
  chunkFolder: Int32Array;
  chunkName: Int32Array;
}

/** Why a walk stopped: see assembly/toc `walk` (FILE_OUT_OF_RANGE = 1 ... DIR_NAME = 7), the entry and the value. */
export interface IndexWalkError {
  error: number;
  entry: number;
  value: number;
}

/**
 * Walks a directory index (4 u32 per directory, 3 per file) from its root, depth first, checking each entry as it is
 * reached (in range, reached once, its chunk and name in range): nothing here can run forever.
 */
export function walkIndex(dirs: Uint32Array, files: Uint32Array, stringCount: number, chunkCount: number): IndexWalk | IndexWalkError {
  const dirCount = dirs.length >>> 2;
  const fileCount = Math.floor(files.length / 3);
  const at: number[] = [];
  let size = 0;
  for (const n of [16 * dirCount, 12 * fileCount, dirCount + fileCount, 8 * dirCount, 4 * dirCount, 4 * dirCount, 4 * fileCount, 4 * fileCount, 4 * chunkCount, 4 * chunkCount]) {
    at.push(size);
    size = align8(size + n);
  }
  const w = room(size);
  const base = w.base();
  const mem = () => new Uint8Array(w.memory.buffer, base, size);
  place(w, base + at[0]!, dirs.subarray(0, 4 * dirCount));
  place(w, base + at[1]!, files.subarray(0, 3 * fileCount));
  mem().fill(0, at[2]!, at[2]! + dirCount + fileCount);
  mem().fill(0xff, at[8]!, at[8]! + 4 * chunkCount);
  const a = (k: number) => base + at[k]!;
  const reached = w.walk(a(0), dirCount, a(1), fileCount, stringCount, chunkCount, a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9));
  if (reached < 0) return { error: w.walkError.value, entry: w.walkEntry.value >>> 0, value: w.walkValue.value >>> 0 };
  const i32s = (k: number, n: number) => new Int32Array(w.memory.buffer, a(k), n).slice();
  const folders = w.folders.value;
  return { order: i32s(6, reached), folderOfFile: i32s(7, reached), parents: i32s(4, folders), folderNames: i32s(5, folders), chunkFolder: i32s(8, chunkCount), chunkName: i32s(9, chunkCount) };
}
