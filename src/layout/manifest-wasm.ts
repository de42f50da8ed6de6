import type { IoStoreToc } from '../toc/toc.js';
import { CHUNK_ID_SIZE, chunkTypeName } from '../toc/chunk-id.js';
import { JsonBytes, encodeTexts } from '../util/json-bytes.js';
import { embeddedWasm, sharedModuleMemory, wasmApi, type WasmMemory } from '../util/wasm.js';
import { entryTexts } from './manifest-bytes.js';
import { MANIFEST_WASM_BASE64 } from './manifest-wasm.generated.js';
import { UNNAMED_CHUNKS_FOLDER } from './unnamed.js';

/**
 * A long manifest's chunk entries written by WebAssembly (assembly/manifest): the same bytes as ManifestChunkWriter's
 * `write`, whose JavaScript took ~0.5 s of the calling thread for a game's 150,000 entries (per entry: ~15 fixed
 * pieces, two hex fields, four numbers, a name escaped byte by byte) while the loop's worker was writing chunks.
 * The module reads the TOC's ids, metas, block entries and the directory index's string table where they lie when the
 * .utoc was read into a shared module memory (unpack's, src/toc/read-file.ts), else from copies in its own; the
 * per-chunk arrays come a window of consecutive chunks at a time (bulk copies: little JavaScript per chunk, which ran
 * in V8's interpreter until optimized); the text is handed out where the module wrote it. An entry it does not take (a
 * chunk written under another name or left to another container, a name stored as UTF-16) is written by `fallback`.
 */

interface ManifestWasm {
  memory: WasmMemory;
  base(): number;
  setTables(texts: number, types: number, methods: number, blockSize: number, metaSize: number, hashSize: number, fixedMost: number): void;
  setData(blocks: number, blockCount: number, names: number, namesSize: number, folderTexts: number, folderCount: number, nameStarts: number, nameCount: number): void;
  setWindow(ids: number, metas: number, offsets: number, lengths: number, folderOf: number, nameOf: number): void;
  write(from: number, to: number, order: number, first: number, at: number, limit: number, cap: number): number;
  outEnd: { value: number };
  refused: { value: number };
}

const newManifestWasm = embeddedWasm<ManifestWasm>(MANIFEST_WASM_BASE64, { importsMemory: true });

/**
 * Compiles the manifest's module now, ahead of a manifest of WASM_ENTRIES_MIN entries or more: before a run starts
 * its worker threads, as the TOC loops' module (src/toc/toc-scan.ts tocLoopsModule says why).
 */
export function compileManifestLoops(): void {
  try {
    newManifestWasm.module();
  } catch {
    // no WebAssembly: the writer's strings do the work
  }
}

/** Entries per window. */
const WINDOW = 2048;
/**
 * Output bytes handed out at a time (a 57 MB manifest: ~220 pieces, so the generators that pass them on stay cold),
 * and the room an entry may reach past them (a larger one goes to `fallback`).
 */
const PIECE = 1 << 18;
const PIECE_ROOM = PIECE + (1 << 16);
/** Read and written past each copy's end (the module copies 8 bytes at a time). */
const SLACK = 64;

/** The fixed texts, in the order the module numbers them (LEAD .. BIN_CLOSE). */
function fixedTexts(indent: string): string[] {
  const t = entryTexts(indent);
  return [`,\n${indent}`, t.open, t.type, t.path, t.order, t.size, t.hash, t.flags, t.compression, t.offset, t.ucasOffset, t.tocPath, t.rawBlocks, t.rawItem, t.rawClose, t.close, 'null', '.bin"'];
}

/**
 * The fewest entries this module writes by default. Below, the strings of ManifestChunkWriter.text cost less than the
 * module's set-up (its instance and tables, ~4-5 ms of CPU on the machine measured) and the background compile of its
 * loop that V8 makes once it is hot (~25M instructions); above, the module's ~1-2 us an entry beat the strings' ~6 us,
 * which run in V8's interpreter in a short run (TurboFan off). The unpack's calling thread (issue 28ak), the
 * manifest's CPU from its open to its rename: 3,000 entries 18-26 ms as strings, 8.5-11 ms here; 1,500 entries
 * 12.2-12.5 against 7.9-8.4 ms; ~1,050 entries about even (7.9-12.2 against 8.5-10.6 ms).
 */
