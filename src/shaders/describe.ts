/** A readable summary of a shader library in either form, for `inspect` and the page. */
import { IoStoreError } from '../errors.js';
import { toHex } from '../util/bytes.js';
import { parseLegacyShaderLibrary, parseZenShaderLibrary, shaderLibraryForm } from './library.js';

export interface ShaderLibraryView {
  form: 'legacy' | 'zen';
  version: number;
  shaderMaps: number;
  shaders: number;
  /** Shader indices the maps (and, in the IoStore form, the groups) share. */
  shaderIndices: number;
  /** Shaders by EShaderFrequency number. */
  frequencies: Record<string, number>;
  /** Sum of the shaders' (legacy) or groups' (IoStore) uncompressed sizes. */
  uncompressedBytes: number;
  /** Sum of their stored sizes: in the file (legacy) or in the ShaderCode chunks (IoStore). */
  storedBytes: number;
  /** Shaders (legacy) or groups (IoStore) stored as they are (stored size = uncompressed size). */
  storedRaw: number;
  /** Legacy: whether the code follows the tables in this file. */
  hasCode?: boolean;
  preloadEntries?: number;
  /** IoStore: shader groups, each a ShaderCode chunk. */
  groups?: number;
  /** IoStore: the ShaderCode chunk id of each group (hex). */
  groupChunkIds?: string[];
  /** The first shader-map hashes (hex), as a sample to match against store entries. */
  firstShaderMaps: string[];
}

const SAMPLE = 8;

export function describeShaderLibrary(bytes: Uint8Array, source = '<shader library>'): ShaderLibraryView {
  const form = shaderLibraryForm(bytes);
  if (form === null) {
    throw new IoStoreError('BAD_MAGIC', 'not a shader library: the first u32 is neither 1 (IoStore form) nor 2 (legacy form)', { file: source, offset: 0 });
  }
  const frequencies: Record<string, number> = {};
  const count = (f: number) => {
    frequencies[f] = (frequencies[f] ?? 0) + 1;
  };
  if (form === 'legacy') {
    const lib = parseLegacyShaderLibrary(bytes, source);
    let uncompressedBytes = 0;
    let storedBytes = 0;
    let storedRaw = 0;
    for (const s of lib.shaderEntries) {
      count(s.frequency);
      uncompressedBytes += s.uncompressedSize;
      storedBytes += s.size;
      if (s.size === s.uncompressedSize) storedRaw++;
    }
    return {
      form,
      version: lib.version,
      shaderMaps: lib.shaderMapHashes.length,
      shaders: lib.shaderEntries.length,
      shaderIndices: lib.shaderIndices.length,
      frequencies,
      uncompressedBytes,
      storedBytes,
      storedRaw,
      hasCode: lib.hasCode,
      preloadEntries: lib.preloadEntries.length,
      firstShaderMaps: lib.shaderMapHashes.slice(0, SAMPLE).map((h) => toHex(h)),
    };
  }
  const lib = parseZenShaderLibrary(bytes, source);
  for (const s of lib.shaderEntries) count(s.frequency);
  let uncompressedBytes = 0;
  let storedBytes = 0;
  let storedRaw = 0;
  for (const g of lib.groupEntries) {
    uncompressedBytes += g.uncompressedSize;
    storedBytes += g.compressedSize;
    if (g.compressedSize === g.uncompressedSize) storedRaw++;
  }
  return {
    form,
    version: lib.version,
    shaderMaps: lib.shaderMapHashes.length,
    shaders: lib.shaderEntries.length,
    shaderIndices: lib.shaderIndices.length,
    frequencies,
    uncompressedBytes,
    storedBytes,
    storedRaw,
    groups: lib.groupEntries.length,
    groupChunkIds: lib.groupChunkIds.map((id) => toHex(id)),
    firstShaderMaps: lib.shaderMapHashes.slice(0, SAMPLE).map((h) => toHex(h)),
  };
}
