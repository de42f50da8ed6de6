import type { Codec } from '../codecs/codec.js';
import { defaultCodecs, encoderFor } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import { toHex } from '../util/bytes.js';
import { groupShaders, shaderCodeChunkId } from './groups.js';
import {
  LegacyShaderArchiveVersion,
  IoStoreShaderArchiveVersion,
  legacyShaderCode,
  parseLegacyShaderLibrary,
  serializeLegacyShaderTables,
  serializeZenShaderLibrary,
  zenGroupLayout,
  type LegacyShaderEntry,
  type LegacyShaderLibrary,
  type LegacyShaderMapEntry,
  type PreloadEntry,
  type ZenShaderLibrary,
} from './library.js';

/**
 * Conversions between the two forms of a shader library. The engine compresses shader code with Oodle Mermaid (each
 * legacy shader on its own, each IoStore group as a whole) and stores code raw only when compression does not shrink
 * it (a stored size equal to the uncompressed size). Code that keeps its unit (a group of one shader is one legacy
 * shader) keeps its compressed bytes; code cut out of a group, or gathered into one, is compressed anew.
 */

/** How shader code is compressed: the engine's codec (Mermaid) at a level (default 8, an optimal parse). */
export interface ShaderCompression {
  level?: number;
}

/** The engine's compression of shader code: Mermaid; the stored form when that does not shrink it. */
export function compressShaderCode(code: Uint8Array, o: ShaderCompression = {}): Uint8Array {
  if (code.length === 0) return code;
  const packed = shaderEncoder(o.level ?? SHADER_LEVEL).compress!(code);
  return packed.length < code.length ? packed : code;
}

/**
 * Mermaid at `level`, through the codec registry: the CLI's bundles load the Oodle module (large static tables) when
 * it is first used, not with every pack (see scripts/build-cli.mjs).
 */
function shaderEncoder(level: number): Codec {
  let c = encoders.get(level);
  if (!c) encoders.set(level, (c = encoderFor('Oodle', { oodleCodec: 'mermaid', level })));
  return c;
}
const encoders = new Map<number, Codec>();

/** Optimal parsing: shader code is a small share of a game and the engine compresses it hard. */
const SHADER_LEVEL = 8;

/**
 * The largest shader or group decoded here (256 MiB; engine groups are at most 1 MiB unless one shader is larger, and
 * shaders are far smaller): sizes come from the file, and must not size an allocation the file cannot back.
 */
export const MAX_DECODED_SHADER_SIZE = 256 * 1024 * 1024;

/** The engine's largest gap (bytes) between two shaders that one preload read still spans. */
const MAX_PRELOAD_GAP = 1024;

/** Library and format from `ShaderArchive-<Library>-<Format>` (the format follows the last '-', as UnrealPak reads it). */
export function shaderLibraryName(fileName: string): { library: string; format: string } | undefined {
  const base = fileName.split(/[\\/]/).pop()!.replace(/\.[^.]*$/, '');
  const first = base.indexOf('-');
  const last = base.lastIndexOf('-');
  if (first < 0 || last - first <= 1 || last === base.length - 1) return undefined;
  return { library: base.slice(first + 1, last), format: base.slice(last + 1) };
}

/**
 * Preload entries as the engine's FSerializedShaderArchive::Finalize makes them: per shader map, its shaders' code
 * ranges sorted by offset, merged while the gap between them is at most 1 KiB. Fills each map's preload fields.
 */
