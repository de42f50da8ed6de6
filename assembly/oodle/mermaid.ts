import { addLiterals, copyLiterals, copyMatch } from './copy';
import { cur, decodeBytes, setCur } from './entropy';
import { corrupt, corruptWith } from './errors';
import { CMDS, LITS, LITS_SIZE, MAX_ARRAY_SIZE, OFF16, OFF32A, OFF32B, PACKED_OFFS, PACKED_OFFS_LOW } from './scratch';

/**
 * Mermaid and Selkie LZ chunks, as src/codecs/oodle/mermaid.ts: two 64 KiB halves sharing the literal, command,
 * near-offset and length streams, each with its own far-offset list. `base` is the start of the whole output.
 */

const HALF: i32 = 0x10000;

export function decodeMermaidChunk(pos: usize, end: usize, base: usize, dst: usize, count: i32, mode: i32): void {
  if (mode > 1) corruptWith('unknown Mermaid chunk mode', mode, pos);
  if (<i32>(end - pos) < 10) corrupt('Mermaid chunk too short', pos);
  const chunkStart = dst;
  const first = dst == base;
  if (first) {
    if (count < 8) corrupt('Mermaid chunk too short for its stored prefix', pos);
    store<u64>(dst, load<u64>(pos));
    pos += 8;
  }

  setCur(pos);
  const litCount = decodeBytes(end, LITS, LITS + LITS_SIZE, count, 0);
  const cmdCount = decodeBytes(end, CMDS, CMDS + MAX_ARRAY_SIZE, count, 0);
  let p = cur;
  let split = cmdCount;
  if (count > HALF) {
    if (<i32>(end - p) < 2) corrupt('Mermaid chunk truncated at the command split', p);
    split = <i32>load<u16>(p);
    p += 2;
    if (split > cmdCount) corrupt('Mermaid command split beyond the commands', p);
  }

  if (<i32>(end - p) < 2) corrupt('Mermaid chunk truncated at the near offsets', p);
  let nearCount = <i32>load<u16>(p);
  p += 2;
  if (nearCount == 0xffff) {
    setCur(p);
    const hi = decodeBytes(end, PACKED_OFFS, PACKED_OFFS + MAX_ARRAY_SIZE, count >> 1, 0);
    const lo = decodeBytes(end, PACKED_OFFS_LOW, PACKED_OFFS_LOW + MAX_ARRAY_SIZE, count >> 1, 0);
    if (hi != lo) corrupt('Mermaid near offset halves differ in length', p);
    for (let i = 0; i < lo; i++) store<u16>(OFF16 + (<usize>i << 1), <u16>(<u32>load<u8>(PACKED_OFFS_LOW + i) | (<u32>load<u8>(PACKED_OFFS + i) << 8)));
    nearCount = lo;
    p = cur;
  } else {
    if (nearCount * 2 > <i32>(end - p)) corrupt('Mermaid near offsets run past the chunk', p);
    memory.copy(OFF16, p, <usize>nearCount << 1);
    p += <usize>nearCount << 1;
  }

  if (<i32>(end - p) < 3) corrupt('Mermaid chunk truncated at the far offsets', p);
  const sizes = <i32>load<u16>(p) | (<i32>load<u8>(p + 2) << 16);
  p += 3;
  let farCountA = 0;
  let farCountB = 0;
  if (sizes != 0) {
    farCountA = sizes >>> 12;
    farCountB = sizes & 0xfff;
    if (farCountA == 4095) {
      if (<i32>(end - p) < 2) corrupt('Mermaid chunk truncated at the far offsets', p);
      farCountA = <i32>load<u16>(p);
      p += 2;
    }
    if (farCountB == 4095) {
      if (<i32>(end - p) < 2) corrupt('Mermaid chunk truncated at the far offsets', p);
      farCountB = <i32>load<u16>(p);
      p += 2;
    }
    const at = <i32>(chunkStart - base);
    p = readFarOffsets(p, end, OFF32A, farCountA, at);
    p = readFarOffsets(p, end, OFF32B, farCountB, at + HALF);
  }

  if (mode == 0) runHalves(p, end, base, chunkStart, count, first, litCount, split, cmdCount, nearCount, farCountA, farCountB, true);
  else runHalves(p, end, base, chunkStart, count, first, litCount, split, cmdCount, nearCount, farCountA, farCountB, false);
}

