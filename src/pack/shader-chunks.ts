import { IoStoreError } from '../errors.js';
import { legacyShaderLibraryToZen, type ShaderCompression } from '../shaders/convert.js';
import { parseZenShaderLibrary, shaderLibraryForm } from '../shaders/library.js';
import { toHex } from '../util/bytes.js';
import type { ModFile } from './mod-folder.js';

/** What pack and to-zen report of each shader library they write. */
export interface PackedShaderLibrary {
  /** Path below the mount point. */
  path: string;
  /** `legacy`: converted from a .ushaderbytecode the cooker wrote; `zen`: already in the IoStore form. */
  from: 'legacy' | 'zen';
  shaders: number;
  groups: number;
  /** ShaderCode chunks written uncompressed: Oodle did not shrink them (or, for the IoStore form, as they were). */
  rawGroups: number;
  /** ShaderCode chunks that hold Oodle-compressed code (one-shader groups keep the shader's bytes of the legacy file). */
  compressedGroups: number;
}

/** A chunk of a shader library: the library itself (with its path) or one of its ShaderCode groups. */
export interface ShaderLibraryChunk {
  id: Uint8Array;
  size: number;
  /** The bytes, made when the chunk is written. */
  data: () => Uint8Array | Promise<Uint8Array>;
  /** Path below the mount point (the library chunk only: ShaderCode chunks have none). */
  path?: string;
}

/**
 * The chunks a `.ushaderbytecode` of a mod folder becomes. A legacy library (what the editor cooks) is converted to
 * the IoStore form with the engine's groups and chunk ids; a library already in the IoStore form (as unpack writes
 * it) is kept, with the ShaderCode chunks that unpack wrote beside it (`_chunks/ShaderCode/<id>.bin`) when present.
 */
export async function shaderLibraryChunks(
  file: ModFile,
  libraryId: Uint8Array,
  shaderCodeType: number,
  unpackedCode: (idHex: string) => ModFile | undefined,
  warnings: string[],
  compression: ShaderCompression = {},
): Promise<{ chunks: ShaderLibraryChunk[]; report: PackedShaderLibrary; shaderMaps: string[] }> {
  const bytes = await file.read();
  const form = shaderLibraryForm(bytes);
  if (form === 'legacy') {
    const r = legacyShaderLibraryToZen(bytes, { source: file.file, fileName: file.path, shaderCodeType, compression });
    return {
      chunks: [{ id: libraryId, size: r.library.length, data: () => r.library, path: file.path }, ...r.groups.map((g) => ({ id: g.id, size: g.size, data: g.data }))],
      report: { path: file.path, from: 'legacy', shaders: r.zen.shaderEntries.length, groups: r.groups.length, rawGroups: r.rawGroups, compressedGroups: r.reusedGroups + r.compressedGroups },
      shaderMaps: r.zen.shaderMapHashes.map((h) => toHex(h)),
    };
  }
  if (form !== 'zen') throw new IoStoreError('BAD_MAGIC', 'not a shader library (its version is neither 2, the legacy form, nor 1, the IoStore form)', { file: file.file, offset: 0 });
  const zen = parseZenShaderLibrary(bytes, file.file);
  const chunks: ShaderLibraryChunk[] = [{ id: libraryId, size: bytes.length, data: () => bytes, path: file.path }];
  let missing = 0;
  let compressed = 0;
  for (const [g, id] of zen.groupChunkIds.entries()) {
    const f = unpackedCode(toHex(id));
    if (!f) {
      missing++;
      continue;
    }
    const group = zen.groupEntries[g]!;
    if (f.size !== group.compressedSize) throw new IoStoreError('SIZE_MISMATCH', `ShaderCode chunk ${toHex(id)} is ${f.size} bytes but its library says ${group.compressedSize}`, { file: f.file });
    if (group.compressedSize !== group.uncompressedSize) compressed++;
    chunks.push({ id, size: f.size, data: () => f.read() });
  }
  if (missing > 0) warnings.push(`${file.path}: an IoStore-form shader library whose ${missing} of ${zen.groupChunkIds.length} ShaderCode chunks are not in the folder (_chunks/ShaderCode/<id>.bin); the game must already hold them, or give the legacy form (iostore to-legacy writes it)`);
  return { chunks, shaderMaps: zen.shaderMapHashes.map((h) => toHex(h)), report: { path: file.path, from: 'zen', shaders: zen.shaderEntries.length, groups: zen.groupEntries.length, rawGroups: zen.groupEntries.length - missing - compressed, compressedGroups: compressed } };
}
