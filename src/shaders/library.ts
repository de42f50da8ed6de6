import { IoStoreError } from '../errors.js';
import { ByteReader } from '../util/bytes.js';

/**
 * Shader code libraries (`ShaderArchive-<Library>-<Format>.ushaderbytecode`) in their two forms:
 * - legacy (FSerializedShaderArchive, what the cooker writes and a .pak holds): the tables, then every shader's code
 *   back to back, each compressed on its own (stored raw when its stored size equals its uncompressed size);
 * - IoStore (FIoStoreShaderCodeArchiveHeader, the ShaderCodeLibrary chunk): the same shader-map and shader tables,
 *   with shaders gathered into groups; each group's code is a separate ShaderCode chunk, compressed as a whole
 *   (stored raw when the group's compressed size equals its uncompressed size).
 * All integers little-endian; every array is an i32 count followed by its entries.
 */

/** Legacy archive versions (GShaderCodeArchiveVersion, the u32 at the start of a .ushaderbytecode). */
export const LegacyShaderArchiveVersion = {
  /** UE 4.25-5.x: FSerializedShaderArchive (shader maps, shaders, preload entries, indices; the layout read here).
   * Version 1 (UE 4.23/4.24, Zlib-compressed code) is another layout, not read. */
  UE5: 2,
} as const;

/** IoStore shader library versions (the u32 at the start of the ShaderCodeLibrary chunk). */
export const IoStoreShaderArchiveVersion = {
  /** UE 4.27-5.x: shader groups as ShaderCode chunks, 8-byte packed shader entries. */
  Initial: 1,
} as const;

/** Bytes of one shader-map or shader hash (FSHAHash). */
export const SHADER_HASH_SIZE = 20;

export interface LegacyShaderMapEntry {
  shaderIndicesOffset: number;
  numShaders: number;
  firstPreloadIndex: number;
  numPreloadEntries: number;
}

export interface LegacyShaderEntry {
  /** Offset of the stored code from the end of the tables. */
  offset: number;
  /** Stored size; equal to `uncompressedSize` when stored raw. */
  size: number;
  uncompressedSize: number;
  /** EShaderFrequency. */
  frequency: number;
}

export interface PreloadEntry {
  offset: number;
  size: number;
}

/** The tables of a legacy shader library; the code follows them at `codeOffset`. */
export interface LegacyShaderLibrary {
  version: number;
  shaderMapHashes: Uint8Array[];
  shaderHashes: Uint8Array[];
  shaderMapEntries: LegacyShaderMapEntry[];
  shaderEntries: LegacyShaderEntry[];
  preloadEntries: PreloadEntry[];
  shaderIndices: number[];
  /** Where the code starts in the file (the size of the tables with the version). */
  codeOffset: number;
  /** False for a file that ends with its tables (a header kept without its code, as some corpora hold). */
  hasCode: boolean;
}

export interface ZenShaderMapEntry {
  shaderIndicesOffset: number;
  numShaders: number;
}

export interface ZenShaderEntry {
  /** EShaderFrequency (low 4 bits of the packed entry). */
  frequency: number;
  /** The group holding the shader (next 30 bits). */
  groupIndex: number;
  /** Offset of the shader's code in its group's uncompressed bytes (high 30 bits). */
  offsetInGroup: number;
}

export interface ZenShaderGroupEntry {
  shaderIndicesOffset: number;
  numShaders: number;
  uncompressedSize: number;
  /** Size of the group's ShaderCode chunk; equal to `uncompressedSize` when stored raw. */
  compressedSize: number;
}

/** The IoStore shader library (the ShaderCodeLibrary chunk). */
export interface ZenShaderLibrary {
  version: number;
  shaderMapHashes: Uint8Array[];
  shaderHashes: Uint8Array[];
  /** The ShaderCode chunk id (12 bytes) of each group. */
  groupChunkIds: Uint8Array[];
  shaderMapEntries: ZenShaderMapEntry[];
  shaderEntries: ZenShaderEntry[];
  groupEntries: ZenShaderGroupEntry[];
  shaderIndices: number[];
}

