import { firstLanes } from '../lanes';
/**
 * The per-entry loops of reading a .utoc, over its sections placed in this module's memory by src/toc/toc-scan.ts:
 * chunk offsets and lengths decoded and checked against the block table, the block table checked and summed, the
 * directory index's names checked. Opening a container is most often a short process (`list`, `info`), where V8 would
 * run these loops over thousands of entries in its interpreter; here they run compiled from the first entry. Each
 * returns where the first problem is, and the caller says what it is (the messages are the TypeScript reader's).
 * The stub runtime: nothing is allocated, every address is the caller's.
 */

/** Where the caller may place its data: past the module's static data, 64 KiB aligned. */
export function base(): usize {
  return (__heap_base + 0xffff) & ~<usize>0xffff;
}

/**
 * A 5-byte big-endian number. Its low 4 bytes are put together with shifts of a little-endian load, not `bswap`:
 * the optimizer makes that rotations, which Liftoff (the only compiler of a short run, src/cli/short-run.ts) calls
 * out to C for, each call costing more than the whole entry.
 */
@inline function u40be(p: usize): f64 {
  const x = load<u32>(p + 1);
  const low = (x >>> 24) | ((x >>> 8) & 0xff00) | ((x & 0xff00) << 8) | ((x & 0xff) << 24);
  return <f64>load<u8>(p) * 4294967296.0 + <f64>low;
}

/**
 * Decodes `n` 10-byte entries (5-byte big-endian offset, then length) at `src` into f64s at `offsets` and `lengths`;
 * returns the first chunk whose blocks reach past `blockCount` (blocks of `blockSize` bytes), or -1.
 */
export function spans(src: usize, n: i32, offsets: usize, lengths: usize, blockSize: f64, blockCount: f64): i32 {
  let bad = -1;
  for (let i = 0; i < n; i++) {
    const p = src + <usize>i * 10;
    const off = u40be(p);
    const len = u40be(p + 5);
    store<f64>(offsets + (<usize>i << 3), off);
    store<f64>(lengths + (<usize>i << 3), len);
    if (bad < 0 && len != 0 && !(Math.ceil((off + len) / blockSize) <= blockCount)) bad = i;
  }
  return bad;
}

/** The first block (12-byte entries at `src`) whose method is `methodCount` or more, or -1. */
export function firstBadMethod(src: usize, count: i32, methodCount: i32): i32 {
  for (let i = 0; i < count; i++) if (<i32>load<u8>(src + <usize>i * 12 + 11) >= methodCount) return i;
  return -1;
}

@inline function u24(p: usize): u32 {
  return <u32>load<u16>(p) | (<u32>load<u8>(p + 2) << 16);
}

/** The first block that decodes to more than `blockSize` bytes, or -1. */
export function firstOversized(src: usize, count: i32, blockSize: u32): i32 {
  for (let i = 0; i < count; i++) if (u24(src + <usize>i * 12 + 8) > blockSize) return i;
  return -1;
}

/** The stored sizes of `count` blocks, summed. */
export function storedTotal(src: usize, count: i32): f64 {
  let s: u64 = 0;
  for (let i = 0; i < count; i++) s += <u64>u24(src + <usize>i * 12 + 5);
  return <f64>s;
}

/** `count` f64s at `src`, summed in order. */
export function sum(src: usize, count: i32): f64 {
  let s: f64 = 0;
  for (let i = 0; i < count; i++) s += load<f64>(src + (<usize>i << 3));
  return s;
}

/** A byte a name may hold: not a control character, '/', '\\' or ':'. */
@inline function nameByte(c: u32): bool {
  return c >= 0x20 && c != 0x2f && c != 0x5c && c != 0x3a;
}

const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;

/** Whether any byte of `x` is below `n` (n <= 0x80; exact as an "any": a borrow only follows a byte that is). */
@inline function anyBelow(x: u64, n: u64): bool {
  return ((x - n * ONES) & ~x & HIGHS) != 0;
}

/**
 * `nameByte` for 8 bytes at once: a byte loop was most of opening a container of a few thousand names under
 * Liftoff (~450 instructions a name).
 */
@inline function nameBytes8(x: u64): bool {
  return !anyBelow(x, 0x20) && !anyBelow(x ^ (0x2f * ONES), 1) && !anyBelow(x ^ (0x5c * ONES), 1) && !anyBelow(x ^ (0x3a * ONES), 1);
}

