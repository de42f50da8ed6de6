import { corrupt } from './corrupt.js';
import { type Cursor, decodeBytes } from './entropy.js';
import { addLiterals, copyLiterals, copyMatch } from './lz-copy.js';
import { scratch } from './scratch.js';

/**
 * Mermaid and Selkie LZ chunks (same format; only the encoders differ). A chunk is processed as two 64 KiB halves
 * that share the literal, command, near-offset and length streams but each have their own far-offset list.
 *
 * Command bytes:
 *   >= 24  literal count in bits 0-2, match length in bits 3-6; bit 7 clear = take a new 16-bit offset, set = reuse
 *          the last offset
 *   3..23  match of length cmd + 5 at the next far offset
 *   0      long literal run (length from the length stream + 64)
 *   1      long match at a new 16-bit offset (length + 91)
 *   2      long match at the next far offset (length + 29)
 * Far offsets count back from the start of the current half. Mode 0 codes literals as differences from the byte at
 * the last offset; mode 1 stores them as they are.
 */

const HALF = 0x10000;

export function decodeMermaidChunk(src: Uint8Array, pos: number, end: number, out: Uint8Array, dst: number, count: number, mode: number): void {
  if (mode > 1) corrupt(`unknown Mermaid chunk mode ${mode}`, pos);
  if (end - pos < 10) corrupt('Mermaid chunk too short', pos);
  const lz = scratch().lz;
  const chunkStart = dst;
  const first = dst === 0;
  if (first) {
    if (count < 8) corrupt('Mermaid chunk too short for its stored prefix', pos);
    out.set(src.subarray(pos, pos + 8), 0);
    pos += 8;
  }

  const cur: Cursor = { pos };
  const litCount = decodeBytes(src, cur, end, lz.lits, 0, count, 0);
  const cmdCount = decodeBytes(src, cur, end, lz.cmds, 0, count, 0);
  let p = cur.pos;
  let split = cmdCount;
  if (count > HALF) {
    if (end - p < 2) corrupt('Mermaid chunk truncated at the command split', p);
    split = src[p] | (src[p + 1] << 8);
    p += 2;
    if (split > cmdCount) corrupt('Mermaid command split beyond the commands', p);
  }

  if (end - p < 2) corrupt('Mermaid chunk truncated at the near offsets', p);
  let nearCount = src[p] | (src[p + 1] << 8);
  p += 2;
  const near = lz.off16;
  if (nearCount === 0xffff) {
    // Entropy coded as a high-byte array then a low-byte array.
    cur.pos = p;
    const hi = decodeBytes(src, cur, end, lz.packedOffs, 0, count >> 1, 0);
    const lo = decodeBytes(src, cur, end, lz.packedOffsLow, 0, count >> 1, 0);
    if (hi !== lo) corrupt('Mermaid near offset halves differ in length', p);
    const his = lz.packedOffs;
    const los = lz.packedOffsLow;
    for (let i = 0; i < lo; i++) near[i] = los[i] | (his[i] << 8);
    nearCount = lo;
    p = cur.pos;
  } else {
    if (nearCount * 2 > end - p) corrupt('Mermaid near offsets run past the chunk', p);
    for (let i = 0; i < nearCount; i++, p += 2) near[i] = src[p] | (src[p + 1] << 8);
  }

  if (end - p < 3) corrupt('Mermaid chunk truncated at the far offsets', p);
  const sizes = src[p] | (src[p + 1] << 8) | (src[p + 2] << 16);
  p += 3;
  let farCountA = 0;
  let farCountB = 0;
  if (sizes !== 0) {
    farCountA = sizes >>> 12;
    farCountB = sizes & 0xfff;
    if (farCountA === 4095) {
      if (end - p < 2) corrupt('Mermaid chunk truncated at the far offsets', p);
      farCountA = src[p] | (src[p + 1] << 8);
      p += 2;
    }
    if (farCountB === 4095) {
      if (end - p < 2) corrupt('Mermaid chunk truncated at the far offsets', p);
      farCountB = src[p] | (src[p + 1] << 8);
      p += 2;
    }
    p = readFarOffsets(src, p, end, lz.off32a, farCountA, chunkStart);
    p = readFarOffsets(src, p, end, lz.off32b, farCountB, chunkStart + HALF);
  }

  // Everything left is the length stream, read as the commands need it.
  const delta = mode === 0;
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const cmds = lz.cmds;
  let lp = 0;
  let np = 0;
  let lenPos = p;
  let recent = -8;
  let cp = 0;
  for (let half = 0; half < 2; half++) {
    const begin = chunkStart + half * HALF;
    const hEnd = Math.min(begin + HALF, chunkStart + count);
    let d = first && half === 0 ? 8 : begin;
    const cmdEnd = half === 0 ? split : cmdCount;
    const far = half === 0 ? lz.off32a : lz.off32b;
    const farCount = half === 0 ? farCountA : farCountB;
    let fp = 0;

    while (cp < cmdEnd) {
      const c = cmds[cp++];
      if (c >= 24) {
        const litLen = c & 7;
        // Running out of literals is caught at the end of the half (lp then exceeds litCount); reads stay inside the buffer.
        if (litLen > hEnd - d) corrupt('Mermaid literal run overflows', lenPos);
        if (delta) addLiterals(out, view, d, lp, litLen, -recent);
        else copyLiterals(out, view, d, lp, litLen);
        d += litLen;
        lp += litLen;
        if ((c & 0x80) === 0) {
          if (np >= nearCount) corrupt('Mermaid near offsets exhausted', lenPos);
          const o = near[np++];
          // Offset 0 would copy the bytes being written: no encoder sends it.
          if (o > d || o === 0) corrupt('Mermaid match offset out of range', lenPos);
          recent = -o;
        }
        const len = (c >>> 3) & 15;
        if (len > hEnd - d) corrupt('Mermaid match overflows', lenPos);
        copyMatch(out, view, d, d + recent, len);
        d += len;
      } else if (c > 2) {
        const len = c + 5;
        if (fp >= farCount) corrupt('Mermaid far offsets exhausted', lenPos);
        const from = begin - far[fp++];
        if (from === d) corrupt('Mermaid match offset out of range', lenPos);
        recent = from - d;
        if (len > hEnd - d) corrupt('Mermaid match overflows', lenPos);
        copyMatch(out, view, d, from, len);
        d += len;
      } else {
        // Long forms take their length from the length stream.
        if (lenPos >= end) corrupt('Mermaid length stream exhausted', lenPos);
        let len = src[lenPos];
        if (len > 251) {
          if (end - lenPos < 3) corrupt('Mermaid length stream exhausted', lenPos);
          len += 4 * (src[lenPos + 1] | (src[lenPos + 2] << 8));
          lenPos += 2;
        }
        lenPos += 1;
        if (c === 0) {
          len += 64;
          if (len > litCount - lp || len > hEnd - d) corrupt('Mermaid literal run overflows', lenPos);
          if (delta) addLiterals(out, view, d, lp, len, -recent);
          else copyLiterals(out, view, d, lp, len);
          d += len;
          lp += len;
        } else if (c === 1) {
          len += 91;
          if (np >= nearCount) corrupt('Mermaid near offsets exhausted', lenPos);
          const o = near[np++];
          if (o > d || o === 0) corrupt('Mermaid match offset out of range', lenPos);
          recent = -o;
          if (len > hEnd - d) corrupt('Mermaid match overflows', lenPos);
          copyMatch(out, view, d, d + recent, len);
          d += len;
        } else {
          len += 29;
          if (fp >= farCount) corrupt('Mermaid far offsets exhausted', lenPos);
          const from = begin - far[fp++];
          if (from === d) corrupt('Mermaid match offset out of range', lenPos);
          recent = from - d;
          if (len > hEnd - d) corrupt('Mermaid match overflows', lenPos);
          copyMatch(out, view, d, from, len);
          d += len;
        }
      }
    }

    const rest = hEnd - d;
    if (rest > litCount - lp) corrupt('Mermaid trailing literals run out', lenPos);
    if (delta) addLiterals(out, view, d, lp, rest, -recent);
    else copyLiterals(out, view, d, lp, rest);
    lp += rest;
    if (hEnd === chunkStart + count) break;
  }
  if (lenPos !== end) corrupt('Mermaid length stream does not end with the chunk', lenPos);
}

/**
 * Far offsets: three bytes each, or once the output has passed 12 MiB, a fourth byte when the first three reach
 * 0xC00000. None may reach back before the start of the output (`limit` = where this half starts).
 */
function readFarOffsets(src: Uint8Array, p: number, end: number, into: Uint32Array, n: number, limit: number): number {
  const wide = limit >= 0xc00000 - 1;
  for (let i = 0; i < n; i++) {
    if (end - p < 3) corrupt('Mermaid far offsets run past the chunk', p);
    let off = src[p] | (src[p + 1] << 8) | (src[p + 2] << 16);
    p += 3;
    if (wide && off >= 0xc00000) {
      if (p >= end) corrupt('Mermaid far offsets run past the chunk', p);
      off += src[p++] * 0x400000;
    }
    if (off > limit) corrupt('Mermaid far offset reaches before the output', p);
    into[i] = off;
  }
  return p;
}