/** The two forms apart by their first u32: 1 is IoStore, 2 legacy (UE5); null when neither fits. */
export function shaderLibraryForm(bytes: Uint8Array): 'legacy' | 'zen' | null {
  if (bytes.length < 8) return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  if (v === IoStoreShaderArchiveVersion.Initial) return 'zen';
  if (v === LegacyShaderArchiveVersion.UE5) return 'legacy';
  return null;
}

function count(r: ByteReader, size: number, what: string): number {
  const at = r.pos;
  const n = r.i32(`${what} count`);
  if (n < 0) r.fail('BAD_VALUE', `${what}: negative count ${n}`, at);
  if (n * size > r.remaining) r.fail('TRUNCATED', `${what}: ${n} entries of ${size} bytes need ${n * size} bytes but only ${r.remaining} remain`, at);
  return n;
}

function hashes(r: ByteReader, size: number, what: string): Uint8Array[] {
  const n = count(r, size, what);
  const out: Uint8Array[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = r.bytesView(size, what).slice();
  return out;
}

function u32s(r: ByteReader, what: string): number[] {
  const n = count(r, 4, what);
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = r.u32(what);
  return out;
}

function u64num(r: ByteReader, what: string): number {
  const at = r.pos;
  const v = r.u64(what);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) r.fail('BAD_VALUE', `${what}: ${v} is out of range`, at);
  return Number(v);
}

/** Reads the tables of a legacy `.ushaderbytecode` and checks every index and code range against the file. */
export function parseLegacyShaderLibrary(bytes: Uint8Array, source = '<shader library>'): LegacyShaderLibrary {
  const r = new ByteReader(bytes, source);
  const version = r.u32('archive version');
  if (version !== LegacyShaderArchiveVersion.UE5) {
    r.fail(version === IoStoreShaderArchiveVersion.Initial ? 'BAD_MAGIC' : 'UNSUPPORTED', `not a legacy shader library of UE 4.25 or later (version ${version}; expected ${LegacyShaderArchiveVersion.UE5}${version === IoStoreShaderArchiveVersion.Initial ? ', and 1 is the IoStore form' : ''})`, 0);
  }
  const shaderMapHashes = hashes(r, SHADER_HASH_SIZE, 'shader map hashes');
  const shaderHashes = hashes(r, SHADER_HASH_SIZE, 'shader hashes');
  const mapAt = r.pos + 4;
  const nMaps = count(r, 16, 'shader map entries');
  const shaderMapEntries: LegacyShaderMapEntry[] = new Array(nMaps);
  for (let i = 0; i < nMaps; i++) {
    shaderMapEntries[i] = { shaderIndicesOffset: r.u32(), numShaders: r.u32(), firstPreloadIndex: r.u32(), numPreloadEntries: r.u32() };
  }
  const shaderAt = r.pos + 4;
  const nShaders = count(r, 17, 'shader entries');
  const shaderEntries: LegacyShaderEntry[] = new Array(nShaders);
  for (let i = 0; i < nShaders; i++) {
    shaderEntries[i] = { offset: u64num(r, 'shader offset'), size: r.u32(), uncompressedSize: r.u32(), frequency: r.u8() };
  }
  const preloadAt = r.pos + 4;
  const nPreload = count(r, 16, 'preload entries');
  const preloadEntries: PreloadEntry[] = new Array(nPreload);
  for (let i = 0; i < nPreload; i++) preloadEntries[i] = { offset: u64num(r, 'preload offset'), size: u64num(r, 'preload size') };
  const indicesAt = r.pos + 4;
  const shaderIndices = u32s(r, 'shader indices');
  const codeOffset = r.pos;
  const hasCode = !(r.remaining === 0 && nShaders > 0);
  const lib: LegacyShaderLibrary = { version, shaderMapHashes, shaderHashes, shaderMapEntries, shaderEntries, preloadEntries, shaderIndices, codeOffset, hasCode };

  if (shaderMapHashes.length !== nMaps) r.fail('BAD_VALUE', `${shaderMapHashes.length} shader map hashes but ${nMaps} shader map entries`, mapAt - 4);
  if (shaderHashes.length !== nShaders) r.fail('BAD_VALUE', `${shaderHashes.length} shader hashes but ${nShaders} shader entries`, shaderAt - 4);
  checkIndices(r, shaderIndices, nShaders, indicesAt);
  shaderMapEntries.forEach((m, i) => {
    const at = mapAt + i * 16;
    if (m.shaderIndicesOffset + m.numShaders > shaderIndices.length) r.fail('BAD_VALUE', `shader map ${i}: shader indices ${m.shaderIndicesOffset}+${m.numShaders} run past the ${shaderIndices.length} indices`, at);
    if (m.firstPreloadIndex + m.numPreloadEntries > nPreload) r.fail('BAD_VALUE', `shader map ${i}: preload entries ${m.firstPreloadIndex}+${m.numPreloadEntries} run past the ${nPreload} entries`, at + 8);
  });
  const codeSize = bytes.length - codeOffset;
  shaderEntries.forEach((s, i) => {
    const at = shaderAt + i * 17;
    if (hasCode && s.offset + s.size > codeSize) r.fail('TRUNCATED', `shader ${i}: code ${s.offset}+${s.size} runs past the ${codeSize} bytes of code`, at);
    if (s.size > s.uncompressedSize) r.fail('BAD_VALUE', `shader ${i}: stored size ${s.size} exceeds its uncompressed size ${s.uncompressedSize}`, at + 8);
  });
  void preloadAt;
  return lib;
}