export const WASM_ENTRIES_MIN = 2048;

/**
 * The text of a JSON array's elements (between its `[` and its closing line) for a container's chunk entries
 * `chunks` (TOC indices, ascending), at `indent`: each entry led by `,\n` and the indent (the first without its
 * comma). Undefined where the module is not to be had or the list is short (WASM_ENTRIES_MIN). `special(i)`: chunk
 * i's entry is not its own path's (renamed, overridden), written by `fallback(k, out)` (entry k of `chunks`, without
 * its lead).
 */
export function manifestChunkPieces(
  toc: IoStoreToc,
  chunks: Int32Array,
  indent: string,
  special: ((i: number) => boolean) | undefined,
  fallback: (k: number, out: JsonBytes) => void,
  /** The fewest entries taken (tests take short lists). */
  fewest = WASM_ENTRIES_MIN,
): Iterable<Uint8Array> | undefined {
  // A named chunk's name is copied from the index's stored string table: without it, JavaScript writes them all.
  const paths = toc.chunkPaths;
  if (chunks.length < fewest || !wasmApi || !(toc.blockSize > 0) || (paths && (!paths.storedNames || !paths.tables.nameStarts))) return undefined;
  let writer: WasmEntries;
  try {
    writer = new WasmEntries(toc, indent);
  } catch {
    return undefined;
  }
  return writer.pieces(chunks, special, fallback);
}

/** Per type byte, 1 when one of the TOC's chunk ids has it (the last of an id's 12 bytes). */
function typesPresent(toc: IoStoreToc): Uint8Array {
  const present = new Uint8Array(256);
  const ids = toc.chunkIds;
  for (let e = CHUNK_ID_SIZE - 1, end = toc.chunkCount * CHUNK_ID_SIZE; e < end; e += CHUNK_ID_SIZE) present[ids[e]!] = 1;
  return present;
}

/** Shared memories whose room past the .utoc a writer is using (another one at the same time takes its own). */
const inUse = new Set<WasmMemory>();

class WasmEntries {
  private readonly w: ManifestWasm;
  private readonly u8: Uint8Array;
  /** Where the TOC's ids and metas lie in the memory (in place), or -1 (copied a window at a time). */
  private readonly idsAt: number;
  private readonly metasAt: number;
  // The window's arrays and the output (byte addresses).
  private readonly ids: number;
  private readonly metas: number;
  private readonly offsets: number;
  private readonly lengths: number;
  private readonly folderOf: number;
  private readonly nameOf: number;
  private readonly out: number;
  /** The lead before each entry (`,\n` and the indent). */
  private readonly lead: Uint8Array;
  /** The memory of the .utoc, when this writer uses its room. */
  private readonly home: WasmMemory | undefined;

