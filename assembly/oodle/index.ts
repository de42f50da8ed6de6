import { cur, decodeBytes, setCur } from './entropy';
import { corrupt, setSource } from './errors';
import { decodeKrakenChunk } from './kraken';
import { decodeLeviathanChunk } from './leviathan';
import { decodeMermaidChunk } from './mermaid';
import { resetArenaTo, ARENA, SLACK } from './scratch';

/**
 * The WebAssembly build of the Oodle decoder: Kraken, Mermaid/Selkie and Leviathan, with the stream framing of
 * src/codecs/oodle/quantum.ts. The JavaScript side (src/codecs/oodle/wasm.ts) places the stream at `ioBase()` and
 * gets the output behind it; `decode` returns 0, or UNSUPPORTED for a stream with a block of another codec (BitKnit,
 * LZNA), which the TypeScript decoder then takes. A corrupt stream traps after setting errors.ts's globals.
 */

export { errorAt, errorInOutput, errorMessage, errorValue } from './errors';
export { sameBytes } from './compare';

const BLOCK_SIZE: i32 = 0x40000;
const CHUNK_SIZE: i32 = 0x20000;
const KRAKEN: i32 = 6;
const MERMAID: i32 = 10;
const LEVIATHAN: i32 = 12;
export const UNSUPPORTED: i32 = 1;

/** Where the JavaScript side may place the stream and the output: past every static buffer, 64 KiB aligned. */
export function ioBase(): usize {
  return (__heap_base + 0xffff) & ~<usize>0xffff;
}

/** Bytes of slack the output and the stream each need behind them. */
export function slack(): i32 {
  return SLACK;
}

// The stream being decoded, kept between calls of decodeUntil.
let sSrcEnd: usize = 0;
let sOut: usize = 0;
let sSize: i32 = 0;
let sSp: usize = 0;
let sOp: i32 = 0;
let sType: i32 = 0;
let sStored: bool = false;
let sChecksums: bool = false;

/** Starts decoding the stream at `src` (`srcLen` bytes) into exactly `size` bytes at `out`. */
export function begin(src: usize, srcLen: i32, out: usize, size: i32): void {
  setSource(src, out);
  sSrcEnd = src + srcLen;
  sOut = out;
  sSize = size;
  sSp = src;
  sOp = 0;
  sType = 0;
  sStored = false;
  sChecksums = false;
}

/** Decodes the whole stream: 0, or UNSUPPORTED. */
export function decode(src: usize, srcLen: i32, out: usize, size: i32): i32 {
  begin(src, srcLen, out, size);
  return decodeUntil(size);
}

/**
 * Goes on decoding the stream `begin` started up to output byte `limit` (a multiple of 256 KiB, or the size), so
 * that the caller can copy out each piece while it is still in the cache. Returns 0, or UNSUPPORTED.
 */
export function decodeUntil(limit: i32): i32 {
  const srcEnd = sSrcEnd;
  const out = sOut;
  const size = min(sSize, limit);
  let sp = sSp;
  let op = sOp;
  let type = sType;
  let stored = sStored;
  let checksums = sChecksums;
  resetArenaTo(ARENA);
  while (op < size) {
    if (op % BLOCK_SIZE == 0) {
      if (<i32>(srcEnd - sp) < 2) corrupt('stream ends before a block header', sp);
      const b0 = <i32>load<u8>(sp);
      const b1 = <i32>load<u8>(sp + 1);
      if ((b0 & 0x0f) != 0x0c || (b0 & 0x30) != 0) corrupt('bad block header', sp);
      stored = (b0 & 0x40) != 0;
      type = b1 & 0x7f;
      checksums = (b1 & 0x80) != 0;
      sp += 2;
    }
    if (type != KRAKEN && type != MERMAID && type != LEVIATHAN) return UNSUPPORTED;
    const n = min(sSize - op, BLOCK_SIZE);

    if (stored) {
      if (<i32>(srcEnd - sp) < n) corrupt('stored block truncated', sp);
      memory.copy(out + op, sp, n);
      sp += n;
      op += n;
      continue;
    }

    if (<i32>(srcEnd - sp) < 3) corrupt('quantum header truncated', sp);
    const v = (<i32>load<u8>(sp) << 16) | (<i32>load<u8>(sp + 1) << 8) | <i32>load<u8>(sp + 2);
    const low = v & 0x3ffff;
    if (low == 0x3ffff) {
      if (v >>> 18 != 1) corrupt('bad quantum header', sp);
      if (<i32>(srcEnd - sp) < 4) corrupt('quantum header truncated', sp);
      memory.fill(out + op, load<u8>(sp + 3), n);
      sp += 4;
      op += n;
      continue;
    }
    sp += checksums ? 6 : 3;
    const packed = low + 1;

    if (sp > srcEnd || packed > <i32>(srcEnd - sp)) corrupt('quantum runs past the end of the stream', sp);
    if (packed > n) corrupt('quantum larger than its output', sp);
    if (packed == n) memory.copy(out + op, sp, n);
    else decodeQuantum(type, sp, sp + packed, out, out + op, out + op + n);
    sp += packed;
    op += n;
  }
  sSp = sp;
  sOp = op;
  sType = type;
  sStored = stored;
  sChecksums = checksums;
  return 0;
}

function decodeQuantum(type: i32, sp: usize, end: usize, base: usize, op: usize, opEnd: usize): void {
  while (op < opEnd) {
    const count = min(<i32>(opEnd - op), CHUNK_SIZE);
    if (<i32>(end - sp) < 4) corrupt('chunk header truncated', sp);
    const h = (<i32>load<u8>(sp) << 16) | (<i32>load<u8>(sp + 1) << 8) | <i32>load<u8>(sp + 2);
    if ((h & 0x800000) == 0) {
      setCur(sp);
      if (decodeBytes(end, op, op + count, count, 0) != count) corrupt('entropy-only chunk has the wrong size', sp);
      sp = cur;
    } else {
      sp += 3;
      const used = h & 0x7ffff;
      const mode = (h >>> 19) & 0xf;
      if (used > <i32>(end - sp)) corrupt('chunk runs past its quantum', sp);
      if (used < count) {
        if (type == KRAKEN) decodeKrakenChunk(sp, sp + used, base, op, count, mode);
        else if (type == MERMAID) decodeMermaidChunk(sp, sp + used, base, op, count, mode);
        else decodeLeviathanChunk(sp, sp + used, base, op, count, mode);
      } else if (used > count || mode != 0) {
        corrupt('bad stored chunk', sp);
      } else {
        memory.copy(op, sp, count);
      }
      sp += used;
    }
    op += count;
  }
  if (sp != end) corrupt('quantum size does not match its chunks', sp);
}