function checkIndices(r: ByteReader, indices: readonly number[], nShaders: number, at: number): void {
  for (let i = 0; i < indices.length; i++) {
    if (indices[i]! >= nShaders) r.fail('BAD_VALUE', `shader index ${indices[i]} (entry ${i}) is out of range: the library has ${nShaders} shaders`, at + i * 4);
  }
}

/** The stored code of shader `i` of a legacy library (compressed unless its size equals its uncompressed size). */
export function legacyShaderCode(bytes: Uint8Array, lib: LegacyShaderLibrary, i: number, source = '<shader library>'): Uint8Array {
  const s = lib.shaderEntries[i]!;
  if (!lib.hasCode) throw new IoStoreError('TRUNCATED', `the file ends with its tables: the code of its ${lib.shaderEntries.length} shaders is missing`, { file: source, offset: lib.codeOffset });
  return bytes.subarray(lib.codeOffset + s.offset, lib.codeOffset + s.offset + s.size);
}

/** Reads an IoStore ShaderCodeLibrary chunk and checks every index against its tables. */
export function parseZenShaderLibrary(bytes: Uint8Array, source = '<shader library>'): ZenShaderLibrary {
  const r = new ByteReader(bytes, source);
  const version = r.u32('archive version');
  if (version !== IoStoreShaderArchiveVersion.Initial) {
    r.fail(version === LegacyShaderArchiveVersion.UE5 ? 'BAD_MAGIC' : 'UNSUPPORTED', `not an IoStore shader library (version ${version}; expected ${IoStoreShaderArchiveVersion.Initial})`, 0);
  }
  const shaderMapHashes = hashes(r, SHADER_HASH_SIZE, 'shader map hashes');
  const shaderHashes = hashes(r, SHADER_HASH_SIZE, 'shader hashes');
  const groupChunkIds = hashes(r, 12, 'shader group chunk ids');
  const mapAt = r.pos + 4;
  const nMaps = count(r, 8, 'shader map entries');
  const shaderMapEntries: ZenShaderMapEntry[] = new Array(nMaps);
  for (let i = 0; i < nMaps; i++) shaderMapEntries[i] = { shaderIndicesOffset: r.u32(), numShaders: r.u32() };
  const shaderAt = r.pos + 4;
  const nShaders = count(r, 8, 'shader entries');
  const shaderEntries: ZenShaderEntry[] = new Array(nShaders);
  for (let i = 0; i < nShaders; i++) {
    const lo = r.u32();
    const hi = r.u32();
    // Frequency: bits 0-3; group index: bits 4-33; offset in group: bits 34-63.
    shaderEntries[i] = { frequency: lo & 0xf, groupIndex: (lo >>> 4) + (hi & 0x3) * 0x10000000, offsetInGroup: hi >>> 2 };
  }
  const groupAt = r.pos + 4;
  const nGroups = count(r, 16, 'shader group entries');
  const groupEntries: ZenShaderGroupEntry[] = new Array(nGroups);
  for (let i = 0; i < nGroups; i++) groupEntries[i] = { shaderIndicesOffset: r.u32(), numShaders: r.u32(), uncompressedSize: r.u32(), compressedSize: r.u32() };
  const indicesAt = r.pos + 4;
  const shaderIndices = u32s(r, 'shader indices');
  if (r.remaining !== 0) r.fail('SIZE_MISMATCH', `${r.remaining} bytes after the shader library's tables`);

  if (shaderMapHashes.length !== nMaps) r.fail('BAD_VALUE', `${shaderMapHashes.length} shader map hashes but ${nMaps} shader map entries`, mapAt - 4);
  if (shaderHashes.length !== nShaders) r.fail('BAD_VALUE', `${shaderHashes.length} shader hashes but ${nShaders} shader entries`, shaderAt - 4);
  if (groupChunkIds.length !== nGroups) r.fail('BAD_VALUE', `${groupChunkIds.length} group chunk ids but ${nGroups} group entries`, groupAt - 4);
  checkIndices(r, shaderIndices, nShaders, indicesAt);
  const ranges = (list: Array<{ shaderIndicesOffset: number; numShaders: number }>, at: number, size: number, what: string) =>
    list.forEach((e, i) => {
      if (e.shaderIndicesOffset + e.numShaders > shaderIndices.length) r.fail('BAD_VALUE', `${what} ${i}: shader indices ${e.shaderIndicesOffset}+${e.numShaders} run past the ${shaderIndices.length} indices`, at + i * size);
    });
  ranges(shaderMapEntries, mapAt, 8, 'shader map');
  ranges(groupEntries, groupAt, 16, 'shader group');
  shaderEntries.forEach((s, i) => {
    const g = groupEntries[s.groupIndex];
    if (!g) r.fail('BAD_VALUE', `shader ${i}: group ${s.groupIndex} is out of range: the library has ${nGroups} groups`, shaderAt + i * 8);
    if (s.offsetInGroup > g.uncompressedSize) r.fail('BAD_VALUE', `shader ${i}: offset ${s.offsetInGroup} lies past the ${g.uncompressedSize} bytes of group ${s.groupIndex}`, shaderAt + i * 8);
  });
  groupEntries.forEach((g, i) => {
    if (g.compressedSize > g.uncompressedSize) r.fail('BAD_VALUE', `shader group ${i}: compressed size ${g.compressedSize} exceeds its uncompressed size ${g.uncompressedSize}`, groupAt + i * 16 + 12);
  });
  return { version, shaderMapHashes, shaderHashes, groupChunkIds, shaderMapEntries, shaderEntries, groupEntries, shaderIndices };
}