  constructor(
    private readonly toc: IoStoreToc,
    indent: string,
  ) {
    // Every table text (~540 short strings: fixed texts, 256 type names and unnamed paths, methods, folders) encoded
    // by one call: an encode each was ~1 us of native calls, ~1.3-2.2 ms of a 3,000-entry manifest's set-up.
    const texts = fixedTexts(indent);
    const typeNames: string[] = [];
    const unnamed: string[] = [];
    // Only the types the TOC holds (the module reads no other): the 256 names were ~1 ms of interpreted strings.
    const present = typesPresent(toc);
    for (let t = 0; t < 256; t++) {
      if (present[t] === 0) {
        typeNames.push('');
        unnamed.push('');
        continue;
      }
      const name = chunkTypeName(t, toc.generation);
      typeNames.push(JSON.stringify(name));
      unnamed.push(JSON.stringify(`${UNNAMED_CHUNKS_FOLDER}/${name}/`).slice(0, -1));
    }
    const methods = toc.compressionMethods.map((m) => JSON.stringify(m));
    const paths = toc.chunkPaths;
    const folders = paths ? Array.from({ length: paths.folderCount }, (_, f) => JSON.stringify(paths.folderPath(f)).slice(1, -1)) : [];
    const tables = encodeTexts([...texts, ...typeNames, ...unnamed, ...methods, ...folders]);
    this.lead = tables.bytes.subarray(0, tables.ends[0]);
    const widest = (from: number, count: number) => {
      let m = 0;
      for (let k = from; k < from + count; k++) m = Math.max(m, tables.ends[k]! - (k > 0 ? tables.ends[k - 1]! : 0));
      return m;
    };
    // All fixed texts once (the lead's comma aside), the widest type, method and unnamed path, hex, digits.
    const fixedMost = tables.ends[texts.length - 1]! + widest(texts.length, 256) + widest(texts.length + 512, methods.length) + widest(texts.length + 256, 256) + 2 * 2 * CHUNK_ID_SIZE + 64 + 5 * 20 + 16;
    const tableCount = tables.ends.length;
    const names = paths?.storedNames ?? new Uint8Array(0);
    const blocks = toc.blocks.bytes;

    // The .utoc's own memory when it lies in one and has room; else a memory of this writer's, with copies.
    const meta = toc.metaSize;
    const window = [WINDOW * CHUNK_ID_SIZE, WINDOW * meta + SLACK, WINDOW * 8, WINDOW * 8, WINDOW * 4, WINDOW * 4, PIECE_ROOM + SLACK];
    // Where each name of the string table starts, placed once (the module maps a window's name indices through it).
    const nameStarts = paths?.tables.nameStarts ?? new Int32Array(0);
    const fixed = [8 * tableCount, tables.bytes.length + SLACK, ...window, 4 * nameStarts.length];
    const home = sharedModuleMemory(toc.chunkIds);
    const inHome = (v: Uint8Array) => home !== undefined && v.buffer === home.memory.buffer;
    const placed = (list: number[]) => list.reduce((s, n) => s + ((n + 7) & ~7), 0);
    let memory: WasmMemory;
    let top: number;
    if (home && !inUse.has(home.memory) && inHome(toc.metas) && inHome(blocks) && inHome(names) && ((home.end + 7) & ~7) + placed(fixed) <= home.memory.buffer.byteLength) {
      memory = home.memory;
      top = (home.end + 7) & ~7;
      this.home = memory;
      inUse.add(memory);
    } else {
      memory = new wasmApi!.Memory({ initial: 1, maximum: 65536, shared: true });
      top = -1;
    }

    this.w = newManifestWasm(memory);
    const own = this.home === undefined;
    const sizes = own ? [...fixed, blocks.length + SLACK, names.length + SLACK] : fixed;
    if (own) top = this.w.base();
    const starts: number[] = [];
    for (const s of sizes) {
      starts.push(top);
      top = (top + s + 7) & ~7;
    }
    if (top > memory.buffer.byteLength) memory.grow(Math.ceil((top - memory.buffer.byteLength) / 65536));
    const buffer = memory.buffer;
    const u8 = (this.u8 = new Uint8Array(buffer));
    const [tableAt, textAt] = starts as [number, number];
    [, , this.ids, this.metas, this.offsets, this.lengths, this.folderOf, this.nameOf, this.out] = starts as [number, number, number, number, number, number, number, number, number];
    const nameStartsAt = starts[9]!;
    new Int32Array(buffer, nameStartsAt, nameStarts.length).set(nameStarts);
    // The texts lie end to end (a copy reads up to 8 bytes past a text's end: the next one's, or the slack).
    u8.set(tables.bytes, textAt);
    const table = new Int32Array(buffer, tableAt, 2 * tableCount);
    for (let k = 0, start = 0; k < tableCount; k++) {
      const end = tables.ends[k]!;
      table[2 * k] = textAt + start;
      table[2 * k + 1] = end - start;
      start = end;
    }
    let blocksAt = blocks.byteOffset;
    let namesAt = names.byteOffset;
    if (own) {
      blocksAt = starts[10]!;
      namesAt = starts[11]!;
      u8.set(blocks, blocksAt);
      u8.set(names, namesAt);
    }
    this.idsAt = own ? -1 : toc.chunkIds.byteOffset;
    this.metasAt = own ? -1 : toc.metas.byteOffset;
    const typesAt = tableAt + 8 * texts.length;
    this.w.setTables(tableAt, typesAt, typesAt + 8 * 512, toc.blockSize, meta, toc.metaHashSize, fixedMost);
    this.w.setData(blocksAt, toc.blocks.count, namesAt, names.length, typesAt + 8 * (512 + methods.length), folders.length, nameStartsAt, nameStarts.length);
  }

