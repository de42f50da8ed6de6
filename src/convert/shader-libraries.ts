import type { ContainerReader } from '../cas/container-reader.js';
import { IoStoreError } from '../errors.js';
import { legacyGroupCode, planLegacyShaderLibrary, type ShaderCompression } from '../shaders/convert.js';
import { parseZenShaderLibrary, shaderLibraryForm, zenGroupLayout, type ZenShaderLibrary } from '../shaders/library.js';
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
  /** Shaders whose code is stored uncompressed (Oodle did not shrink it, as the engine then stores it). */
  rawShaders: number;
  /** Shaders stored Oodle-compressed: those of one-shader groups keep the group's bytes, the others are compressed anew. */
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
 * The legacy file of a library, as pieces to write in order (tables, then each group's code). The engine stores each
 * legacy shader compressed on its own, so the shaders of larger groups are compressed anew (Oodle Mermaid): that
 * happens before the tables are written, as they hold the stored sizes, so memory holds the library's compressed code
 * meanwhile. Every group chunk must be at hand: a legacy library holds all its code. The report is complete once the
 * pieces are written.
 */
export function legacyShaderLibraryPieces(
  lib: PendingShaderLibrary,
  find: (idHex: string) => ShaderChunkSource | undefined,
  compression: ShaderCompression = {},
): { pieces: () => AsyncIterable<Uint8Array[]>; report: LegacyShaderLibraryReport } {
  const missing = lib.groupIds.filter((id) => !find(id));
  if (missing.length > 0) {
    throw new IoStoreError('NOT_FOUND', `${missing.length} of the ${lib.groupIds.length} ShaderCode chunks of this shader library are not at hand (first: ${missing[0]}); give the containers that hold them`, { file: lib.source });
  }
  const report: LegacyShaderLibraryReport = {
    path: lib.path,
    shaders: lib.zen.shaderEntries.length,
    shaderMaps: lib.zen.shaderMapEntries.length,
    groups: lib.zen.groupEntries.length,
    rawShaders: 0,
    compressedShaders: 0,
    bytes: 0,
  };
  async function* pieces(): AsyncIterable<Uint8Array[]> {
    const code: Uint8Array[][] = [];
    const storedSizes = new Map<number, number>();
    for (let g = 0; g < lib.groupIds.length; g++) {
      const src = find(lib.groupIds[g]!)!;
      const chunk = 'reader' in src ? await src.reader.readChunk(src.index) : await src.read();
      const pieces = legacyGroupCode(lib.zen, g, chunk, lib.source, compression);
      const layout = zenGroupLayout(lib.zen, g, lib.source);
      if (pieces.length === layout.length && !(layout.length === 1 && pieces[0] === chunk)) layout.forEach((m, k) => storedSizes.set(m.shader, pieces[k]!.length));
      code.push(pieces);
    }
    const plan = planLegacyShaderLibrary(lib.zen, lib.source, storedSizes);
    report.rawShaders = plan.rawShaders;
    report.compressedShaders = report.shaders - plan.rawShaders;
    report.bytes = plan.tables.length + plan.codeSize;
    yield [plan.tables];
    for (const pieces of code) yield pieces;
  }
  return { pieces, report };
}