/**
 * `nameByte` for the bytes from `s` to `end`, 16 at a time (a module built with SIMD; reads up to 15 bytes past
 * `end`, which the caller keeps within the memory): under Liftoff a step of `nameBytes8` and the last bytes one at a
 * time were ~270 instructions a name of the bench's 3,000, the most of the TOC's scans.
 */
@inline function nameBytes16(s: usize, end: usize): bool {
  for (let q = s; q < end; q += 16) {
    const v = v128.load(q);
    const bad = v128.or(v128.or(i8x16.lt_u(v, i8x16.splat(0x20)), i8x16.eq(v, i8x16.splat(0x2f))), v128.or(i8x16.eq(v, i8x16.splat(0x5c)), i8x16.eq(v, i8x16.splat(0x3a))));
    if (v128.any_true(v128.and(bad, firstLanes(end - q)))) return false;
  }
  return true;
}

/** `nameByte` for the bytes from `s` to `end` (16 at a time where the module has SIMD and `memoryEnd` allows). */
@inline function nameBytesIn(s: usize, end: usize, memoryEnd: usize): bool {
  if (ASC_FEATURE_SIMD) {
    if (end + 16 <= memoryEnd) return nameBytes16(s, end);
  }
  let q = s;
  for (; q + 8 <= end; q += 8) if (!nameBytes8(load<u64>(q))) return false;
  for (; q < end; q++) if (!nameByte(load<u8>(q))) return false;
  return true;
}

/** Where the name scan stopped: the offset (from the table's start) of the name it returned. */
export let at: i32 = 0;

/**
 * Steps over the FStrings of a directory index's string table (`table`, `size` bytes) from name `from` at offset `pos`,
 * writing where each starts (i32s at `starts`), while each is a plain name: a positive length that fits, NUL-terminated,
 * no '/', '\', ':' or control character, not '.' or '..'. Returns the first name that is not (the caller reads it and
 * says why, or steps over it: an empty or UTF-16 one), with `at` where it starts; or `count` when all are.
 */
export function names(table: usize, size: i32, from: i32, pos: i32, count: i32, starts: usize): i32 {
  const memoryEnd = <usize>memory.size() << 16;
  for (let i = from; i < count; i++) {
    at = pos;
    if (size - pos < 4) return i;
    const len = load<i32>(table + <usize>pos);
    if (len <= 1 || len > size - pos - 4) return i;
    const s = table + <usize>pos + 4;
    const end = s + <usize>(len - 1);
    if (load<u8>(end) != 0) return i;
    if (!nameBytesIn(s, end, memoryEnd)) return i;
    if (load<u8>(s) == 0x2e && (len == 2 || (len == 3 && load<u8>(s + 1) == 0x2e))) return i;
    store<i32>(starts + (<usize>i << 2), pos);
    pos += 4 + len;
  }
  at = pos;
  return count;
}

const NONE: u32 = 0xffffffff;

/** What `walk` found wrong (0: nothing), and the entry and value it concerns. */
export let walkError: i32 = 0;
export let walkEntry: u32 = 0;
export let walkValue: u32 = 0;
/** Folders `walk` reached (entry 0 the root): each one's parent folder and name, at `parents` and `nameOfFolder`. */
export let folders: i32 = 0;

export const FILE_OUT_OF_RANGE: i32 = 1;
export const FILE_TWICE: i32 = 2;
export const FILE_CHUNK: i32 = 3;
export const FILE_NAME: i32 = 4;
export const DIR_OUT_OF_RANGE: i32 = 5;
export const DIR_TWICE: i32 = 6;
export const DIR_NAME: i32 = 7;

@inline function fail(code: i32, entry: u32, value: u32): i32 {
  walkError = code;
  walkEntry = entry;
  walkValue = value;
  return -1;
}

/**
 * Walks a directory index from its root (`dirs`: 4 u32 per directory, `files`: 3 per file), depth first as the
 * engine's own walk lists files, checking each entry as it is reached. Writes each reached file's entry and folder
 * (`order`, `folderOfFile`, i32s; not when `order` is 0), each chunk's folder and name (`chunkFolder`, `chunkName`:
 * -1 and 0 for a chunk no file names; a chunk named twice takes the later file), and each folder's parent and name.
 * `seen` is room for `dirCount + fileCount` bytes; `stack` for 2 i32 per directory. Returns the files reached, or -1
 * with `walkError`.
 */
