/**
 * The chunk entries of a long unpack manifest, written as UTF-8 JSON by WebAssembly (src/layout/manifest-wasm.ts
 * places the TOC's data in this module's memory and hands out the text as it lies here). The same text as
 * ManifestChunkWriter.write (src/layout/manifest-bytes.ts) makes in JavaScript, which a game's 150,000 entries kept
 * busy for ~0.5 s of the calling thread: ids and hashes to hex, numbers to digits, names escaped. The stub runtime:
 * nothing is allocated, every address is the caller's.
 *
 * Whole: the TOC's block entries, the directory index's string table (FStrings: an i32 length, then that many Latin-1
 * bytes with a NUL, or UTF-16 when negative) and each folder's text (i32 start, i32 length, already inside a JSON
 * string): where the .utoc lies in this memory (shared with the threads that read it), its sections are read in place.
 * Per window entry k (a run of consecutive chunks): its 12-byte id, its meta (hash, flags), its offset and length
 * (f64), its folder (i32, -1: unnamed) and its name's index in the string table (i32), whose FStrings' starts are a
 * table of i32s.
 */

// Fixed texts, each an i32 start and an i32 length in the table at `texts`.
const LEAD = 0;
const OPEN = 1;
const TYPE = 2;
const PATH = 3;
const ORDER = 4;
const SIZE = 5;
const HASH = 6;
const FLAGS = 7;
const COMPRESSION = 8;
const OFFSET = 9;
const UCAS_OFFSET = 10;
const TOC_PATH = 11;
const RAW_BLOCKS = 12;
const RAW_ITEM = 13;
const RAW_CLOSE = 14;
const CLOSE = 15;
const NULL = 16;
const BIN_CLOSE = 17;

let texts: usize = 0;
/** Per type byte (256): its name as a JSON string, then (at 256 + type) the unnamed path's start `"_chunks/<Type>/`. */
let types: usize = 0;
/** Per compression method: its name as a JSON string. */
let methods: usize = 0;
let blockSize: u64 = 1;
let metaSize: i32 = 0;
let hashSize: i32 = 0;
/** The most bytes an entry takes besides its path, its tocPath and its rawBlocks (the caller's sum of the tables). */
let fixedMost: i32 = 0;

export function setTables(texts_: usize, types_: usize, methods_: usize, blockSize_: f64, metaSize_: i32, hashSize_: i32, fixedMost_: i32): void {
  texts = texts_; types = types_; methods = methods_; blockSize = <u64>blockSize_; metaSize = metaSize_; hashSize = hashSize_;
  fixedMost = fixedMost_;
}

let blocks: usize = 0;
let blockCount: u64 = 0;
let names: usize = 0;
let namesSize: i32 = 0;
let folderTexts: usize = 0;
let folderCount: i32 = 0;
/** Where each name of the string table starts (i32s), and how many. */
let nameStarts: usize = 0;
let nameCount: i32 = 0;

export function setData(blocks_: usize, blockCount_: i32, names_: usize, namesSize_: i32, folderTexts_: usize, folderCount_: i32, nameStarts_: usize, nameCount_: i32): void {
  blocks = blocks_; blockCount = <u64>blockCount_; names = names_; namesSize = namesSize_; folderTexts = folderTexts_; folderCount = folderCount_;
  nameStarts = nameStarts_; nameCount = nameCount_;
}

// The window's per-entry arrays.
let ids: usize = 0;
let metas: usize = 0;
let offsets: usize = 0;
let lengths: usize = 0;
let folderOf: usize = 0;
let nameOf: usize = 0;

export function setWindow(ids_: usize, metas_: usize, offsets_: usize, lengths_: usize, folderOf_: usize, nameOf_: usize): void {
  ids = ids_; metas = metas_; offsets = offsets_; lengths = lengths_; folderOf = folderOf_; nameOf = nameOf_;
}

/** Set by `write` when it stopped at an entry it does not take (the caller writes that one). */
export let refused: i32 = 0;

/** Where the output ends after `write`. */
export let outEnd: usize = 0;

/** Bytes `n` from `src` to `dst`, 8 at a time: both sides have 8 bytes of room past their ends. */
@inline function copy(dst: usize, src: usize, n: i32): usize {
  for (let k: i32 = 0; k < n; k += 8) store<u64>(dst + <usize>k, load<u64>(src + <usize>k));
  return dst + <usize>n;
}

@inline function text(at: usize, t: i32): usize {
  const e = texts + (<usize>t << 3);
  return copy(at, load<i32>(e), load<i32>(e, 4));
}

@inline function tableText(at: usize, table: usize, k: i32): usize {
  const e = table + (<usize>k << 3);
  return copy(at, load<i32>(e), load<i32>(e, 4));
}

