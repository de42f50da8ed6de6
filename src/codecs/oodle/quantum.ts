import { BitknitState, decodeBitknitQuantum } from './bitknit.js';
import { corrupt } from './corrupt.js';
import { type Cursor, decodeBytes } from './entropy.js';
import { decodeKrakenChunk } from './kraken.js';
import { decodeLeviathanChunk } from './leviathan.js';
import { decodeMermaidChunk } from './mermaid.js';
import { resetScratch } from './scratch.js';

/**
 * Stream framing shared by all Oodle LZ codecs.
 *
 * Every 256 KiB of output starts with a two-byte block header (low nibble 0xC, decoder type, flags). The block is
 * then a series of quanta (256 KiB for Kraken, Mermaid/Selkie and Leviathan; 16 KiB for LZNA and BitKnit), each with
 * its own header giving its compressed size, or marking it as a fill with one byte value (or, for 16 KiB quanta, as
 * stored or as a repeat of earlier output). A Kraken-family quantum is cut into 128 KiB chunks, each either one
 * entropy array or an LZ chunk of the codec's kind.
 *
 * LZNA (type 5) is recognised but not decoded: its rANS coder needs exact 64-bit arithmetic, and no Unreal
 * container uses it.
 */

export const enum Decoder {
  Lzna = 5,
  Kraken = 6,
  Mermaid = 10,
  Bitknit = 11,
  Leviathan = 12,
}

export const BLOCK_SIZE = 0x40000;
const CHUNK_SIZE = 0x20000;
/** Quantum size of the codecs with adaptive models (LZNA, BitKnit). */
const SMALL_QUANTUM = 0x4000;

/** The LZ chunk decoder for each Kraken-family type. */
type ChunkDecoder = (src: Uint8Array, pos: number, end: number, out: Uint8Array, dst: number, count: number, mode: number) => void;

const chunkDecoders = new Map<number, ChunkDecoder>([
  [Decoder.Kraken, decodeKrakenChunk],
  [Decoder.Mermaid, decodeMermaidChunk],
  [Decoder.Leviathan, decodeLeviathanChunk],
]);

/** Decodes a raw Oodle stream into exactly `size` bytes: into `into` (which must be that long) when given. */
export function decodeStream(src: Uint8Array, size: number, into?: Uint8Array): Uint8Array {
  const out = into ?? allocateOutput(size);
  resetScratch();
  let bitknit: BitknitState | undefined;
  let sp = 0;
  let op = 0;
  let type = 0;
  let stored = false;
  let checksums = false;
  while (op < size) {
    if (op % BLOCK_SIZE === 0) {
      if (src.length - sp < 2) corrupt('stream ends before a block header', sp);
      const b0 = src[sp];
      const b1 = src[sp + 1];
      if ((b0 & 0x0f) !== 0x0c || (b0 & 0x30) !== 0) corrupt('bad block header', sp);
      stored = (b0 & 0x40) !== 0;
      type = b1 & 0x7f;
      checksums = (b1 & 0x80) !== 0;
      // Bit 7 asks for fresh adaptive models (only BitKnit has any).
      if (type === Decoder.Bitknit && (b0 & 0x80) !== 0) bitknit?.reset();
      sp += 2;
    }
    const lzFamily = type === Decoder.Kraken || type === Decoder.Mermaid || type === Decoder.Leviathan;
    if (!lzFamily && type !== Decoder.Bitknit) corrupt(`unsupported Oodle decoder type ${type}`, sp);
    const n = Math.min(size - op, lzFamily ? BLOCK_SIZE : SMALL_QUANTUM);

    if (stored) {
      if (src.length - sp < n) corrupt('stored block truncated', sp);
      out.set(src.subarray(sp, sp + n), op);
      sp += n;
      op += n;
      continue;
    }

    // Quantum header: the compressed size, or a special quantum (one-byte fill, stored, repeat of earlier output).
    let packed: number;
    if (lzFamily) {
      if (src.length - sp < 3) corrupt('quantum header truncated', sp);
      const v = (src[sp] << 16) | (src[sp + 1] << 8) | src[sp + 2];
      const low = v & 0x3ffff;
      if (low === 0x3ffff) {
        if (v >>> 18 !== 1) corrupt('bad quantum header', sp);
        if (src.length - sp < 4) corrupt('quantum header truncated', sp);
        out.fill(src[sp + 3], op, op + n);
        sp += 4;
        op += n;
        continue;
      }
      sp += checksums ? 6 : 3;
      packed = low + 1;
    } else {
      if (src.length - sp < 2) corrupt('quantum header truncated', sp);
      const v = (src[sp] << 8) | src[sp + 1];
      const low = v & 0x3fff;
      if (low !== 0x3fff) {
        sp += checksums ? 5 : 2;
        packed = low + 1;
      } else {
        const kind = v >>> 14;
        if (kind === 1) {
          if (src.length - sp < 3) corrupt('quantum header truncated', sp);
          out.fill(src[sp + 2], op, op + n);
          sp += 3;
          op += n;
          continue;
        }
        if (kind === 0) {
          sp = copyEarlierOutput(src, sp + 2, out, op, n);
          op += n;
          continue;
        }
        if (kind !== 2) corrupt('bad quantum header', sp);
        sp += 2;
        packed = n;
      }
    }

    if (sp > src.length || packed > src.length - sp) corrupt('quantum runs past the end of the stream', sp);
    if (packed > n) corrupt('quantum larger than its output', sp);
    if (packed === n) {
      out.set(src.subarray(sp, sp + n), op);
    } else if (lzFamily) {
      decodeLzQuantum(type, src, sp, sp + packed, out, op, op + n);
    } else {
      bitknit ??= new BitknitState();
      decodeBitknitQuantum(src, sp, sp + packed, out, op, op + n, bitknit);
    }
    sp += packed;
    op += n;
  }
  return out;
}