export function walk(
  dirs: usize, dirCount: u32, files: usize, fileCount: u32, stringCount: u32, chunkCount: u32, seen: usize, stack: usize,
  parents: usize, nameOfFolder: usize, order: usize, folderOfFile: usize, chunkFolder: usize, chunkName: usize,
): i32 {
  walkError = 0;
  folders = 0;
  memory.fill(chunkFolder, 0xff, <usize>chunkCount << 2);
  memory.fill(chunkName, 0, <usize>chunkCount << 2);
  if (dirCount == 0) return 0;
  memory.fill(seen, 0, <usize>dirCount + <usize>fileCount);
  const seenFiles = seen + <usize>dirCount;
  let top = 0;
  store<i32>(stack, 0);
  store<i32>(stack + 4, 0);
  top = 1;
  store<i32>(parents, -1);
  store<i32>(nameOfFolder, -1);
  folders = 1;
  store<u8>(seen, 1);
  let reached = 0;
  while (top > 0) {
    top--;
    const dir = load<u32>(stack + (<usize>top << 3));
    const folder = load<i32>(stack + (<usize>top << 3) + 4);
    for (let f = load<u32>(dirs + <usize>dir * 16 + 12); f != NONE; f = load<u32>(files + <usize>f * 12 + 4)) {
      if (f >= fileCount) return fail(FILE_OUT_OF_RANGE, f, 0);
      if (load<u8>(seenFiles + <usize>f) != 0) return fail(FILE_TWICE, f, 0);
      store<u8>(seenFiles + <usize>f, 1);
      const chunk = load<u32>(files + <usize>f * 12 + 8);
      if (chunk >= chunkCount) return fail(FILE_CHUNK, f, chunk);
      const name = load<u32>(files + <usize>f * 12);
      if (name >= stringCount) return fail(FILE_NAME, f, name);
      if (order != 0) {
        store<i32>(order + (<usize>reached << 2), <i32>f);
        store<i32>(folderOfFile + (<usize>reached << 2), folder);
      }
      reached++;
      store<i32>(chunkFolder + (<usize>chunk << 2), folder);
      store<i32>(chunkName + (<usize>chunk << 2), <i32>name);
    }
    for (let c = load<u32>(dirs + <usize>dir * 16 + 4); c != NONE; c = load<u32>(dirs + <usize>c * 16 + 8)) {
      if (c >= dirCount) return fail(DIR_OUT_OF_RANGE, c, 0);
      if (load<u8>(seen + <usize>c) != 0) return fail(DIR_TWICE, c, 0);
      store<u8>(seen + <usize>c, 1);
      const name = load<u32>(dirs + <usize>c * 16);
      if (name >= stringCount) return fail(DIR_NAME, c, name);
      store<i32>(parents + (<usize>folders << 2), folder);
      store<i32>(nameOfFolder + (<usize>folders << 2), <i32>name);
      store<i32>(stack + (<usize>top << 3), <i32>c);
      store<i32>(stack + (<usize>top << 3) + 4, folders);
      top++;
      folders++;
    }
  }
  return reached;
}

@inline function u40le(p: usize): f64 {
  return <f64>load<u32>(p) + <f64>load<u8>(p + 4) * 4294967296.0;
}

/**
 * The chunks in .ucas order, by (where each starts, index), for the TOC's `n` chunk offsets and lengths (f64s) and
 * its block table (12-byte entries): 1 when the TOC order is that order already; 0 with the order written at `order`
 * (i32s) when the block table's order gives it (each block starts at most one chunk); -1 when neither (the caller
 * sorts). `firstBlock`: room for an i32 per chunk, `chunkAt` for one per block. The chunks' blocks were checked to be
 * in the table.
 */
