import type { IoStoreToc } from '../toc/toc.js';
import { CHUNK_ID_SIZE, chunkTypeName } from '../toc/chunk-id.js';
import { escapeControl } from '../util/quote.js';
import { csvCell } from './format.js';
import { embeddedWasm, type WasmMemory } from '../util/wasm.js';
import { arenaOf, scanArenasWith, type ScanWasm, type TocArena } from '../toc/toc-scan.js';
import type { FolderTree } from '../toc/directory-index.js';
import { TOC_LISTING_WASM_BASE64 } from './toc-listing-wasm.generated.js';

/**
 * The rows of `iostore list` of one container, as text: the table (to a pipe or a file), CSV or JSON. Written by a
 * small WebAssembly module (assembly/listing, compiled with the TOC loops as assembly/toc-listing) over the TOC's own arrays: every cell of every row (hex of ids and
 * hashes, numbers, the stored sizes summed over each chunk's blocks, paths as their folder's and stored name's bytes)
 * without a string or object per row. A listing is a short process: of the bench's 3,000 chunks, the rows' strings
 * and objects made by V8's interpreter had been ~140M of `list`'s ~330M instructions (`node -e 0`: 89M), and a
 * game's listing of 150,000 rows had spent most of its run and of its garbage on them. A path of other characters
 * than printable ASCII (or with `"`, `,` or `\`) gets its cell made here as the string forms would show it (the
 * module lists those rows). The bytes are the same as those of `renderTable` of the rows' cells, `renderCsv` and
 * `renderJson` of `listChunks` (test/cli/chunk-rows.test.ts).
 */
export type RowFormat = 'table' | 'csv' | 'json';


/** Bytes handed to `write` at a time (a part ends after the row that passes it). */
const PART = 1 << 16;

interface RowsWasm {
  memory: WasmMemory;
  base(): number;
  setTables(
    ids: number, offsets: number, lengths: number, blocks: number, blockSize: number, metas: number, metaSize: number, hashSize: number,
    order: number, count: number, folderOf: number, nameOf: number, nameStarts: number, names: number, folders: number, types: number,
    cells: number, container: number, containerLength: number,
  ): void;
  markTypes(flags: number): number;
  folderCells(parents: number, folderNames: number, n: number, mount: number, mountLength: number, out: number, room: number): number;
  scan(slow: number, widths: boolean): number;
  setWidths(w0: number, w1: number, w2: number, w3: number, w4: number, w5: number, w6: number): void;
  writeTable(from: number, out: number, limit: number): number;
  writeCsv(from: number, out: number, limit: number): number;
  writeJson(from: number, out: number, limit: number): number;
  written: { value: number };
  maxIndex: { value: number };
  maxSize: { value: number };
  maxStored: { value: number };
  maxBlocks: { value: number };
  typeWidth: { value: number };
  pathWidth: { value: number };
  hashWidth: { value: number };
  pathBytes: { value: number };
}

/**
 * The rows writer and the TOC loops, one module (assembly/toc-listing). A listing of a TOC read into a module memory
 * (TocArena) uses the instance that scanned it; others make a fresh instance for each listing: its memory (copies
 * of the TOC's arrays) goes with it, not kept for the process.
 */
const tocListingWasm = embeddedWasm<RowsWasm & ScanWasm>(TOC_LISTING_WASM_BASE64, { importsMemory: true });

/**
 * Opens a TOC (`open`) whose rows are to be written: read into a module memory, it is scanned by the module that
 * also writes the rows (scanArenasWith), so that a short `list` compiles and instantiates one module instead of the
 * TOC loops' and the rows writer's (~0.4 ms).
 */
export async function openForRows<T>(open: () => Promise<T>): Promise<T> {
  const restore = scanArenasWith(tocListingWasm);
  try {
    return await open();
  } finally {
    restore();
  }
}

function hasRows(scan: ScanWasm): scan is ScanWasm & RowsWasm {
  return typeof (scan as Partial<RowsWasm>).writeTable === 'function';
}

/** A TocArena's room ran out: the listing starts again in a memory of its own (before any row was written). */
class NoRoom extends Error {}

/**
 * Places byte arrays one after another in the module's memory (8-byte aligned). In a TocArena (the .utoc read into
 * module memory, src/toc/toc-scan.ts): the TOC's own arrays are read where they lie, the rest taken from its room
 * (which never grows: NoRoom where it is short); else in a memory of the listing's own, grown as needed.
 */
