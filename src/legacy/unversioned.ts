import { IoStoreError } from '../errors.js';
import { ENGINE_VERSIONS, type EngineVersion } from '../toc/engine.js';
import { parseLegacyPackage, type LegacyPackage } from './package.js';
import { cookedImportsHavePackageName, objectVersionsOfEngine, PackageFlags, UE5_LEGACY_VERSION } from './versions.js';

/**
 * Whether a release writes the package's import entries: UE 5.7, 5.8 and 6.0 all write object version 1018, but
 * only 5.8 on give a cooked import its package name (the entry size, settled by the table's own size, tells them).
 */
function writesImportForm(pkg: LegacyPackage, engine: EngineVersion): boolean {
  const s = pkg.summary;
  const cooked = (s.packageFlags & PackageFlags.FilterEditorOnly) !== 0;
  if (!cooked || s.importCount === 0 || s.fileVersionUE5 < UE5_LEGACY_VERSION.ImportTypeHierarchies) return true;
  return cookedImportsHavePackageName(engine) === pkg.layout.importHasPackageName;
}

/**
 * The engine releases a legacy package fits. A versioned package names its object versions: the releases that write
 * them. An unversioned one stores zeros: the releases whose object versions lay its summary and tables out
 * consistently (every table where the summary says, inside the header).
 */
export function legacyEngineCandidates(uasset: Uint8Array): EngineVersion[] {
  let first;
  try {
    first = parseLegacyPackage(uasset, { engine: 'UE5_8' });
  } catch (e) {
    if (!(e instanceof IoStoreError)) throw e;
  }
  if (first && !first.summary.unversioned) {
    const s = first.summary;
    return ENGINE_VERSIONS.filter((e) => {
      const v = objectVersionsOfEngine(e);
      return v.fileVersionUE4 === s.fileVersionUE4 && v.fileVersionUE5 === s.fileVersionUE5 && writesImportForm(first!, e);
    });
  }
  // Packages before legacy file version -8 have no UE5 version: UE4 releases wrote them.
  const ue4 = uasset.length >= 8 && new DataView(uasset.buffer, uasset.byteOffset, 8).getInt32(4, true) > -8;
  return ENGINE_VERSIONS.filter((e) => {
    if (e.startsWith('UE4') !== ue4) return false;
    try {
      const p = parseLegacyPackage(uasset, { engine: e });
      const s = p.summary;
      return s.totalHeaderSize > 0 && s.totalHeaderSize <= uasset.length && (s.nameCount === 0 || s.nameOffset === s.summarySize) && writesImportForm(p, e);
    } catch (err) {
      if (!(err instanceof IoStoreError)) throw err;
      return false;
    }
  });
}

/** Whether a legacy package stores its object versions (false: unversioned, as cooked games write them). */
export function isVersionedLegacyPackage(uasset: Uint8Array): boolean {
  if (uasset.length < 24) return false;
  const v = new DataView(uasset.buffer, uasset.byteOffset, uasset.byteLength);
  const legacy = v.getInt32(4, true);
  // Tag, legacy file version, UE3 version, UE4 version, [UE5 version from -8], licensee version.
  const ue4 = v.getInt32(12, true);
  const ue5 = legacy <= -8 ? v.getInt32(16, true) : 0;
  const licensee = v.getInt32(legacy <= -8 ? 20 : 16, true);
  return !(ue4 === 0 && ue5 === 0 && licensee === 0);
}