export function ucasOrder(offsets: usize, lengths: usize, n: i32, blocks: usize, blockSize: f64, blockCount: i32, firstBlock: usize, chunkAt: usize, order: usize): i32 {
  // Each chunk's first block (-1: empty), and whether the TOC order is the .ucas order.
  let sorted = true;
  let max: f64 = 0;
  for (let i = 0; i < n; i++) {
    let b = -1;
    let at: f64 = 0;
    if (load<f64>(lengths + (<usize>i << 3)) != 0) {
      b = <i32>Math.floor(load<f64>(offsets + (<usize>i << 3)) / blockSize);
      at = u40le(blocks + <usize>b * 12);
    }
    store<i32>(firstBlock + (<usize>i << 2), b);
    if (at < max) sorted = false;
    else max = at;
  }
  if (sorted) return 1;
  memory.fill(chunkAt, 0xff, <usize>blockCount << 2);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const b = load<i32>(firstBlock + (<usize>i << 2));
    if (b < 0) {
      store<i32>(order + (<usize>k << 2), i);
      k++;
    } else {
      if (load<i32>(chunkAt + (<usize>b << 2)) != -1) return -1;
      store<i32>(chunkAt + (<usize>b << 2), i);
    }
  }
  for (let b = 0; b < blockCount; b++) {
    const i = load<i32>(chunkAt + (<usize>b << 2));
    if (i != -1) {
      store<i32>(order + (<usize>k << 2), i);
      k++;
    }
  }
  let px = load<i32>(order);
  let pa = startOf(blocks, load<i32>(firstBlock + (<usize>px << 2)));
  for (let j = 1; j < n; j++) {
    const y = load<i32>(order + (<usize>j << 2));
    const ay = startOf(blocks, load<i32>(firstBlock + (<usize>y << 2)));
    if (pa > ay || (pa == ay && px > y)) return -1;
    px = y;
    pa = ay;
  }
  return 0;
}

@inline function startOf(blocks: usize, b: i32): f64 {
  return b < 0 ? 0 : u40le(blocks + <usize>b * 12);
}

/**
 * The engine's placement rule (src/toc/block-alignment.ts alignedChunkStart) replayed over the chunks in .ucas order
 * (`n` i32 TOC indices at `order`) for each of `candidateCount` alignments (f64s at `candidates`, `pos`: room for as
 * many f64s): returns the mask of candidates that reproduce every chunk's start (0: none), or -1 when a chunk's blocks
 * reach past the table (the caller replays it in JavaScript). A chunk's stored size is its blocks' sizes, each padded
 * to 16 bytes; `partSize` is the partition size (Infinity: one partition).
 */
export function blockAlignment(order: usize, n: i32, offsets: usize, lengths: usize, blocks: usize, blockCount: i32, blockSize: f64, partSize: f64, candidates: usize, candidateCount: i32, pos: usize): i32 {
  let alive: i32 = (1 << candidateCount) - 1;
  let partition: f64 = 0;
  const partitioned = isFinite(partSize);
  memory.fill(pos, 0, <usize>candidateCount << 3);
  for (let k = 0; k < n; k++) {
    const i = load<i32>(order + (<usize>k << 2));
    const length = load<f64>(lengths + (<usize>i << 3));
    if (length == 0) continue;
    const offset = load<f64>(offsets + (<usize>i << 3));
    const first = Math.floor(offset / blockSize);
    const end = Math.ceil((offset + length) / blockSize);
    if (!(first >= 0 && end <= <f64>blockCount)) return -1;
    let size: f64 = 0;
    for (let e = <usize>first * 12, last = <usize>end * 12; e < last; e += 12) size += <f64>(((<i32>load<u16>(blocks + e + 5) | (<i32>load<u8>(blocks + e + 7) << 16)) + 15) & ~15);
    const off = u40le(blocks + <usize>first * 12);
    const p = partitioned ? Math.floor(off / partSize) : 0;
    const local = partitioned ? off % partSize : off;
    if (p != partition) {
      partition = p;
      memory.fill(pos, 0, <usize>candidateCount << 3);
    }
    for (let c = 0; c < candidateCount; c++) {
      if (!(alive & (1 << c))) continue;
      const a = load<f64>(candidates + (<usize>c << 3));
      const at = load<f64>(pos + (<usize>c << 3));
      const start = a > 1 && size > 0 && Math.floor(at / a) != Math.floor((at + size - 1) / a) ? Math.ceil(at / a) * a : at;
      if (start != local) alive &= ~(1 << c);
      else store<f64>(pos + (<usize>c << 3), local + size);
    }
    if (alive == 0) return 0;
  }
  return alive;
}

/** The chunks `namesDistinct` found named (folder >= 0). */
export let namedChunks: i32 = 0;

/**
 * One word into a name's hash (src/layout/distinct-paths.ts `nameHashText` makes the same from a name's text, to look
 * names up in the table this fills): multiplied in, and its high bits folded down.
 */
@inline function hashStep(h: u32, word: u32): u32 {
  h = (h ^ word) * 0x01000193;
  return h ^ (h >>> 15);
}

@inline function hashMix(h: u32): u32 {
  h = (h ^ (h >>> 16)) * 0x85ebca6b;
  return h ^ (h >>> 13);
}

