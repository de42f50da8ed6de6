import { addLiterals, copyLiterals, copyMatch, copyShortMatch, Delta, isDelta, Raw } from './copy';
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

  setChunk(p, end, base, chunkStart, count, first, litCount, split, cmdCount, nearCount, farCountA, farCountB);
  cNearZero = hasZeroU16(OFF16, nearCount);
  // A fast run first; if it met anything wrong, the checked run from the chunk's start says what, as the
  // TypeScript decoder would (the chunk's arrays and the output before it are untouched by either run).
  if (mode == 0) {
    if (!runChunk<Delta, Fast>()) runChunk<Delta, Checked>();
  } else if (!runChunk<Raw, Fast>()) runChunk<Raw, Checked>();
}

/*
 * The command loops. A chunk runs first with loops that leave out the short commands' bound checks while 32 bytes or
 * more of the half remain (a short command writes at most 23), folding their offset and near-offset tests into one
 * flag tested once at the end; every other failure ends the fast run at once. Only a corrupt stream fails there,
 * and its chunk then runs again with every check in place (the same tests, in the same order, as the TypeScript
 * decoder). Each loop is one instance per literal mode (Delta or Raw) and checking (Fast or Checked), so that the
 * modes are decided at compile time rather than per command.
 */

class Fast {}
/** A fast run of a half that starts 64 KiB or more into the output, in a chunk with no zero near offset. */
class FastDeep {}
class Checked {}

@inline function isFast<F>(): bool {
  return idof<F>() == idof<Fast>() || idof<F>() == idof<FastDeep>();
}

@inline function isDeep<F>(): bool {
  return idof<F>() == idof<FastDeep>();
}

// The chunk's layout, set once per chunk.
let cLenStart: usize = 0;
let cEnd: usize = 0;
let cBase: usize = 0;
let cChunkStart: usize = 0;
let cCount: i32 = 0;
let cFirst: bool = false;
let cLitCount: i32 = 0;
let cSplit: i32 = 0;
let cCmdCount: i32 = 0;
let cNearCount: i32 = 0;
let cFarCountA: i32 = 0;
let cFarCountB: i32 = 0;
/** Whether a near offset is zero (no encoder sends one): such a chunk's fast runs test every offset. */
let cNearZero: bool = false;

function setChunk(lenStart: usize, end: usize, base: usize, chunkStart: usize, count: i32, first: bool, litCount: i32, split: i32, cmdCount: i32, nearCount: i32, farCountA: i32, farCountB: i32): void {
  cLenStart = lenStart;
  cEnd = end;
  cBase = base;
  cChunkStart = chunkStart;
  cCount = count;
  cFirst = first;
  cLitCount = litCount;
  cSplit = split;
  cCmdCount = cmdCount;
  cNearCount = nearCount;
  cFarCountA = farCountA;
  cFarCountB = farCountB;
}

// Where the loops are, handed from one loop to the next.
let sCp: usize = 0;
let sD: usize = 0;
let sLp: usize = 0;
let sNp: usize = 0;
let sFp: usize = 0;
let sLenPos: usize = 0;
let sRecent: i32 = 0;