/** Shaders of a group in the order their code lies in it, with each one's uncompressed size (from the offsets). */
export function zenGroupLayout(lib: ZenShaderLibrary, groupIndex: number, source = '<shader library>'): Array<{ shader: number; offset: number; size: number }> {
  const g = lib.groupEntries[groupIndex]!;
  const members = lib.shaderIndices.slice(g.shaderIndicesOffset, g.shaderIndicesOffset + g.numShaders).map((s) => ({ shader: s, offset: lib.shaderEntries[s]!.offsetInGroup, size: 0 }));
  members.sort((a, b) => a.offset - b.offset);
  for (let i = 0; i < members.length; i++) {
    const m = members[i]!;
    if (lib.shaderEntries[m.shader]!.groupIndex !== groupIndex) {
      throw new IoStoreError('BAD_VALUE', `shader group ${groupIndex} lists shader ${m.shader}, which belongs to group ${lib.shaderEntries[m.shader]!.groupIndex}`, { file: source });
    }
    const end = i + 1 < members.length ? members[i + 1]!.offset : g.uncompressedSize;
    m.size = end - m.offset;
  }
  return members;
}

class Writer {
  private buf = new Uint8Array(1024);
  private view = new DataView(this.buf.buffer);
  length = 0;
  private grow(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): void {
    this.grow(1);
    this.buf[this.length++] = v;
  }
  u32(v: number): void {
    this.grow(4);
    this.view.setUint32(this.length, v >>> 0, true);
    this.length += 4;
  }
  u64(v: number): void {
    this.u32(v % 0x100000000);
    this.u32(Math.floor(v / 0x100000000));
  }
  bytes(b: Uint8Array): void {
    this.grow(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function writeHashes(w: Writer, list: readonly Uint8Array[], size: number, what: string): void {
  w.u32(list.length);
  for (const h of list) {
    if (h.length !== size) throw new IoStoreError('USAGE', `${what}: an entry of ${h.length} bytes (expected ${size})`);
    w.bytes(h);
  }
}

/** The tables of a legacy library (version first); the code follows them. */
export function serializeLegacyShaderTables(lib: Omit<LegacyShaderLibrary, 'codeOffset' | 'hasCode'>): Uint8Array {
  const w = new Writer();
  w.u32(lib.version);
  writeHashes(w, lib.shaderMapHashes, SHADER_HASH_SIZE, 'shader map hashes');
  writeHashes(w, lib.shaderHashes, SHADER_HASH_SIZE, 'shader hashes');
  w.u32(lib.shaderMapEntries.length);
  for (const m of lib.shaderMapEntries) {
    w.u32(m.shaderIndicesOffset);
    w.u32(m.numShaders);
    w.u32(m.firstPreloadIndex);
    w.u32(m.numPreloadEntries);
  }
  w.u32(lib.shaderEntries.length);
  for (const s of lib.shaderEntries) {
    w.u64(s.offset);
    w.u32(s.size);
    w.u32(s.uncompressedSize);
    w.u8(s.frequency);
  }
  w.u32(lib.preloadEntries.length);
  for (const p of lib.preloadEntries) {
    w.u64(p.offset);
    w.u64(p.size);
  }
  w.u32(lib.shaderIndices.length);
  for (const i of lib.shaderIndices) w.u32(i);
  return w.done();
}

/** The ShaderCodeLibrary chunk of an IoStore library. */
export function serializeZenShaderLibrary(lib: ZenShaderLibrary): Uint8Array {
  const w = new Writer();
  w.u32(lib.version);
  writeHashes(w, lib.shaderMapHashes, SHADER_HASH_SIZE, 'shader map hashes');
  writeHashes(w, lib.shaderHashes, SHADER_HASH_SIZE, 'shader hashes');
  writeHashes(w, lib.groupChunkIds, 12, 'shader group chunk ids');
  w.u32(lib.shaderMapEntries.length);
  for (const m of lib.shaderMapEntries) {
    w.u32(m.shaderIndicesOffset);
    w.u32(m.numShaders);
  }
  w.u32(lib.shaderEntries.length);
  for (const s of lib.shaderEntries) {
    if (s.groupIndex >= 2 ** 30 || s.offsetInGroup >= 2 ** 30) throw new IoStoreError('USAGE', `a shader entry's group ${s.groupIndex} or offset ${s.offsetInGroup} does not fit in 30 bits`);
    w.u32(((s.frequency & 0xf) | ((s.groupIndex % 0x10000000) << 4)) >>> 0);
    w.u32((Math.floor(s.groupIndex / 0x10000000) | (s.offsetInGroup << 2)) >>> 0);
  }
  w.u32(lib.groupEntries.length);
  for (const g of lib.groupEntries) {
    w.u32(g.shaderIndicesOffset);
    w.u32(g.numShaders);
    w.u32(g.uncompressedSize);
    w.u32(g.compressedSize);
  }
  w.u32(lib.shaderIndices.length);
  for (const i of lib.shaderIndices) w.u32(i);
  return w.done();
}
