import type { ContainerReader } from '../cas/container-reader.js';
import { IoStoreError } from '../errors.js';
import { legacyGroupCode, planLegacyShaderLibrary } from '../shaders/convert.js';
import { parseZenShaderLibrary, shaderLibraryForm, type ZenShaderLibrary } from '../shaders/library.js';
import { toHex } from '../util/bytes.js';

/** Where a ShaderCode chunk can be read: a container at hand, or a file (`_chunks/ShaderCode/<id>.bin` of an unpack). */
export type ShaderChunkSource = { reader: ContainerReader; index: number } | { read: () => Promise<Uint8Array> };

/** What to-legacy reports of each shader library it converts. */
export interface LegacyShaderLibraryReport {
  /** Output path of the `.ushaderbytecode`. */
  path: string;
  shaders: number;
  shaderMaps: number;
  groups: number;
  /** Shaders whose code is stored uncompressed (their group was compressed with Oodle, which this toolkit cannot encode). */
  rawShaders: number;
  /** Shaders that keep the Oodle bytes of their one-shader group. */
  compressedShaders: number;
  bytes: number;
}

/** A zen shader library read and checked, with the ShaderCode chunks of its groups. */
export interface PendingShaderLibrary {
  path: string;
  source: string;
  zen: ZenShaderLibrary;
  /** Group chunk ids (hex), in group order. */
  groupIds: string[];
}

/** Parses an IoStore library chunk; null when the chunk is not in the IoStore form (then it is written as it is). */
export function readZenShaderLibrary(bytes: Uint8Array, path: string, source: string): PendingShaderLibrary | null {
  if (shaderLibraryForm(bytes) !== 'zen') return null;
  const zen = parseZenShaderLibrary(bytes, source);
  return { path, source, zen, groupIds: zen.groupChunkIds.map((id) => toHex(id)) };
}

/**
 * The legacy file of a library, as pieces to write in order (tables, then each group's code), reading each group's
 * chunk only when its turn comes. Every group chunk must be at hand: a legacy library holds all its code.
 */
export function legacyShaderLibraryPieces(
  lib: PendingShaderLibrary,
  find: (idHex: string) => ShaderChunkSource | undefined,
): { pieces: () => AsyncIterable<Uint8Array[]>; report: LegacyShaderLibraryReport } {
  const missing = lib.groupIds.filter((id) => !find(id));
  if (missing.length > 0) {
    throw new IoStoreError('NOT_FOUND', `${missing.length} of the ${lib.groupIds.length} ShaderCode chunks of this shader library are not at hand (first: ${missing[0]}); give the containers that hold them`, { file: lib.source });
  }
  const plan = planLegacyShaderLibrary(lib.zen, lib.source);
  const report: LegacyShaderLibraryReport = {
    path: lib.path,
    shaders: lib.zen.shaderEntries.length,
    shaderMaps: lib.zen.shaderMapEntries.length,
    groups: lib.zen.groupEntries.length,
    rawShaders: plan.rawShaders,
    compressedShaders: plan.reusedGroups,
    bytes: plan.tables.length + plan.codeSize,
  };
  async function* pieces(): AsyncIterable<Uint8Array[]> {
    yield [plan.tables];
    for (let g = 0; g < lib.groupIds.length; g++) {
      const src = find(lib.groupIds[g]!)!;
      const chunk = 'reader' in src ? await src.reader.readChunk(src.index) : await src.read();
      yield legacyGroupCode(lib.zen, g, chunk, lib.source);
    }
  }
  return { pieces, report };
}
