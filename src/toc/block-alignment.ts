import type { IoStoreToc } from './toc.js';
import { align } from '../util/bytes.js';

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
  const partSize = toc.partitionSize;
  const pos = new Float64Array(CANDIDATES.length);
  let alive = (1 << CANDIDATES.length) - 1;
  let partition = 0;
  const blocks = toc.blocks;
  for (const i of toc.chunksInUcasOrder()) {
    const count = toc.chunkBlockCount(i);
    if (count === 0) continue;
    const first = toc.chunkFirstBlock(i);
    let size = 0;
    for (let b = first; b < first + count; b++) size += align(blocks.compressedSize(b), 16);
    const off = blocks.offset(first);
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
