import { firstLanes } from '../lanes';
/**
 * The rows of `iostore list` of one container, written as text by WebAssembly (src/cli/chunk-rows.ts places the TOC's
 * arrays in this module's memory and reads the text back). A listing of a few thousand chunks is a short process
 * whose per-row work V8 would run in its interpreter (each cell a string, each field through an inline cache): here
 * it runs compiled from the first row. The stub runtime: nothing is allocated, every address is the caller's.
 *
 * Per chunk: its 12-byte id, its offset and length (f64), its blocks' stored sizes (the TOC's 12-byte block
 * entries), its meta (hash, flags), its path as a folder (a cell given per folder) and a stored name (the index's
 * FString), or a cell the caller made for it (a path with characters the fast form does not take).
 */

export const TABLE: i32 = 0;
export const CSV: i32 = 1;
export const JSON: i32 = 2;

// The tables, set once by `setTables`.
let ids: usize = 0;
let offsets: usize = 0;
let lengths: usize = 0;
let blocks: usize = 0;
let blockSize: u64 = 1;
let metas: usize = 0;
let metaSize: i32 = 0;
let hashSize: i32 = 0;
let order: usize = 0;
let count: i32 = 0;
/** Per chunk (i32): its folder, -1 when unnamed. */
let folderOf: usize = 0;
/** Per chunk (i32): its name's number in the string table (`nameStarts`: where each one's FString starts in `names`). */
let nameOf: usize = 0;
let nameStarts: usize = 0;
let names: usize = 0;
/** Per folder: i32 start, i32 byte length, i32 width (-1: the folder needs the slow form). */
let folders: usize = 0;
/** Per type (256): i32 start, i32 byte length, i32 width of its cell. */
let types: usize = 0;
/**
 * The rows whose path cells the caller made (i32 row numbers, ascending, as `scan` found them), their cells at
 * `cells` (i32 start, byte length, width each) in the same order, and the next of them `write` reaches.
 */
let slowRows: usize = 0;
let slowCount: i32 = 0;
let nextSlow: i32 = 0;
let cells: usize = 0;
/** The container's name cell (JSON). */
let container: usize = 0;
let containerLength: i32 = 0;

export function setTables(
  ids_: usize, offsets_: usize, lengths_: usize, blocks_: usize, blockSize_: f64, metas_: usize, metaSize_: i32, hashSize_: i32,
  order_: usize, count_: i32, folderOf_: usize, nameOf_: usize, nameStarts_: usize, names_: usize, folders_: usize, types_: usize,
  cells_: usize, container_: usize, containerLength_: i32,
): void {
  ids = ids_; offsets = offsets_; lengths = lengths_; blocks = blocks_; blockSize = <u64>blockSize_; metas = metas_;
  blockShift = popcnt(blockSize) == 1 ? ctz(blockSize) : 64;
  metaSize = metaSize_; hashSize = hashSize_; order = order_; count = count_; folderOf = folderOf_; nameOf = nameOf_; nameStarts = nameStarts_;
  names = names_; folders = folders_; types = types_; cells = cells_; container = container_;
  containerLength = containerLength_;
  memoryEnd = <usize>memory.size() << 16;
}

// The widest cells, found by `scan` (the table's column widths).
export let maxIndex: i32 = 0;
export let maxSize: f64 = 0;
export let maxStored: f64 = 0;
export let maxBlocks: i32 = 0;
export let typeWidth: i32 = 0;
export let pathWidth: i32 = 0;
export let hashWidth: i32 = 0;
/** The most bytes a fast path cell has. */
export let pathBytes: i32 = 0;

/** Bytes of a name or folder byte that every format shows as it is: printable ASCII but `"`, `,` and `\`. */
@inline function plain(c: u32): bool {
  return c >= 0x20 && c <= 0x7e && c != 0x22 && c != 0x2c && c != 0x5c;
}

const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;

