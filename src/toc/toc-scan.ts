import { embeddedWasm, wasmApi, type WasmMemory } from '../util/wasm.js';
import { TOC_SCAN_WASM_BASE64 } from './toc-scan-wasm.generated.js';

/**
 * The .utoc reader's loops over every chunk, block and name, run by a small WebAssembly module (assembly/toc) over a
 * copy of the section in its memory. Opening a container is most often a short process (`iostore list`, `info`):
 * there V8 ran these loops in its interpreter, ~60M instructions for the 3,000 chunks of the bench's container, where
 * compiled code takes well under 1M. Each function returns where the first problem is; the reader says what it is.
 */

export interface ScanWasm {
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
  ucasOrder(offsets: number, lengths: number, n: number, blocks: number, blockSize: number, blockCount: number, firstBlock: number, chunkAt: number, order: number): number;
  blockAlignment(order: number, n: number, offsets: number, lengths: number, blocks: number, blockCount: number, blockSize: number, partSize: number, candidates: number, candidateCount: number, pos: number): number;
  walkEntry: { value: number };
  walkValue: { value: number };
  folders: { value: number };
  namesDistinct(folderOf: number, nameOf: number, n: number, starts: number, startCount: number, names: number, size: number, slots: number, mask: number): number;
  namedChunks: { value: number };
  idsDistinct(ids: number, n: number, folderOf: number, slots: number, mask: number): number;
}

const newScanWasm = embeddedWasm<ScanWasm>(TOC_SCAN_WASM_BASE64, { importsMemory: true });
/** Makes the instance that scans an arena's .utoc (tocBytesInModule): the TOC loops' own module, or scanArenasWith's. */
let newArenaWasm: (memory: WasmMemory) => ScanWasm = newScanWasm;

/**
 * Scans the arenas made from now on (tocBytesInModule) with instances of another module that holds the TOC loops'
 * exports (assembly/toc) and more: a caller that then runs code of its own over the same arena (`iostore list`'s
 * rows, src/cli/chunk-rows.ts) takes the arena's instance (TocArena.scan) and compiles no module of its own.
 * Returns what puts the module before back.
 */
export function scanArenasWith(newInstance: (memory: WasmMemory) => ScanWasm): () => void {
  const before = newArenaWasm;
  newArenaWasm = newInstance;
  return () => {
    newArenaWasm = before;
  };
}

/**
 * The TOC loops' module, compiled now on this thread (undefined without WebAssembly): for a worker thread that will
 * read the same TOCs (`adoptTocLoops`). `new WebAssembly.Module` runs V8's validation as jobs on its platform
 * threads and joins them: compiled while a worker boots on 2 cores, a compile waited 2-9 ms for a platform thread
 * that had no core in half of the bench's short unpacks, against ~0.2-0.4 ms. Compiled once, before the worker starts,
 * and shared, neither thread waits.
 */
export function tocLoopsModule(): object | undefined {
  try {
    return newScanWasm.module();
  } catch {
    // no WebAssembly, or the module refused: the reader's own fallback says so where it matters
    return undefined;
  }
}

/** Takes the TOC loops' module compiled by another thread (`tocLoopsModule`) instead of compiling it here. */
export function adoptTocLoops(module: object): void {
  newScanWasm.adopt(module);
}

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

/**
 * A .utoc read into a WebAssembly memory of its own (`tocBytesInModule`), which the TOC scan and the list rows
 * (src/cli/chunk-rows.ts) read where the bytes lie: no copy of a section, of the chunk ids, metas or names, per module.
 * The memory is made as large as all of that could need (`reserve`) and never grows: growing would detach every view
 * of it the reader has handed out. Pages are only address space until written (RSS counts what is touched). Room is
 * taken from `top` up: `kept` (the chunk offsets and lengths, views of which the TOC keeps), then scratch that each
 * user gives back (`release`). Where a request does not fit, the caller does as without an arena (copies).
 */
