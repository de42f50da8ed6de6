/**
 * Compression levels, 1 (fastest) to 9 (smallest), and what each does. Every level writes the same format; they
 * differ in how hard the parse looks for matches:
 *
 *   1  greedy: one hash-table candidate per position (and the last offset), skipping ahead through data that does
 *      not match; literals always coded as they are; an array gets a Huffman code only when its order-0 entropy
 *      promises 256 bytes more than coding must save (the others: 32): on the corpus blocks 1.1x faster than 128
 *      (1.1% more bytes), which had built half as many codes as 32 for 0.7% more
 *   2  greedy as 1, with a larger table; literals as they are or as differences, whichever is smaller
 *   3  lazy (one byte ahead), hash chains 2 deep, the three recent offsets tried at every position
 *   4  lazy, chains 4 deep (the default)
 *   5  lazy (two bytes ahead), chains 16 deep
 *   6  optimal parse (shortest path over the matches the chains give, priced by a model of the entropy coder),
 *      chains 8 deep, two passes (the second priced by the first's statistics)
 *   7  optimal, chains 16 deep, two passes
 *   8  optimal, chains 64 deep, two passes (what shader code gets by default)
 *   9  optimal, chains 512 deep, three passes, every match length tried
 *
 * Levels 1-5 skip through stretches that do not match after 16 (level 1), 32 (3, 4), 64 (2) or 128 (5) tries, which
 * costs about 1% on incompressible-looking data and saves half the time there (level 1's 16 rather than 32: 8% faster
 * on the corpus blocks, 0.2% larger).
 */

export const MIN_LEVEL = 1;
export const MAX_LEVEL = 9;
export const DEFAULT_LEVEL = 4;

export interface LevelParams {
  hashBits: number;
  /** log2 of the chain ring (0: a plain hash table). */
  windowBits: number;
  depth: number;
  nice: number;
  lazy: number;
  skipAfter: number;
  /** Optimal-parse passes (0: greedy or lazy). */
  optimal: number;
  /** The optimal parse tries every length of a match up to this one, then only the whole match. */
  dense: number;
  /** Weigh coding literals as differences (Kraken and Mermaid mode 0) against coding them as they are. */
  deltaLiterals: boolean;
  /** Weigh a chunk coded as one entropy array (no matches) against its LZ form when matches cover little of it. */
  entropyChunks: boolean;
  /** Bytes an array's order-0 entropy must promise beyond the saving coding must make before a code is built. */
  buildMargin: number;
}

const TABLE: readonly LevelParams[] = [
  { hashBits: 14, windowBits: 0, depth: 1, nice: 32, lazy: 0, skipAfter: 4, optimal: 0, dense: 0, deltaLiterals: false, entropyChunks: false, buildMargin: 256 },
  { hashBits: 16, windowBits: 0, depth: 1, nice: 32, lazy: 0, skipAfter: 6, optimal: 0, dense: 0, deltaLiterals: true, entropyChunks: true, buildMargin: 32 },
  { hashBits: 16, windowBits: 20, depth: 2, nice: 16, lazy: 1, skipAfter: 5, optimal: 0, dense: 0, deltaLiterals: true, entropyChunks: true, buildMargin: 32 },
  { hashBits: 17, windowBits: 20, depth: 4, nice: 32, lazy: 1, skipAfter: 5, optimal: 0, dense: 0, deltaLiterals: true, entropyChunks: true, buildMargin: 32 },
  { hashBits: 17, windowBits: 21, depth: 16, nice: 64, lazy: 2, skipAfter: 7, optimal: 0, dense: 0, deltaLiterals: true, entropyChunks: true, buildMargin: 32 },
  { hashBits: 17, windowBits: 21, depth: 8, nice: 32, lazy: 0, skipAfter: 0, optimal: 2, dense: 16, deltaLiterals: true, entropyChunks: true, buildMargin: 32 },
  { hashBits: 18, windowBits: 22, depth: 16, nice: 64, lazy: 0, skipAfter: 0, optimal: 2, dense: 24, deltaLiterals: true, entropyChunks: true, buildMargin: 32 },
  { hashBits: 18, windowBits: 22, depth: 64, nice: 128, lazy: 0, skipAfter: 0, optimal: 2, dense: 48, deltaLiterals: true, entropyChunks: true, buildMargin: 32 },
  { hashBits: 18, windowBits: 22, depth: 512, nice: 512, lazy: 0, skipAfter: 0, optimal: 3, dense: 1024, deltaLiterals: true, entropyChunks: true, buildMargin: 32 },
];

/** The parameters of `level` (clamped to 1-9). */
export function levelParams(level: number): LevelParams {
  const l = Math.min(MAX_LEVEL, Math.max(MIN_LEVEL, Math.round(level)));
  return TABLE[l - 1]!;
}
