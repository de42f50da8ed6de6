import { describeShaderLibrary, type ShaderLibraryView } from '../../shaders/describe.js';
import { renderJson } from '../format.js';

/** `inspect` of a shader library (`.ushaderbytecode` in either form, or a `.uzenshaderbytecode`). */
export function inspectShaderLibrary(file: string, bytes: Uint8Array, json: boolean): string {
  const view = describeShaderLibrary(bytes, file);
  return json ? renderJson(view) : renderShaders(view);
}

function renderShaders(v: ShaderLibraryView): string {
  const unit = v.form === 'legacy' ? 'shaders' : 'groups';
  const lines = [
    `Shader library:   ${v.form === 'legacy' ? 'legacy form (FSerializedShaderArchive)' : 'IoStore form (ShaderCodeLibrary chunk)'}, version ${v.version}`,
    `Shader maps:      ${v.shaderMaps}`,
    `Shaders:          ${v.shaders} (${Object.entries(v.frequencies).map(([f, n]) => `frequency ${f}: ${n}`).join(', ')})`,
    ...(v.groups !== undefined ? [`Groups:           ${v.groups} (one ShaderCode chunk each)`] : []),
    `Shader indices:   ${v.shaderIndices}`,
    ...(v.preloadEntries !== undefined ? [`Preload entries:  ${v.preloadEntries}`] : []),
    `Code:             ${v.uncompressedBytes} bytes, stored in ${v.storedBytes}; ${v.storedRaw} ${unit} stored raw`,
    ...(v.hasCode === false ? ['                  (this file ends with its tables: the code is not in it)'] : []),
    `Shader maps (first ${v.firstShaderMaps.length}):`,
    ...v.firstShaderMaps.map((h) => `  ${h}`),
  ];
  return `${lines.join('\n')}\n`;
}