export class TocArena {
  /** Where the .utoc's bytes start. */
  readonly start: number;
  private top: number;
  /** The most room ever taken (the end of the pages written): a measure of the arena's resident memory. */
  highest: number;
  constructor(
    readonly memory: WasmMemory,
    readonly scan: ScanWasm,
    size: number,
  ) {
    this.start = scan.base();
    this.top = align8(this.start + size);
    this.kept = this.top;
    this.highest = this.top;
  }
  /** The end of the last room taken to `keep`: no release goes below it. */
  private kept: number;
  /** Where `n` bytes of room start (8-byte aligned), or -1 when they do not fit; `keep`: for the TOC's life. */
  take(n: number, keep = false): number {
    const at = this.top;
    if (at + n > this.memory.buffer.byteLength) return -1;
    this.top = align8(at + n);
    if (keep) this.kept = this.top;
    if (this.top > this.highest) this.highest = this.top;
    return at;
  }
  /** The room taken since `mark` (a `take`'s result or `mark`), given back: all but what was kept since. */
  release(mark: number): void {
    const to = Math.max(mark, this.kept);
    if (to < this.top) this.top = to;
  }
  get mark(): number {
    return this.top;
  }
  /** Whether `n` more bytes of room fit. */
  fits(n: number): boolean {
    return this.top + n <= this.memory.buffer.byteLength;
  }
  /** Where `view` lies in this memory, or -1 if elsewhere. */
  addressOf(view: ArrayBufferView): number {
    return view.buffer === this.memory.buffer ? view.byteOffset : -1;
  }
}

const arenas = new WeakMap<object, TocArena>();

/** The arena `view` lies in, if any. */
export function arenaOf(view: ArrayBufferView | undefined | null): TocArena | undefined {
  return view ? arenas.get(view.buffer) : undefined;
}

/** 64 KiB pages a wasm32 memory can have. */
const MAX_PAGES = 65536;

/**
 * A zeroed view of `size` bytes in a new TocArena, for a .utoc's bytes; undefined where WebAssembly or the memory is
 * not to be had (then the caller takes an ArrayBuffer). The room past the bytes is for what the scan and a listing
 * take (the chunk spans, the index's entries, the walk's and the listing's tables): 0.53x the size at 150,000 chunks
 * (7.9 MB past 15.0 MB), 1.3x at 5,370; room for 3x and 4 MiB is made. Where that is short, they copy as without it.
 */
export function tocBytesInModule(size: number): Uint8Array | undefined {
  try {
    const memory = newScanMemory(size);
    if (!memory) return undefined;
    const scan = newArenaWasm(memory);
    const arena = new TocArena(memory, scan, size);
    if (arena.start + size > memory.buffer.byteLength) return undefined;
    arenas.set(memory.buffer, arena);
    return new Uint8Array(memory.buffer, arena.start, size);
  } catch {
    return undefined;
  }
}

function newScanMemory(size: number): WasmMemory | undefined {
  if (!wasmApi) return undefined;
  const pages = Math.min(MAX_PAGES, Math.ceil((65536 + 4 * size + (4 << 20)) / 65536));
  return new wasmApi.Memory({ initial: pages });
}

const align8 = (n: number) => (n + 7) & ~7;

/** Room for `n` bytes of scratch: in `arena` where it fits, else at the base of the thread's own instance. */
function scratch(arena: TocArena | undefined, n: number): { w: ScanWasm; at: number; done(): void } {
  const at = arena ? arena.take(n) : -1;
  if (at >= 0) return { w: arena!.scan, at, done: () => arena!.release(at) };
  const w = room(n);
  return { w, at: w.base(), done: () => {} };
}

/** The module memory `views` all lie in (where they are read in place), if one does. */
function inPlace(...views: ArrayBufferView[]): TocArena | undefined {
  const arena = arenaOf(views[0]);
  return arena && views.every((v) => arena.addressOf(v) >= 0) ? arena : undefined;
}

/**
 * As inPlace, when `room` bytes of scratch fit beside them too: a module reading in place must take its scratch from
 * the same memory (the thread's own instance cannot see the arena's).
 */
function inPlaceWithRoom(room: (inPlace: boolean) => number, ...views: ArrayBufferView[]): TocArena | undefined {
  const arena = inPlace(...views);
  return arena && arena.fits(room(true)) ? arena : undefined;
}

/**
 * Room for a TOC's chunk offsets and lengths (`n` f64s each) beside its bytes `entries` lie in, when these are in a
 * TocArena (kept for the TOC's life: the TOC holds views of them); else undefined.
 */