/** Whether the 8 bytes of `x` has a zero byte (exact as an "any": borrows only follow a zero byte). */
@inline function hasZero(x: u64): bool {
  return ((x - ONES) & ~x & HIGHS) != 0;
}

/** `plain` for 8 bytes at once: none below 0x20 or above 0x7e, none `"`, `,` or `\`. */
@inline function plain8(x: u64): bool {
  // A byte >= 0x80 is not plain; below that, x - 0x20 borrows only out of a byte < 0x20, and x + 1 carries into bit 7
  // only from 0x7f.
  if ((x & HIGHS) != 0) return false;
  if ((((x - 0x20 * ONES) | (x + ONES)) & HIGHS) != 0) return false;
  return !hasZero(x ^ (0x22 * ONES)) && !hasZero(x ^ (0x2c * ONES)) && !hasZero(x ^ (0x5c * ONES));
}

/** The chunk of row k: `order` 0 lists every chunk in TOC order (no table of the rows made for it). */
@inline function chunkOf(k: i32): i32 {
  return order == 0 ? k : load<i32>(order + (<usize>k << 2));
}

/** The stored name's character count when every byte is plain, else -1. */
@inline function nameAt(i: i32): usize {
  return names + <usize>load<i32>(nameStarts + (<usize>load<i32>(nameOf + (<usize>i << 2)) << 2));
}

function plainNameLength(i: i32): i32 {
  return plainLength(nameAt(i));
}

/**
 * `plain` for the bytes from `q` to `end`, 16 at a time (reads up to 15 bytes past `end`, which the caller keeps
 * below `memoryEnd`): under Liftoff 8 bytes a step and the last ones masked had been ~160 instructions a name.
 */
@inline function plain16(q: usize, end: usize): bool {
  for (; q < end; q += 16) {
    const v = v128.load(q);
    const bad = v128.or(v128.or(i8x16.lt_u(v, i8x16.splat(0x20)), i8x16.gt_u(v, i8x16.splat(0x7e))), v128.or(v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x2c))), i8x16.eq(v, i8x16.splat(0x5c))));
    if (v128.any_true(v128.and(bad, firstLanes(end - q)))) return false;
  }
  return true;
}

/** The character count of the FString at `p` when it is stored 8-bit and every byte is plain, else -1. */
function plainLength(p: usize): i32 {
  const len = load<i32>(p);
  if (len <= 1) return -1;
  const end = p + 4 + <usize>(len - 1);
  let q = p + 4;
  if (end + 16 <= memoryEnd) return plain16(q, end) ? len - 1 : -1;
  for (; q + 8 <= end; q += 8) if (!plain8(load<u64>(q))) return -1;
  if (q < end) {
    // The last 1-7 bytes: 8 read (within the memory), those past the name taken as plain ones ('a').
    if (q + 8 > memoryEnd) {
      for (; q < end; q++) if (!plain(load<u8>(q))) return -1;
    } else {
      const mask: u64 = (<u64>1 << (<u64>(end - q) << 3)) - 1;
      if (!plain8((load<u64>(q) & mask) | (0x6161616161616161 & ~mask))) return -1;
    }
  }
  return len - 1;
}

/**
 * The folders' path cells, at `folders` (see setTables, called first): folder 0's path is `mount` (`mountLength`
 * bytes), each other folder's its parent's (`parents`, i32s: a folder comes after its parent), its name (`folderNames`:
 * its number in the string table) and `/`, the bytes written one path after another from `out`. A folder whose path
 * is not plain throughout (or without stored names) gets width -1: its rows' cells are made by the caller. Returns
 * the bytes the paths take; they are written only when that is at most `room` (else the caller calls again with more).
 */
