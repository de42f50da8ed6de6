import { MsbWriter } from './bit-writer.js';
import { CHUNK_SIZE } from './commands.js';

/**
 * The offset and length side streams Kraken and Leviathan share (offsets.ts reads them): each new offset as a bucket
 * byte (into OFFS) and raw bits; lengths too long for their byte as long lengths (into LONG); the raw bits of both in
 * two bit streams, alternately forward from the start of the chunk's tail and backward from its end, the backward
 * one starting with the count of long lengths.
 */

export const OFFS = new Uint8Array(CHUNK_SIZE);
/** Raw bits of each new offset: value and width (far offsets add twelve more bits, kept in OFF_LOW). */
const OFF_RAW = new Int32Array(CHUNK_SIZE);
const OFF_WIDTH = new Int8Array(CHUNK_SIZE);
const OFF_LOW = new Int32Array(CHUNK_SIZE);
export const LONG = new Int32Array(CHUNK_SIZE / 64);
const BACK = new Uint8Array(CHUNK_SIZE);

/** Smallest distance coded as a "far" offset bucket; below it, near buckets. */
const FAR_FROM = 8388360;
const FAR_BASE = 8322816;

/** The bucket byte of distance d into OFFS[i], its raw bits into OFF_RAW/OFF_WIDTH/OFF_LOW. */
export function packOffset(d: number, i: number): void {
  if (d < FAR_FROM) {
    const x = d + 248;
    const top = x >>> 4;
    const k = 31 - Math.clz32(top);
    OFFS[i] = ((k - 4) << 4) | (x & 15);
    OFF_RAW[i] = top - (1 << k);
    OFF_WIDTH[i] = k;
  } else {
    const e = d - FAR_BASE;
    const top = Math.floor(e / 4096);
    const j = 31 - Math.clz32(top);
    OFFS[i] = 0xec + j;
    OFF_RAW[i] = top - 2 ** j;
    OFF_WIDTH[i] = -j;
    OFF_LOW[i] = e % 4096;
  }
}

/**
 * The raw bits: offsets then long lengths, alternately into a forward stream and a backward one (which starts with
 * the gamma-coded count of long lengths); the backward stream's bytes are written reversed at the end.
 */
export function writeTail(no: number, nlong: number, out: Uint8Array, at: number): number {
  const fw = new MsbWriter(out, at);
  const bw = new MsbWriter(BACK, 0);
  const y = nlong + 1;
  const yb = 32 - Math.clz32(y);
  bw.write(0, yb - 1);
  bw.write(y, yb);
  for (let i = 0; i < no; i++) {
    const w = i & 1 ? bw : fw;
    const width = OFF_WIDTH[i]!;
    if (width >= 0) w.write(OFF_RAW[i]!, width);
    else {
      w.write(OFF_RAW[i]!, -width);
      w.write(OFF_LOW[i]!, 12);
    }
  }
  for (let i = 0; i < nlong; i++) {
    const w = i & 1 ? bw : fw;
    const x = LONG[i]! + 64;
    const b = 32 - Math.clz32(x);
    w.write(0, b - 7);
    w.write(x, b);
  }
  let q = fw.finish();
  const nb = bw.finish();
  for (let i = nb - 1; i >= 0; i--) out[q++] = BACK[i]!;
  return q;
}


/**
 * Ends a Kraken-family chunk: the raw offset and length bits after its arrays, then its 3-byte header at `head` (the
 * compressed flag, whether literals are raw rather than deltas, and the size). Returns the end, or -1 when the chunk
 * would not be smaller than its `count` raw bytes or is too short to be valid (the caller then codes it another way).
 */
export function closeChunk(out: Uint8Array, head: number, q: number, count: number, no: number, nlong: number, delta: boolean): number {
  if (q - head - 3 >= count) return -1;
  q = writeTail(no, nlong, out, q);
  const used = q - head - 3;
  if (used >= count || used < 13) return -1;
  writeChunkHeader(out, head, used, delta);
  return q;
}

/** A compressed chunk's 3-byte header: the compressed flag, whether literals are raw (not deltas), and its size. */
export function writeChunkHeader(out: Uint8Array, head: number, used: number, delta: boolean): void {
  const h = 0x800000 | ((delta ? 0 : 1) << 19) | used;
  out[head] = h >>> 16;
  out[head + 1] = h >>> 8;
  out[head + 2] = h;
}
