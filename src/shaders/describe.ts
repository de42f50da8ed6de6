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
  const lib = form === 'legacy' ? parseLegacyShaderLibrary(bytes, source) : parseZenShaderLibrary(bytes, source);
  const frequencies: Record<string, number> = {};
  for (const s of lib.shaderEntries) frequencies[s.frequency] = (frequencies[s.frequency] ?? 0) + 1;
  // Code sizes: per shader in the legacy form, per group (one ShaderCode chunk each) in the IoStore form.
  const units = 'groupEntries' in lib ? lib.groupEntries.map((g) => ({ raw: g.uncompressedSize, stored: g.compressedSize })) : lib.shaderEntries.map((e) => ({ raw: e.uncompressedSize, stored: e.size }));
  const view: ShaderLibraryView = {
    form,
    version: lib.version,
    shaderMaps: lib.shaderMapHashes.length,
    shaders: lib.shaderEntries.length,
    shaderIndices: lib.shaderIndices.length,
    frequencies,
    uncompressedBytes: units.reduce((a, u) => a + u.raw, 0),
    storedBytes: units.reduce((a, u) => a + u.stored, 0),
    storedRaw: units.filter((u) => u.raw === u.stored).length,
    firstShaderMaps: lib.shaderMapHashes.slice(0, SAMPLE).map((h) => toHex(h)),
  };
  if ('groupEntries' in lib) {
    view.groups = lib.groupEntries.length;
    view.groupChunkIds = lib.groupChunkIds.map((id) => toHex(id));
  } else {
    view.hasCode = lib.hasCode;
    view.preloadEntries = lib.preloadEntries.length;
  }
  return view;
}
