/**
 * A parse of one chunk: commands of (literal run, match length, match distance), in order, with the literals after
 * the last command implied by the chunk's end. Distances are positive byte counts; which recent offset a distance
 * reuses is worked out when the chunk is written.
 */
export class Commands {
  readonly litLen: Int32Array;
  readonly matchLen: Int32Array;
  readonly dist: Int32Array;
  count = 0;

  constructor(capacity: number) {
    this.litLen = new Int32Array(capacity);
    this.matchLen = new Int32Array(capacity);
    this.dist = new Int32Array(capacity);
  }

  push(lit: number, len: number, dist: number): void {
    const k = this.count++;
    this.litLen[k] = lit;
    this.matchLen[k] = len;
    this.dist[k] = dist;
  }
}

/** Output bytes per chunk of the Kraken family (a quantum holds two). */
export const CHUNK_SIZE = 0x20000;
/** Output bytes per block (one quantum of the Kraken family). */
export const BLOCK_SIZE = 0x40000;
/** Every match of the Kraken family reaches at least this far back: the decoders copy eight bytes at a time. */
export const MIN_DISTANCE = 8;
