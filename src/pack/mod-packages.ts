import { IoStoreError } from '../errors.js';
import { packageIdFromName } from '../hash/names.js';
import { chunkTypeFromName } from '../toc/chunk-id.js';
import type { EngineGeneration, EngineVersion } from '../toc/engine.js';
import type { ContainerHeaderVersionName, ContainerPackage } from '../zen/container-header.js';
import type { StoreEntry } from '../zen/store-entry.js';
import { parseZenPackage, type ZenPackage } from '../zen/zen-package.js';
import { hasInlineExportData } from '../legacy/export-data.js';
import { isLegacyPackage, parseLegacyPackage } from '../legacy/package.js';
import { legacyToZen } from '../convert/legacy-to-zen.js';
import { packageShaderMaps, parseShaderAssetInfo, type ShaderAssetInfo } from '../shaders/asset-info.js';
import { quote } from '../util/quote.js';
import { eventLoopTurns } from '../util/turns.js';
import { isAborting } from '../layout/output.js';
import { storeEntryFor } from './header-builder.js';
import { checkDistinctIds, type ModChunk, type ModFile, type ModLooseFile } from './mod-folder.js';
import { ChunkIds, FileChunk, type PlannedChunk } from './planned-chunk.js';
import { shaderLibraryChunks, type PackedShaderLibrary } from './shader-chunks.js';
import type { ShaderCompression } from '../shaders/convert.js';

/** What turning a mod's files into chunks needs to know of the target. */
export interface ModPackagesTarget {
  gen: EngineGeneration;
  headerVersion: ContainerHeaderVersionName;
  /** The engine release, for legacy packages whose layout their bytes do not settle. */
  engine?: EngineVersion;
  /** Store entries the game already has, by package id (shader maps, 5.0-5.2 imported packages). */
  entries: ReadonlyMap<bigint, StoreEntry>;
  /** ShaderCode chunks as unpack writes them, by chunk id (hex, lower case). */
  unpackedCode: ReadonlyMap<string, ModFile>;
  onConvert?: (path: string) => void;
  /** When set, a legacy package that cannot be converted is reported here and left out with its bulk files. */
  onPackageError?: (file: string, error: IoStoreError) => void;
  /** How shader code is compressed (Oodle Mermaid; the level). */
  shaderCompression?: ShaderCompression;
}

/** The packages of a mod, read: each package chunk with the name its own header gives. */
export interface ModPackages {
  /** Package header chunks by the long package name their header (or, failing that, their path) gives. */
  ownNames: Map<ModChunk, string>;
  /** Store entries for the container header, one per package. */
  packages: ContainerPackage[];
  shaderLibraries: PackedShaderLibrary[];
  /** Chunks of the shader libraries (written as they are: their paths are set). */
  shaderChunks: PlannedChunk[];
  /** Converted legacy packages: the zen bytes in pieces. */
  converted: Map<ModChunk, { pieces: Uint8Array[]; size: number }>;
}

/**
 * Reads the packages and shader libraries of a mod (chunks from classifyModFiles): zen packages as they are, legacy
 * ones (`.uasset`/`.umap` + `.uexp`) converted to zen, each given the chunk ids of the name its own header gives (its
 * bulk files follow it), and a store entry built from its header (the game's entry supplies what a header lacks).
 * `ShaderAssetInfo-*.assetinfo.json` files of `loose` give packages their shader maps and are taken out of it.
 */
export async function readModPackages(mod: ModChunk[], files: readonly ModFile[], loose: ModLooseFile[], t: ModPackagesTarget, warnings: string[]): Promise<ModPackages> {
  const out: ModPackages = { ownNames: new Map(), packages: [], shaderLibraries: [], shaderChunks: [], converted: new Map() };
  // Shader libraries first: the shader maps they hold bound which asset-info entries the store entries take.
  const knownShaderMaps = await readShaderLibraries(mod, t, warnings, out);
  const shaderMapsOf = packageShaderMaps(await takeAssetInfos(files, loose), knownShaderMaps);
  const failed: Array<[ModChunk, IoStoreError]> = [];
  // Reading and converting packages is blocking work: the event loop gets a turn now and then, so that an interrupt
  // is heard (a folder of 97 packages held it 1.7 s), and once one began no further package is taken.
  const turn = eventLoopTurns();
  let renamed = false;
  for (const m of mod) {
    if (m.type !== 'ExportBundleData') continue;
    await turn();
    if (isAborting()) throw new IoStoreError('IO', 'interrupted', { file: m.file });
    const read = await readPackage(m, mod, t, warnings, out, failed);
    if (read === undefined) continue;
    renamed ||= read.renamed;
    const fromInfo = t.gen === 'UE5' ? shaderMapsOf.get(read.packageName.toLowerCase()) : undefined;
    if (fromInfo) read.entry.shaderMapHashes = fromInfo;
    out.packages.push({ packageId: m.packageId!, ...read.entry });
  }
  if (failed.length > 0) leaveOut(mod, failed, t.onPackageError!);
  // The ids were checked when the files were classified: again only if a package took another name's ids.
  if (renamed) checkDistinctIds(mod);
  return out;
}