export function folderCells(parents: usize, folderNames: usize, n: i32, mount: usize, mountLength: i32, out: usize, room: i32): i32 {
  let used = 0;
  for (let f = 0; f < n; f++) {
    const cell = folders + <usize>f * 12;
    let from: usize = 0;
    let head = -1;
    let name: usize = 0;
    let nameLength = 0;
    if (names == 0) {
      // no stored names: every row's cell is the caller's
    } else if (f == 0) {
      head = mountLength;
      from = mount;
      for (let q = mount; q < mount + <usize>mountLength; q++) if (!plain(load<u8>(q))) head = -1;
    } else {
      const parent = load<i32>(parents + (<usize>f << 2));
      if (parent >= 0 && parent < f) {
        const pc = folders + <usize>parent * 12;
        head = load<i32>(pc + 8);
        from = <usize>load<i32>(pc);
      }
      name = names + <usize>load<i32>(nameStarts + (<usize>load<i32>(folderNames + (<usize>f << 2)) << 2));
      nameLength = head < 0 ? -1 : plainLength(name);
      if (nameLength < 0) head = -1;
    }
    if (head < 0) {
      store<i32>(cell, 0); store<i32>(cell + 4, 0); store<i32>(cell + 8, -1);
      continue;
    }
    const length = f == 0 ? head : head + nameLength + 1;
    const start = out + <usize>used;
    if (used + length <= room) {
      memory.copy(start, from, <usize>head);
      if (f != 0) {
        memory.copy(start + <usize>head, name + 4, <usize>nameLength);
        store<u8>(start + <usize>(length - 1), 0x2f);
      }
    }
    store<i32>(cell, <i32>start); store<i32>(cell + 4, length); store<i32>(cell + 8, length);
    used += length;
  }
  return used;
}

/** log2 of the block size, 64 when it is not a power of two: blocks found by a shift, not a 64-bit division. */
let blockShift: u64 = 64;

@inline function blockOf(offset: u64): u64 {
  return blockShift < 64 ? offset >> blockShift : offset / blockSize;
}

/** A whole number of the TOC's f64 arrays (0 to 2^53), converted the cheaper (signed) way. */
@inline function whole(p: usize): u64 {
  return <u64><i64>load<f64>(p);
}

/** The first block of the chunk `blockSpan` was last asked about. */
let spanFirst: u64 = 0;

/** How many blocks chunk i spans (its first at `spanFirst`). */
@inline function blockSpan(i: i32): i32 {
  const off = whole(offsets + (<usize>i << 3));
  const len = whole(lengths + (<usize>i << 3));
  spanFirst = blockOf(off);
  return len == 0 ? 0 : <i32>(blockOf(off + len - 1) - spanFirst + 1);
}

/** The stored sizes of the `b` blocks from `spanFirst`, summed. */
function storedSize(b: i32): u64 {
  let s: u64 = 0;
  let e = blocks + <usize>spanFirst * 12 + 5;
  for (let x = 0; x < b; x++, e += 12) s += <u64>load<u16>(e) | (<u64>load<u8>(e + 2) << 16);
  return s;
}

/** Bytes of chunk i's hash: 20, or all of a 32-byte field whose last 12 are used. */
function hashLength(i: i32): i32 {
  if (hashSize <= 20) return hashSize;
  const m = metas + <usize>i * <usize>metaSize;
  // The engine's 32-byte field: its last 12 bytes in two loads.
  if (hashSize == 32) return (load<u64>(m + 20) | <u64>load<u32>(m + 28)) != 0 ? 32 : 20;
  for (let k = 20; k < hashSize; k++) if (load<u8>(m + <usize>k) != 0) return hashSize;
  return 20;
}

/**
 * The first pass: the widest cells; rows whose path needs a cell made
 * by the caller are listed at `slow` (i32 row numbers). Returns how many there are.
 */
