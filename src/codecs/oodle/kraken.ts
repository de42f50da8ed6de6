import { corrupt } from './corrupt.js';
import { type Cursor, decodeBytes } from './entropy.js';
import { addLiterals, copyLiterals, copyMatch } from './lz-copy.js';
import { unpackOffsets } from './offsets.js';
import { scratch } from './scratch.js';

// A module constant rather than a value fetched per chunk: the compiler then folds the buffers' addresses and
// lengths into the command loops instead of re-checking them on every command (a few per cent of Kraken time).
const LZ = scratch().lz;

/**
 * Kraken LZ chunks (up to 128 KiB of output). The chunk holds five entropy arrays (literals, commands, packed
 * offsets, optional low offset parts, packed lengths) followed by the raw offset/length bits. Each command byte
 * packs a literal count (0-2, or 3 = read a length), a match length (2-16, or 17+ from the length array) and which
 * of three recent offsets to reuse (or 3 = take the next new offset).
 *
 * Mode 0 stores literals as differences from the byte at the last match offset ("delta literals"); mode 1 stores
 * them as they are.
 */
export function decodeKrakenChunk(src: Uint8Array, pos: number, end: number, out: Uint8Array, dst: number, count: number, mode: number): void {
  if (mode > 1) corrupt(`unknown Kraken chunk mode ${mode}`, pos);
  if (end - pos < 13) corrupt('Kraken chunk too short', pos);
  const dstEnd = dst + count;
  if (dst === 0) {
    // The very first bytes of a stream are stored, so that match offsets always have something to point at.
    if (count < 8) corrupt('Kraken chunk too short for its stored prefix', pos);
    out.set(src.subarray(pos, pos + 8), 0);
    dst = 8;
    pos += 8;
  }
  if (src[pos] & 0x80) {
    if ((src[pos] & 0xc0) !== 0x80) corrupt('reserved Kraken chunk flag set', pos);
    corrupt('Kraken chunk with excess-bytes flag (not supported)', pos);
  }

  const cur: Cursor = { pos };
  const litCount = decodeBytes(src, cur, end, LZ.lits, 0, count, 0);
  const cmdCount = decodeBytes(src, cur, end, LZ.cmds, 0, count, 0);
  if (end - cur.pos < 3) corrupt('Kraken chunk truncated after commands', cur.pos);
  let scale = 0;
  let offCount: number;
  if (src[cur.pos] & 0x80) {
    scale = src[cur.pos] - 127;
    cur.pos++;
    offCount = decodeBytes(src, cur, end, LZ.packedOffs, 0, cmdCount, 0);
    if (scale !== 1) {
      const at = cur.pos;
      if (decodeBytes(src, cur, end, LZ.packedOffsLow, 0, offCount, 0) !== offCount) corrupt('offset low parts count mismatch', at);
    }
  } else {
    offCount = decodeBytes(src, cur, end, LZ.packedOffs, 0, cmdCount, 0);
  }
  const lenCount = decodeBytes(src, cur, end, LZ.packedLens, 0, count >> 2, 0);
  unpackOffsets(src, cur.pos, end, LZ.packedOffs, LZ.packedOffsLow, offCount, scale, LZ.packedLens, lenCount, LZ.offs, LZ.lens);

  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  runCommands(mode === 0, litCount, cmdCount, offCount, lenCount, out, view, dst, dstEnd, pos);
}

/*
 * The command loops below take a literal or match length from the length array with arithmetic rather than a branch
 * (whether a command needs one changes without a pattern, so a branch on it is often mispredicted): the array is read
 * one entry ahead and the unused value masked away. Offsets are chosen with a switch over command >> 6 (r0, r1, r2,
 * or the next new offset; the one chosen moves to the front), which measured faster than masks.
 *
 * Running past the end of the offset or length array is caught after the loop: each index grows by at most one or
 * two per command, so it stays inside its buffer (sized for twice the commands a chunk can hold), and a command that
 * uses a stale value from past an array's end can at worst write wrong bytes inside the output, whose bounds are
 * checked for every write, before the chunk is rejected.
 */

function runCommands(delta: boolean, litCount: number, cmdCount: number, offCount: number, lenCount: number, out: Uint8Array, view: DataView, dst: number, dstEnd: number, where: number): void {
  const cmds = LZ.cmds;
  const offs = LZ.offs;
  const lens = LZ.lens;
  let lp = 0;
  let op = 0;
  let np = 0;
  let r0 = -8;
  let r1 = -8;
  let r2 = -8;
  for (let cp = 0; cp < cmdCount; cp++) {
    const f = cmds[cp];
    const l = f & 3;
    const fromLens = (l + 1) >> 2;
    const litLen = l + ((lens[np] - 3) & -fromLens);
    np += fromLens;
    // Keeps every literal read inside the literal buffer (lp never passes the chunk size plus one run).
    if (litLen > dstEnd - dst) corrupt('Kraken literal run overflows', where);
    // Delta literals are differences from the byte at the last match offset (r0: the offset last used). The mode
    // is one per chunk, so this branch is always predicted.
    if (delta) addLiterals(out, view, dst, lp, litLen, -r0);
    else copyLiterals(out, view, dst, lp, litLen);
    dst += litLen;
    lp += litLen;

    let off: number;
    switch (f >>> 6) {
      case 0:
        off = r0;
        break;
      case 1:
        off = r1;
        r1 = r0;
        r0 = off;
        break;
      case 2:
        off = r2;
        r2 = r1;
        r1 = r0;
        r0 = off;
        break;
      default:
        off = offs[op++];
        r2 = r1;
        r1 = r0;
        r0 = off;
    }
    // One unsigned test for both 0 <= off and dst + off < 0.
    if ((dst + off) >>> 0 >= dst) corrupt('Kraken match offset out of range', where);

    const m = (f >>> 2) & 15;
    const longMatch = (m + 1) >> 4;
    const matchLen = m + 2 + ((lens[np] - 3) & -longMatch);
    np += longMatch;
    if (matchLen > dstEnd - dst) corrupt('Kraken match overflows the chunk', where);
    copyMatch(out, view, dst, dst + off, matchLen);
    dst += matchLen;
  }
  if (op !== offCount || np !== lenCount) corrupt('Kraken offset or length arrays not used exactly', where);
  if (lp > litCount) corrupt('Kraken literal array exhausted', where);
  const rest = dstEnd - dst;
  if (rest !== litCount - lp) corrupt('Kraken trailing literals do not fill the chunk', where);
  if (delta) addLiterals(out, view, dst, lp, rest, -r0);
  else out.set(LZ.lits.subarray(lp, lp + rest), dst);
}