class Arena {
  at: number;
  readonly w: RowsWasm;
  constructor(private readonly toc?: TocArena) {
    this.w = toc && hasRows(toc.scan) ? toc.scan : tocListingWasm(toc?.memory);
    this.at = this.w.base();
    if (toc && this.at > toc.start) throw new NoRoom();
  }
  /** Room for `n` bytes; returns where. */
  take(n: number): number {
    if (this.toc) {
      const at = this.toc.take(n);
      if (at < 0) throw new NoRoom();
      return at;
    }
    const at = this.at;
    this.at = (at + n + 7) & ~7;
    const need = this.at - this.w.memory.buffer.byteLength;
    if (need > 0) this.w.memory.grow(Math.ceil(need / 65536));
    return at;
  }
  /** Where `bytes` are for the module: where they lie in a TocArena, else a copy; returns where. */
  put(bytes: ArrayBufferView): number {
    const lies = this.toc ? this.toc.addressOf(bytes) : -1;
    if (lies >= 0) return lies;
    const at = this.take(bytes.byteLength);
    this.bytes(at, bytes.byteLength).set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return at;
  }
  bytes(at: number, n: number): Uint8Array {
    return new Uint8Array(this.w.memory.buffer, at, n);
  }
  i32s(at: number, n: number): Int32Array {
    return new Int32Array(this.w.memory.buffer, at, n);
  }
}

/**
 * Writes the rows of the chunks `order` selects (TOC indices; null: every chunk in TOC order, the usual listing, for
 * which no table of rows is made) in `format`, in parts of ~64 KiB, to `write` (each part a view valid only during
 * the call): the table with its header and rule; CSV and JSON rows only (`container`: the JSON rows' container name).
 */
export function writeChunkRows(toc: IoStoreToc, order: ArrayLike<number> | null, format: RowFormat, write: (bytes: Uint8Array) => void, container = ''): void {
  const arena = arenaOf(toc.chunkIds);
  if (arena) {
    // The paths' tables are made when first asked for, kept in the arena: before the listing's room is marked.
    void toc.chunkPaths;
    const mark = arena.mark;
    try {
      return writeRows(new Arena(arena), toc, order, format, write, container);
    } catch (e) {
      if (!(e instanceof NoRoom)) throw e;
    } finally {
      arena.release(mark);
    }
  }
  writeRows(new Arena(), toc, order, format, write, container);
}

function writeRows(mem: Arena, toc: IoStoreToc, order: ArrayLike<number> | null, format: RowFormat, write: (bytes: Uint8Array) => void, container: string): void {
  const w = mem.w;
  const n = toc.chunkCount;
  const count = order ? order.length : n;
  const paths = toc.chunkPaths;
  const tables = paths?.tables;
  const names = paths?.storedNames;
  const ids = mem.put(toc.chunkIds);
  const offsets = mem.put(toc.chunkOffsets);
  const lengths = mem.put(toc.chunkLengths);
  const blocks = mem.put(toc.blocks.bytes);
  const metas = mem.put(toc.metas);
  const orderAt = order ? mem.take(4 * count) : 0;
  if (order) mem.i32s(orderAt, count).set(order);
  let folderOf: number;
  if (tables) folderOf = mem.put(tables.folderOf);
  else mem.i32s((folderOf = mem.take(4 * n)), n).fill(-1);
  const nameOf = tables ? mem.put(tables.nameOf) : 0;
  const fast = names !== undefined && tables?.nameStarts !== undefined;
  const nameStarts = fast ? mem.put(tables!.nameStarts!) : 0;
  const namesAt = fast ? mem.put(names!) : 0;
  const tree = paths?.tree;
  const folders = mem.take(12 * (tree ? tree.parents.length : 0));
  const types = mem.take(12 * 256);
  const containerCell = Buffer.from(JSON.stringify(container));
  const containerAt = mem.put(containerCell);
  w.setTables(ids, offsets, lengths, blocks, toc.blockSize, metas, toc.metaSize, toc.metaHashSize, orderAt, count, folderOf, nameOf, nameStarts, namesAt, folders, types, 0, containerAt, containerCell.length);
  if (tree) writeFolderCells(mem, tree);

  // The types' cells, for the types the rows have. A type's name is a plain identifier (test/cli/chunk-rows.test.ts):
  // each form shows it as it is, JSON in quotes.
  const flags = mem.take(512);
  const present = mem.bytes(flags + 256, w.markTypes(flags)).slice();
  let typeBytes = 0;
  for (let k = 0; k < present.length; k++) {
    const t = present[k]!;
    const name = chunkTypeName(t, toc.generation);
    const bytes = Buffer.from(format === 'json' ? `"${name}"` : name);
    const at = mem.put(bytes);
    const cell = mem.i32s(types + 12 * t, 3);
    cell[0] = at;
    cell[1] = cell[2] = bytes.length;
    if (bytes.length > typeBytes) typeBytes = bytes.length;
  }

  // The rows whose paths need their cells made here.
  const slowAt = mem.take(4 * count);
  const slow = mem.i32s(slowAt, w.scan(slowAt, format === 'table')).slice();
  let pathWidth = w.pathWidth.value;
  let longest = w.pathBytes.value;
  const cells = mem.take(12 * slow.length);
  for (let s = 0; s < slow.length; s++) {
    const k = slow[s]!;
    const path = toc.chunkPath(order ? order[k]! : k) ?? '';
    const text = format === 'table' ? escapeControl(path) : format === 'csv' ? csvCell(path) : JSON.stringify(path);
    const bytes = Buffer.from(text);
    const at = mem.put(bytes);
    mem.i32s(cells + 12 * s, 3).set([at, bytes.length, text.length]);
    if (text.length > pathWidth) pathWidth = text.length;
    if (bytes.length > longest) longest = bytes.length;
  }
  w.setTables(ids, offsets, lengths, blocks, toc.blockSize, metas, toc.metaSize, toc.metaHashSize, orderAt, count, folderOf, nameOf, nameStarts, namesAt, folders, types, cells, containerAt, containerCell.length);

  // Room for a part and the row that passes it (its path the longest cell, a type's and the container's cells).
  const out = mem.take(PART + 4096 + longest + 2 * containerCell.length + typeBytes);
  if (format === 'table') write(Buffer.from(tableHead(w, count, pathWidth)));
  const rows = format === 'table' ? w.writeTable : format === 'csv' ? w.writeCsv : w.writeJson;
  for (let k = 0; k < count; ) {
    k = rows(k, out, PART);
    write(mem.bytes(out, w.written.value));
  }
}