export function scan(slow: usize, widths: bool): i32 {
  let n = 0;
  slowRows = slow;
  nextSlow = 0;
  maxIndex = 0; maxSize = 0; maxStored = 0; maxBlocks = 0; typeWidth = 0; pathWidth = 0; hashWidth = 0; pathBytes = 0;
  for (let k = 0; k < count; k++) {
    const i = chunkOf(k);
    // The columns' widths for a table only (CSV and JSON cells are not padded).
    if (widths) {
      if (i > maxIndex) maxIndex = i;
      const size = load<f64>(lengths + (<usize>i << 3));
      if (size > maxSize) maxSize = size;
      const b = blockSpan(i);
      if (b > maxBlocks) maxBlocks = b;
      const sf = <f64>storedSize(b);
      if (sf > maxStored) maxStored = sf;
      const tw = load<i32>(types + <usize>load<u8>(ids + <usize>i * 12 + 11) * 12 + 8);
      if (tw > typeWidth) typeWidth = tw;
      const h = hashLength(i) << 1;
      if (h > hashWidth) hashWidth = h;
    }
    const f = load<i32>(folderOf + (<usize>i << 2));
    if (f < 0) continue;
    const fw = load<i32>(folders + <usize>f * 12 + 8);
    const nw = fw < 0 ? -1 : plainNameLength(i);
    if (nw < 0) {
      store<i32>(slow + (<usize>n << 2), k);
      n++;
    }
    else if (fw + nw > pathWidth) pathWidth = pathBytes = fw + nw;
  }
  slowCount = n;
  return n;
}

/**
 * Marks at `flags` (256 bytes, zeroed here) the chunk types the rows have, and lists them after that (u8s from
 * `flags + 256`, ascending); returns how many there are.
 */
export function markTypes(flags: usize): i32 {
  memory.fill(flags, 0, 256);
  for (let k = 0; k < count; k++) store<u8>(flags + <usize>load<u8>(ids + <usize>chunkOf(k) * 12 + 11), 1);
  let n = 0;
  for (let t = 0; t < 256; t++) {
    if (load<u8>(flags + <usize>t) == 0) continue;
    store<u8>(flags + 256 + <usize>n, t);
    n++;
  }
  return n;
}

// Column widths of the table (set by the caller after `scan` and its slow cells).
let w0: i32 = 0; let w1: i32 = 0; let w2: i32 = 0; let w3: i32 = 0; let w4: i32 = 0; let w5: i32 = 0; let w6: i32 = 0;
export function setWidths(a: i32, b: i32, c: i32, d: i32, e: i32, f: i32, g: i32): void {
  w0 = a; w1 = b; w2 = c; w3 = d; w4 = e; w5 = f; w6 = g;
}

/*
 * The rows' writers take where the text goes (`p`) and return where it ends: under Liftoff (the only compiler of a
 * short `list`, src/cli/short-run.ts) a global is a load and a store through the instance at every use, and every
 * loop or branch a merge where values go to the stack; so the cells are written by straight stores where their size
 * allows: spaces and fixed text 16 bytes at once, a cell of up to 32 bytes by two 16-byte copies. Each may write up
 * to 31 bytes past its end, which the row's next bytes overwrite (the caller's output area has room past its limit
 * for a whole row).
 */

const SPACES: u64 = 0x2020202020202020;

/** `n` spaces (none when n <= 0). */
@inline function spaces(p: usize, n: i32): usize {
  store<u64>(p, SPACES);
  store<u64>(p, SPACES, 8);
  if (n > 16) return moreSpaces(p, n);
  return n > 0 ? p + <usize>n : p;
}

function moreSpaces(p: usize, n: i32): usize {
  const end = p + <usize>n;
  for (let q = p + 16; q < end; q += 8) store<u64>(q, SPACES);
  return end;
}

/** `n` bytes from `from`: two 16-byte copies, a loop past 32 bytes; `memory.copy` where the reads would pass the memory's end. */
@inline function put(p: usize, from: usize, n: i32): usize {
  if (from + <usize>n + 32 > memoryEnd || n > 32) return putLong(p, from, n);
  v128.store(p, v128.load(from));
  v128.store(p, v128.load(from, 16), 16);
  return p + <usize>n;
}

