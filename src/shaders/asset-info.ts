import { IoStoreError } from '../errors.js';
import { fromHex } from '../util/bytes.js';

/**
 * `ShaderAssetInfo-<Library>-<Format>.assetinfo.json`, which the cooker writes beside a legacy shader library: which
 * packages use each shader map. UnrealPak reads it to give each package's store entry its shader-map hashes (sorted,
 * and only those of shader maps a library of the container holds), so the loader preloads them with the package.
 */
export interface ShaderAssetInfo {
  /** Shader-map hash (hex, 40 digits) -> long package names. */
  shaderMaps: Map<string, string[]>;
}

/** The cooker's current asset-info version (FSerializedShaderArchive::EAssetInfoVersion). */
export const SHADER_ASSET_INFO_VERSION = 2;

/** The asset-info file name of a shader library file name, or undefined when the name is not `ShaderArchive-...`. */
export function shaderAssetInfoName(libraryFileName: string): string | undefined {
  const m = /^ShaderArchive-(.+)\.ushaderbytecode$/i.exec(libraryFileName);
  return m ? `ShaderAssetInfo-${m[1]}.assetinfo.json` : undefined;
}

export function parseShaderAssetInfo(text: string, source: string): ShaderAssetInfo {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new IoStoreError('BAD_VALUE', `not JSON (${e instanceof Error ? e.message : String(e)})`, { file: source });
  }
  const list = (json as { ShaderCodeToAssets?: unknown })?.ShaderCodeToAssets;
  if (!Array.isArray(list)) throw new IoStoreError('BAD_VALUE', 'no ShaderCodeToAssets array', { file: source });
  const shaderMaps = new Map<string, string[]>();
  list.forEach((item: unknown, i) => {
    const hash = (item as { ShaderMapHash?: unknown })?.ShaderMapHash;
    const assets = (item as { Assets?: unknown })?.Assets;
    if (typeof hash !== 'string' || !/^[0-9a-fA-F]{40}$/.test(hash) || !Array.isArray(assets) || assets.some((a) => typeof a !== 'string')) {
      throw new IoStoreError('BAD_VALUE', `ShaderCodeToAssets[${i}] is not { ShaderMapHash: 40 hex digits, Assets: [package names] }`, { file: source });
    }
    const key = hash.toLowerCase();
    shaderMaps.set(key, [...(shaderMaps.get(key) ?? []), ...(assets as string[])]);
  });
  return { shaderMaps };
}

/** The JSON the cooker writes (entries sorted by hash, assets sorted, for a stable file). */
export function serializeShaderAssetInfo(info: ShaderAssetInfo): string {
  const entries = [...info.shaderMaps].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${JSON.stringify({ AssetInfoVersion: SHADER_ASSET_INFO_VERSION, ShaderCodeToAssets: entries.map(([hash, assets]) => ({ ShaderMapHash: hash, Assets: [...assets].sort() })) }, null, '\t')}\n`;
}

/** Package name -> its shader-map hashes, sorted as the engine sorts FSHAHash (bytewise), kept to `known` maps. */
export function packageShaderMaps(infos: readonly ShaderAssetInfo[], known: ReadonlySet<string>): Map<string, Uint8Array[]> {
  const byPackage = new Map<string, Set<string>>();
  for (const info of infos) {
    for (const [hash, assets] of info.shaderMaps) {
      if (!known.has(hash)) continue;
      for (const a of assets) {
        const key = a.toLowerCase();
        const set = byPackage.get(key) ?? new Set<string>();
        set.add(hash);
        byPackage.set(key, set);
      }
    }
  }
  return new Map([...byPackage].map(([p, set]) => [p, [...set].sort().map((h) => fromHex(h))]));
}