export function computePreloadEntries(maps: LegacyShaderMapEntry[], shaders: readonly LegacyShaderEntry[], indices: readonly number[]): PreloadEntry[] {
  const out: PreloadEntry[] = [];
  for (const m of maps) {
    const ranges = indices.slice(m.shaderIndicesOffset, m.shaderIndicesOffset + m.numShaders).map((i) => ({ offset: shaders[i]!.offset, size: shaders[i]!.size }));
    ranges.sort((a, b) => a.offset - b.offset);
    m.firstPreloadIndex = out.length;
    m.numPreloadEntries = 0;
    if (ranges.length === 0) continue;
    let cur = { ...ranges[0]! };
    for (let k = 1; k <= ranges.length; k++) {
      const next = ranges[k];
      if (next && next.offset - cur.offset - cur.size <= MAX_PRELOAD_GAP) {
        cur.size = Math.max(cur.size, next.offset + next.size - cur.offset);
        continue;
      }
      out.push(cur);
      m.numPreloadEntries++;
      if (next) cur = { ...next };
    }
  }
  return out;
}

/** How a legacy library is laid out from an IoStore one: its tables, and per group the place of its code. */
export interface LegacyShaderPlan {
  library: LegacyShaderLibrary;
  /** The serialized tables (version first); the code follows, group after group. */
  tables: Uint8Array;
  /** Groups of one shader whose compressed chunk becomes that shader's stored code unchanged. */
  reusedGroups: number;
  /** Shaders stored raw (decompressed from their group, and not compressed again: no sizes given, or no gain). */
  rawShaders: number;
  /** Total bytes of code after the tables. */
  codeSize: number;
}

/**
 * Plans the legacy form of an IoStore library: shaders keep their indices, hashes and shader maps; their code is laid
 * out group after group (each group's shaders in the order they lie in it), so that a later regrouping breaks its
 * ties the same way. `storedSizes` gives the stored size of shaders compressed anew (by shader index; others are
 * stored raw). The shader indices are kept whole (the group index runs after the shader maps' are unused by
 * the legacy runtime, and the engine's legacy file of the corpus pair holds them too).
 */
export function planLegacyShaderLibrary(zen: ZenShaderLibrary, source = '<shader library>', storedSizes?: ReadonlyMap<number, number>): LegacyShaderPlan {
  const shaderEntries: LegacyShaderEntry[] = zen.shaderEntries.map((s) => ({ offset: 0, size: 0, uncompressedSize: 0, frequency: s.frequency }));
  const seen = new Uint8Array(zen.shaderEntries.length);
  let offset = 0;
  let reusedGroups = 0;
  let rawShaders = 0;
  zen.groupEntries.forEach((g, gi) => {
    const layout = zenGroupLayout(zen, gi, source);
    const keep = layout.length === 1 && g.compressedSize !== g.uncompressedSize;
    if (keep) reusedGroups++;
    for (const m of layout) {
      if (seen[m.shader]) throw new IoStoreError('BAD_VALUE', `shader ${m.shader} is listed by more than one shader group`, { file: source });
      seen[m.shader] = 1;
      const size = keep ? g.compressedSize : (storedSizes?.get(m.shader) ?? m.size);
      if (!keep && size === m.size) rawShaders++;
      shaderEntries[m.shader] = { offset, size, uncompressedSize: m.size, frequency: zen.shaderEntries[m.shader]!.frequency };
      offset += size;
    }
  });
  const missing = seen.indexOf(0);
  if (missing >= 0) throw new IoStoreError('BAD_VALUE', `shader ${missing} belongs to no shader group's index range`, { file: source });
  const shaderMapEntries: LegacyShaderMapEntry[] = zen.shaderMapEntries.map((m) => ({ shaderIndicesOffset: m.shaderIndicesOffset, numShaders: m.numShaders, firstPreloadIndex: 0, numPreloadEntries: 0 }));
  const preloadEntries = computePreloadEntries(shaderMapEntries, shaderEntries, zen.shaderIndices);
  const body = {
    version: LegacyShaderArchiveVersion.UE5,
    shaderMapHashes: zen.shaderMapHashes,
    shaderHashes: zen.shaderHashes,
    shaderMapEntries,
    shaderEntries,
    preloadEntries,
    shaderIndices: zen.shaderIndices,
  };
  const tables = serializeLegacyShaderTables(body);
  return { library: { ...body, codeOffset: tables.length, hasCode: true }, tables, reusedGroups, rawShaders, codeSize: offset };
}