/** A nibble's lower-case hex digit: past 9, 39 more to reach `a`. */
@inline function hexDigit(v: u32): u32 {
  const d = <i32>v;
  return <u32>(d + 0x30 + (((9 - d) >> 31) & 39));
}

/** Lower-case hex of `n` bytes at `src`. */
@inline function hex(at: usize, src: usize, n: i32): usize {
  for (let k: i32 = 0; k < n; k++) {
    const v = <u32>load<u8>(src + <usize>k);
    store<u16>(at, <u16>(hexDigit(v >> 4) | (hexDigit(v & 15) << 8)));
    at += 2;
  }
  return at;
}

/** A non-negative integer's digits (32-bit steps below 2^32: most of a manifest's numbers). */
function number(at: usize, v: u64): usize {
  if (v <= <u64>u32.MAX_VALUE) return number32(at, <u32>v);
  let digits: usize = 1;
  for (let x = v; x >= 10; x /= 10) digits++;
  let k = at + digits;
  do {
    k--;
    store<u8>(k, <u8>(0x30 + v % 10));
    v /= 10;
  } while (k > at);
  return at + digits;
}

@inline function number32(at: usize, v: u32): usize {
  let digits: usize = 1;
  for (let x = v; x >= 10; x /= 10) digits++;
  let k = at + digits;
  do {
    k--;
    const q = v / 10;
    store<u8>(k, <u8>(0x30 + v - q * 10));
    v = q;
  } while (k > at);
  return at + digits;
}

const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;

/** Whether none of the 8 bytes of `x` needs escaping or a second byte: all in 0x20-0x7f, none `"` or `\`. */
@inline function plain8(x: u64): bool {
  const low = x - ONES * 0x20;
  const quote = x ^ (ONES * 0x22);
  const slash = x ^ (ONES * 0x5c);
  // A byte below 0x20 borrows (its high bit set in `low`, not in `x`); a zero byte of `quote`/`slash` is a match.
  return ((low | x | (quote - ONES) & ~quote | (slash - ONES) & ~slash) & HIGHS) == 0;
}

/** The inside of a JSON string for Latin-1 bytes: as JSON.stringify writes the string they spell, in UTF-8. */
function latin1(at: usize, src: usize, n: i32): usize {
  const end = src + <usize>n;
  let p = src;
  while (p + 8 <= end) {
    const x = load<u64>(p);
    if (!plain8(x)) break;
    store<u64>(at, x);
    at += 8;
    p += 8;
  }
  for (; p < end; p++) {
    const c = <u32>load<u8>(p);
    if (c >= 0x20 && c < 0x80 && c != 0x22 && c != 0x5c) {
      store<u8>(at++, <u8>c);
    } else if (c >= 0x80) {
      store<u8>(at, <u8>(0xc0 | (c >> 6)));
      store<u8>(at, <u8>(0x80 | (c & 0x3f)), 1);
      at += 2;
    } else {
      store<u8>(at++, 0x5c);
      if (c == 0x22 || c == 0x5c) store<u8>(at++, <u8>c);
      else if (c == 8) store<u8>(at++, 0x62);
      else if (c == 9) store<u8>(at++, 0x74);
      else if (c == 10) store<u8>(at++, 0x6e);
      else if (c == 12) store<u8>(at++, 0x66);
      else if (c == 13) store<u8>(at++, 0x72);
      else {
        // \u00XX
        store<u32>(at, 0x00303075);
        store<u8>(at, <u8>hexDigit(c >> 4), 3);
        store<u8>(at, <u8>hexDigit(c & 15), 4);
        at += 5;
      }
    }
  }
  return at;
}

/** Entry k's path inside its quotes and the quotes: its folder's text and its name (Latin-1 at `name`, `n` bytes). */
@inline function ownPath(at: usize, folder: usize, name: usize, n: i32): usize {
  store<u8>(at++, 0x22);
  at = copy(at, load<i32>(folder), load<i32>(folder, 4));
  at = latin1(at, name, n);
  store<u8>(at++, 0x22);
  return at;
}

/**
 * Writes window entries [from, to) from `at` (entry k is TOC chunk `order + k`), each led by the lead text (`first`:
 * the first entry of the document, led without its comma), while the output is below `limit` and the next entry
 * surely fits below `cap`; returns the entries written (`outEnd`: where the output ends). Stops with `refused` set at
 * an entry it does not take: a name stored as UTF-16 or empty, anything outside the tables, one too large for `cap`
 * when the output is empty.
 */