/**
 * Whether the `n` chunks' (folder, file name) pairs are distinct: `folderOf` and `nameOf` (i32s per chunk: folder -1
 * for a chunk no file names), `starts` (`startCount` i32s: where each name's FString starts in the string table
 * `names`, `size` bytes). Fills the open-addressing table `slots` (`mask + 1` i32s, zeroed: chunk + 1 per named chunk)
 * keyed by the hash of the folder and the name's Latin-1 bytes, a little-endian word a step. Returns 1 when distinct,
 * 0 at the first pair seen twice, -1 for a name stored as UTF-16 or an entry out of range (the caller then claims
 * every path); `namedChunks`: the chunks with a folder.
 */
export function namesDistinct(folderOf: usize, nameOf: usize, n: i32, starts: usize, startCount: i32, names: usize, size: i32, slots: usize, mask: u32): i32 {
  memory.fill(slots, 0, (<usize>mask + 1) << 2);
  let named = 0;
  for (let i = 0; i < n; i++) {
    const f = load<i32>(folderOf + (<usize>i << 2));
    if (f < 0) continue;
    named++;
    const at = nameAt(nameOf, i, starts, startCount, size);
    if (at < 0) return -1;
    const len = load<i32>(names + <usize>at);
    if (len <= 0 || len > size - at - 4) return -1;
    const from = names + <usize>at + 4;
    const end = from + <usize>(len - 1);
    let h: u32 = (0x811c9dc5 ^ <u32>f) * 0x01000193;
    let k = from;
    for (; k + 4 <= end; k += 4) h = hashStep(h, load<u32>(k));
    let tail: u32 = 0;
    for (let shift: u32 = 0; k < end; k++, shift += 8) tail |= <u32>load<u8>(k) << shift;
    let s = hashMix(hashStep(h, tail ^ <u32>(len - 1))) & mask;
    for (; load<i32>(slots + (<usize>s << 2)) != 0; s = (s + 1) & mask) {
      const j = load<i32>(slots + (<usize>s << 2)) - 1;
      if (load<i32>(folderOf + (<usize>j << 2)) == f && sameFString(names, at, nameAt(nameOf, j, starts, startCount, size))) return 0;
    }
    store<i32>(slots + (<usize>s << 2), i + 1);
  }
  namedChunks = named;
  return 1;
}

/** Where chunk i's name starts in the string table, or -1 when its number or start is out of range. */
@inline function nameAt(nameOf: usize, i: i32, starts: usize, startCount: i32, size: i32): i32 {
  const name = load<i32>(nameOf + (<usize>i << 2));
  if (<u32>name >= <u32>startCount) return -1;
  const at = load<i32>(starts + (<usize>name << 2));
  return <u32>at > <u32>(size - 4) ? -1 : at;
}

/** Whether the Latin-1 FStrings at `a` and `b` (both checked to fit) are the same. */
@inline function sameFString(names: usize, a: i32, b: i32): bool {
  const len = load<i32>(names + <usize>a);
  if (load<i32>(names + <usize>b) != len) return false;
  return memory.compare(names + <usize>a + 4, names + <usize>b + 4, <usize>len) == 0;
}

/**
 * Whether the chunks that no file names (those with a folder < 0 in `folderOf`; every chunk when `folderOf` is 0) have
 * distinct ids (`n` 12-byte chunk ids at `ids`): their output paths (`_chunks/<Type>/<id>.bin`) are then distinct.
 * `slots`: room for `mask + 1` i32s. Returns 1 when distinct, 0 at the first id seen twice.
 */
export function idsDistinct(ids: usize, n: i32, folderOf: usize, slots: usize, mask: u32): i32 {
  memory.fill(slots, 0, (<usize>mask + 1) << 2);
  for (let i = 0; i < n; i++) {
    if (folderOf != 0 && load<i32>(folderOf + (<usize>i << 2)) >= 0) continue;
    const p = ids + <usize>i * 12;
    const a = load<u32>(p);
    const b = load<u32>(p + 4);
    const c = load<u32>(p + 8);
    let s = hashMix(hashStep(hashStep(hashMix(a), b), c)) & mask;
    for (; load<i32>(slots + (<usize>s << 2)) != 0; s = (s + 1) & mask) {
      const q = ids + <usize>(load<i32>(slots + (<usize>s << 2)) - 1) * 12;
      if (load<u32>(q) == a && load<u32>(q + 4) == b && load<u32>(q + 8) == c) return 0;
    }
    store<i32>(slots + (<usize>s << 2), i + 1);
  }
  return 1;
}