/** Runs the chunk's two halves; false if a fast run met something wrong (a checked run throws instead). */
function runChunk<M, F>(): bool {
  const chunkStart = cChunkStart;
  const chunkEnd = chunkStart + cCount;
  const litEnd = LITS + cLitCount;
  sLp = LITS;
  sNp = OFF16;
  sLenPos = cLenStart;
  sRecent = -8;
  sCp = CMDS;
  for (let half = 0; half < 2; half++) {
    const begin = chunkStart + half * HALF;
    const hEnd = min(begin + HALF, chunkEnd);
    sD = cFirst && half == 0 ? begin + 8 : begin;
    const cmdEnd = CMDS + (half == 0 ? cSplit : cCmdCount);
    sFp = half == 0 ? OFF32A : OFF32B;
    const farEnd = sFp + (<usize>(half == 0 ? cFarCountA : cFarCountB) << 2);
    if (isFast<F>()) {
      if (hEnd - begin > 32) {
        const ok = <i32>(begin - cBase) >= HALF && !cNearZero
          ? commands<M, FastDeep>(begin, hEnd - 32, cmdEnd, farEnd, litEnd)
          : commands<M, Fast>(begin, hEnd - 32, cmdEnd, farEnd, litEnd);
        if (!ok) return false;
      }
    }
    commands<M, Checked>(begin, hEnd, cmdEnd, farEnd, litEnd);

    const d = sD;
    const lp = sLp;
    const rest = <i32>(hEnd - d);
    if (rest > <i32>(litEnd - lp)) corrupt('Mermaid trailing literals run out', sLenPos);
    if (rest > 0) {
      if (isDelta<M>()) addLiterals(d, lp, rest, <usize>-sRecent);
      else copyLiterals(d, lp, rest);
    }
    sLp = lp + rest;
    if (hEnd == chunkEnd) break;
  }
  if (sLenPos != cEnd) corrupt('Mermaid length stream does not end with the chunk', sLenPos);
  return true;
}

/**
 * Runs commands of the current half from the loop state: all of them (Checked, with `limit` the half's end), or
 * (Fast) while the output position is at most `limit`. Returns false when a fast run meets anything wrong.
 */