/** The mod's shader libraries, cut into shader-code chunks (into `out`); returns the shader maps they hold. */
async function readShaderLibraries(mod: ModChunk[], t: ModPackagesTarget, warnings: string[], out: ModPackages): Promise<Set<string>> {
  const shaderCodeType = chunkTypeFromName('ShaderCode', t.gen);
  const shaderIds = new Map<string, string>();
  const knownShaderMaps = new Set<string>();
  for (const m of mod) {
    if (m.type !== 'ShaderCodeLibrary') continue;
    const r = await shaderLibraryChunks(m.src, m.id, shaderCodeType, (id) => t.unpackedCode.get(id), warnings, t.shaderCompression);
    out.shaderLibraries.push(r.report);
    for (const h of r.shaderMaps) knownShaderMaps.add(h);
    for (const c of r.chunks) {
      const key = Buffer.from(c.id).toString('hex');
      const other = shaderIds.get(key);
      if (other !== undefined) throw new IoStoreError('BAD_VALUE', `${quote(m.path)} and ${quote(other)} both give chunk ${key}`, { file: m.file, offset: 0 });
      shaderIds.set(key, m.path);
      const data = c.data;
      out.shaderChunks.push({ id: c.id, size: c.size, pieces: async function* () { yield await data(); }, ...(c.path !== undefined ? { path: c.path } : {}), memoryMapped: false });
    }
  }
  return knownShaderMaps;
}

/**
 * ShaderAssetInfo-*.assetinfo.json (the cooker's, or to-legacy's) give packages their shader maps, as UnrealPak does:
 * they are read and taken out of `loose` (not staged).
 */
async function takeAssetInfos(files: readonly ModFile[], loose: ModLooseFile[]): Promise<ShaderAssetInfo[]> {
  const assetInfos: ShaderAssetInfo[] = [];
  for (let k = loose.length - 1; k >= 0; k--) {
    const l = loose[k]!;
    if (!/(^|\/)ShaderAssetInfo-[^/]+\.assetinfo\.json$/i.test(l.path)) continue;
    const f = files.find((x) => x.path === l.path)!;
    assetInfos.push(parseShaderAssetInfo(new TextDecoder().decode(await f.read()), f.file));
    loose.splice(k, 1);
  }
  return assetInfos;
}

/**
 * One package of `mod`: a zen one parsed, a legacy one converted (its pieces into `out.converted`; a failure into `failed`
 * when the target takes package errors, then undefined), given its own name's ids, with its store entry.
 */
