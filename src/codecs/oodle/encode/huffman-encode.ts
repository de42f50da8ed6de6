import { MsbWriter } from './bit-writer.js';
import { canonicalEntries } from './huffman-lengths.js';
import { writeHuffmanTable } from './huffman-table.js';

/**
 * The payload of a Huffman array (entropy types 2 and 4): the table, then the symbols dealt round-robin to three bit
 * streams (A forward from the start, B backward from the end, C forward from A's end; see huffman.ts). Type 4 does
 * this for each half of the array. Returns the position after the payload, or -1 when a split does not fit its
 * field (the caller then codes the array another way). `form` is the table form chooseHuffmanTable picked; the m
 * symbols present are in `present`, ascending.
 */
export function writeHuffmanPayload(src: Uint8Array, start: number, n: number, lens: Uint8Array, present: Int32Array, m: number, form: number, out: Uint8Array, at: number, halves: boolean): number {
  canonicalEntries(lens, present, m, entries);
  const w = new MsbWriter(out, at);
  writeHuffmanTable(w, lens, form);
  let p = w.finish();
  if (!halves) return writeStreams(src, start, start + n, out, p);
  const half = (n + 1) >> 1;
  const midField = p;
  p += 3;
  const mid = writeStreams(src, start, start + half, out, p);
  // Each half's B and C streams must hold two bytes or more between them.
  if (mid < 0 || mid - p - 2 - (out[p]! | (out[p + 1]! << 8)) < 2) return -1;
  const midSplit = mid - p;
  out[midField] = midSplit;
  out[midField + 1] = midSplit >>> 8;
  out[midField + 2] = midSplit >>> 16;
  const end = writeStreams(src, start + half, start + n, out, mid);
  if (end < 0 || end - mid - 2 - (out[mid]! | (out[mid + 1]! << 8)) < 2) return -1;
  return end;
}

/** Code and length of each present symbol in one entry: code << 4 | length. */
const entries = new Int32Array(256);
/**
 * A is written in place (it comes first), C and B on their own and then copied behind it; B backward from the end of
 * its buffer, so that it comes out reversed, as it is laid out.
 */
const STREAM_ROOM = 0x30000;
const bufB = new Uint8Array(STREAM_ROOM);
const bufC = new Uint8Array(STREAM_ROOM);

/** Writes [A's length: u16][A][C][B reversed] for src[from, to) at out[at]; returns the end, or -1 if A is too long. */
function writeStreams(src: Uint8Array, from: number, to: number, out: Uint8Array, at: number): number {
  // Sixteen bits are written whenever sixteen are pending; fewer than sixteen plus an 11-bit code fit an int32.
  let accA = 0;
  let nA = 0;
  const startA = at + 2;
  let pA = startA;
  let accB = 0;
  let nB = 0;
  let pB = STREAM_ROOM;
  let accC = 0;
  let nC = 0;
  let pC = 0;
  let i = from;
  const last = to - 3;
  for (; i <= last; i += 3) {
    let e = entries[src[i]!]!;
    accA |= (e >>> 4) << nA;
    nA += e & 15;
    e = entries[src[i + 1]!]!;
    accB |= (e >>> 4) << nB;
    nB += e & 15;
    e = entries[src[i + 2]!]!;
    accC |= (e >>> 4) << nC;
    nC += e & 15;
    if (nA >= 16) {
      out[pA] = accA;
      out[pA + 1] = accA >>> 8;
      pA += 2;
      accA >>>= 16;
      nA -= 16;
    }
    if (nB >= 16) {
      bufB[pB - 1] = accB;
      bufB[pB - 2] = accB >>> 8;
      pB -= 2;
      accB >>>= 16;
      nB -= 16;
    }
    if (nC >= 16) {
      bufC[pC] = accC;
      bufC[pC + 1] = accC >>> 8;
      pC += 2;
      accC >>>= 16;
      nC -= 16;
    }
  }
  if (i < to) {
    const e = entries[src[i]!]!;
    accA |= (e >>> 4) << nA;
    nA += e & 15;
  }
  if (i + 1 < to) {
    const e = entries[src[i + 1]!]!;
    accB |= (e >>> 4) << nB;
    nB += e & 15;
  }
  for (; nA > 0; nA -= 8, accA >>>= 8) out[pA++] = accA;
  for (; nB > 0; nB -= 8, accB >>>= 8) bufB[--pB] = accB;
  for (; nC > 0; nC -= 8, accC >>>= 8) bufC[pC++] = accC;
  const lenA = pA - startA;
  if (lenA > 0xffff) return -1;
  out[at] = lenA;
  out[at + 1] = lenA >>> 8;
  let q = pA;
  out.set(bufC.subarray(0, pC), q);
  q += pC;
  out.set(bufB.subarray(pB, STREAM_ROOM), q);
  return q + STREAM_ROOM - pB;
}
