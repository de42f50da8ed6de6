// Where each chunk goes in the TOC (perfect-hash slots) and the directory index of their paths: what a TOC needs of
// its chunks besides their hashes and places (ContainerWriter.finishInParts).
import { toHex } from '../util/bytes.js';
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import { buildDirectoryIndex, serializeDirectoryIndex, type DirectoryFile } from '../toc/directory-index.js';
import { buildPerfectHash } from '../toc/perfect-hash.js';
import { TocVersion } from '../toc/version.js';

/** The chunks a layout is made for, in the order they were added to the container. */
export interface LayoutChunks {
  /** Their ids back to back. */
  ids: Uint8Array;
  /** Chunk k's path below the mount point, or undefined (unnamed). */
  path(k: number): string | undefined;
}

export interface LayoutOptions {
  version: number;
  perfectHash: boolean;
  mountPoint: string;
  indexWhenEmpty?: boolean;
  /** A recorded TOC order to reuse when it places exactly these chunks (see ContainerWriterOptions.reuseLayout). */
  reuseLayout?: { order: Map<string, number>; seeds: Int32Array; overflow: Int32Array };
}

export interface TocLayout {
  /** The chunk (in added order) at each TOC slot; undefined: the added order itself. */
  order: Int32Array | undefined;
  seeds: Int32Array;
  overflow: Int32Array;
  /** Whether the TOC has a directory index, and its bytes (not encrypted). */
  indexed: boolean;
  directoryIndex: Uint8Array;
}

/** The TOC order and directory index of `chunks`. */
export function tocLayout(chunks: LayoutChunks, o: LayoutOptions): TocLayout {
  const { order, seeds, overflow } = tocOrder(chunks.ids, o);
  const n = chunks.ids.length / CHUNK_ID_SIZE;
  const srcOf = (slot: number) => (order ? order[slot]! : slot);
  let named = 0;
  for (let k = 0; k < n && named === 0; k++) if (chunks.path(k) !== undefined) named++;
  // The index's files in TOC order (the engine's own index lists them so: a faithful rebuild gives its bytes).
  const files = function* (): Generator<DirectoryFile> {
    for (let slot = 0; slot < n; slot++) {
      const path = chunks.path(srcOf(slot));
      if (path !== undefined) yield { path, tocIndex: slot };
    }
  };
  const indexed = named > 0 || o.indexWhenEmpty === true;
  const directoryIndex = indexed ? serializeDirectoryIndex(buildDirectoryIndex(o.mountPoint, files())) : new Uint8Array(0);
  return { order, seeds, overflow, indexed, directoryIndex };
}

/** TOC order: perfect-hash slots when the version has them, else the order chunks were added. */
function tocOrder(allIds: Uint8Array, o: LayoutOptions): Pick<TocLayout, 'order' | 'seeds' | 'overflow'> {
  const n = allIds.length / CHUNK_ID_SIZE;
  const reuse = o.reuseLayout;
  if (reuse) {
    const hex = Array.from({ length: n }, (_, i) => toHex(allIds.subarray(i * CHUNK_ID_SIZE, (i + 1) * CHUNK_ID_SIZE)));
    if (reusable(reuse.order, hex)) {
      const order = new Int32Array(n);
      hex.forEach((h, i) => (order[reuse.order.get(h)!] = i));
      return { order, seeds: reuse.seeds, overflow: reuse.overflow };
    }
  }
  if (o.perfectHash && o.version >= TocVersion.PerfectHash) {
    const layout = buildPerfectHash(allIds);
    if (o.version >= TocVersion.PerfectHashWithOverflow || layout.overflow.length === 0) {
      return { order: layout.slotToInput, seeds: layout.seeds, overflow: layout.overflow };
    }
  }
  return { order: undefined, seeds: new Int32Array(0), overflow: new Int32Array(0) };
}

/**
 * Whether a recorded TOC order places exactly these chunks: every id has a slot, and the slots are 0..n-1 (a
 * subset of the original chunks, as a partial unpack holds, has slots beyond its count).
 */
function reusable(order: ReadonlyMap<string, number>, ids: readonly string[]): boolean {
  if (order.size !== ids.length) return false;
  const seen = new Uint8Array(ids.length);
  for (const id of ids) {
    const slot = order.get(id);
    if (slot === undefined || !Number.isInteger(slot) || slot < 0 || slot >= ids.length || seen[slot]) return false;
    seen[slot] = 1;
  }
  return true;
}