async function readPackage(m: ModChunk, mod: ModChunk[], t: ModPackagesTarget, warnings: string[], out: ModPackages, failed: Array<[ModChunk, IoStoreError]>) {
  const bytes = await m.src.read();
  let pkg: ZenPackage;
  let size = bytes.length;
  let convertedImports: bigint[] | undefined;
  if (isLegacyPackage(bytes)) {
    const legacyHints = { ...(t.engine ? { engine: t.engine } : {}), containerHeaderVersion: t.headerVersion };
    let converted;
    try {
      converted = await convertLegacy(m, bytes, t.engine, legacyHints);
    } catch (e) {
      if (!(e instanceof IoStoreError) || !t.onPackageError) throw e;
      failed.push([m, e]);
      return undefined;
    }
    if (converted.warning) warnings.push(converted.warning);
    // Kept in pieces (header, .uexp): the writer takes them as they are.
    out.converted.set(m, { pieces: converted.pieces, size: converted.size });
    size = converted.size;
    pkg = converted.zen;
    convertedImports = converted.importedPackages;
    t.onConvert?.(m.path);
  } else {
    pkg = parseZenPackage(bytes, { source: m.file, containerHeaderVersion: t.headerVersion });
  }
  out.ownNames.set(m, pkg.packageName);
  // The package's own name is what other packages import: its id wins over the path's, for the package and the
  // bulk files beside it (where it is filed is settled by the caller, see placement.ts).
  const renamed = pkg.packageName.toLowerCase() !== m.packageName!.toLowerCase();
  if (renamed) renamePackage(mod, m, pkg.packageName);
  // A converted 5.0-5.2 package's import map indexes the converter's imported-package list, which its header
  // does not store: the store entry must carry that list.
  const game = t.entries.get(m.packageId!);
  const previous = convertedImports && !pkg.importedPackageNames ? { importedPackages: convertedImports, shaderMapHashes: game?.shaderMapHashes ?? [] } : game;
  const { entry, warning } = storeEntryFor(pkg, size, t.headerVersion, previous);
  if (warning) warnings.push(warning);
  return { packageName: pkg.packageName, entry, renamed };
}

/** A legacy package converted to zen; without a `.uexp`, the export data that follows its header in the `.uasset`. */
async function convertLegacy(m: ModChunk, bytes: Uint8Array, engine: EngineVersion | undefined, hints: Parameters<typeof legacyToZen>[3]) {
  const lp = parseLegacyPackage(bytes, { source: m.file, ...(engine ? { engine } : {}), packageName: m.packageName! });
  // Cooks that do not split packages leave the export data after the header.
  const inline = !m.uexp && hasInlineExportData(lp) ? bytes.subarray(lp.summary.totalHeaderSize) : undefined;
  if (!m.uexp && !inline) throw new IoStoreError('NOT_FOUND', `a legacy package without its .uexp (expected ${m.path.replace(/\.[^./]+$/, '.uexp')} beside it)`, { file: m.file, offset: 0 });
  return legacyToZen(lp, bytes, inline ?? (await m.uexp!.read()), hints);
}

/**
 * Takes packages that could not be converted out of `mod`, with their bulk files, and reports each. A mod with
 * nothing else to pack is the first one's error.
 */
function leaveOut(mod: ModChunk[], failed: ReadonlyArray<[ModChunk, IoStoreError]>, report: (file: string, e: IoStoreError) => void): void {
  const ids = new Set(failed.map(([m]) => m.packageId));
  for (let k = mod.length - 1; k >= 0; k--) if (mod[k]!.packageId !== undefined && ids.has(mod[k]!.packageId)) mod.splice(k, 1);
  if (!mod.some((m) => m.type === 'ExportBundleData' || m.type === 'ShaderCodeLibrary')) throw failed[0]![1];
  for (const [m, e] of failed) report(m.file, e);
}

/**
 * The chunks of a mod's packages and bulk files (at the paths `mod` has now) and of its shader libraries, their
 * paths made container paths (below the mount point) by `below`.
 */
export function modChunks(mod: readonly ModChunk[], read: ModPackages, below: (path: string) => string): PlannedChunk[] {
  const chunks: PlannedChunk[] = read.shaderChunks.map((c) => (c.path === undefined ? c : { ...c, path: below(c.path) }));
  const pathOf = (m: ModChunk) => below(m.path);
  const ids = new ChunkIds();
  for (const m of mod) {
    if (m.type === 'ShaderCodeLibrary') continue;
    const converted = read.converted.get(m);
    if (converted) {
      const pieces = converted.pieces;
      chunks.push({ id: m.id, size: converted.size, pieces: async function* () { yield* pieces; }, path: pathOf(m), memoryMapped: false });
      continue;
    }
    chunks.push(new FileChunk(ids, m.id, m.src, pathOf(m), m.type === 'MemoryMappedBulkData'));
  }
  return chunks;
}

/** Gives a package and its sibling bulk files (same path stem) the chunk ids of another package name. */
function renamePackage(mod: ModChunk[], pkgChunk: ModChunk, name: string): void {
  const stem = pkgChunk.path.replace(/\.[^/.]+$/, '');
  const id = packageIdFromName(name);
  for (const c of mod) {
    if (c.packageId === undefined || c.path.replace(/(\.m)?\.[^/.]+$/, '') !== stem) continue;
    c.rename(name, id);
  }
}