export function allocateOutput(size: number): Uint8Array {
  try {
    return new Uint8Array(size);
  } catch {
    corrupt(`cannot allocate ${size} bytes of output`, 'the call');
  }
}

/**
 * A quantum that repeats output from `distance` bytes back. The distance is a big-endian 16-bit value, extended by
 * a few 7-bit groups when it is below 0x8000.
 */
function copyEarlierOutput(src: Uint8Array, p: number, out: Uint8Array, op: number, n: number): number {
  if (src.length - p < 2) corrupt('repeat quantum header truncated', p);
  const v = (src[p] << 8) | src[p + 1];
  let distance: number;
  if (v >= 0x8000) {
    distance = v - 0x8000 + 1;
    p += 2;
  } else {
    let x = 0;
    let shift = 0;
    let q = p + 2;
    for (;;) {
      if (q >= src.length) corrupt('repeat quantum header truncated', q);
      if (shift > 21) corrupt('repeat distance too long', q);
      const b = src[q++];
      if (b & 0x80) {
        x += (b - 0x80) * 2 ** shift;
        break;
      }
      x += (b + 0x80) * 2 ** shift;
      shift += 7;
    }
    distance = 0x8000 + v + x * 0x8000 + 1;
    p = q;
  }
  if (distance > op) corrupt('repeat quantum reaches before the output', p);
  const from = op - distance;
  if (distance >= n) out.copyWithin(op, from, from + n);
  else for (let i = 0; i < n; i++) out[op + i] = out[from + i];
  return p;
}

function decodeLzQuantum(type: number, src: Uint8Array, sp: number, end: number, out: Uint8Array, op: number, opEnd: number): void {
  const chunk = chunkDecoders.get(type);
  if (chunk === undefined) corrupt(`unsupported Oodle decoder type ${type}`, sp);
  while (op < opEnd) {
    const count = Math.min(opEnd - op, CHUNK_SIZE);
    if (end - sp < 4) corrupt('chunk header truncated', sp);
    const h = (src[sp] << 16) | (src[sp + 1] << 8) | src[sp + 2];
    if ((h & 0x800000) === 0) {
      // The whole chunk is one entropy array, no LZ.
      const cur: Cursor = { pos: sp };
      if (decodeBytes(src, cur, end, out, op, count, 0) !== count) corrupt('entropy-only chunk has the wrong size', sp);
      sp = cur.pos;
    } else {
      sp += 3;
      const used = h & 0x7ffff;
      const mode = (h >>> 19) & 0xf;
      if (used > end - sp) corrupt('chunk runs past its quantum', sp);
      if (used < count) {
        chunk(src, sp, sp + used, out, op, count, mode);
      } else if (used > count || mode !== 0) {
        corrupt('bad stored chunk', sp);
      } else {
        out.set(src.subarray(sp, sp + count), op);
      }
      sp += used;
    }
    op += count;
  }
  if (sp !== end) corrupt('quantum size does not match its chunks', sp);
}
