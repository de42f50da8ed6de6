import { corrupt } from './corrupt.js';
import { type Cursor, decodeBytes, decodeMultiArray } from './entropy.js';
import { copyMatch } from './lz-copy.js';
import { unpackOffsets } from './offsets.js';
import { MAX_ARRAY_SIZE, scratch } from './scratch.js';

/**
 * Leviathan LZ chunks. Offsets and lengths are packed as in Kraken, but there are seven recent offsets, match
 * lengths 2-8 (9 = long, taken from the back of the length array while literal lengths come from its front), and
 * six ways of coding literals, chosen by the chunk mode:
 *
 *   0  differences from the byte at the last offset
 *   1  stored
 *   2  like 0, but the first literal of each run comes from a second stream
 *   3  like 0, spread over 4 streams by output position (mod 4)
 *   4  stored, spread over 16 streams by the high nibble of the previous byte (order-1 context)
 *   5  like 0, spread over 16 streams by output position (mod 16)
 *
 * The command bytes may themselves be spread over 8 streams by output position (mod 8).
 * Command byte: bits 0-2 match length - 2, bits 3-4 literal count (3 = from the length array), bits 5-7 which
 * recent offset (7 = a new one).
 */

const RECENT = 7;

export function decodeLeviathanChunk(src: Uint8Array, pos: number, end: number, out: Uint8Array, dst: number, count: number, mode: number): void {
  if (mode > 5) corrupt(`unknown Leviathan chunk mode ${mode}`, pos);
  if (end - pos < 13) corrupt('Leviathan chunk too short', pos);
  const lz = scratch().lz;
  const chunkStart = dst;
  const dstEnd = dst + count;
  if (dst === 0) {
    if (count < 8) corrupt('Leviathan chunk too short for its stored prefix', pos);
    out.set(src.subarray(pos, pos + 8), 0);
    dst = 8;
    pos += 8;
  }

  const cur: Cursor = { pos };
  const offLimit = Math.floor(count / 3);
  let scale = 0;
  if (src[cur.pos] & 0x80) {
    scale = src[cur.pos] - 127;
    cur.pos++;
  }
  const offCount = decodeBytes(src, cur, end, lz.packedOffs, 0, offLimit, 0);
  if (scale > 1) {
    const at = cur.pos;
    if (decodeBytes(src, cur, end, lz.packedOffsLow, 0, offLimit, 0) !== offCount) corrupt('offset low parts count mismatch', at);
  }
  const lenCount = decodeBytes(src, cur, end, lz.packedLens, 0, Math.floor(count / 5), 0);

  // Literal streams.
  const litStart = lz.partStart;
  const litEnd = lz.partLen;
  let streams = 1;
  if (mode <= 1) {
    litStart[0] = 0;
    litEnd[0] = decodeBytes(src, cur, end, lz.lits, 0, count, 0);
  } else {
    streams = mode === 2 ? 2 : mode === 3 ? 4 : 16;
    decodeMultiArray(src, cur, end, lz.lits, 0, MAX_ARRAY_SIZE, streams, litStart, litEnd, 0);
    for (let i = 0; i < streams; i++) litEnd[i] += litStart[i];
  }

  // Command streams.
  if (cur.pos >= end) corrupt('Leviathan chunk truncated before its commands', cur.pos);
  const cmdStart = lz.cmdStart;
  const cmdEnd = lz.cmdLen;
  let cmdStreams = 1;
  let cmdTotal: number;
  if ((src[cur.pos] & 0x80) === 0) {
    cmdTotal = decodeBytes(src, cur, end, lz.cmds, 0, count, 0);
    cmdStart[0] = 0;
    cmdEnd[0] = cmdTotal;
  } else {
    if (src[cur.pos] !== 0x83) corrupt('bad Leviathan command stream header', cur.pos);
    cur.pos++;
    cmdStreams = 8;
    cmdTotal = decodeMultiArray(src, cur, end, lz.cmds, 0, MAX_ARRAY_SIZE, 8, cmdStart, cmdEnd, 0);
    for (let i = 0; i < 8; i++) cmdEnd[i] += cmdStart[i];
  }

  unpackOffsets(src, cur.pos, end, lz.packedOffs, lz.packedOffsLow, offCount, scale, lz.packedLens, lenCount, lz.offs, lz.lens);

  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const lits = new LiteralSource(lz.lits, litStart, litEnd, streams, mode, out, chunkStart);
  const cmds = lz.cmds;
  const offs = lz.offs;
  const lens = lz.lens;
  const recent = [-8, -8, -8, -8, -8, -8, -8];
  let last = -8;
  let op = 0;
  let np = 0;
  let lenBack = lenCount;
  for (let left = cmdTotal; left > 0; left--) {
    const s = cmdStreams === 1 ? 0 : (dst - chunkStart) & 7;
    if (cmdStart[s] >= cmdEnd[s]) corrupt('Leviathan command stream exhausted', pos);
    const c = cmds[cmdStart[s]++];

    let litLen = (c >>> 3) & 3;
    if (litLen === 3) {
      if (np >= lenBack) corrupt('Leviathan length array exhausted', pos);
      litLen = lens[np++] & 0xffffff;
    }
    if (litLen > 0) {
      if (litLen > dstEnd - dst) corrupt('Leviathan literal run overflows', pos);
      lits.copy(dst, litLen, last);
      dst += litLen;
    }

    const idx = c >>> 5;
    let off: number;
    if (idx === RECENT) {
      if (op >= offCount) corrupt('Leviathan offset array exhausted', pos);
      off = offs[op++];
    } else {
      off = recent[idx];
    }
    for (let k = idx < RECENT ? idx : RECENT - 1; k > 0; k--) recent[k] = recent[k - 1];
    recent[0] = off;
    last = off;
    if (off >= 0 || dst + off < 0) corrupt('Leviathan match offset out of range', pos);

    let matchLen = (c & 7) + 2;
    if (matchLen === 9) {
      if (np >= lenBack) corrupt('Leviathan length array exhausted', pos);
      matchLen = lens[--lenBack] + 6;
    }
    if (matchLen > dstEnd - dst) corrupt('Leviathan match overflows the chunk', pos);
    copyMatch(out, view, dst, dst + off, matchLen);
    dst += matchLen;
  }
  if (op !== offCount || np !== lenBack) corrupt('Leviathan offset or length arrays not fully used', pos);
  if (dst < dstEnd) lits.copy(dst, dstEnd - dst, last);
}

