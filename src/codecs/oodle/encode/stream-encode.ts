import { BLOCK_SIZE, CHUNK_SIZE, Commands } from './commands.js';
import { writeArray } from './entropy-encode.js';
import { writeKrakenChunk } from './kraken-encode.js';
import { writeLeviathanChunk } from './leviathan-encode.js';
import { writeMermaidChunk } from './mermaid-encode.js';
import { DEFAULT_LEVEL, levelParams, type LevelParams } from './levels.js';
import { MatchFinder } from './match-finder.js';
import { MatchList } from './match-list.js';
import { parseLazy } from './parse-lazy.js';
import { MermaidCosts, parseMermaidHalf, updateMermaidCosts } from './parse-mermaid.js';
import { KrakenCosts, parseOptimal, updateCosts } from './parse-optimal.js';

/**
 * Stream framing (the inverse of quantum.ts): every 256 KiB block gets a two-byte header and one quantum; a quantum
 * is a one-byte fill, or up to two 128 KiB chunks, each an LZ chunk, a single entropy array, or stored. A block whose
 * quantum would not be smaller than the block is stored whole. Matches reach back over the whole input, as the
 * decoders allow.
 */

export type OodleEncoderName = 'kraken' | 'mermaid' | 'selkie' | 'leviathan';

export interface OodleEncodeOptions {
  /** Which Oodle codec to write (default Kraken). */
  codec?: OodleEncoderName;
  /** 1 (fastest) to 9 (smallest); default 4. See levels.ts. */
  level?: number;
}

const DECODER_TYPE: Record<OodleEncoderName, number> = { kraken: 6, mermaid: 10, selkie: 10, leviathan: 12 };

const mf = new MatchFinder();
const cmds = new Commands(CHUNK_SIZE / 2 + 16);
const reps = new Int32Array(8);
let scratchOut = new Uint8Array(0);
const matchList = new MatchList();
const matchList2 = new MatchList();
const mermaidCosts = new MermaidCosts();
const costs = new KrakenCosts();
/** One chunk's candidate encodings. */
const lzOut = new Uint8Array(2 * CHUNK_SIZE + 4096);
const entropyOut = new Uint8Array(2 * CHUNK_SIZE + 4096);

/** Encodes `src` as a raw Oodle stream (no size prefix), as IoStore and pak blocks store it. */
export function encodeOodleStream(src: Uint8Array, o: OodleEncodeOptions = {}): Uint8Array {
  const codec = o.codec ?? 'kraken';
  const params = levelParams(o.level ?? DEFAULT_LEVEL);
  const n = src.length;
  if (n === 0) return new Uint8Array(0);
  // Room for a block written as chunks before it turns out to be better stored whole; one buffer kept between calls,
  // the result copied out of it.
  const room = n + 16 * Math.ceil(n / BLOCK_SIZE) + 16;
  if (scratchOut.length < room) scratchOut = new Uint8Array(Math.max(room, 2 * scratchOut.length));
  const out = scratchOut;
  // A table of about a quarter as many entries as the input has positions: the chains find what a larger one would
  // (0.05% larger at level 1, under 0.01% at the others on the corpus blocks), and a 64 KiB block's table (64 KiB)
  // stays in the cache, where a 256 KiB one had each position's look-up wait on memory.
  const hashBits = Math.min(params.hashBits, Math.max(12, 29 - Math.clz32(n)));
  mf.reset(src, hashBits, params.windowBits, params.skipAfter > 0);
  let op = 0;
  for (let bp = 0; bp < n; bp += BLOCK_SIZE) {
    const bn = Math.min(BLOCK_SIZE, n - bp);
    const header = op;
    out[op++] = bp === 0 ? 0x8c : 0x0c;
    out[op++] = DECODER_TYPE[codec];
    if (oneByteValue(src, bp, bn)) {
      out[op++] = 0x07;
      out[op++] = 0xff;
      out[op++] = 0xff;
      out[op++] = src[bp]!;
      continue;
    }
    const quantum = op;
    op += 3;
    for (let cs = bp; cs < bp + bn; cs += CHUNK_SIZE) {
      const ce = Math.min(cs + CHUNK_SIZE, bp + bn);
      op = writeChunk(src, cs, ce, out, op, params, codec);
    }
    const packed = op - quantum - 3;
    if (packed >= bn) {
      // Stored whole: the header's bit 6, then the bytes, no quantum header.
      out[header] |= 0x40;
      op = header + 2;
      out.set(src.subarray(bp, bp + bn), op);
      op += bn;
    } else {
      const v = packed - 1;
      out[quantum] = v >>> 16;
      out[quantum + 1] = v >>> 8;
      out[quantum + 2] = v;
    }
  }
  return out.slice(0, op);
}

