import { TOC_SCAN_WASM_BASE64 } from './toc-scan-wasm.generated.js';

/**
 * The .utoc reader's loops over every chunk, block and name, run by a small WebAssembly module (assembly/toc) over a
 * copy of the section in its memory. Opening a container is most often a short process (`iostore list`, `info`):
 * there V8 ran these loops in its interpreter, ~60M instructions for the 3,000 chunks of the bench's container, where
 * compiled code takes well under 1M. Each function returns where the first problem is; the reader says what it is.
 */

interface ScanWasm {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  base(): number;
  spans(src: number, n: number, offsets: number, lengths: number, blockSize: number, blockCount: number): number;
  firstBadMethod(src: number, count: number, methodCount: number): number;
  firstOversized(src: number, count: number, blockSize: number): number;
  storedTotal(src: number, count: number): number;
  sum(src: number, count: number): number;
  names(table: number, size: number, from: number, pos: number, count: number, starts: number): number;
  at: { value: number };
}

let instance: ScanWasm | undefined;

function scanWasm(): ScanWasm {
  if (!instance) {
    const api = (globalThis as unknown as { WebAssembly: { Module: new (b: Uint8Array) => object; Instance: new (m: object, i: object) => { exports: unknown } } }).WebAssembly;
    const bytes = Uint8Array.from(atob(TOC_SCAN_WASM_BASE64), (c) => c.charCodeAt(0));
    instance = new api.Instance(new api.Module(bytes), {}).exports as ScanWasm;
  }
  return instance;
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
