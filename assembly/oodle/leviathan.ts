import { addLiterals, copyLiterals, copyMatch } from './copy';
import { cur, decodeBytes, decodeMultiArray, setCur } from './entropy';
import { corrupt, corruptAtOutput, corruptWith } from './errors';
import { unpackOffsets } from './offsets';
import { CMD_LEN, CMD_START, CMDS, LENS, LITS, LITS_SIZE, MAX_ARRAY_SIZE, OFFS, PACKED_LENS, PACKED_OFFS, PACKED_OFFS_LOW, PART_LEN, PART_START } from './scratch';

/**
 * Leviathan LZ chunks, as src/codecs/oodle/leviathan.ts: seven recent offsets, match lengths 2-8 (9 = long, from the
 * back of the length array), literal modes 0-5 (differences, stored, split first literal, 4 or 16 streams by
 * position, 16 streams by the previous byte's high nibble), commands optionally spread over 8 streams.
 * `PART_START`/`PART_LEN` hold each literal stream's read address and end, `CMD_START`/`CMD_LEN` each command
 * stream's (i32 each).
 */

const RECENT: i32 = 7;
const RECENT_OFFS: usize = memory.data(8 * 4, 16);

@inline function i32At(base: usize, i: i32): usize {
  return base + (<usize>i << 2);
}

export function decodeLeviathanChunk(pos: usize, end: usize, base: usize, dst: usize, count: i32, mode: i32): void {
  if (mode > 5) corruptWith('unknown Leviathan chunk mode', mode, pos);
  if (<i32>(end - pos) < 13) corrupt('Leviathan chunk too short', pos);
  const chunkStart = dst;
  const dstEnd = dst + count;
  if (dst == base) {
    if (count < 8) corrupt('Leviathan chunk too short for its stored prefix', pos);
    store<u64>(dst, load<u64>(pos));
    dst += 8;
    pos += 8;
  }

  setCur(pos);
  const offLimit = count / 3;
  let scale = 0;
  if (load<u8>(cur) & 0x80) {
    scale = <i32>load<u8>(cur) - 127;
    setCur(cur + 1);
  }
  const offCount = decodeBytes(end, PACKED_OFFS, PACKED_OFFS + MAX_ARRAY_SIZE, offLimit, 0);
  if (scale > 1) {
    const at = cur;
    if (decodeBytes(end, PACKED_OFFS_LOW, PACKED_OFFS_LOW + MAX_ARRAY_SIZE, offLimit, 0) != offCount) corrupt('offset low parts count mismatch', at);
  }
  const lenCount = decodeBytes(end, PACKED_LENS, PACKED_LENS + MAX_ARRAY_SIZE, count / 5, 0);

  let streams = 1;
  if (mode <= 1) {
    store<i32>(PART_START, <i32>LITS);
    store<i32>(PART_LEN, <i32>LITS + decodeBytes(end, LITS, LITS + LITS_SIZE, count, 0));
  } else {
    streams = mode == 2 ? 2 : mode == 3 ? 4 : 16;
    decodeMultiArray(end, LITS, LITS + LITS_SIZE, MAX_ARRAY_SIZE, streams, PART_START, PART_LEN, 0);
    for (let i = 0; i < streams; i++) {
      const s = load<i32>(i32At(PART_START, i)) + <i32>LITS;
      store<i32>(i32At(PART_START, i), s);
      store<i32>(i32At(PART_LEN, i), s + load<i32>(i32At(PART_LEN, i)));
    }
  }

  if (cur >= end) corrupt('Leviathan chunk truncated before its commands', cur);
  let cmdStreams = 1;
  let cmdTotal: i32;
  if ((load<u8>(cur) & 0x80) == 0) {
    cmdTotal = decodeBytes(end, CMDS, CMDS + MAX_ARRAY_SIZE, count, 0);
    store<i32>(CMD_START, <i32>CMDS);
    store<i32>(CMD_LEN, <i32>CMDS + cmdTotal);
  } else {
    if (load<u8>(cur) != 0x83) corrupt('bad Leviathan command stream header', cur);
    setCur(cur + 1);
    cmdStreams = 8;
    cmdTotal = decodeMultiArray(end, CMDS, CMDS + MAX_ARRAY_SIZE, MAX_ARRAY_SIZE, 8, CMD_START, CMD_LEN, 0);
    for (let i = 0; i < 8; i++) {
      const s = load<i32>(i32At(CMD_START, i)) + <i32>CMDS;
      store<i32>(i32At(CMD_START, i), s);
      store<i32>(i32At(CMD_LEN, i), s + load<i32>(i32At(CMD_LEN, i)));
    }
  }

  unpackOffsets(cur, end, PACKED_OFFS, PACKED_OFFS_LOW, offCount, scale, PACKED_LENS, lenCount, OFFS, LENS);

  setChunk(base, chunkStart, dstEnd, pos, streams, offCount, lenCount, cmdTotal);
  // One loop instance per literal mode and command layout, each with them fixed at compile time.
  if (cmdStreams == 1) {
    if (mode == 0) runCommands<Mode0, OneStream>(dst);
    else if (mode == 1) runCommands<Mode1, OneStream>(dst);
    else if (mode == 2) runCommands<Mode2, OneStream>(dst);
    else if (mode == 4) runCommands<Mode4, OneStream>(dst);
    else runCommands<Mode35, OneStream>(dst);
  } else if (mode == 0) runCommands<Mode0, EightStreams>(dst);
  else if (mode == 1) runCommands<Mode1, EightStreams>(dst);
  else if (mode == 2) runCommands<Mode2, EightStreams>(dst);
  else if (mode == 4) runCommands<Mode4, EightStreams>(dst);
  else runCommands<Mode35, EightStreams>(dst);
}

