import picomatch from 'picomatch';
import { guidHex } from './header.js';
import { CHUNK_ID_SIZE, chunkTypeFromName, chunkTypeName, chunkTypeTable } from './chunk-id.js';
import { enginesForTocVersion } from './engine.js';
import type { IoStoreToc } from './toc.js';
import { toHex } from '../util/bytes.js';
import { containerFlagNames, encryptionMethodName, tocVersionName } from './version.js';

/** A container's identity and layout as its header states them: shared by `iostore info` and unpack's manifest. */
export interface ContainerTraits {
  containerId: string;
  flags: number;
  flagNames: string[];
  encryption: string;
  encryptionKeyGuid: string;
  blockSize: number;
  compressionMethods: string[];
  partitionCount: number;
  partitionSize: number | null;
  mountPoint: string | null;
}

/** What `iostore info` shows, as data. */
export interface ContainerInfo extends ContainerTraits {
  file: string;
  version: number;
  versionName: string;
  engineGeneration: string;
  engineVersions: string;
  chunkCount: number;
  blockCount: number;
  fileCount: number | null;
  rawSize: number;
  storedSize: number;
  ratio: number | null;
  perfectHashSeeds: number;
  chunksWithoutPerfectHash: number;
  signed: boolean;
  directoryIndex: 'none' | 'plain' | 'decrypted' | 'encrypted';
  sections: Array<{ name: string; offset: number; size: number }>;
}

export function containerTraits(toc: IoStoreToc): ContainerTraits {
  const h = toc.header;
  return {
    containerId: `0x${h.containerId.toString(16).padStart(16, '0')}`,
    flags: h.containerFlags,
    flagNames: containerFlagNames(h.containerFlags),
    encryption: encryptionMethodName(toc.encryption),
    encryptionKeyGuid: guidHex(h.encryptionKeyGuid),
    blockSize: toc.blockSize,
    compressionMethods: [...toc.compressionMethods],
    partitionCount: toc.partitionCount,
    partitionSize: Number.isFinite(toc.partitionSize) ? toc.partitionSize : null,
    mountPoint: toc.directoryIndex ? toc.directoryIndex.mountPoint : null,
  };
}

export function containerInfo(toc: IoStoreToc): ContainerInfo {
  const { rawSize, storedSize } = toc.totals();
  const h = toc.header;
  const hasIndex = toc.directoryIndexBytes.length > 0;
  return {
    file: toc.source,
    version: h.version,
    versionName: tocVersionName(h.version),
    engineGeneration: toc.generation,
    engineVersions: enginesForTocVersion(h.version),
    ...containerTraits(toc),
    chunkCount: toc.chunkCount,
    blockCount: toc.blockCount,
    fileCount: toc.directoryIndex ? toc.fileCount : null,
    rawSize,
    storedSize,
    ratio: rawSize > 0 ? storedSize / rawSize : null,
    perfectHashSeeds: toc.perfectHashSeeds.length,
    chunksWithoutPerfectHash: toc.chunksWithoutPerfectHash.length,
    signed: toc.signatures !== null,
    directoryIndex: !hasIndex ? 'none' : toc.directoryIndex ? (toc.isEncrypted ? 'decrypted' : 'plain') : 'encrypted',
    sections: toc.sections.map((s) => ({ ...s })),
  };
}

/** One row of `iostore list`. */
export interface ChunkRow {
  index: number;
  id: string;
  type: string;
  path: string;
  size: number;
  storedSize: number;
  blocks: number;
  hash: string;
  offset: number;
  compressed: boolean;
}

export interface ChunkQuery {
  /** Chunk type name (case-insensitive), e.g. `BulkData`. */
  type?: string;
  /** Glob on the chunk's path; chunks without a path never match. */
  filter?: string;
  sort?: 'index' | 'size' | 'path' | 'type';
}

export function chunkRow(toc: IoStoreToc, i: number): ChunkRow {
  return {
    index: i,
    id: toc.chunkIdHex(i),
    type: toc.chunkTypeName(i),
    path: toc.chunkPath(i) ?? '',
    size: toc.chunkSize(i),
    storedSize: toc.chunkStoredSize(i),
    blocks: toc.chunkBlockCount(i),
    hash: toc.chunkHashHex(i),
    offset: toc.chunkOffset(i),
    compressed: (toc.chunkMetaFlags(i) & 1) !== 0,
  };
}

/** Whether a query selects every chunk in TOC order (the usual listing): no type, no filter, sorted by index. */
export function selectsEveryChunk(q: ChunkQuery = {}): boolean {
  return q.type === undefined && q.filter === undefined && (q.sort ?? 'index') === 'index';
}

