/**
 * Compression levels, 1 (fastest) to 9 (smallest), and what each does. Every level writes the same format; they
 * differ in how hard the parse looks for matches:
 *
 *   1  greedy, one hash-table candidate per position, skipping ahead through data that does not match
 *   2  greedy, one candidate, no skipping
 *   3  lazy (one byte ahead), hash chains 4 deep
 *   4  lazy (two bytes ahead), hash chains 16 deep (the default)
 *   5  lazy (two bytes ahead), hash chains 64 deep
 *   6  optimal parse (cost-based, over every match the chains give), 32 deep
 *   7  optimal parse, 128 deep, two passes
 *   8  optimal parse, 512 deep, two passes
 *   9  optimal parse, 1024 deep, three passes
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
}

const TABLE: readonly LevelParams[] = [
  { hashBits: 14, windowBits: 0, depth: 1, nice: 32, lazy: 0, skipAfter: 5, optimal: 0 },
  { hashBits: 16, windowBits: 0, depth: 1, nice: 32, lazy: 0, skipAfter: 0, optimal: 0 },
  { hashBits: 16, windowBits: 20, depth: 4, nice: 32, lazy: 1, skipAfter: 0, optimal: 0 },
  { hashBits: 17, windowBits: 20, depth: 16, nice: 64, lazy: 2, skipAfter: 0, optimal: 0 },
  { hashBits: 17, windowBits: 21, depth: 64, nice: 128, lazy: 2, skipAfter: 0, optimal: 0 },
  { hashBits: 17, windowBits: 21, depth: 32, nice: 128, lazy: 0, skipAfter: 0, optimal: 1 },
  { hashBits: 18, windowBits: 22, depth: 128, nice: 256, lazy: 0, skipAfter: 0, optimal: 2 },
  { hashBits: 18, windowBits: 22, depth: 512, nice: 512, lazy: 0, skipAfter: 0, optimal: 2 },
  { hashBits: 18, windowBits: 22, depth: 1024, nice: 1024, lazy: 0, skipAfter: 0, optimal: 3 },
];

/** The parameters of `level` (clamped to 1-9). */
export function levelParams(level: number): LevelParams {
  const l = Math.min(MAX_LEVEL, Math.max(MIN_LEVEL, Math.round(level)));
  return TABLE[l - 1]!;
}