class Mode0 {}
class Mode1 {}
class Mode2 {}
class Mode35 {}
class Mode4 {}
class OneStream {}
class EightStreams {}

let cBase: usize = 0;
let cChunkStart: usize = 0;
let cDstEnd: usize = 0;
let cWhere: usize = 0;
let cStreams: i32 = 0;
let cOffCount: i32 = 0;
let cLenCount: i32 = 0;
let cCmdTotal: i32 = 0;

function setChunk(base: usize, chunkStart: usize, dstEnd: usize, where: usize, streams: i32, offCount: i32, lenCount: i32, cmdTotal: i32): void {
  cBase = base;
  cChunkStart = chunkStart;
  cDstEnd = dstEnd;
  cWhere = where;
  cStreams = streams;
  cOffCount = offCount;
  cLenCount = lenCount;
  cCmdTotal = cmdTotal;
}

/**
 * Moves recent offset `idx` (0-6; 7 = a new one) to the front, the ones before it one place back: two vector
 * shuffles and selects with a mask per index rather than a loop whose length changes with every command.
 */
const SHIFT_MASKS: usize = memory.data(8 * 32, 16);
for (let idx = 0; idx < 8; idx++) {
  for (let k = 1; k < 8; k++) store<i32>(SHIFT_MASKS + <usize>(idx * 32 + k * 4), k <= idx ? -1 : 0);
}