function putLong(p: usize, from: usize, n: i32): usize {
  const end = p + <usize>n;
  if (from + <usize>n + 16 <= memoryEnd) {
    let q = from;
    for (let d = p; d < end; d += 16, q += 16) v128.store(d, v128.load(q));
  } else memory.copy(p, from, <usize>n);
  return end;
}

/** Fixed text of up to 16 or 32 bytes (static data: its reads never pass the memory's end). */
@inline function text16(p: usize, t: usize, n: i32): usize {
  v128.store(p, v128.load(t));
  return p + <usize>n;
}
@inline function text32(p: usize, t: usize, n: i32): usize {
  v128.store(p, v128.load(t));
  v128.store(p, v128.load(t, 16), 16);
  return p + <usize>n;
}

/** "00" to "99": two digits per division. */
const DIGITS2: usize = memory.data(200);
/** Per byte value, its two hex digits (low byte first in memory: one 16-bit store). */
const HEX2: usize = memory.data(512);
let tablesMade = false;

function makeTables(): void {
  if (tablesMade) return;
  for (let v = 0; v < 100; v++) {
    store<u8>(DIGITS2 + (<usize>v << 1), 0x30 + v / 10);
    store<u8>(DIGITS2 + (<usize>v << 1) + 1, 0x30 + v % 10);
  }
  for (let v = 0; v < 256; v++) {
    store<u8>(HEX2 + (<usize>v << 1), load<u8>(HEX + (v >> 4)));
    store<u8>(HEX2 + (<usize>v << 1) + 1, load<u8>(HEX + (v & 15)));
  }
  tablesMade = true;
}