/** TOC indices of the chunks a query selects, in its order. */
export function selectChunks(toc: IoStoreToc, q: ChunkQuery = {}): number[] {
  // Every chunk in TOC order: made natively, not by a loop of V8's interpreter.
  if (selectsEveryChunk(q)) return Array.from(new Int32Array(toc.chunkCount).keys());
  const type = q.type === undefined ? undefined : chunkTypeFromName(q.type, toc.generation);
  const match = q.filter === undefined ? undefined : picomatch(q.filter, { dot: true, nocase: true });
  const order: number[] = [];
  for (let i = 0; i < toc.chunkCount; i++) {
    if (type !== undefined && toc.chunkType(i) !== type) continue;
    if (match) {
      const p = toc.chunkPath(i);
      if (p === undefined || !match(p)) continue;
    }
    order.push(i);
  }
  const sort = q.sort ?? 'index';
  if (sort === 'size') order.sort((a, b) => toc.chunkSize(b) - toc.chunkSize(a) || a - b);
  else if (sort === 'path') order.sort((a, b) => cmp(toc.chunkPath(a) ?? '', toc.chunkPath(b) ?? '') || a - b);
  else if (sort === 'type') order.sort((a, b) => cmp(toc.chunkTypeName(a), toc.chunkTypeName(b)) || a - b);
  return order;
}

/**
 * The rows of `iostore list`: what chunkRow gives for each selected chunk. Ids and hashes are sliced from hex made
 * a run of chunks at a time (chunkHexColumns), which on a listing of thousands of chunks is most of the work (and of
 * the garbage) saved.
 */
export function listChunks(toc: IoStoreToc, q: ChunkQuery = {}): ChunkRow[] {
  const order = selectChunks(toc, q);
  const typeNames = chunkTypeTable(toc.generation);
  const { chunkIds, chunkOffsets, chunkLengths, metaFlags } = toc;
  const hex = chunkHexColumns(toc, order);
  const rows = new Array<ChunkRow>(order.length);
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const type = chunkIds[i * CHUNK_ID_SIZE + 11]!;
    rows[k] = {
      index: i,
      id: hex.id(i),
      type: typeNames[type] ?? chunkTypeName(type, toc.generation),
      path: toc.chunkPath(i) ?? '',
      size: chunkLengths[i]!,
      storedSize: toc.chunkStoredSize(i),
      blocks: toc.chunkBlockCount(i),
      hash: hex.hash(i),
      offset: chunkOffsets[i]!,
      compressed: (metaFlags[i]! & 1) !== 0,
    };
  }
  return rows;
}

/** Chunks whose hex is made at once: a run of ids is 24 KiB of text, of hashes up to 64 KiB. */
const HEX_RUN = 1024;
/**
 * Rows up to which a listing slices its hex from runs. A slice holds its whole run: rows kept for the run (`--json`,
 * `--csv`) held ~40 bytes more per chunk, and slices alive at a collection moved their runs to the old generation,
 * where they stayed until a full one (`list` of 150,000 chunks peaked 8 MB higher, `--json` 9 MB). A game's listing
 * is long enough for the optimizing compiler to make the per-chunk hex fast.
 */
const BULK_HEX_MAX_ROWS = 16_384;

/**
 * `toc.chunkIdHex(i)` and `toc.chunkHashHex(i)` for up to BULK_HEX_MAX_ROWS chunks asked for in ascending order (a
 * listing by index: the usual one): the hex of a run of HEX_RUN chunks' ids or metas is made in one call and each
 * chunk's is a slice of it. Made a chunk at a time, the hex was most of a cold process's work on a listing of
 * thousands of chunks (a loop per byte run by V8's interpreter) and its garbage. Any other order, or a longer
 * listing, gets the per-chunk calls.
 */
export function chunkHexColumns(toc: IoStoreToc, order: readonly number[]): { id(i: number): string; hash(i: number): string } {
  const perChunk = { id: (i: number) => toc.chunkIdHex(i), hash: (i: number) => toc.chunkHashHex(i) };
  if (order.length > BULK_HEX_MAX_ROWS) return perChunk;
  for (let k = 1; k < order.length; k++) if (order[k]! <= order[k - 1]!) return perChunk;
  const ids = hexRuns(toc.chunkIds, CHUNK_ID_SIZE);
  const metas = hexRuns(toc.metas, toc.metaSize);
  // Hashes of v8+ metas are 20 bytes; a 32-byte field shows 20 or 32 (IoStoreToc.chunkHash).
  const wide = toc.metaHashSize > 20;
  return { id: (i) => ids(i, CHUNK_ID_SIZE), hash: (i) => metas(i, wide ? toc.chunkHash(i).length : 20) };
}

/** The hex of the first `length` bytes of record i of `bytes` (records of `size` bytes), for ascending i. */
function hexRuns(bytes: Uint8Array, size: number): (i: number, length: number) => string {
  let run = -1;
  let text = '';
  return (i, length) => {
    const r = Math.floor(i / HEX_RUN);
    if (r !== run) {
      run = r;
      text = toHex(bytes.subarray(r * HEX_RUN * size, Math.min(bytes.length, (r + 1) * HEX_RUN * size)));
    }
    const at = 2 * (i - r * HEX_RUN) * size;
    return text.slice(at, at + 2 * length);
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface TypeSummary {
  type: string;
  count: number;
  size: number;
  storedSize: number;
}

/** Count, raw and stored bytes per chunk type, largest raw size first. */
export function summarizeByType(rows: readonly ChunkRow[]): TypeSummary[] {
  const by = new Map<string, TypeSummary>();
  for (const r of rows) {
    let s = by.get(r.type);
    if (!s) by.set(r.type, (s = { type: r.type, count: 0, size: 0, storedSize: 0 }));
    s.count++;
    s.size += r.size;
    s.storedSize += r.storedSize;
  }
  return [...by.values()].sort((a, b) => b.size - a.size || cmp(a.type, b.type));
}
