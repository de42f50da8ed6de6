import { corrupt } from './errors';

/**
 * The decoder's working memory: fixed static buffers, the same ones and the same sizes as the TypeScript decoder's
 * (src/codecs/oodle/scratch.ts), whose lengths also bound what a stream may declare. Each buffer has 64 bytes of
 * slack behind it, so the 16-byte copies may run past the end of a run.
 */

export const MAX_ARRAY_SIZE: i32 = 0x40000;
export const SLACK: i32 = 64;

export const ARENA_SIZE: i32 = 0x100000;
export const ARENA: usize = memory.data(ARENA_SIZE + SLACK, 16);
export let arenaTop: usize = ARENA;

/** The literal buffer's length as the format checks see it (the TypeScript one is padded by 16). */
export const LITS_SIZE: i32 = MAX_ARRAY_SIZE + 16;
export const LITS: usize = memory.data(LITS_SIZE + SLACK, 16);
export const CMDS: usize = memory.data(MAX_ARRAY_SIZE + SLACK, 16);
export const PACKED_OFFS: usize = memory.data(MAX_ARRAY_SIZE + SLACK, 16);
export const PACKED_OFFS_LOW: usize = memory.data(MAX_ARRAY_SIZE + SLACK, 16);
export const PACKED_LENS: usize = memory.data(MAX_ARRAY_SIZE + SLACK, 16);
/** i32 each. */
export const OFFS: usize = memory.data(MAX_ARRAY_SIZE * 4 + SLACK, 16);
export const LENS: usize = memory.data(MAX_ARRAY_SIZE * 4 + SLACK, 16);
/** Mermaid's near offsets (u16) and its far offsets of the two halves (u32). */
export const OFF16: usize = memory.data(0x10000 * 2 + SLACK, 16);
export const OFF32A: usize = memory.data(0x10000 * 4 + SLACK, 16);
export const OFF32B: usize = memory.data(0x10000 * 4 + SLACK, 16);
/** Multi-array parts (i32): literal streams (16) and command streams (8). */
export const PART_START: usize = memory.data(16 * 4, 16);
export const PART_LEN: usize = memory.data(16 * 4, 16);
export const CMD_START: usize = memory.data(8 * 4, 16);
export const CMD_LEN: usize = memory.data(8 * 4, 16);
/** A multi-array's interval lengths (u32). */
export const INTERVALS: usize = memory.data(MAX_ARRAY_SIZE * 4 + SLACK, 16);

/** Reserves `n` arena bytes; returns their address. */
export function arenaTake(n: i32, where: usize): usize {
  if (n > <i32>(ARENA + ARENA_SIZE - arenaTop)) corrupt('stream needs more scratch memory than any valid stream', where);
  const at = arenaTop;
  arenaTop += n;
  return at;
}

export function arenaFree(): i32 {
  return <i32>(ARENA + ARENA_SIZE - arenaTop);
}

export function resetArenaTo(mark: usize): void {
  arenaTop = mark;
}