function commands<M, F>(begin: usize, limit: usize, cmdEnd: usize, farEnd: usize, litEnd: usize): bool {
  const fast = isFast<F>();
  const deep = isDeep<F>();
  const delta = isDelta<M>();
  const base = cBase;
  const end = cEnd;
  const nearEnd = OFF16 + (<usize>cNearCount << 1);
  // In a fast run the half's end is 32 bytes past the limit.
  const hEnd = fast ? limit + 32 : limit;
  let cp = sCp;
  let d = sD;
  let lp = sLp;
  let np = sNp;
  let fp = sFp;
  let lenPos = sLenPos;
  let recent = sRecent;
  let bad: u32 = 0;
  while (cp < cmdEnd) {
    if (fast) {
      // Runs of short commands, the bulk of a chunk, in a loop of their own that keeps only their state live. A
      // short command moves the output by at most 22 bytes, so a batch of (limit - d) / 22 + 1 of them cannot
      // pass the limit before its last one starts: the loop tests only the command byte.
      while (d <= limit) {
        const stop = min(cmdEnd, cp + (limit - d) / 22 + 1);
        while (cp < stop) {
          const c = <i32>load<u8>(cp);
          if (c < 24) break;
          if (delta) addLiterals(d, lp, c & 7, <usize>-recent);
          else copyLiterals(d, lp, c & 7);
          d += c & 7;
          lp += c & 7;
          const fresh = (c >>> 7) ^ 1;
          const o = <i32>load<u16>(np);
          np += <usize>fresh << 1;
          recent = select<i32>(-o, recent, fresh);
          // Past the first 64 KiB of output every 16-bit offset reaches inside it (and none is zero: checked
          // before the run), so only the first half of a stream tests each one.
          if (!deep) bad |= <u32>(<u32>(-recent - 1) >= <u32>(d - base));
          copyShortMatch(d, d + recent, (c >>> 3) & 15);
          d += (c >>> 3) & 15;
          cp++;
        }
        if (cp < stop || cp >= cmdEnd) break;
      }
      if (cp >= cmdEnd || d > limit) break;
    }
    const c = <i32>load<u8>(cp++);
    if (c >= 24) {
      const litLen = c & 7;
      if (litLen > <i32>(hEnd - d)) corrupt('Mermaid literal run overflows', lenPos);
      if (delta) addLiterals(d, lp, litLen, <usize>-recent);
      else copyLiterals(d, lp, litLen);
      d += litLen;
      lp += litLen;
      // Bit 7 clear takes the next near offset, set reuses the last one: chosen without a branch (the two are
      // mixed without a pattern). A reused offset passes the range test below, as it did when it was new.
      const fresh = (c >>> 7) ^ 1;
      const o = <i32>load<u16>(np);
      np += <usize>fresh << 1;
      recent = select<i32>(-o, recent, fresh);
      if (np > nearEnd) corrupt('Mermaid near offsets exhausted', lenPos);
      // One unsigned test for both a zero offset and one reaching before the output.
      if (<u32>(-recent - 1) >= <u32>(d - base)) corrupt('Mermaid match offset out of range', lenPos);
      const len = (c >>> 3) & 15;
      if (len > <i32>(hEnd - d)) corrupt('Mermaid match overflows', lenPos);
      copyShortMatch(d, d + recent, len);
      d += len;
    } else if (c > 2) {
      const len = c + 5;
      if (fp >= farEnd) {
        if (fast) return false;
        corrupt('Mermaid far offsets exhausted', lenPos);
      }
      const from = begin - load<u32>(fp);
      fp += 4;
      if (from == d || len > <i32>(hEnd - d)) {
        if (fast) return false;
        if (from == d) corrupt('Mermaid match offset out of range', lenPos);
        corrupt('Mermaid match overflows', lenPos);
      }
      recent = <i32>(from - d);
      copyMatch(d, from, len);
      d += len;
    } else {
      // Long forms take their length from the length stream.
      if (lenPos >= end || (load<u8>(lenPos) > 251 && <i32>(end - lenPos) < 3)) {
        if (fast) return false;
        corrupt('Mermaid length stream exhausted', lenPos);
      }
      let len = <i32>load<u8>(lenPos);
      if (len > 251) {
        len += 4 * <i32>load<u16>(lenPos + 1);
        lenPos += 2;
      }
      lenPos += 1;
      if (c == 0) {
        len += 64;
        if (len > <i32>(litEnd - lp) || len > <i32>(hEnd - d)) {
          if (fast) return false;
          corrupt('Mermaid literal run overflows', lenPos);
        }
        if (delta) addLiterals(d, lp, len, <usize>-recent);
        else copyLiterals(d, lp, len);
        d += len;
        lp += len;
      } else if (c == 1) {
        len += 91;
        if (np >= nearEnd) {
          if (fast) return false;
          corrupt('Mermaid near offsets exhausted', lenPos);
        }
        const o = <i32>load<u16>(np);
        np += 2;
        if (o > <i32>(d - base) || o == 0) {
          if (fast) return false;
          corrupt('Mermaid match offset out of range', lenPos);
        }
        recent = -o;
        if (len > <i32>(hEnd - d)) {
          if (fast) return false;
          corrupt('Mermaid match overflows', lenPos);
        }
        copyMatch(d, d + recent, len);
        d += len;
      } else {
        len += 29;
        if (fp >= farEnd) {
          if (fast) return false;
          corrupt('Mermaid far offsets exhausted', lenPos);
        }
        const from = begin - load<u32>(fp);
        fp += 4;
        if (from == d || len > <i32>(hEnd - d)) {
          if (fast) return false;
          if (from == d) corrupt('Mermaid match offset out of range', lenPos);
          corrupt('Mermaid match overflows', lenPos);
        }
        recent = <i32>(from - d);
        copyMatch(d, from, len);
        d += len;
      }
    }
  }
  // Near offsets are taken in order, so one test at the end finds any taken past the last.
  if (fast && (bad | <u32>(np > nearEnd))) return false;
  sCp = cp;
  sD = d;
  sLp = lp;
  sNp = np;
  sFp = fp;
  sLenPos = lenPos;
  sRecent = recent;
  return true;
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

/** Whether any of the `n` 16-bit values at `at` is zero. */
function hasZeroU16(at: usize, n: i32): bool {
  let i = 0;
  for (; i + 8 <= n; i += 8) if (!i16x8.all_true(v128.load(at + (<usize>i << 1)))) return true;
  for (; i < n; i++) if (load<u16>(at + (<usize>i << 1)) == 0) return true;
  return false;
}
