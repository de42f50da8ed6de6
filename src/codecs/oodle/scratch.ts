import { corrupt } from './corrupt.js';

/**
 * Working memory shared by every decode. Oodle's own decoder runs in a fixed scratch area, so a valid stream never
 * needs more than a few hundred kilobytes; sizing these once keeps allocation out of the hot path and makes sure no
 * count read from a stream can ask for more memory. They are created on first use, which is when kraken.ts loads
 * (it holds them in a module constant); untouched pages of zeroed buffers cost no resident memory. Decoding is
 * synchronous and never re-entered, so one set is enough.
 */

/** Largest output an entropy-coded array can declare (18-bit size field, plus one). */
export const MAX_ARRAY_SIZE = 0x40000;

/** Bump allocator for the nested arrays (RLE command prefixes, multi-array parts) whose sizes are only known late. */
export class Arena {
  readonly buf = new Uint8Array(0x100000);
  top = 0;

  free(): number {
    return this.buf.length - this.top;
  }

  /** Reserves `n` bytes and returns where they start. */
  take(n: number, where: number | string): number {
    if (n > this.buf.length - this.top) corrupt('stream needs more scratch memory than any valid stream', where);
    const at = this.top;
    this.top += n;
    return at;
  }
}

/** Buffers that hold one LZ chunk's decoded side streams between table reading and the copy loop. */
export class LzBuffers {
  /** Padded so that four-byte reads of a run ending at the last literal stay inside. */
  readonly lits = new Uint8Array(MAX_ARRAY_SIZE + 16);
  readonly litsView = new DataView(this.lits.buffer);
  readonly cmds = new Uint8Array(MAX_ARRAY_SIZE);
  readonly packedOffs = new Uint8Array(MAX_ARRAY_SIZE);
  readonly packedOffsLow = new Uint8Array(MAX_ARRAY_SIZE);
  readonly packedLens = new Uint8Array(MAX_ARRAY_SIZE);
  readonly offs = new Int32Array(MAX_ARRAY_SIZE);
  readonly lens = new Int32Array(MAX_ARRAY_SIZE);
  /** Mermaid's near (16-bit) offsets; the high and low bytes are decoded into `packedOffs`/`packedOffsLow`. */
  readonly off16 = new Uint16Array(0x10000);
  /** Mermaid's far offsets for the two 64 KiB halves of a chunk. */
  readonly off32a = new Uint32Array(0x10000);
  readonly off32b = new Uint32Array(0x10000);
  /** Start and length of each part of a multi-array (Leviathan: up to 16 literal or 8 command streams). */
  readonly partStart = new Int32Array(16);
  readonly partLen = new Int32Array(16);
  readonly cmdStart = new Int32Array(8);
  readonly cmdLen = new Int32Array(8);
}

export interface Scratch {
  arena: Arena;
  lz: LzBuffers;
  /** Lengths of a multi-array's intervals; filled only after every nested decode of that multi-array is done. */
  intervals: Uint32Array;
}

let shared: Scratch | undefined;

/** The shared scratch. */
export function scratch(): Scratch {
  if (shared === undefined) {
    shared = { arena: new Arena(), lz: new LzBuffers(), intervals: new Uint32Array(MAX_ARRAY_SIZE) };
  }
  return shared;
}

/** Forgets whatever an earlier (possibly failed) decode left in the arena. */
export function resetScratch(): void {
  scratch().arena.top = 0;
}
