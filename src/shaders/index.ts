/** Shader code libraries (.ushaderbytecode) in their legacy and IoStore forms, and conversions between them. */
export {
  LegacyShaderArchiveVersion,
  IoStoreShaderArchiveVersion,
  SHADER_HASH_SIZE,
  shaderLibraryForm,
  parseLegacyShaderLibrary,
  parseZenShaderLibrary,
  legacyShaderCode,
  zenGroupLayout,
  serializeLegacyShaderTables,
  serializeZenShaderLibrary,
} from './library.js';
export type {
  LegacyShaderLibrary,
  LegacyShaderMapEntry,
  LegacyShaderEntry,
  PreloadEntry,
  ZenShaderLibrary,
  ZenShaderMapEntry,
  ZenShaderEntry,
  ZenShaderGroupEntry,
} from './library.js';
export { groupShaders, shaderCodeChunkId, MAX_SHADER_GROUP_SIZE } from './groups.js';
export type { ShaderGrouping } from './groups.js';
export {
  shaderLibraryName,
  computePreloadEntries,
  planLegacyShaderLibrary,
  legacyGroupCode,
  zenShaderCodes,
  legacyShaderBytes,
  legacyShaderLibraryToZen,
} from './convert.js';
export type { LegacyShaderPlan, ShaderGroupChunk, ZenShaderLibraryResult } from './convert.js';
export { shaderAssetInfoName, parseShaderAssetInfo, serializeShaderAssetInfo, packageShaderMaps, SHADER_ASSET_INFO_VERSION } from './asset-info.js';
export type { ShaderAssetInfo } from './asset-info.js';
export { describeShaderLibrary } from './describe.js';
export type { ShaderLibraryView } from './describe.js';
