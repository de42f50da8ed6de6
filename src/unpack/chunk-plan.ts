// The chunks an unpack writes, kept packed: a game has 500,000+ chunks, and an object with its id, type and path
// strings per chunk (several tables of them: the plan, the paths claimed, the task list) was most of unpack's memory.
import { chunkOutputPath } from '../layout/unnamed.js';
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import type { IoStoreToc } from '../toc/toc.js';
import { sumOf } from '../toc/toc-scan.js';
import { IntList } from '../util/int-list.js';

/** A chunk an unpack writes, as its result lists it. */
export interface PlannedChunk {
  container: string;
  index: number;
  id: string;
  type: string;
  path: string;
  size: number;
}

/**
 * The plan: per position, the container (its index in the run) and the TOC index of a chunk, 8 bytes. Paths are made
 * from the TOC when asked for; only those written under another name are kept.
 */
export class ChunkPlan {
  private readonly from = new IntList();
  private readonly indices = new IntList();
  private readonly renamed = new Map<number, string>();
  /** By container: the position of its chunk 0 when it was added whole (addAll) and is still planned so, else -1. */
  private readonly whole: number[];

  constructor(
    private readonly tocs: readonly IoStoreToc[],
    /** The containers' names, by their index in the run. */
    private readonly names: readonly string[],
  ) {
    this.whole = tocs.map(() => -1);
  }

  get length(): number {
    return this.from.length;
  }

  /** Appends chunk `index` of container `c`; returns its position. */
  add(c: number, index: number): number {
    this.indices.push(index);
    return this.from.push(c);
  }

  /**
   * Appends every chunk of container `c` in TOC order (its chunk i at the position returned plus i): a game's
   * container unpacked whole is planned without a call per chunk.
   */
  addAll(c: number): number {
    const n = this.tocs[c]!.chunkCount;
    const start = this.from.length;
    this.indices.pushAll(this.tocs[c]!.chunksInTocOrder());
    this.from.pushRepeated(c, n);
    this.whole[c] = start;
    return start;
  }

  /** Where container c's chunk 0 is, when the plan holds all its chunks in TOC order (addAll), else -1. */
  wholeStart(c: number): number {
    return this.whole[c]!;
  }

  /** Positions written under another name than their own (see `rename`). */
  get renamedCount(): number {
    return this.renamed.size;
  }

  /** Puts chunk `index` of container `c` at position k instead (a higher container's file of the same path). */
  replace(k: number, c: number, index: number): void {
    this.whole[this.from.get(k)] = -1;
    this.whole[c] = -1;
    this.from.set(k, c);
    this.indices.set(k, index);
    this.renamed.delete(k);
  }

  container(k: number): number {
    return this.from.get(k);
  }

  index(k: number): number {
    return this.indices.get(k);
  }

  /** The path (relative to the output folder) position k is written under. */
  path(k: number): string {
    return this.renamed.get(k) ?? chunkOutputPath(this.tocs[this.from.get(k)]!, this.indices.get(k));
  }

  /** Whether position k is written under another name than its own (see `rename`). */
  isRenamed(k: number): boolean {
    return this.renamed.has(k);
  }

  rename(k: number, path: string): void {
    this.renamed.set(k, path);
  }

  size(k: number): number {
    return this.tocs[this.from.get(k)]!.chunkSize(this.indices.get(k));
  }

  /** Σ size(k) over the plan. */
  totalSize(): number {
    let total = 0;
    let k = 0;
    while (k < this.length) {
      const c = this.from.get(k);
      const lengths = this.tocs[c]!.chunkLengths;
      if (this.whole[c] === k) {
        // In WebAssembly: an interpreted loop over every chunk, before a short unpack's first chunk.
        total += sumOf(lengths);
        k += lengths.length;
      } else {
        total += lengths[this.indices.get(k)]!;
        k++;
      }
    }
    return total;
  }

  /** Position k as the result lists it (made per call). */
  entry(k: number): PlannedChunk {
    const toc = this.tocs[this.from.get(k)]!;
    const i = this.indices.get(k);
    return { container: this.names[this.from.get(k)]!, index: i, id: toc.chunkIdHex(i), type: toc.chunkTypeName(i), path: this.path(k), size: toc.chunkSize(i) };
  }
}

/**
 * The chunks an unpack planned, in plan order (container chunks, then pak files): each made when read, so a result
 * holds no object per chunk. `Array.from(planned)` gives them all.
 */
export class PlannedChunks implements Iterable<PlannedChunk> {
  constructor(
    private readonly plan: ChunkPlan | undefined,
    private readonly more: readonly PlannedChunk[] = [],
  ) {}

  get length(): number {
    return (this.plan?.length ?? 0) + this.more.length;
  }

  at(k: number): PlannedChunk | undefined {
    const n = this.plan?.length ?? 0;
    if (k < 0 || k >= this.length) return undefined;
    return k < n ? this.plan!.entry(k) : this.more[k - n];
  }

  *[Symbol.iterator](): Iterator<PlannedChunk> {
    for (let k = 0; k < this.length; k++) yield this.at(k)!;
  }

  toJSON(): PlannedChunk[] {
    return Array.from(this);
  }
}

/**
 * Which container of a run supplies each chunk id: the last (highest in mount order) holding it, as the engine's
 * lookup finds it. Open addressing over every chunk of the run, 8 bytes a slot, the ids compared in their TOCs.
 */
export class ChunkIdOwners {
  /** Per slot: 1 + the chunk's number across the run (container base + TOC index), 0 when empty. */
  private readonly slots: Int32Array;
  private readonly bases: number[] = [];

  constructor(private readonly tocs: readonly IoStoreToc[]) {
    let total = 0;
    for (const t of tocs) {
      this.bases.push(total);
      total += t.chunkCount;
    }
    let size = 16;
    while (size < total * 2) size *= 2;
    this.slots = new Int32Array(size);
    tocs.forEach((toc, c) => {
      for (let i = 0; i < toc.chunkCount; i++) this.put(c, i);
    });
  }

  /** The container that supplies chunk i of container c's id. */
  owner(c: number, i: number): number {
    const s = this.find(this.tocs[c]!.chunkIds, i * CHUNK_ID_SIZE);
    return this.containerOf(this.slots[s]! - 1);
  }

  private put(c: number, i: number): void {
    const s = this.find(this.tocs[c]!.chunkIds, i * CHUNK_ID_SIZE);
    this.slots[s] = this.bases[c]! + i + 1;
  }

  /** The slot holding the id at `ids[at]`, or the empty slot where it goes. */
  private find(ids: Uint8Array, at: number): number {
    const mask = this.slots.length - 1;
    for (let s = idHash(ids, at) & mask; ; s = (s + 1) & mask) {
      const v = this.slots[s]!;
      if (v === 0) return s;
      const g = v - 1;
      const c = this.containerOf(g);
      if (sameId(ids, at, this.tocs[c]!.chunkIds, (g - this.bases[c]!) * CHUNK_ID_SIZE)) return s;
    }
  }

  private containerOf(g: number): number {
    let lo = 0;
    let hi = this.bases.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.bases[mid]! <= g) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

function idHash(b: Uint8Array, at: number): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < CHUNK_ID_SIZE; k++) h = Math.imul(h ^ b[at + k]!, 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return h ^ (h >>> 13);
}

function sameId(a: Uint8Array, at: number, b: Uint8Array, bt: number): boolean {
  for (let k = 0; k < CHUNK_ID_SIZE; k++) if (a[at + k] !== b[bt + k]) return false;
  return true;
}
