import { addLiterals, copyLiterals, copyMatch, Delta, isDelta, Raw } from './copy';
import { cur, decodeBytes, setCur } from './entropy';
import { corrupt, corruptWith } from './errors';
import { unpackOffsets } from './offsets';
import { CMDS, LENS, LITS, LITS_SIZE, MAX_ARRAY_SIZE, OFFS, PACKED_LENS, PACKED_OFFS, PACKED_OFFS_LOW } from './scratch';

/**
 * Kraken LZ chunks, as src/codecs/oodle/kraken.ts: literals, commands, packed offsets (with optional low parts) and
 * packed lengths, then the raw offset/length bits. Mode 0 codes literals as differences from the byte at the last
 * match offset; mode 1 stores them as they are. `base` is the start of the whole output.
 */
export function decodeKrakenChunk(pos: usize, end: usize, base: usize, dst: usize, count: i32, mode: i32): void {
  if (mode > 1) corruptWith('unknown Kraken chunk mode', mode, pos);
  if (<i32>(end - pos) < 13) corrupt('Kraken chunk too short', pos);
  const dstEnd = dst + count;
  if (dst == base) {
    if (count < 8) corrupt('Kraken chunk too short for its stored prefix', pos);
    store<u64>(dst, load<u64>(pos));
    dst += 8;
    pos += 8;
  }
  if (load<u8>(pos) & 0x80) {
    if ((load<u8>(pos) & 0xc0) != 0x80) corrupt('reserved Kraken chunk flag set', pos);
    corrupt('Kraken chunk with excess-bytes flag (not supported)', pos);
  }

  setCur(pos);
  const litCount = decodeBytes(end, LITS, LITS + LITS_SIZE, count, 0);
  const cmdCount = decodeBytes(end, CMDS, CMDS + MAX_ARRAY_SIZE, count, 0);
  if (<i32>(end - cur) < 3) corrupt('Kraken chunk truncated after commands', cur);
  let scale = 0;
  let offCount: i32;
  if (load<u8>(cur) & 0x80) {
    scale = <i32>load<u8>(cur) - 127;
    setCur(cur + 1);
    offCount = decodeBytes(end, PACKED_OFFS, PACKED_OFFS + MAX_ARRAY_SIZE, cmdCount, 0);
    if (scale != 1) {
      const at = cur;
      if (decodeBytes(end, PACKED_OFFS_LOW, PACKED_OFFS_LOW + MAX_ARRAY_SIZE, offCount, 0) != offCount) corrupt('offset low parts count mismatch', at);
    }
  } else {
    offCount = decodeBytes(end, PACKED_OFFS, PACKED_OFFS + MAX_ARRAY_SIZE, cmdCount, 0);
  }
  const lenCount = decodeBytes(end, PACKED_LENS, PACKED_LENS + MAX_ARRAY_SIZE, count >> 2, 0);
  unpackOffsets(cur, end, PACKED_OFFS, PACKED_OFFS_LOW, offCount, scale, PACKED_LENS, lenCount, OFFS, LENS);

  if (mode == 0) runCommands<Delta>(litCount, cmdCount, offCount, lenCount, base, dst, dstEnd, pos);
  else runCommands<Raw>(litCount, cmdCount, offCount, lenCount, base, dst, dstEnd, pos);
}

/**
 * The command loop (see the TypeScript decoder for the branch-free length reads). Offsets index arrays that stay
 * inside their buffers: each index grows by at most one or two per command, and the buffers hold twice the commands
 * a chunk can have; running past an array's end is caught after the loop.
 */
function runCommands<M>(litCount: i32, cmdCount: i32, offCount: i32, lenCount: i32, base: usize, dst: usize, dstEnd: usize, where: usize): void {
  const delta = isDelta<M>();
  let lp: usize = LITS;
  let op: usize = OFFS;
  let np: usize = LENS;
  let r0: i32 = -8;
  let r1: i32 = -8;
  let r2: i32 = -8;
  const cmdEnd = CMDS + cmdCount;
  for (let cp = CMDS; cp < cmdEnd; cp++) {
    const f = <i32>load<u8>(cp);
    const l = f & 3;
    const fromLens = (l + 1) >> 2;
    const litLen = l + ((load<i32>(np) - 3) & -fromLens);
    np += <usize>fromLens << 2;
    if (<u32>litLen > <u32>(dstEnd - dst)) corrupt('Kraken literal run overflows', where);
    if (delta) addLiterals(dst, lp, litLen, <usize>-r0);
    else copyLiterals(dst, lp, litLen);
    dst += litLen;
    lp += litLen;

    // The offset: recent 0-2 or the next new one (which then moves to the front), chosen without branches (the
    // four are mixed without a pattern). Reading the next new offset when it is not used is harmless: it stays
    // inside its buffer, and using too many is caught after the loop.
    const idx = f >>> 6;
    const fresh = load<i32>(op);
    op += <usize>(idx == 3) << 2;
    const off = select<i32>(select<i32>(r0, r1, idx == 0), select<i32>(r2, fresh, idx == 2), idx < 2);
    r2 = select<i32>(r1, r2, idx >= 2);
    r1 = select<i32>(r0, r1, idx >= 1);
    r0 = off;
    // One unsigned test for both off < 0 and dst + off >= base.
    if (<u32>(dst - base) + <u32>off >= <u32>(dst - base)) corrupt('Kraken match offset out of range', where);

    const m = (f >>> 2) & 15;
    const longMatch = (m + 1) >> 4;
    const matchLen = m + 2 + ((load<i32>(np) - 3) & -longMatch);
    np += <usize>longMatch << 2;
    if (<u32>matchLen > <u32>(dstEnd - dst)) corrupt('Kraken match overflows the chunk', where);
    copyMatch(dst, dst + off, matchLen);
    dst += matchLen;
  }
  if (<i32>(op - OFFS) != offCount << 2 || <i32>(np - LENS) != lenCount << 2) corrupt('Kraken offset or length arrays not used exactly', where);
  if (<i32>(lp - LITS) > litCount) corrupt('Kraken literal array exhausted', where);
  const rest = <i32>(dstEnd - dst);
  if (rest != litCount - <i32>(lp - LITS)) corrupt('Kraken trailing literals do not fill the chunk', where);
  if (rest > 0) {
    if (delta) addTrailing(dst, lp, rest, <usize>-r0);
    else memory.copy(dst, lp, rest);
  }
}

/** The trailing delta literals of a chunk. */
function addTrailing(dst: usize, lp: usize, rest: i32, back: usize): void {
  addLiterals(dst, lp, rest, back);
}