function digitsOf(v: u64): i32 {
  if (v < 100000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
  let d = 6;
  v /= 1000000;
  while (v > 0) { v /= 10; d++; }
  return d;
}

const ZEROS8: u64 = 0x3030303030303030;

/**
 * The 8 decimal digits of `x` (below 10^8, leading zeros included) as digit values 0-9, one a byte, the first
 * lowest: the halves, hundreds and tens split in lanes of one 64-bit value by multiplying with reciprocals. Under
 * Liftoff (the only compiler of a short `list`) a loop of divisions cost each number ~160 instructions.
 */
@inline function digits8(x: u32): u64 {
  // x / 10^4 for any u32 (exact), then lanes of 32 bits: [x / 10^4, x % 10^4].
  const hi = <u32>((<u64>x * 3518437209) >> 45);
  const a = <u64>hi | (<u64>(x - hi * 10000) << 32);
  // Each lane (< 10^4) / 100 (exact below 43,699), lanes of 16 bits: [q, r] per half.
  const q = ((a * 10486) >> 20) & 0x0000007f0000007f;
  const b = q | ((a - q * 100) << 16);
  // Each lane (< 100) / 10 (exact below 180), lanes of 8 bits: [tens, ones] per pair.
  const t = ((b * 103) >> 10) & 0x000f000f000f000f;
  return t | ((b - t * 10) << 8);
}

/** The last `d` of 8 digits (digits8) as text, stored 8 bytes at once (the bytes past them are the next cell's). */
@inline function lastDigits(p: usize, c: u64, d: i32): usize {
  store<u64>(p, (c + ZEROS8) >> (<u64>(8 - d) << 3));
  return p + <usize>d;
}

/**
 * `v` right-aligned in `width` characters (0: no padding): 8 digits a step below 10^16, the digit count from the
 * leading zero bytes (a chunk's offset is most often past 10^8: a loop of 64-bit divisions counted its digits).
 */
function number(p: usize, v: u64, width: i32): usize {
  if (v >= 10000000000000000) return longNumber(p, v, width);
  if (v < 100000000) {
    const c = digits8(<u32>v);
    // Digits: 8 less the leading zeros (the lowest bytes); 0 has one.
    const d = c == 0 ? 1 : 8 - <i32>(ctz(c) >> 3);
    if (width > d) p = spaces(p, width - d);
    return lastDigits(p, c, d);
  }
  const hi = v / 100000000;
  const c = digits8(<u32>hi);
  const d = 8 - <i32>(ctz(c) >> 3);
  if (width > d + 8) p = spaces(p, width - d - 8);
  p = lastDigits(p, c, d);
  store<u64>(p, digits8(<u32>(v - hi * 100000000)) + ZEROS8);
  return p + 8;
}

/** `v` (10^16 or more) right-aligned in `width` characters. */
function longNumber(p: usize, v: u64, width: i32): usize {
  const d = digitsOf(v);
  if (width > d) p = spaces(p, width - d);
  makeTables();
  const end = p + <usize>d;
  p = end;
  while (v > 0xffffffff) {
    store<u8>(--p, 0x30 + <u32>(v % 10));
    v /= 10;
  }
  let x = <u32>v;
  while (x >= 100) {
    p -= 2;
    store<u16>(p, load<u16>(DIGITS2 + (<usize>(x % 100) << 1)));
    x /= 100;
  }
  if (x >= 10) store<u16>(p - 2, load<u16>(DIGITS2 + (<usize>x << 1)));
  else store<u8>(p - 1, 0x30 + x);
  return end;
}

// The JSON rows' fixed text: a row a line (renderJson's records in an array, src/cli/format.ts).
/**     {"index": */
const J0: usize = memory.data<u8>([32, 32, 32, 32, 123, 34, 105, 110, 100, 101, 120, 34, 58]);
/** ,"id":" */
const J1: usize = memory.data<u8>([44, 34, 105, 100, 34, 58, 34]);
/** ","type": */
const J2: usize = memory.data<u8>([34, 44, 34, 116, 121, 112, 101, 34, 58]);
/** ,"path": */
const J3: usize = memory.data<u8>([44, 34, 112, 97, 116, 104, 34, 58]);
/** ,"size": */
const J4: usize = memory.data<u8>([44, 34, 115, 105, 122, 101, 34, 58]);
/** ,"storedSize": */
const J5: usize = memory.data<u8>([44, 34, 115, 116, 111, 114, 101, 100, 83, 105, 122, 101, 34, 58]);
/** ,"blocks": */
const J6: usize = memory.data<u8>([44, 34, 98, 108, 111, 99, 107, 115, 34, 58]);
/** ,"hash":" */
const J7: usize = memory.data<u8>([44, 34, 104, 97, 115, 104, 34, 58, 34]);
/** ","offset": */
const J8: usize = memory.data<u8>([34, 44, 34, 111, 102, 102, 115, 101, 116, 34, 58]);
/** ,"compressed":true,"container": */
const J9: usize = memory.data<u8>([44, 34, 99, 111, 109, 112, 114, 101, 115, 115, 101, 100, 34, 58, 116, 114, 117, 101, 44, 34, 99, 111, 110, 116, 97, 105, 110, 101, 114, 34, 58]);
/** ,"compressed":false,"container": */
const J10: usize = memory.data<u8>([44, 34, 99, 111, 109, 112, 114, 101, 115, 115, 101, 100, 34, 58, 102, 97, 108, 115, 101, 44, 34, 99, 111, 110, 116, 97, 105, 110, 101, 114, 34, 58]);
/** },\n */
const J11: usize = memory.data<u8>([125, 44, 10]);
/** }\n */
const J12: usize = memory.data<u8>([125, 10]);
/** Room for the fixed text's last 16-byte read (J12 + 16). */
memory.data(16);

const HEX: usize = memory.data<u8>([0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66]);

/** Where the module's memory ends (set by `setTables`; it only grows): reads of 16 bytes at a time stay below it. */
let memoryEnd: usize = 0;

/**
 * Lowercase hex of the 16 bytes at `q`, stored as 32 bytes at `p`: each nibble looked up in a 16-byte table by a
 * swizzle, the high and low digits interleaved. Liftoff runs a handful of instructions per SIMD operation, where
 * the 64-bit nibble arithmetic it replaced cost ~50 instructions per 4 bytes.
 */
@inline function hex16(q: usize, p: usize): void {
  const v = v128.load(q);
  const digits = i8x16(0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66);
  const high = i8x16.swizzle(digits, i8x16.shr_u(v, 4));
  const low = i8x16.swizzle(digits, v128.and(v, i8x16.splat(0x0f)));
  v128.store(p, i8x16.shuffle(high, low, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
  v128.store(p, i8x16.shuffle(high, low, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), 16);
}

/** Hex of a chunk id (12 bytes), 16 read at once where they are below the memory's end. */
@inline function hexId(p: usize, from: usize): usize {
  if (from + 16 > memoryEnd) return hex(p, from, 12);
  hex16(from, p);
  return p + 24;
}

/** Hex of a hash of `n` bytes (at most 32): 16 bytes a step, straight. */
@inline function hexHash(p: usize, from: usize, n: i32): usize {
  if (from + 32 > memoryEnd || n > 32) return hex(p, from, n);
  hex16(from, p);
  if (n > 16) hex16(from + 16, p + 32);
  return p + (<usize>n << 1);
}

/**
 * Lowercase hex of `n` bytes: 16 bytes a step, reading up to 15 bytes past them and writing up to 30 past their
 * text; a byte a step from a table where those reads would pass the memory's end.
 */
function hex(p: usize, from: usize, n: i32): usize {
  const end = from + <usize>n;
  let q = from;
  let d = p;
  if (end + 16 <= memoryEnd) for (; q < end; q += 16, d += 32) hex16(q, d);
  else {
    makeTables();
    for (; q < end; q++, d += 2) store<u16>(d, load<u16>(HEX2 + (<usize>load<u8>(q) << 1)));
  }
  return p + (<usize>n << 1);
}

/** Bytes of chunk i's hash (hashLength, its usual case straight). */
@inline function hashBytes(i: i32): i32 {
  return hashSize <= 20 ? hashSize : hashLength(i);
}

/** The type cell of chunk i. */
@inline function typeCell(p: usize, i: i32): usize {
  const t = types + <usize>load<u8>(ids + <usize>i * 12 + 11) * 12;
  return put(p, load<i32>(t), load<i32>(t + 4));
}

/** The width of the type cell of chunk i. */
@inline function typeWidthOf(i: i32): i32 {
  return load<i32>(types + <usize>load<u8>(ids + <usize>i * 12 + 11) * 12 + 8);
}

/** The width of the last cell `pathCell` wrote. */
let cellWidth: i32 = 0;

/** The path cell of row k (chunk i), a fast one in quotes when `quoted` (JSON); its width in `cellWidth`. */
function pathCell(p: usize, k: i32, i: i32, quoted: bool): usize {
  if (nextSlow < slowCount && load<i32>(slowRows + (<usize>nextSlow << 2)) == k) {
    const c = cells + <usize>nextSlow * 12;
    nextSlow++;
    cellWidth = load<i32>(c + 8);
    return put(p, load<i32>(c), load<i32>(c + 4));
  }
  const f = load<i32>(folderOf + (<usize>i << 2));
  if (f < 0) {
    cellWidth = 0;
    if (quoted) {
      store<u16>(p, 0x2222);
      return p + 2;
    }
    return p;
  }
  if (quoted) store<u8>(p++, 0x22);
  const fe = folders + <usize>f * 12;
  const fl = load<i32>(fe + 4);
  p = putLong(p, load<i32>(fe), fl);
  const q = nameAt(i);
  const nl = load<i32>(q) - 1;
  p = put(p, q + 4, nl);
  cellWidth = fl + nl;
  if (quoted) store<u8>(p++, 0x22);
  return p;
}

/**
 * Writes rows from `from` at `out` until `limit` bytes are passed or the rows end; returns the next row. The text
 * written is `written()` bytes. One function per format: Liftoff compiles a function whole on its first call, and a
 * run writes one format.
 */
export function writeTable(from: i32, out: usize, limit: i32): i32 {
  return rows(TABLE, from, out, limit);
}

export function writeCsv(from: i32, out: usize, limit: i32): i32 {
  return rows(CSV, from, out, limit);
}

export function writeJson(from: i32, out: usize, limit: i32): i32 {
  return rows(JSON, from, out, limit);
}

@inline function rows(format: i32, from: i32, out: usize, limit: i32): i32 {
  let p = out;
  const end = out + <usize>limit;
  let k = from;
  for (; k < count && p < end; k++) {
    const i = chunkOf(k);
    const b = blockSpan(i);
    const s = storedSize(b);
    const size = whole(lengths + (<usize>i << 3));
    const m = metas + <usize>i * <usize>metaSize;
    if (format == TABLE) {
      p = number(p, <u64>i, w0);
      p = spaces(p, 2);
      p = hexId(p, ids + <usize>i * 12);
      p = spaces(p, 2 + w1 - 24);
      p = typeCell(p, i);
      p = spaces(p, 2 + w2 - typeWidthOf(i));
      p = pathCell(p, k, i, false);
      p = spaces(p, 2 + w3 - cellWidth);
      p = number(p, size, w4);
      p = number(p, s, w5 + 2);
      p = number(p, <u64>b, w6 + 2);
      p = spaces(p, 2);
      p = hexHash(p, m, hashBytes(i));
      store<u8>(p++, 0x0a);
    } else if (format == CSV) {
      p = number(p, <u64>i, 0);
      store<u8>(p++, 0x2c);
      p = hexId(p, ids + <usize>i * 12);
      store<u8>(p++, 0x2c);
      p = typeCell(p, i);
      store<u8>(p++, 0x2c);
      p = pathCell(p, k, i, false);
      store<u8>(p++, 0x2c);
      p = number(p, size, 0);
      store<u8>(p++, 0x2c);
      p = number(p, s, 0);
      store<u8>(p++, 0x2c);
      p = number(p, <u64>b, 0);
      store<u8>(p++, 0x2c);
      p = hexHash(p, m, hashBytes(i));
      store<u8>(p++, 0x0a);
    } else {
      p = text16(p, J0, 13);
      p = number(p, <u64>i, 0);
      p = text16(p, J1, 7);
      p = hexId(p, ids + <usize>i * 12);
      p = text16(p, J2, 9);
      p = typeCell(p, i);
      p = text16(p, J3, 8);
      p = pathCell(p, k, i, true);
      p = text16(p, J4, 8);
      p = number(p, size, 0);
      p = text16(p, J5, 14);
      p = number(p, s, 0);
      p = text16(p, J6, 10);
      p = number(p, <u64>b, 0);
      p = text16(p, J7, 9);
      p = hexHash(p, m, hashBytes(i));
      p = text16(p, J8, 11);
      p = number(p, whole(offsets + (<usize>i << 3)), 0);
      p = (load<u8>(m + <usize>hashSize) & 1) != 0 ? text32(p, J9, 31) : text32(p, J10, 32);
      p = put(p, container, containerLength);
      p = k + 1 < count ? text16(p, J11, 3) : text16(p, J12, 2);
    }
  }
  written = <i32>(p - out);
  return k;
}

export let written: i32 = 0;

/** Where the caller may place its tables: past the module's static data, 64 KiB aligned. */
export function base(): usize {
  return (__heap_base + 0xffff) & ~<usize>0xffff;
}