function runCommands<L, C>(dst: usize): void {
  const base = cBase;
  const chunkStart = cChunkStart;
  const dstEnd = cDstEnd;
  const pos = cWhere;
  const offCount = cOffCount;
  const streams = cStreams;
  const eight = idof<C>() == idof<EightStreams>();
  const rec = RECENT_OFFS;
  v128.store(rec, i32x4.splat(-8));
  v128.store(rec, i32x4.splat(-8), 16);
  let last: i32 = -8;
  let op = 0;
  let np = 0;
  let lenBack = cLenCount;
  let cp: usize = CMDS;
  let cpEnd: usize = CMDS + cCmdTotal;
  if (!eight) {
    cp = <usize>load<i32>(CMD_START);
    cpEnd = <usize>load<i32>(CMD_LEN);
  }
  for (let left = cCmdTotal; left > 0; left--) {
    let c: i32;
    if (eight) {
      const s = <i32>(dst - chunkStart) & 7;
      const sa = i32At(CMD_START, s);
      const at = load<i32>(sa);
      if (at >= load<i32>(i32At(CMD_LEN, s))) corrupt('Leviathan command stream exhausted', pos);
      c = <i32>load<u8>(<usize>at);
      store<i32>(sa, at + 1);
    } else {
      if (cp >= cpEnd) corrupt('Leviathan command stream exhausted', pos);
      c = <i32>load<u8>(cp++);
    }

    // Literal and match lengths from the length array (3 and 9 mean "take the next") chosen without branches.
    let litLen = (c >>> 3) & 3;
    const longLit = litLen == 3;
    if (<u32>longLit & <u32>(np >= lenBack)) corrupt('Leviathan length array exhausted', pos);
    litLen = select<i32>(load<i32>(i32At(LENS, np)) & 0xffffff, litLen, longLit);
    np += <i32>longLit;
    if (litLen > 0) {
      if (litLen > <i32>(dstEnd - dst)) corrupt('Leviathan literal run overflows', pos);
      literals<L>(streams, chunkStart, dst, litLen, last);
      dst += litLen;
    }

    const idx = c >>> 5;
    if (<u32>(idx == RECENT) & <u32>(op >= offCount)) corrupt('Leviathan offset array exhausted', pos);
    const fresh = load<i32>(i32At(OFFS, op));
    const off = select<i32>(fresh, load<i32>(i32At(rec, idx & 7)), idx == RECENT);
    op += <i32>(idx == RECENT);
    const lo = v128.load(rec);
    const hi = v128.load(rec, 16);
    const m = SHIFT_MASKS + (<usize>idx << 5);
    const shiftedLo = i8x16.shuffle(lo, lo, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    const shiftedHi = i8x16.shuffle(lo, hi, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27);
    v128.store(rec, i32x4.replace_lane(v128.bitselect(shiftedLo, lo, v128.load(m)), 0, off));
    v128.store(rec, v128.bitselect(shiftedHi, hi, v128.load(m, 16)), 16);
    last = off;
    if (off >= 0 || <i32>(dst - base) + off < 0) corrupt('Leviathan match offset out of range', pos);

    let matchLen = (c & 7) + 2;
    const longMatch = matchLen == 9;
    if (<u32>longMatch & <u32>(np >= lenBack)) corrupt('Leviathan length array exhausted', pos);
    lenBack -= <i32>longMatch;
    matchLen = select<i32>(load<i32>(i32At(LENS, lenBack)) + 6, matchLen, longMatch);
    if (matchLen > <i32>(dstEnd - dst)) corrupt('Leviathan match overflows the chunk', pos);
    copyMatch(dst, dst + off, matchLen);
    dst += matchLen;
  }
  if (op != offCount || np != lenBack) corrupt('Leviathan offset or length arrays not fully used', pos);
  if (dst < dstEnd) literals<L>(streams, chunkStart, dst, <i32>(dstEnd - dst), last);
}

/** Writes `n` literals at `d` in literal mode L; `last` is the last match offset (negative). */
@inline
function literals<L>(streams: i32, chunkStart: usize, d: usize, n: i32, last: i32): void {
  if (idof<L>() == idof<Mode1>()) {
    const p = <usize>load<i32>(PART_START);
    if (n > load<i32>(PART_LEN) - <i32>p) corruptAtOutput('Leviathan literal stream exhausted', d);
    copyLiterals(d, p, n);
    store<i32>(PART_START, <i32>(p + n));
  } else if (idof<L>() == idof<Mode0>()) {
    const p = <usize>load<i32>(PART_START);
    if (n > load<i32>(PART_LEN) - <i32>p) corruptAtOutput('Leviathan literal stream exhausted', d);
    addLiterals(d, p, n, <usize>-last);
    store<i32>(PART_START, <i32>(p + n));
  } else if (idof<L>() == idof<Mode2>()) {
    // First literal from the second stream, the rest from the first.
    const p1 = load<i32>(PART_START, 4);
    const p = load<i32>(PART_START);
    if (p1 >= load<i32>(PART_LEN, 4) || n - 1 > load<i32>(PART_LEN) - p) corruptAtOutput('Leviathan literal stream exhausted', d);
    store<u8>(d, load<u8>(<usize>p1) + load<u8>(d + last));
    store<i32>(PART_START, p1 + 1, 4);
    if (n > 1) addLiterals(d + 1, <usize>p, n - 1, <usize>-last);
    store<i32>(PART_START, p + n - 1);
  } else if (idof<L>() == idof<Mode4>()) {
    contextLiterals(d, n);
  } else {
    positionLiterals(streams, chunkStart, d, n, last);
  }
}

/** Mode 4: stored literals, each from the stream the previous byte's high nibble names. */
function contextLiterals(d: usize, n: i32): void {
  let ctx = <i32>load<u8>(d - 1);
  for (let i = 0; i < n; i++) {
    const sa = i32At(PART_START, ctx >>> 4);
    const p = load<i32>(sa);
    if (p >= load<i32>(i32At(PART_LEN, ctx >>> 4))) corruptAtOutput('Leviathan literal stream exhausted', d + i);
    ctx = <i32>load<u8>(<usize>p);
    store<i32>(sa, p + 1);
    store<u8>(d + i, <u8>ctx);
  }
}

/** Modes 3 and 5: difference literals, each from the stream its output position (mod 4 or 16) names. */
function positionLiterals(streams: i32, chunkStart: usize, d: usize, n: i32, last: i32): void {
  const mask = streams - 1;
  for (let i = 0; i < n; i++) {
    const s = <i32>(d + i - chunkStart) & mask;
    const sa = i32At(PART_START, s);
    const p = load<i32>(sa);
    if (p >= load<i32>(i32At(PART_LEN, s))) corruptAtOutput('Leviathan literal stream exhausted', d + i);
    store<i32>(sa, p + 1);
    store<u8>(d + i, load<u8>(<usize>p) + load<u8>(d + i + last));
  }
}