@inline
function runHalves(
  lenStart: usize,
  end: usize,
  base: usize,
  chunkStart: usize,
  count: i32,
  first: bool,
  litCount: i32,
  split: i32,
  cmdCount: i32,
  nearCount: i32,
  farCountA: i32,
  farCountB: i32,
  delta: bool,
): void {
  let lp: usize = LITS;
  const litEnd = LITS + litCount;
  let np: usize = OFF16;
  const nearEnd = OFF16 + (<usize>nearCount << 1);
  let lenPos = lenStart;
  let recent: i32 = -8;
  let cp: usize = CMDS;
  const chunkEnd = chunkStart + count;
  for (let half = 0; half < 2; half++) {
    const begin = chunkStart + half * HALF;
    const hEnd = min(begin + HALF, chunkEnd);
    let d = first && half == 0 ? begin + 8 : begin;
    const cmdEnd = CMDS + (half == 0 ? split : cmdCount);
    let fp: usize = half == 0 ? OFF32A : OFF32B;
    const farEnd = fp + (<usize>(half == 0 ? farCountA : farCountB) << 2);

    while (cp < cmdEnd) {
      const c = <i32>load<u8>(cp++);
      if (c >= 24) {
        const litLen = c & 7;
        if (litLen > <i32>(hEnd - d)) corrupt('Mermaid literal run overflows', lenPos);
        if (delta) addLiterals(d, lp, litLen, <usize>-recent);
        else copyLiterals(d, lp, litLen);
        d += litLen;
        lp += litLen;
        if ((c & 0x80) == 0) {
          if (np >= nearEnd) corrupt('Mermaid near offsets exhausted', lenPos);
          const o = <i32>load<u16>(np);
          np += 2;
          if (o > <i32>(d - base) || o == 0) corrupt('Mermaid match offset out of range', lenPos);
          recent = -o;
        }
        const len = (c >>> 3) & 15;
        if (len > <i32>(hEnd - d)) corrupt('Mermaid match overflows', lenPos);
        copyMatch(d, d + recent, len);
        d += len;
      } else if (c > 2) {
        const len = c + 5;
        if (fp >= farEnd) corrupt('Mermaid far offsets exhausted', lenPos);
        const from = begin - load<u32>(fp);
        fp += 4;
        if (from == d) corrupt('Mermaid match offset out of range', lenPos);
        recent = <i32>(from - d);
        if (len > <i32>(hEnd - d)) corrupt('Mermaid match overflows', lenPos);
        copyMatch(d, from, len);
        d += len;
      } else {
        if (lenPos >= end) corrupt('Mermaid length stream exhausted', lenPos);
        let len = <i32>load<u8>(lenPos);
        if (len > 251) {
          if (<i32>(end - lenPos) < 3) corrupt('Mermaid length stream exhausted', lenPos);
          len += 4 * <i32>load<u16>(lenPos + 1);
          lenPos += 2;
        }
        lenPos += 1;
        if (c == 0) {
          len += 64;
          if (len > <i32>(litEnd - lp) || len > <i32>(hEnd - d)) corrupt('Mermaid literal run overflows', lenPos);
          if (delta) addLiterals(d, lp, len, <usize>-recent);
          else copyLiterals(d, lp, len);
          d += len;
          lp += len;
        } else if (c == 1) {
          len += 91;
          if (np >= nearEnd) corrupt('Mermaid near offsets exhausted', lenPos);
          const o = <i32>load<u16>(np);
          np += 2;
          if (o > <i32>(d - base) || o == 0) corrupt('Mermaid match offset out of range', lenPos);
          recent = -o;
          if (len > <i32>(hEnd - d)) corrupt('Mermaid match overflows', lenPos);
          copyMatch(d, d + recent, len);
          d += len;
        } else {
          len += 29;
          if (fp >= farEnd) corrupt('Mermaid far offsets exhausted', lenPos);
          const from = begin - load<u32>(fp);
          fp += 4;
          if (from == d) corrupt('Mermaid match offset out of range', lenPos);
          recent = <i32>(from - d);
          if (len > <i32>(hEnd - d)) corrupt('Mermaid match overflows', lenPos);
          copyMatch(d, from, len);
          d += len;
        }
      }
    }

    const rest = <i32>(hEnd - d);
    if (rest > <i32>(litEnd - lp)) corrupt('Mermaid trailing literals run out', lenPos);
    if (rest > 0) {
      if (delta) addLiterals(d, lp, rest, <usize>-recent);
      else copyLiterals(d, lp, rest);
    }
    lp += rest;
    if (hEnd == chunkEnd) break;
  }
  if (lenPos != end) corrupt('Mermaid length stream does not end with the chunk', lenPos);
}

/**
 * Far offsets: three bytes each, or once the output has passed 12 MiB, a fourth byte when the first three reach
 * 0xC00000. None may reach back before the start of the output (`limit` = where this half starts).
 */
function readFarOffsets(p: usize, end: usize, into: usize, n: i32, limit: i32): usize {
  const wide = limit >= 0xc00000 - 1;
  for (let i = 0; i < n; i++) {
    if (<i32>(end - p) < 3) corrupt('Mermaid far offsets run past the chunk', p);
    let off = <i64>(<i32>load<u16>(p) | (<i32>load<u8>(p + 2) << 16));
    p += 3;
    if (wide && off >= 0xc00000) {
      if (p >= end) corrupt('Mermaid far offsets run past the chunk', p);
      off += <i64>load<u8>(p++) * 0x400000;
    }
    if (off > <i64>limit) corrupt('Mermaid far offset reaches before the output', p);
    store<u32>(into + (<usize>i << 2), <u32>off);
  }
  return p;
}
