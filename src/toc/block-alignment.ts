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
  const chunks = Array.from(toc.chunksInUcasOrder()).filter((i) => toc.chunkBlockCount(i) > 0);
  const partSize = toc.partitionSize;
  outer: for (const a of CANDIDATES) {
    let pos = 0;
    let partition = 0;
    for (const i of chunks) {
      const first = toc.chunkFirstBlock(i);
      let size = 0;
      for (let b = first; b < first + toc.chunkBlockCount(i); b++) size += align(toc.blocks.compressedSize(b), 16);
      const off = toc.blocks.offset(first);
      const p = Number.isFinite(partSize) ? Math.floor(off / partSize) : 0;
      const local = Number.isFinite(partSize) ? off % partSize : off;
      if (p !== partition) {
        partition = p;
        pos = 0;
      }
      if (alignedChunkStart(pos, size, a) !== local) continue outer;
      pos = local + size;
    }
    return a;
  }
  return undefined;
}