/**
 * The legacy code of group `g` (the pieces to write after the previous group's), from its ShaderCode chunk. Groups
 * are compressed with Oodle or stored raw; the chunk's size must be the group's compressed size. A group of one
 * shader keeps its compressed bytes; the shaders of larger groups come out decompressed, or, with `compression`,
 * each compressed on its own as the engine stores legacy shaders.
 */
export function legacyGroupCode(zen: ZenShaderLibrary, g: number, chunk: Uint8Array, source = '<shader library>', compression?: ShaderCompression): Uint8Array[] {
  const group = zen.groupEntries[g]!;
  const what = `shader group ${g} (chunk ${toHex(zen.groupChunkIds[g]!)})`;
  if (chunk.length !== group.compressedSize) {
    throw new IoStoreError('SIZE_MISMATCH', `${what} is ${chunk.length} bytes but the library says ${group.compressedSize}`, { file: source });
  }
  const layout = zenGroupLayout(zen, g, source);
  if (layout.length === 1 && group.compressedSize !== group.uncompressedSize) return [chunk];
  const code = group.compressedSize === group.uncompressedSize ? chunk : decodeGroup(chunk, group.uncompressedSize, `${source}: ${what}`);
  return layout.map((m) => {
    const shader = code.subarray(m.offset, m.offset + m.size);
    return compression ? compressShaderCode(shader, compression) : shader;
  });
}

function decodeGroup(chunk: Uint8Array, size: number, where: string): Uint8Array {
  if (size > MAX_DECODED_SHADER_SIZE) throw new IoStoreError('UNSUPPORTED', `shader code of ${size} bytes exceeds the ${MAX_DECODED_SHADER_SIZE}-byte limit`, { file: where });
  try {
    return defaultCodecs().require('Oodle').decompress(chunk, size);
  } catch (e) {
    throw new IoStoreError('CODEC', `Oodle could not decode the shader code (${e instanceof Error ? e.message : String(e)})`, { file: where });
  }
}

/** The decompressed code of every shader of an IoStore library, given its group chunks (for checks and tests). */
export function zenShaderCodes(zen: ZenShaderLibrary, chunks: ReadonlyMap<string, Uint8Array>, source = '<shader library>'): Uint8Array[] {
  const out: Uint8Array[] = new Array(zen.shaderEntries.length);
  zen.groupEntries.forEach((group, g) => {
    const id = toHex(zen.groupChunkIds[g]!);
    const chunk = chunks.get(id);
    if (!chunk) throw new IoStoreError('NOT_FOUND', `ShaderCode chunk ${id} of shader group ${g} is not at hand`, { file: source });
    const code = group.compressedSize === group.uncompressedSize ? chunk : decodeGroup(chunk, group.uncompressedSize, `${source}: shader group ${g}`);
    for (const m of zenGroupLayout(zen, g, source)) out[m.shader] = code.subarray(m.offset, m.offset + m.size);
  });
  return out;
}

/** The decompressed code of shader `i` of a legacy library. */
export function legacyShaderBytes(bytes: Uint8Array, lib: LegacyShaderLibrary, i: number, source = '<shader library>'): Uint8Array {
  const stored = legacyShaderCode(bytes, lib, i, source);
  const s = lib.shaderEntries[i]!;
  return s.size === s.uncompressedSize ? stored : decodeGroup(stored, s.uncompressedSize, `${source}: shader ${i}`);
}

export interface ShaderGroupChunk {
  /** ShaderCode chunk id (12 bytes). */
  id: Uint8Array;
  size: number;
  /** The chunk's bytes, made when asked (one group at a time keeps memory to a group's size). */
  data: () => Uint8Array;
}