/** The table's header and rule, its column widths given to the module: numbers are whole and >= 0, so the widest is the largest. */
function tableHead(w: RowsWasm, count: number, pathWidth: number): string {
  const widths = [
    String(w.maxIndex.value).length,
    count > 0 ? 2 * CHUNK_ID_SIZE : 'chunk id'.length,
    Math.max('type'.length, w.typeWidth.value),
    Math.max('path'.length, pathWidth),
    Math.max('size'.length, String(w.maxSize.value).length),
    Math.max('stored'.length, String(w.maxStored.value).length),
    Math.max('blocks'.length, String(w.maxBlocks.value).length),
    Math.max('hash'.length, w.hashWidth.value),
  ] as const;
  w.setWidths(widths[0], widths[1], widths[2], widths[3], widths[4], widths[5], widths[6]);
  const rule = widths.map((x) => '-'.repeat(x)).join('  ');
  return `${'#'.padStart(widths[0])}  ${'chunk id'.padEnd(widths[1])}  ${'type'.padEnd(widths[2])}  ${'path'.padEnd(widths[3])}  ${'size'.padStart(widths[4])}  ${'stored'.padStart(widths[5])}  ${'blocks'.padStart(widths[6])}  hash\n${rule}\n`;
}

/**
 * The folders' path cells (setTables' `folders`), made by the module from the walk's tree and the stored names: a
 * folder's bytes when every character of its path is plain (printable ASCII but `"`, `,` and `\\`), else width -1
 * (its rows' cells are made here). No string, Buffer or array per folder: in V8's interpreter (a short run) those
 * were ~0.25 ms of the bench's 43 folders.
 */
function writeFolderCells(mem: Arena, tree: FolderTree): void {
  const n = tree.parents.length;
  const parents = mem.put(tree.parents);
  const names = mem.put(tree.names);
  // Text made bytes as UTF-8 without naming it: Buffer.from with an encoding name compiles Node's getEncodingOps on
  // its first call. A character past ASCII makes bytes the module does not take as plain.
  const mount = Buffer.from(tree.mountPrefix);
  const mountAt = mem.put(mount);
  // Room for paths of 64 bytes below the mount point's, else as much as they take (a second call). 8 bytes past
  // the room: the module's copies may write that far.
  const room = n * (mount.length + 64);
  const need = mem.w.folderCells(parents, names, n, mountAt, mount.length, mem.take(room + 8), room);
  if (need > room) mem.w.folderCells(parents, names, n, mountAt, mount.length, mem.take(need + 8), need);
}
