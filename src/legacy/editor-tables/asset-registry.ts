import type { ByteReader } from '../../util/bytes.js';
import type { ByteWriter } from '../../zen/byte-writer.js';
import type { LegacyName } from '../package.js';
import { UE5_LEGACY_VERSION as V5 } from '../versions.js';
import { EDITOR_TABLE_UE4, isCooked, type EditorTableFormat } from './format.js';
import { readCount, readI64n, readName, writeFString, writeName } from './primitives.js';

/** An asset of the package as the asset registry lists it: its path below the package, class, and tags. */
export interface LegacyAssetRegistryObject {
  objectPath: string;
  objectClass: string;
  tags: Array<{ key: string; value: string }>;
}

/**
 * The dependency data of an editor package's asset registry data (UE4 521+): which imports and soft package
 * references the game uses (one flag each), and (UE5 1013+) extra package dependencies with their flags.
 */
export interface LegacyAssetRegistryDependencies {
  importUsedInGame: boolean[];
  softPackageUsedInGame: boolean[];
  extraPackageDependencies?: Array<{ packageName: LegacyName; flags: number }>;
}

/** The asset registry data at AssetRegistryDataOffset. */
export interface LegacyAssetRegistryData {
  objects: LegacyAssetRegistryObject[];
  /** Editor packages of UE4 521 on; cooked packages keep the older layout (objects only). */
  dependencies?: LegacyAssetRegistryDependencies;
}

/** Editor packages from UE4 521 start with the offset of the dependency data; cooked ones never do. */
export const hasDependencyData = (f: EditorTableFormat): boolean => f.ue4 >= EDITOR_TABLE_UE4.AssetRegistryDependencyFlags && !isCooked(f);

/** TBitArray: i32 bit count, then the bits in u32 words. */
function readBits(r: ByteReader, what: string): boolean[] {
  const n = readCount(r, 0, what);
  const words = Math.ceil(n / 32);
  r.needArray(words, 4, what);
  const out: boolean[] = new Array<boolean>(n);
  for (let w = 0; w < words; w++) {
    const v = r.u32(what);
    for (let b = 0; b < 32 && w * 32 + b < n; b++) out[w * 32 + b] = ((v >>> b) & 1) === 1;
  }
  return out;
}

function writeBits(w: ByteWriter, bits: readonly boolean[]): void {
  w.i32(bits.length);
  for (let at = 0; at < bits.length; at += 32) {
    let v = 0;
    for (let b = 0; b < 32 && at + b < bits.length; b++) if (bits[at + b]) v |= 1 << b;
    w.u32(v >>> 0);
  }
}

/**
 * Reads the table at `r.pos` (`r` over the whole `.uasset`): [i64 offset of the dependency data], i32 object count,
 * per object its path, class (FStrings) and counted tags (key and value FStrings), then the dependency data where
 * the offset says.
 */
export function readAssetRegistryData(r: ByteReader, f: EditorTableFormat): LegacyAssetRegistryData {
  const deps = hasDependencyData(f);
  const offsetAt = r.pos;
  const dependencyOffset = deps ? readI64n(r, 'asset registry dependency data offset', true) : -1;
  const n = readCount(r, 12, 'asset registry objects');
  const objects: LegacyAssetRegistryObject[] = [];
  for (let i = 0; i < n; i++) {
    const objectPath = r.fstring('asset registry object path');
    const objectClass = r.fstring('asset registry object class');
    const tagCount = readCount(r, 8, 'asset registry tags');
    const tags: LegacyAssetRegistryObject['tags'] = [];
    for (let k = 0; k < tagCount; k++) tags.push({ key: r.fstring('asset registry tag'), value: r.fstring('asset registry tag value') });
    objects.push({ objectPath, objectClass, tags });
  }
  const out: LegacyAssetRegistryData = { objects };
  if (!deps || dependencyOffset <= 0) return out;
  if (dependencyOffset < r.pos || dependencyOffset > r.bytes.length) {
    r.fail('BAD_VALUE', `asset registry dependency data offset ${dependencyOffset} is not after the table's objects (which end at ${r.pos})`, offsetAt);
  }
  r.pos = dependencyOffset;
  const d: LegacyAssetRegistryDependencies = { importUsedInGame: readBits(r, 'imports used in game'), softPackageUsedInGame: readBits(r, 'soft packages used in game') };
  if (f.ue5 >= V5.AssetRegistryPackageBuildDependencies) {
    const m = readCount(r, 12, 'extra package dependencies');
    d.extraPackageDependencies = [];
    for (let i = 0; i < m; i++) d.extraPackageDependencies.push({ packageName: readName(r, 'extra package dependency'), flags: r.u32('extra package dependency flags') });
  }
  out.dependencies = d;
  return out;
}

/** Writes the table; `base` + the writer's length is the file offset (the dependency data offset is absolute). */
export function writeAssetRegistryData(w: ByteWriter, a: LegacyAssetRegistryData, f: EditorTableFormat, base: number): void {
  const deps = hasDependencyData(f);
  const offsetAt = w.length;
  if (deps) w.i64n(0);
  w.i32(a.objects.length);
  for (const o of a.objects) {
    writeFString(w, o.objectPath);
    writeFString(w, o.objectClass);
    w.i32(o.tags.length);
    for (const t of o.tags) {
      writeFString(w, t.key);
      writeFString(w, t.value);
    }
  }
  if (!deps) return;
  const d = a.dependencies ?? { importUsedInGame: [], softPackageUsedInGame: [] };
  w.patchI64n(offsetAt, base + w.length);
  writeBits(w, d.importUsedInGame);
  writeBits(w, d.softPackageUsedInGame);
  if (f.ue5 >= V5.AssetRegistryPackageBuildDependencies) {
    const extra = d.extraPackageDependencies ?? [];
    w.i32(extra.length);
    for (const e of extra) {
      writeName(w, e.packageName);
      w.u32(e.flags);
    }
  }
}
