import { CHUNK_SIZE } from './commands.js';
import { matchLength, type MatchFinder } from './match-finder.js';

/**
 * The matches of every position of a chunk, gathered once for the optimal parse's passes: per position, matches of
 * increasing length (each the nearest the chain gave for its length). Inside a very long match the search stops and
 * each position just records that match's rest.
 */
export class MatchList {
  /** First entry of position i (relative to the chunk's parse start); entries [first[i], first[i + 1]). */
  readonly first = new Int32Array(CHUNK_SIZE + 2);
  len = new Int32Array(CHUNK_SIZE * 4);
  dist = new Int32Array(CHUNK_SIZE * 4);

  private room(n: number): void {
    if (n <= this.len.length) return;
    const size = Math.max(n, this.len.length * 2);
    const len = new Int32Array(size);
    const dist = new Int32Array(size);
    len.set(this.len);
    dist.set(this.dist);
    this.len = len;
    this.dist = dist;
  }

  /** Gathers the matches of src[start, end) (no match running past `end`), at most `perPos` per position. */
  collect(mf: MatchFinder, start: number, end: number, depth: number, nice: number, perPos: number): void {
    const src = mf.src;
    const view = mf.view;
    const last = Math.min(end, src.length - 4) - 4;
    let k = 0;
    let longDist = 0;
    let longEnd = 0;
    for (let p = start; p < end; p++) {
      this.first[p - start] = k;
      if (p >= last) continue;
      if (p < longEnd) {
        // Inside a long match: its rest is the only candidate (the chains still get this position later).
        this.room(k + 1);
        const len = longEnd - p;
        if (len >= 4) {
          this.len[k] = len;
          this.dist[k++] = longDist;
        }
        continue;
      }
      this.room(k + perPos);
      k = mf.findAll(p, end, depth, nice, this.len, this.dist, k, perPos);
      const n = k - this.first[p - start]!;
      if (n > 0 && this.len[k - 1]! >= nice) {
        longDist = this.dist[k - 1]!;
        // Extend to the real end of the match: the chain search stopped at `nice`.
        longEnd = p + matchLength(src, view, p, longDist, end);
        this.len[k - 1] = longEnd - p;
      }
    }
    this.first[end - start] = k;
  }
}