export interface ZenShaderLibraryResult {
  /** The ShaderCodeLibrary chunk. */
  library: Uint8Array;
  zen: ZenShaderLibrary;
  /** One ShaderCode chunk per group, in group order. */
  groups: ShaderGroupChunk[];
  /** Groups stored raw because Oodle did not shrink them (as the engine stores them). */
  rawGroups: number;
  /** Groups of one shader that keep that shader's Oodle bytes. */
  reusedGroups: number;
  /** Groups compressed anew from their shaders' code. */
  compressedGroups: number;
}

/**
 * Converts a legacy `.ushaderbytecode` to the IoStore form: the engine's grouping and chunk ids (see groups.ts),
 * each group's code from its shaders' decompressed code, compressed with Oodle Mermaid as the engine does (groups
 * are compressed here, as the library's tables hold their compressed sizes: memory holds the compressed code of the
 * library). `format` is the shader format the group hashes include (default: from `fileName`). `shaderCodeType` is
 * the ShaderCode chunk type byte of the target release.
 */
export function legacyShaderLibraryToZen(bytes: Uint8Array, o: { source: string; fileName?: string; format?: string; shaderCodeType: number; compression?: ShaderCompression }): ZenShaderLibraryResult {
  const format = o.format ?? shaderLibraryName(o.fileName ?? o.source)?.format;
  if (!format) throw new IoStoreError('BAD_VALUE', 'a shader library is named ShaderArchive-<Library>-<Format>.ushaderbytecode: the shader format its chunk ids hash cannot be read from this name', { file: o.source });
  const lib = parseLegacyShaderLibrary(bytes, o.source);
  if (!lib.hasCode) legacyShaderCode(bytes, lib, 0, o.source);
  const grouping = groupShaders(lib, format);
  const groups: ShaderGroupChunk[] = [];
  let rawGroups = 0;
  let reusedGroups = 0;
  let compressedGroups = 0;
  grouping.groups.forEach((members, g) => {
    const entry = grouping.groupEntries[g]!;
    const id = shaderCodeChunkId(grouping.groupHashes[g]!, o.shaderCodeType);
    const only = lib.shaderEntries[members[0]!]!;
    if (members.length === 1 && only.size !== only.uncompressedSize) {
      const stored = legacyShaderCode(bytes, lib, members[0]!, o.source);
      entry.compressedSize = stored.length;
      groups.push({
        id,
        size: stored.length,
        data: () => {
          // Decoded once to check that what the engine will decode with Oodle is Oodle of the stated size.
          legacyShaderBytes(bytes, lib, members[0]!, o.source);
          return stored;
        },
      });
      reusedGroups++;
      return;
    }
    if (entry.uncompressedSize > MAX_DECODED_SHADER_SIZE) throw new IoStoreError('UNSUPPORTED', `shader group ${g} of ${entry.uncompressedSize} bytes exceeds the ${MAX_DECODED_SHADER_SIZE}-byte limit`, { file: o.source });
    const code = new Uint8Array(entry.uncompressedSize);
    for (const s of members) code.set(legacyShaderBytes(bytes, lib, s, o.source), grouping.shaderEntries[s]!.offsetInGroup);
    const stored = compressShaderCode(code, o.compression);
    entry.compressedSize = stored.length;
    if (stored === code) rawGroups++;
    else compressedGroups++;
    groups.push({ id, size: stored.length, data: () => stored });
  });
  const zen: ZenShaderLibrary = {
    version: IoStoreShaderArchiveVersion.Initial,
    shaderMapHashes: lib.shaderMapHashes,
    shaderHashes: lib.shaderHashes,
    groupChunkIds: groups.map((c) => c.id),
    shaderMapEntries: lib.shaderMapEntries.map((m) => ({ shaderIndicesOffset: m.shaderIndicesOffset, numShaders: m.numShaders })),
    shaderEntries: grouping.shaderEntries,
    groupEntries: grouping.groupEntries,
    shaderIndices: grouping.shaderIndices,
  };
  return { library: serializeZenShaderLibrary(zen), zen, groups, rawGroups, reusedGroups, compressedGroups };
}
