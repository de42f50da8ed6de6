import type { IoStoreToc } from './toc.js';
import { align } from '../util/bytes.js';
import { BLOCK_ENTRY_SIZE } from './compression-blocks.js';
import { blockAlignmentMask } from './toc-scan.js';

const CANDIDATES = [0, 2048, 4096, 16384, 65536];

/**
 * Where the engine starts a chunk of `size` stored bytes when the .ucas (or partition) has reached `pos`, for a
 * CompressionBlockAlignment of `a`: a chunk that would cross a multiple of `a` moves to that multiple. The writer
 * places chunks with it and `inferBlockAlignment` replays it, so both agree by construction.
 */
export function alignedChunkStart(pos: number, size: number, a: number): number {
  if (a > 1 && size > 0 && Math.floor(pos / a) !== Math.floor((pos + size - 1) / a)) return align(pos, a);
  return pos;
}

/**
 * The engine's CompressionBlockAlignment of a container (a platform setting not stored in the file), found by
 * replaying the placement rule over its chunks in .ucas order: the first candidate that reproduces every chunk's
 * start. Undefined when none does (e.g. partitioned or hand-made containers).
 */
export function inferBlockAlignment(toc: IoStoreToc): number | undefined {
  // Every candidate replayed in one pass over the chunks (each chunk's stored size summed once): a pass per candidate
  // over an array of the chunks was ~0.5 s of a 150,000-chunk unpack's plan.
  const order = toc.chunksInUcasOrder();
  const mask = blockAlignmentMask(order, toc.chunkOffsets, toc.chunkLengths, toc.blocks.bytes, toc.blockSize, toc.blockCount, toc.partitionSize, CANDIDATES);
  if (mask !== undefined) return CANDIDATES.find((_, c) => (mask & (1 << c)) !== 0);
  return replayInJavaScript(toc, order);
}

/** inferBlockAlignment's replay, where the TOC loops' module is not to be had. */
function replayInJavaScript(toc: IoStoreToc, order: Int32Array): number | undefined {
  const partSize = toc.partitionSize;
  const pos = new Float64Array(CANDIDATES.length);
  let alive = (1 << CANDIDATES.length) - 1;
  let partition = 0;
  // The block entries read where they lie and the chunk's blocks worked out here: through the accessors, this loop was
  // ~0.5-0.7 us a chunk (~75-105 ms of a 150,000-chunk unpack's calling thread, run as its manifest is written).
  const bytes = toc.blocks.bytes;
  const offsets = toc.chunkOffsets;
  const lengths = toc.chunkLengths;
  const blockSize = toc.blockSize;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const length = lengths[i]!;
    if (length === 0) continue;
    const first = Math.floor(offsets[i]! / blockSize);
    const end = Math.ceil((offsets[i]! + length) / blockSize);
    let size = 0;
    // Each block's stored size (a u24), padded to 16 bytes.
    for (let e = first * BLOCK_ENTRY_SIZE; e < end * BLOCK_ENTRY_SIZE; e += BLOCK_ENTRY_SIZE) size += ((bytes[e + 5]! | (bytes[e + 6]! << 8) | (bytes[e + 7]! << 16)) + 15) & ~15;
    const at = first * BLOCK_ENTRY_SIZE;
    const off = bytes[at]! + bytes[at + 1]! * 0x100 + bytes[at + 2]! * 0x10000 + bytes[at + 3]! * 0x1000000 + bytes[at + 4]! * 0x100000000;
    const p = Number.isFinite(partSize) ? Math.floor(off / partSize) : 0;
    const local = Number.isFinite(partSize) ? off % partSize : off;
    if (p !== partition) {
      partition = p;
      pos.fill(0);
    }
    for (let c = 0; c < CANDIDATES.length; c++) {
      if (!(alive & (1 << c))) continue;
      if (alignedChunkStart(pos[c]!, size, CANDIDATES[c]!) !== local) alive &= ~(1 << c);
      else pos[c] = local + size;
    }
    if (alive === 0) return undefined;
  }
  for (let c = 0; c < CANDIDATES.length; c++) if (alive & (1 << c)) return CANDIDATES[c];
  return undefined;
}
