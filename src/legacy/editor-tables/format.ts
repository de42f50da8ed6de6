import type { LegacyCustomVersion, LegacyPackageSummary } from '../summary.js';
import { LEGACY_ENGINE_RELEASES, objectVersionsOfEngine, PackageFlags, UE5_LEGACY_VERSION as V5, type LegacyEngineRelease } from '../versions.js';

/**
 * What the layout of the tables after the import and export maps depends on: the object versions, the package
 * flags, two FFortniteMainBranchObjectVersion steps (world tile positions in 3D, UTF-8 soft object sub-paths), and
 * whether the header holds a soft object path list (then other tables refer to paths by index). One answer for the
 * readers and the writers.
 */
export interface EditorTableFormat {
  ue4: number;
  ue5: number;
  packageFlags: number;
  /** FFortniteMainBranchObjectVersion, when the package stores it or its release settles it; undefined: unknown. */
  fortniteMain: number | undefined;
  /** Soft object paths are written as indices into the summary's soft object path list (it is not empty). */
  softObjectPathIndices: boolean;
  /** Set when the package has a list but its metadata holds the paths themselves (a save with the mapping off). */
  softObjectPathsInline?: boolean;
}

/** FFortniteMainBranchObjectVersion's GUID 601D1886-AC644F84-AA16D3DE-0DEAC7D6 as the summary stores it. */
export const FORTNITE_MAIN_KEY = '86181d60844f64acded316aad6c7ea0d';

/** FFortniteMainBranchObjectVersion steps the tables follow (CUE4Parse and the engine's own list agree). */
export const FORTNITE_MAIN = {
  /** 1: world tile positions are FIntVector (3 x i32), before FIntPoint. */
  WorldCompositionTile3DOffset: 1,
  /** 192 (UE 5.6): FSoftObjectPath's sub-path is an FUtf8String, before an FString. */
  SoftObjectPathUtf8SubPaths: 192,
} as const;

export function fortniteMainOf(customVersions: readonly LegacyCustomVersion[]): number | undefined {
  return customVersions.find((c) => c.key.toLowerCase() === FORTNITE_MAIN_KEY)?.version;
}

const atLeast = (engine: LegacyEngineRelease, than: LegacyEngineRelease) => LEGACY_ENGINE_RELEASES.indexOf(engine) >= LEGACY_ENGINE_RELEASES.indexOf(than);

/**
 * The step of FFortniteMainBranchObjectVersion an unversioned package (which stores no custom versions) was saved
 * with, as far as the two steps above go: the release when it is known, else the object versions where they tell
 * (4.19 and 4.20 share 516, so that one stays undefined: the bytes decide).
 */
function fortniteMainOfRelease(ue4: number, ue5: number, engine: LegacyEngineRelease | undefined): number | undefined {
  if (engine !== undefined) {
    if (atLeast(engine, 'UE5_6')) return FORTNITE_MAIN.SoftObjectPathUtf8SubPaths;
    return atLeast(engine, 'UE4_20') ? FORTNITE_MAIN.WorldCompositionTile3DOffset : 0;
  }
  if (ue5 >= objectVersionsOfEngine('UE5_6').fileVersionUE5) return FORTNITE_MAIN.SoftObjectPathUtf8SubPaths;
  if (ue5 > 0 || ue4 >= 517) return FORTNITE_MAIN.WorldCompositionTile3DOffset;
  return ue4 < 516 ? 0 : undefined;
}

export function editorTableFormat(s: LegacyPackageSummary, engine?: LegacyEngineRelease): EditorTableFormat {
  const stored = fortniteMainOf(s.customVersions);
  return {
    ue4: s.fileVersionUE4,
    ue5: s.fileVersionUE5,
    packageFlags: s.packageFlags,
    // A versioned package that does not list the custom version was saved before it existed.
    fortniteMain: stored ?? (s.unversioned ? fortniteMainOfRelease(s.fileVersionUE4, s.fileVersionUE5, engine) : 0),
    softObjectPathIndices: s.fileVersionUE5 >= V5.AddSoftObjectPathList && s.softObjectPathsCount > 0,
  };
}

export const isCooked = (f: EditorTableFormat): boolean => (f.packageFlags & PackageFlags.FilterEditorOnly) !== 0;

/** UE4 object versions the tables after the export map change at (the ones versions.ts names aside). */
export const EDITOR_TABLE_UE4 = {
  /** 268: world tile layers get a streaming distance, tiles a hidden flag and a parent. */
  WorldLevelInfoUpdated: 268,
  /** 316: world tiles list their LODs. */
  WorldLevelInfoLodList: 316,
  /** 319: world tiles get a Z order. */
  WorldLevelInfoZOrder: 319,
  /** 329: world tile layers get a distance-streaming switch. */
  WorldLayerEnableDistanceStreaming: 329,
  /** 521: editor packages' asset registry data starts with the offset of its dependency data. */
  AssetRegistryDependencyFlags: 521,
} as const;