/** Hands out literals in the chunk's literal mode, checking every stream against its end. */
class LiteralSource {
  constructor(
    readonly buf: Uint8Array,
    /** Read position of each stream (advanced in place). */
    readonly at: Int32Array,
    readonly end: Int32Array,
    readonly streams: number,
    readonly mode: number,
    readonly out: Uint8Array,
    readonly chunkStart: number,
  ) {}

  /** Writes `n` literals at `out[d]`; `last` is the last match offset (negative) for the difference modes. */
  copy(d: number, n: number, last: number): void {
    const { buf, at, end, out } = this;
    switch (this.mode) {
      case 1: {
        const p = at[0];
        if (n > end[0] - p) this.exhausted(d);
        if (n > 32) out.set(buf.subarray(p, p + n), d);
        else for (let i = 0; i < n; i++) out[d + i] = buf[p + i];
        at[0] = p + n;
        return;
      }
      case 0: {
        const p = at[0];
        if (n > end[0] - p) this.exhausted(d);
        for (let i = 0; i < n; i++) out[d + i] = buf[p + i] + out[d + last + i];
        at[0] = p + n;
        return;
      }
      case 2: {
        // First literal from the second stream, the rest from the first.
        if (at[1] >= end[1] || n - 1 > end[0] - at[0]) this.exhausted(d);
        out[d] = buf[at[1]++] + out[d + last];
        const p = at[0];
        for (let i = 1; i < n; i++) out[d + i] = buf[p + i - 1] + out[d + last + i];
        at[0] = p + n - 1;
        return;
      }
      case 4: {
        let ctx = out[d - 1];
        for (let i = 0; i < n; i++) {
          const s = ctx >>> 4;
          if (at[s] >= end[s]) this.exhausted(d + i);
          ctx = buf[at[s]++];
          out[d + i] = ctx;
        }
        return;
      }
      default: {
        // Modes 3 and 5: stream chosen by position within the chunk.
        const mask = this.streams - 1;
        for (let i = 0; i < n; i++) {
          const s = (d + i - this.chunkStart) & mask;
          if (at[s] >= end[s]) this.exhausted(d + i);
          out[d + i] = buf[at[s]++] + out[d + last + i];
        }
      }
    }
  }

  private exhausted(d: number): never {
    corrupt('Leviathan literal stream exhausted', `output byte ${d}`);
  }
}