export function write(from: i32, to: i32, order: i32, first: i32, at: usize, limit: usize, cap: usize): i32 {
  const rawItemLength = load<i32>(texts + (<usize>RAW_ITEM << 3), 4);
  const start = at;
  refused = 0;
  let k = from;
  for (; k < to && at < limit; k++) {
    const offset = <u64>load<f64>(offsets + (<usize>k << 3));
    const length = <u64>load<f64>(lengths + (<usize>k << 3));
    const firstBlock = offset / blockSize;
    const count = length == 0 ? 0 : <i32>((offset + length + blockSize - 1) / blockSize - firstBlock);
    if (firstBlock + <u64>count > blockCount) {
      refused = 1;
      break;
    }
    const chunkBlocks = blocks + <usize>firstBlock * 12;
    const f = load<i32>(folderOf + (<usize>k << 2));
    const named = f >= 0;
    let folder: usize = 0;
    let name: usize = 0;
    let nameLength: i32 = 0;
    if (named) {
      // The name's index in the string table, then where its FString starts (-1: outside the table).
      const s = load<i32>(nameOf + (<usize>k << 2));
      const at_ = s >= 0 && s < nameCount ? load<i32>(nameStarts + (<usize>s << 2)) : -1;
      const len = f < folderCount && at_ >= 0 && at_ <= namesSize - 4 ? load<i32>(names + <usize>at_) : 0;
      // Latin-1 with its NUL, inside the table.
      if (len <= 0 || len > namesSize - 4 - at_) {
        refused = 1;
        break;
      }
      folder = folderTexts + (<usize>f << 3);
      name = names + <usize>at_ + 4;
      nameLength = len - 1;
    }
    const pathMost = named ? 2 + load<i32>(folder, 4) + 6 * nameLength : 0;
    if (at + <usize>fixedMost + 2 * <usize>pathMost + <usize>count * (12 + <usize>rawItemLength) > cap) {
      if (at == start) refused = 1;
      break;
    }

    const id = ids + <usize>k * 12;
    if (first != 0 && k == from) {
      const e = texts + (<usize>LEAD << 3);
      at = copy(at, load<i32>(e) + 1, load<i32>(e, 4) - 1);
    } else {
      at = text(at, LEAD);
    }
    at = text(at, OPEN);
    at = hex(at, id, 12);
    at = text(at, TYPE);
    const type = <i32>load<u8>(id, 11);
    at = tableText(at, types, type);
    at = text(at, PATH);
    const pathAt = at;
    if (named) {
      at = ownPath(at, folder, name, nameLength);
    } else {
      at = tableText(at, types, 256 + type);
      at = hex(at, id, 12);
      at = text(at, BIN_CLOSE);
    }
    const pathEnd = at;
    at = text(at, ORDER);
    at = number(at, <u64>(order + k));
    at = text(at, SIZE);
    at = number(at, length);
    at = text(at, HASH);
    // The hash field's bytes: a 32-byte one whose last 12 bytes are zero is its first 20.
    const meta = metas + <usize>k * <usize>metaSize;
    let hashBytes = hashSize;
    if (hashBytes > 20) {
      let zero = true;
      for (let b = 20; b < hashBytes && zero; b++) zero = load<u8>(meta + <usize>b) == 0;
      if (zero) hashBytes = 20;
    }
    at = hex(at, meta, hashBytes);
    store<u8>(at++, 0x22);
    at = text(at, FLAGS);
    at = number(at, <u64>load<u8>(meta + <usize>hashSize));
    // The method of its compressed blocks (0 if none), and whether any block is raw.
    let method: i32 = 0;
    let raw = false;
    for (let b: i32 = 0; b < count; b++) {
      const m = <i32>load<u8>(chunkBlocks + <usize>b * 12, 11);
      if (m == 0) raw = true;
      else method = m;
    }
    at = text(at, COMPRESSION);
    at = tableText(at, methods, method);
    at = text(at, OFFSET);
    at = number(at, offset);
    at = text(at, UCAS_OFFSET);
    if (count > 0) at = number(at, load<u32>(chunkBlocks) | (<u64>load<u8>(chunkBlocks, 4) << 32));
    else at = text(at, NULL);
    if (named) {
      at = text(at, TOC_PATH);
      at = copy(at, pathAt, <i32>(pathEnd - pathAt));
    }
    if (method != 0 && raw) {
      at = text(at, RAW_BLOCKS);
      let firstRaw = true;
      for (let b: i32 = 0; b < count; b++) {
        if (load<u8>(chunkBlocks + <usize>b * 12, 11) != 0) continue;
        if (!firstRaw) store<u8>(at++, 0x2c);
        firstRaw = false;
        at = text(at, RAW_ITEM);
        at = number(at, <u64>b);
      }
      at = text(at, RAW_CLOSE);
    }
    at = text(at, CLOSE);
  }
  outEnd = at;
  return k - from;
}

/** Where the caller's data may start: past the module's own (it has none but the stub runtime's). */
export function base(): usize {
  return (__heap_base + 0xffff) & ~<usize>0xffff;
}
