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

  for (let k = 0; k < RECENT; k++) store<i32>(i32At(RECENT_OFFS, k), -8);
  let last: i32 = -8;
  let op = 0;
  let np = 0;
  let lenBack = lenCount;
  for (let left = cmdTotal; left > 0; left--) {
    const s = cmdStreams == 1 ? 0 : <i32>(dst - chunkStart) & 7;
    const sa = i32At(CMD_START, s);
    const cpos = load<i32>(sa);
    if (cpos >= load<i32>(i32At(CMD_LEN, s))) corrupt('Leviathan command stream exhausted', pos);
    const c = <i32>load<u8>(<usize>cpos);
    store<i32>(sa, cpos + 1);

    let litLen = (c >>> 3) & 3;
    if (litLen == 3) {
      if (np >= lenBack) corrupt('Leviathan length array exhausted', pos);
      litLen = load<i32>(i32At(LENS, np++)) & 0xffffff;
    }
    if (litLen > 0) {
      if (litLen > <i32>(dstEnd - dst)) corrupt('Leviathan literal run overflows', pos);
      copyLits(mode, streams, chunkStart, dst, litLen, last);
      dst += litLen;
    }

    const idx = c >>> 5;
    let off: i32;
    if (idx == RECENT) {
      if (op >= offCount) corrupt('Leviathan offset array exhausted', pos);
      off = load<i32>(i32At(OFFS, op++));
    } else {
      off = load<i32>(i32At(RECENT_OFFS, idx));
    }
    for (let k = idx < RECENT ? idx : RECENT - 1; k > 0; k--) store<i32>(i32At(RECENT_OFFS, k), load<i32>(i32At(RECENT_OFFS, k - 1)));
    store<i32>(RECENT_OFFS, off);
    last = off;
    if (off >= 0 || <i32>(dst - base) + off < 0) corrupt('Leviathan match offset out of range', pos);

    let matchLen = (c & 7) + 2;
    if (matchLen == 9) {
      if (np >= lenBack) corrupt('Leviathan length array exhausted', pos);
      matchLen = load<i32>(i32At(LENS, --lenBack)) + 6;
    }
    if (matchLen > <i32>(dstEnd - dst)) corrupt('Leviathan match overflows the chunk', pos);
    copyMatch(dst, dst + off, matchLen);
    dst += matchLen;
  }
  if (op != offCount || np != lenBack) corrupt('Leviathan offset or length arrays not fully used', pos);
  if (dst < dstEnd) copyLits(mode, streams, chunkStart, dst, <i32>(dstEnd - dst), last);
}

/** Writes `n` literals at `d` in the chunk's literal mode; `last` is the last match offset (negative). */
function copyLits(mode: i32, streams: i32, chunkStart: usize, d: usize, n: i32, last: i32): void {
  switch (mode) {
    case 1: {
      const p = <usize>load<i32>(PART_START);
      if (n > load<i32>(PART_LEN) - <i32>p) corruptAtOutput('Leviathan literal stream exhausted', d);
      copyLiterals(d, p, n);
      store<i32>(PART_START, <i32>(p + n));
      return;
    }
    case 0: {
      const p = <usize>load<i32>(PART_START);
      if (n > load<i32>(PART_LEN) - <i32>p) corruptAtOutput('Leviathan literal stream exhausted', d);
      addLiterals(d, p, n, <usize>-last);
      store<i32>(PART_START, <i32>(p + n));
      return;
    }
    case 2: {
      const p1 = load<i32>(PART_START, 4);
      const p = load<i32>(PART_START);
      if (p1 >= load<i32>(PART_LEN, 4) || n - 1 > load<i32>(PART_LEN) - p) corruptAtOutput('Leviathan literal stream exhausted', d);
      store<u8>(d, load<u8>(<usize>p1) + load<u8>(d + last));
      store<i32>(PART_START, p1 + 1, 4);
      if (n > 1) addLiterals(d + 1, <usize>p, n - 1, <usize>-last);
      store<i32>(PART_START, p + n - 1);
      return;
    }
    case 4: {
      let ctx = <i32>load<u8>(d - 1);
      for (let i = 0; i < n; i++) {
        const sa = i32At(PART_START, ctx >>> 4);
        const p = load<i32>(sa);
        if (p >= load<i32>(i32At(PART_LEN, ctx >>> 4))) corruptAtOutput('Leviathan literal stream exhausted', d + i);
        ctx = <i32>load<u8>(<usize>p);
        store<i32>(sa, p + 1);
        store<u8>(d + i, <u8>ctx);
      }
      return;
    }
    default: {
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
  }
}