  *pieces(chunks: Int32Array, special: ((i: number) => boolean) | undefined, fallback: (k: number, out: JsonBytes) => void): Generator<Uint8Array> {
    try {
      yield* this.entries(chunks, special, fallback);
    } finally {
      if (this.home) inUse.delete(this.home);
    }
  }

  private *entries(chunks: Int32Array, special: ((i: number) => boolean) | undefined, fallback: (k: number, out: JsonBytes) => void): Generator<Uint8Array> {
    const end = chunks.length;
    const base = this.out;
    let at = base;
    let js: JsonBytes | undefined;
    for (let k = 0; k < end; ) {
      const n = this.place(chunks, k, special);
      let w = 0;
      let refused = false;
      while (w < n) {
        const done = this.w.write(w, n, chunks[k]!, k + w === 0 ? 1 : 0, at, base + PIECE, base + PIECE_ROOM);
        w += done;
        at = this.w.outEnd.value;
        if (this.w.refused.value !== 0) {
          refused = true;
          break;
        }
        if (w < n) {
          yield this.u8.subarray(base, at);
          at = base;
        }
      }
      k += w;
      if (at - base >= PIECE) {
        yield this.u8.subarray(base, at);
        at = base;
      }
      if (n > 0 && !refused) continue;
      // Entry k by the JavaScript writer.
      js ??= new JsonBytes();
      js.clear();
      js.bytes(k === 0 ? this.lead.subarray(1) : this.lead);
      fallback(k, js);
      k++;
      if (at - base + js.length > PIECE_ROOM) {
        if (at > base) yield this.u8.subarray(base, at);
        at = base;
        if (js.length > PIECE_ROOM) {
          yield js.view();
          continue;
        }
      }
      this.u8.set(js.view(), at);
      at += js.length;
    }
    if (at > base) yield this.u8.subarray(base, at);
  }

  /**
   * Places the per-chunk data of entries k, k + 1, ... of `chunks` for the module while they are consecutive chunks
   * and none is `special`; returns how many (0: entry k is one for the fallback).
   */
  private place(chunks: Int32Array, k: number, special: ((i: number) => boolean) | undefined): number {
    const toc = this.toc;
    const first = chunks[k]!;
    const most = Math.min(chunks.length - k, WINDOW);
    let n = 0;
    // TOC order, a whole container: the window is the next WINDOW chunks.
    if (chunks[k + most - 1] === first + most - 1 && special === undefined) n = most;
    else while (n < most && chunks[k + n] === first + n && !special?.(first + n)) n++;
    if (n === 0) return 0;
    const buffer = this.u8.buffer;
    const u8 = this.u8;
    const meta = toc.metaSize;
    if (this.idsAt < 0) {
      u8.set(toc.chunkIds.subarray(first * CHUNK_ID_SIZE, (first + n) * CHUNK_ID_SIZE), this.ids);
      u8.set(toc.metas.subarray(first * meta, (first + n) * meta), this.metas);
    }
    new Float64Array(buffer, this.offsets, n).set(toc.chunkOffsets.subarray(first, first + n));
    new Float64Array(buffer, this.lengths, n).set(toc.chunkLengths.subarray(first, first + n));
    const folderOf = new Int32Array(buffer, this.folderOf, n);
    const tables = toc.chunkPaths?.tables;
    if (tables?.nameStarts) {
      folderOf.set(tables.folderOf.subarray(first, first + n));
      // Each name's index in the string table (the module finds where its FString starts, and checks it).
      new Int32Array(buffer, this.nameOf, n).set(tables.nameOf.subarray(first, first + n));
    } else {
      folderOf.fill(-1);
    }
    this.w.setWindow(this.idsAt < 0 ? this.ids : this.idsAt + first * CHUNK_ID_SIZE, this.idsAt < 0 ? this.metas : this.metasAt + first * meta, this.offsets, this.lengths, this.folderOf, this.nameOf);
    return n;
  }
}