export function chunkSpanArrays(entries: Uint8Array, n: number): { offsets: Float64Array; lengths: Float64Array } | undefined {
  const arena = arenaOf(entries);
  const at = arena ? arena.take(16 * n, true) : -1;
  if (at < 0) return undefined;
  return { offsets: new Float64Array(arena!.memory.buffer, at, n), lengths: new Float64Array(arena!.memory.buffer, at + 8 * n, n) };
}

/**
 * Decodes the TOC's chunk offsets and lengths (`n` 10-byte entries: 5-byte big-endian offset, then length) into
 * `offsets` and `lengths`; returns the first chunk whose blocks reach past `blockCount` blocks of `blockSize`, or -1.
 */
export function decodeChunkSpans(entries: Uint8Array, n: number, blockSize: number, blockCount: number, offsets: Float64Array, lengths: Float64Array): number {
  const arena = inPlace(entries, offsets, lengths);
  if (arena) return arena.scan.spans(arena.addressOf(entries), n, arena.addressOf(offsets), arena.addressOf(lengths), blockSize, blockCount);
  const src = align8(10 * n);
  const { w, at, done } = scratch(arenaOf(entries), src + 16 * n);
  place(w, at, entries.subarray(0, 10 * n));
  const bad = w.spans(at, n, at + src, at + src + 8 * n, blockSize, blockCount);
  offsets.set(new Float64Array(w.memory.buffer, at + src, n));
  lengths.set(new Float64Array(w.memory.buffer, at + src + 8 * n, n));
  done();
  return bad;
}

/** `bytes` where the module reads them: in place in a TocArena, else copied to scratch (call `done` after). */
function placed(bytes: ArrayBufferView): { w: ScanWasm; at: number; done(): void } {
  const arena = inPlace(bytes);
  if (arena) return { w: arena.scan, at: arena.addressOf(bytes), done: () => {} };
  const s = scratch(arenaOf(bytes), bytes.byteLength);
  place(s.w, s.at, bytes);
  return s;
}

/** Checks of the block table (12-byte entries): its first block with a method index >= `methodCount`, and its first that decodes to more than `blockSize` (-1: none). */
export function checkBlocks(blocks: Uint8Array, methodCount: number, blockSize: number): { badMethod: number; oversized: number } {
  const count = Math.floor(blocks.length / 12);
  const { w, at, done } = placed(blocks.subarray(0, 12 * count));
  const result = { badMethod: w.firstBadMethod(at, count, methodCount), oversized: w.firstOversized(at, count, Math.min(blockSize, 0xffffffff)) };
  done();
  return result;
}

/** The stored sizes of a block table's blocks, summed. */
export function blocksStoredTotal(blocks: Uint8Array): number {
  const count = Math.floor(blocks.length / 12);
  const { w, at, done } = placed(blocks.subarray(0, 12 * count));
  const total = w.storedTotal(at, count);
  done();
  return total;
}

/** The values summed in order (as a loop adding each would). */
export function sumOf(values: Float64Array): number {
  const { w, at, done } = placed(values);
  const total = w.sum(at, values.length);
  done();
  return total;
}

/**
 * Steps over the `count` FStrings of a directory index's string table (`table`: from its first name to the end of
 * the index), writing where each starts into `starts`. A name the module does not take as plain (see
 * assembly/toc `names`) goes to `other(i, pos)`, which checks it (throwing for a bad one) and returns where the next
 * name starts. Returns where the table ends.
 */
export function scanNames(table: Uint8Array, count: number, starts: Int32Array, other: (i: number, pos: number) => number): number {
  // Written where `starts` lies when it is beside the table (i32sBeside), else in scratch and copied.
  const beside = inPlace(table, starts);
  const arena = beside ?? inPlaceWithRoom(() => 4 * count, table);
  const direct = beside !== undefined;
  const startsAt = arena ? 0 : align8(table.length);
  const { w, at, done } = beside ? { w: beside.scan, at: beside.addressOf(starts), done: () => {} } : scratch(arena ?? arenaOf(table), startsAt + 4 * count);
  const tableAt = arena ? arena.addressOf(table) : at;
  if (!arena) place(w, at, table);
  const startsIn = () => new Int32Array(w.memory.buffer, at + startsAt, count);
  try {
    let i = 0;
    let pos = 0;
    for (;;) {
      i = w.names(tableAt, table.length, i, pos, count, at + startsAt);
      if (i >= count) break;
      const stop = w.at.value;
      pos = other(i, stop);
      startsIn()[i] = stop;
      i++;
    }
    if (!direct) starts.set(startsIn());
    return w.at.value;
  } finally {
    done();
  }
}