function oneByteValue(src: Uint8Array, from: number, n: number): boolean {
  const v = src[from]!;
  for (let i = from + 1, e = from + n; i < e; i++) if (src[i] !== v) return false;
  return true;
}

/** Writes the smallest of an LZ chunk, an entropy-only chunk and a stored chunk for src[cs, ce) at out[op]. */
function writeChunk(src: Uint8Array, cs: number, ce: number, out: Uint8Array, op: number, params: LevelParams, codec: OodleEncoderName): number {
  const count = ce - cs;
  const entropy = codec !== 'selkie';
  cmds.count = 0;
  let best = Infinity;
  let from: Uint8Array = lzOut;
  if (count >= 16) {
    const end = codec === 'mermaid' || codec === 'selkie' ? mermaidChunk(src, cs, ce, params, entropy) : krakenChunk(src, cs, ce, params, codec === 'leviathan');
    if (end >= 0) best = end;
  } else mf.catchUp(ce);
  // The whole chunk as one entropy array, when matches cover little of it.
  let matched = 0;
  for (let k = 0; k < cmds.count; k++) matched += cmds.matchLen[k]!;
  if (entropy && params.entropyChunks && (best === Infinity || matched < count / 8)) {
    const end = writeArray(src, cs, count, entropyOut, 0, { entropy: true, longHeader: true, margin: params.buildMargin });
    if (end < best) {
      best = end;
      from = entropyOut;
    }
  }
  if (best >= count + 3) {
    const h = 0x800000 | count;
    out[op] = h >>> 16;
    out[op + 1] = h >>> 8;
    out[op + 2] = h;
    out.set(src.subarray(cs, ce), op + 3);
    return op + 3 + count;
  }
  out.set(from.subarray(0, best), op);
  return op + best;
}

function lazyParams(params: LevelParams, mermaid: boolean) {
  return { depth: params.depth, nice: params.nice, lazy: params.lazy, skipAfter: params.skipAfter, minLen: 4, mermaid };
}

/** Parses src[cs, ce) and writes a Kraken (or Leviathan) chunk into lzOut; returns its end or -1. */
function krakenChunk(src: Uint8Array, cs: number, ce: number, params: LevelParams, leviathan: boolean): number {
  const start = cs === 0 ? 8 : cs;
  // Leviathan's decoders copy long runs in wide steps that must not reach the chunk's last 16 bytes: no match there.
  const end = leviathan ? ce - 16 : ce;
  if (end > start + 8) {
    if (params.optimal > 0) {
      matchList.collect(mf, start, end, params.depth, params.nice, 16);
      costs.initial(src, start, end);
      for (let pass = 1; ; pass++) {
        parseOptimal(src, start, end, matchList, costs, params.nice, params.dense, cmds);
        if (pass === params.optimal) break;
        updateCosts(src, cs, ce, cmds, costs);
      }
    } else {
      reps[0] = reps[1] = reps[2] = 8;
      parseLazy(mf, start, end, reps, cmds, lazyParams(params, false));
    }
  }
  const o = { entropy: true, delta: params.deltaLiterals, margin: params.buildMargin };
  return leviathan ? writeLeviathanChunk(src, cs, ce, cmds, lzOut, 0, o) : writeKrakenChunk(src, cs, ce, cmds, lzOut, 0, o);
}

/** Parses src[cs, ce) half by half (Mermaid commands never cross the middle of a chunk) and writes a Mermaid chunk. */
function mermaidChunk(src: Uint8Array, cs: number, ce: number, params: LevelParams, entropy: boolean): number {
  const start = cs === 0 ? 8 : cs;
  const mid = Math.min(cs + 0x10000, ce);
  let split = 0;
  if (params.optimal > 0) {
    matchList.collect(mf, start, mid, params.depth, params.nice, 16);
    if (mid < ce) matchList2.collect(mf, mid, ce, params.depth, params.nice, 16);
    mermaidCosts.initial(src, start, ce, entropy);
    for (let pass = 1; ; pass++) {
      cmds.count = 0;
      reps[0] = 8;
      parseMermaidHalf(src, start, mid, matchList, mermaidCosts, params.nice, params.dense, reps, cmds);
      split = cmds.count;
      if (mid < ce) parseMermaidHalf(src, mid, ce, matchList2, mermaidCosts, params.nice, params.dense, reps, cmds);
      if (pass === params.optimal) break;
      updateMermaidCosts(src, cs, ce, cmds, split, mermaidCosts, entropy);
    }
  } else {
    reps[0] = 8;
    parseLazy(mf, start, mid, reps, cmds, lazyParams(params, true));
    split = cmds.count;
    if (mid < ce) parseLazy(mf, mid, ce, reps, cmds, lazyParams(params, true));
  }
  return writeMermaidChunk(src, cs, ce, cmds, split, lzOut, 0, { entropy, delta: params.deltaLiterals, margin: params.buildMargin });
}