/** A directory index walked from its root (walkIndex): the files it reaches, in the engine's order, and their folders. */
export interface IndexWalk {
  /** File entries reached. */
  reached: number;
  /** File entries reached, in order, and the folder of each (empty when the walk filled a caller's tables: `into`). */
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

const NO_FILES = new Int32Array(0);

/**
 * Walks a directory index (4 u32 per directory, 3 per file) from its root, depth first, checking each entry as it is
 * reached (in range, reached once, its chunk and name in range): nothing here can run forever. With `into`, the
 * chunks' folders and names are what is wanted (not the files' order): written there, in place when it lies in the
 * TocArena beside the entries (then the result's are `into`'s arrays).
 */
export function walkIndex(dirs: Uint32Array, files: Uint32Array, stringCount: number, chunkCount: number, into?: { chunkFolder: Int32Array; chunkName: Int32Array }): IndexWalk | IndexWalkError {
  const dirCount = dirs.length >>> 2;
  const fileCount = Math.floor(files.length / 3);
  const keepOrder = into === undefined;
  // The entries are read where they are when both lie in a TocArena (u32sBeside), else copied first. Room: a byte
  // per entry (reached), per directory 2 i32 of stack, its parent and its name, per file its place and folder
  // (keepOrder), per chunk its folder and name (unless written into `into` where it lies).
  const inArena = inPlace(dirs, files);
  const beside = !keepOrder && inArena !== undefined && into.chunkFolder.length === chunkCount && into.chunkName.length === chunkCount && inArena.addressOf(into.chunkFolder) >= 0 && inArena.addressOf(into.chunkName) >= 0;
  const work = (direct: boolean) => align8(dirCount + fileCount) + 16 * dirCount + (keepOrder ? 8 * fileCount : 0) + (direct ? 0 : 8 * chunkCount);
  const arena = inArena?.fits(work(beside)) ? inArena : undefined;
  const direct = arena !== undefined && beside;
  const size = work(direct) + (arena ? 0 : 16 * dirCount + 12 * fileCount);
  const { w, at: seen, done } = scratch(arena ?? arenaOf(dirs), size);
  try {
    const stack = seen + align8(dirCount + fileCount);
    const parents = stack + 8 * dirCount;
    const names = parents + 4 * dirCount;
    const order = keepOrder ? names + 4 * dirCount : 0;
    const folderOfFile = order + 4 * fileCount;
    const chunkFolder = direct ? arena.addressOf(into!.chunkFolder) : keepOrder ? folderOfFile + 4 * fileCount : names + 4 * dirCount;
    const chunkName = direct ? arena.addressOf(into!.chunkName) : chunkFolder + 4 * chunkCount;
    const copies = seen + work(direct);
    const dirsAt = arena ? arena.addressOf(dirs) : copies;
    const filesAt = arena ? arena.addressOf(files) : copies + 16 * dirCount;
    if (!arena) {
      place(w, dirsAt, dirs.subarray(0, 4 * dirCount));
      place(w, filesAt, files.subarray(0, 3 * fileCount));
    }
    const reached = w.walk(dirsAt, dirCount, filesAt, fileCount, stringCount, chunkCount, seen, stack, parents, names, order, folderOfFile, chunkFolder, chunkName);
    if (reached < 0) return { error: w.walkError.value, entry: w.walkEntry.value >>> 0, value: w.walkValue.value >>> 0 };
    const i32s = (at: number, n: number) => new Int32Array(w.memory.buffer, at, n).slice();
    const folders = w.folders.value;
    return {
      reached,
      order: keepOrder ? i32s(order, reached) : NO_FILES,
      folderOfFile: keepOrder ? i32s(folderOfFile, reached) : NO_FILES,
      parents: i32s(parents, folders),
      folderNames: i32s(names, folders),
      chunkFolder: direct ? into!.chunkFolder : i32s(chunkFolder, chunkCount),
      chunkName: direct ? into!.chunkName : i32s(chunkName, chunkCount),
    };
  } finally {
    done();
  }
}

/**
 * `count` little-endian u32s copied from `bytes` (at any alignment) into the TocArena `bytes` lie in, kept for the
 * TOC's life; undefined when they are not in one or do not fit.
 */
export function u32sBeside(bytes: Uint8Array, count: number): Uint32Array | undefined {
  const arena = arenaOf(bytes);
  const at = arena ? arena.take(4 * count, true) : -1;
  if (at < 0) return undefined;
  new Uint8Array(arena!.memory.buffer, at, 4 * count).set(bytes.subarray(0, 4 * count));
  return new Uint32Array(arena!.memory.buffer, at, count);
}

/** `count` zeroed i32s in the TocArena `beside` lies in, kept for the TOC's life; undefined when not in one or short. */
export function i32sBeside(beside: ArrayBufferView, count: number): Int32Array | undefined {
  const arena = arenaOf(beside);
  const at = arena ? arena.take(4 * count, true) : -1;
  if (at < 0) return undefined;
  return new Int32Array(arena!.memory.buffer, at, count).fill(0);
}

/**
 * The chunks in .ucas order (by where each starts, then index) when the TOC's order or its block table's gives it
 * without a sort: 'toc' when the TOC order is it, else that order; undefined when a sort is needed. `blocks`: the
 * block table (`blockCount` 12-byte entries), every chunk's blocks in it. One pass in WebAssembly: the loops in
 * JavaScript, run once per container, were ~50 ms of a 150,000-chunk verify's calling thread before its first hash.
 */
export function ucasOrderOf(offsets: Float64Array, lengths: Float64Array, blocks: Uint8Array, blockSize: number, blockCount: number): Int32Array | 'toc' | undefined {
  const n = offsets.length;
  return withSpansInModule(offsets, lengths, blocks.subarray(0, 12 * blockCount), [4 * n, 4 * blockCount, 4 * n], (w, [o, l, t], [firstBlock, chunkAt, order]) => {
    const r = w.ucasOrder(o, l, n, t, blockSize, blockCount, firstBlock, chunkAt, order);
    return r === 1 ? 'toc' : r === 0 ? new Int32Array(w.memory.buffer, order, n).slice() : undefined;
  });
}

/**
 * The candidate block alignments (a mask over `candidates`) that the placement rule reproduces every chunk's start
 * with, replayed over the chunks in .ucas order `order` (src/toc/block-alignment.ts says how); undefined where the
 * module is not to be had or a chunk's blocks lie past the table (the caller replays it in JavaScript). One pass in
 * WebAssembly: in JavaScript, interpreted in a short unpack, it was ~2 ms of its manifest's 3,000 entries.
 */
export function blockAlignmentMask(order: Int32Array, offsets: Float64Array, lengths: Float64Array, blocks: Uint8Array, blockSize: number, blockCount: number, partSize: number, candidates: readonly number[]): number | undefined {
  const c = candidates.length;
  try {
    return withSpansInModule(offsets, lengths, blocks.subarray(0, 12 * blockCount), [4 * order.length, 8 * c, 8 * c], (w, [o, l, t], [orderAt, candidatesAt, pos]) => {
      place(w, orderAt, order);
      new Float64Array(w.memory.buffer, candidatesAt, c).set(candidates);
      const mask = w.blockAlignment(orderAt, order.length, o, l, t, blockCount, blockSize, partSize, candidatesAt, c, pos);
      return mask < 0 ? undefined : mask;
    });
  } catch {
    // no WebAssembly: the JavaScript replay
    return undefined;
  }
}

/**
 * Runs `use` with a TOC's chunk spans (`offsets`, `lengths`) and block table `table` where the module reads them (in
 * place in their arena when they lie in one, else copied into scratch) and scratch of the `extra` sizes in bytes
 * beside them: `use` gets the module, the three arrays' addresses and each scratch part's. The scratch is given
 * back when `use` returns.
 */
function withSpansInModule<T>(
  offsets: Float64Array,
  lengths: Float64Array,
  table: Uint8Array,
  extra: readonly number[],
  use: (w: ScanWasm, spans: [number, number, number], parts: number[]) => T,
): T {
  const layout = (inPlace: boolean) => {
    const at: number[] = [];
    let size = 0;
    for (const k of [inPlace ? 0 : offsets.byteLength, inPlace ? 0 : lengths.byteLength, inPlace ? 0 : table.byteLength, ...extra]) {
      at.push(size);
      size = align8(size + k);
    }
    return { at, size };
  };
  const arena = inPlaceWithRoom((p) => layout(p).size, offsets, lengths, table);
  const { at, size } = layout(arena !== undefined);
  const { w, at: base, done } = scratch(arena ?? arenaOf(offsets), size);
  try {
    const a = (k: number) => base + at[k]!;
    if (!arena) {
      place(w, a(0), offsets);
      place(w, a(1), lengths);
      place(w, a(2), table);
    }
    const where = (v: ArrayBufferView, k: number) => (arena ? arena.addressOf(v) : a(k));
    return use(w, [where(offsets, 0), where(lengths, 1), where(table, 2)], extra.map((_, k) => a(3 + k)));
  } finally {
    done();
  }
}

/** What `chunkNamesDistinct` found. */
export interface ChunkNamesCheck {
  /** Whether no two named chunks have the same folder and file name (false also for a name stored as UTF-16). */
  distinct: boolean;
  /** Chunks with a folder (>= 0 in `folderOf`). */
  named: number;
  /** The table of named chunks by hash (`slots.length` a power of two; chunk + 1, 0: empty; empty when not distinct). */
  slots: Int32Array;
}

/**
 * Whether the chunks' (folder, file name) pairs are distinct, over a directory index's per-chunk tables (ChunkPaths
 * .tables) and its stored string table `names`, with the hash table of the named chunks that assembly/toc
 * `namesDistinct` fills, for looking up a name by its text after. One pass in WebAssembly:
 * in JavaScript, interpreted before a short unpack's first chunk, it was ~1.9 ms of 3,000 names. Undefined without
 * the module (the caller then shows nothing distinct).
 */
export function chunkNamesDistinct(folderOf: Int32Array, nameOf: Int32Array, nameStarts: Int32Array, names: Uint8Array): ChunkNamesCheck | undefined {
  const n = folderOf.length;
  const slotCount = hashSlots(n);
  return withCopies([folderOf, nameOf.subarray(0, n), nameStarts, names], 4 * slotCount, (w, [folders, nameNumbers, starts, table], slots) => {
    const r = w.namesDistinct(folders, nameNumbers, n, starts, nameStarts.length, table, names.length, slots, slotCount - 1);
    return { distinct: r === 1, named: r === 1 ? w.namedChunks.value : -1, slots: r === 1 ? new Int32Array(w.memory.buffer, slots, slotCount).slice() : NO_FILES };
  });
}

/**
 * Whether the chunks with no file name (folder < 0 in `folderOf`, ChunkPaths.tables; with null, every chunk) have distinct
 * ids (`chunkIds`: the TOC's 12-byte ids), and so distinct `_chunks/<Type>/<id>.bin` paths: compared as id bytes, no
 * hex string per chunk, in one pass in WebAssembly.
 * Undefined without the module.
 */
export function chunkIdsDistinct(chunkIds: Uint8Array, n: number, folderOf: Int32Array | null): boolean | undefined {
  const slotCount = hashSlots(n);
  return withCopies(folderOf ? [chunkIds.subarray(0, 12 * n), folderOf.subarray(0, n)] : [chunkIds.subarray(0, 12 * n)], 4 * slotCount, (w, [ids, folders], slots) => w.idsDistinct(ids!, n, folderOf ? folders! : 0, slots, slotCount - 1) === 1);
}

/** Slots of an open-addressing table for `n` entries: a power of two (the probe steps through every slot), at most half full. */
function hashSlots(n: number): number {
  let size = 64;
  while (size < n * 2) size *= 2;
  return size;
}

/**
 * Runs `use` over copies of `views` in the thread's own instance's memory, with `extra` bytes of scratch after them:
 * `use` gets the module, the copies' addresses and the scratch's. Undefined when the module is not to be had.
 */
function withCopies<T>(views: readonly ArrayBufferView[], extra: number, use: (w: ScanWasm, at: number[], extraAt: number) => T): T | undefined {
  let w: ScanWasm;
  const at: number[] = [];
  let size = 0;
  for (const v of views) {
    at.push(size);
    size = align8(size + v.byteLength);
  }
  try {
    w = room(size + extra);
  } catch {
    // no WebAssembly: the caller shows nothing
    return undefined;
  }
  const base = w.base();
  views.forEach((v, k) => place(w, base + at[k]!, v));
  return use(w, at.map((a) => base + a), base + size);
}
