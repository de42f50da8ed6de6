import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ContainerReader } from '../cas/container-reader.js';
import type { Codec } from '../codecs/codec.js';
import { defaultCodecs } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import { containerIdFromName, packageIdFromName } from '../hash/names.js';
import { chunkTypeFromName, encodeChunkId } from '../toc/chunk-id.js';
import { mountPointRelative } from '../toc/directory-index.js';
import { generationFromTocVersion } from '../toc/engine.js';
import { partitionPaths, fileSource } from '../cas/source.js';
import { ioError, readTocBytes } from '../toc/read-file.js';
import { readToc, type IoStoreToc } from '../toc/toc.js';
import { LATEST_TOC_VERSION } from '../toc/version.js';
import { openTempFile, safeOutputPath, tempFilesInFlight, writeTempFile } from '../layout/output.js';
import { MANIFEST_NAME } from '../layout/manifest.js';
import { UNNAMED_CHUNKS_FOLDER } from '../layout/unnamed.js';
import { engineTarget } from './targets.js';
import type { ManifestContainer } from '../layout/manifest.js';
import { parseContainerHeader, serializeContainerHeader, type ContainerHeaderVersionName, type ContainerPackage } from '../zen/container-header.js';
import type { StoreEntry } from '../zen/store-entry.js';
import { parseZenPackage, type ZenPackage } from '../zen/zen-package.js';
import { ContainerWriter, fileSink, type ContainerWriterOptions } from './container-writer.js';
import type { EncodedChunk } from './block-encoder.js';
import { defaultEncodeThreads, EncodePool, MAX_WORKER_CHUNK } from './encode-pool.js';
import { buildContainerHeader, storeEntryFor } from './header-builder.js';
import { inferBlockAlignment } from '../toc/block-alignment.js';
import { pickContainer, readManifest } from './manifest-input.js';
import { shaderLibraryChunks, type PackedShaderLibrary } from './shader-chunks.js';
import { packageShaderMaps, parseShaderAssetInfo, type ShaderAssetInfo } from '../shaders/asset-info.js';
import { checkDistinctIds, classifyModFiles, listModFolder, type ModChunk, type ModFile, type ModLooseFile } from './mod-folder.js';
import { hasInlineExportData } from '../legacy/export-data.js';
import { isLegacyPackage, parseLegacyPackage } from '../legacy/package.js';
import { legacyToZen } from '../convert/legacy-to-zen.js';
import { writePak } from '../pak/pak-writer.js';
import { companionPakSettings, type CompanionPakSettings } from './companion.js';
import { writeCompanionPak } from '../pak/write.js';
import { quote } from '../util/quote.js';

export interface PackOptions {
  /** Which container of a multi-container unpack folder to rebuild. */
  container?: string;
  /**
   * A container of the target game: pack then takes a plain folder of zen packages and bulk files (no manifest)
   * and copies version, block size, mount point, compression and block alignment from it.
   */
  like?: string;
  /**
   * The target engine release (`UE5_4` ...): for a plain folder without `like`, it gives the TOC, container-header
   * and pak versions.
   */
  engine?: string;
  /** Mount point of a plain folder packed without `like` (default `../../../`). */
  mountPoint?: string;
  /** Container-header layout for a plain folder when `like` has no readable .ucas to tell it. */
  containerHeaderVersion?: ContainerHeaderVersionName;
  /** TOC version to write (default: the manifest's or the `like` container's). */
  version?: number;
  /** `none`, `zlib`, `lz4`, ... (default: the source's method when this build can encode it, else none). */
  compression?: string;
  blockSize?: number;
  aesKey?: Uint8Array;
  partitionSize?: number;
  /**
   * The container id to write: a number, or `name` to derive it from the output file's name as the engine does for a
   * new container. Default: the manifest's (a rebuild keeps its container's id, e.g. 0xFFFFFFFFFFFFFFFF of the
   * global container), the output name's for a plain folder.
   */
  containerId?: bigint | 'name';
  /** Overwrite the manifest's source container if the output is the same file. */
  force?: boolean;
  /** Companion .pak version (default: the source container's own, else 11; 15 for TOC v10). */
  pakVersion?: number;
  /** Called for each legacy package converted to zen on the way in. */
  onConvert?: (path: string) => void;
  /**
   * When set, a legacy package that cannot be converted is reported here and left out, with its bulk files; the
   * others still convert. Without it, the first such package stops the pack.
   */
  onPackageError?: (file: string, error: IoStoreError) => void;
  /** Skip writing the companion .pak. */
  noPak?: boolean;
  onProgress?: (p: { chunksDone: number; chunksTotal: number; bytesDone: number; bytesTotal: number }) => void;
  /**
   * Worker threads hashing and compressing chunk files of up to 16 MiB, ahead of the writer (0: all on this thread).
   * Default: one per core (at most 8) when such chunks add up to 32 MiB or more. The output is the same either way.
   */
  threads?: number;
}

export interface PackResult {
  utoc: string;
  ucas: string[];
  /** The companion .pak written (or kept when one existed), null with noPak. */
  pak: string | null;
  chunks: number;
  bytes: number;
  compression: string;
  version: number;
  /** The container id written, as 0x and 16 hex digits. */
  containerId: string;
  /** Where it came from: the unpack manifest, the output name, or the `containerId` option. */
  containerIdFrom: 'manifest' | 'name' | 'option';
  /** Plain-folder packs: the packages the new container header lists. */
  packages?: string[];
  warnings: string[];
  /** Worker threads that encoded chunks (0: the calling thread). */
  threads: number;
  /** Shader libraries written (plain-folder packs and to-zen). */
  shaderLibraries?: PackedShaderLibrary[];
}

/** One chunk to write: where its bytes come from and how it is indexed. */
interface PlannedChunk {
  id: Uint8Array;
  size: number;
  pieces: () => AsyncIterable<Uint8Array>;
  /** Path below the mount point, for the directory index; unnamed chunks have none. */
  path?: string;
  memoryMapped: boolean;
  /** A file the chunk is read from: never overwritten by the output. */
  input?: string;
  /** Set when the chunk is exactly this file's bytes, so a worker thread can read and encode it. */
  file?: string;
  /** Called with the chunk's hash once written (manifest mode uses it to spot edited packages). */
  written?: (hash: Uint8Array) => void;
  /** Written after every other chunk (the container header, which may depend on them). */
  last?: boolean;
}

/**
 * Rebuilds a container: from a folder written by `unpack` (its manifest gives every chunk and setting), or, with
 * `like`, from a plain folder of zen packages and bulk files with a container header built from the packages.
 * Output files are written under temporary names and renamed only when all are complete.
 */
export async function packFolder(folder: string, outUtoc: string, o: PackOptions = {}): Promise<PackResult> {
  const plain = o.like !== undefined || (o.engine !== undefined && !existsSync(join(folder, MANIFEST_NAME)));
  return packPlanned(outUtoc, o, plain, (outBase, outName, choice, warnings) =>
    plain ? planModFiles(() => listModFolder(folder), folder, outBase, choice!.id, o, warnings) : planManifest(folder, outBase, outName, choice, o, warnings),
  );
}

/**
 * Builds a container from loose files that need not be one folder (the inputs of to-zen: files, folders, the
 * entries of legacy .pak files), with `like` or `engine` giving the target as for a plain mod folder.
 */
export async function packFiles(list: () => Promise<ModFile[]>, label: string, outUtoc: string, o: PackOptions): Promise<PackResult> {
  return packPlanned(outUtoc, o, true, (outBase, _outName, choice, warnings) => planModFiles(list, label, outBase, choice!.id, o, warnings));
}

type Plan = Awaited<ReturnType<typeof planManifest>> | Awaited<ReturnType<typeof planModFiles>>;

/**
 * The container id comes from the caller's option, else from the output name for new containers (`plain`), else
 * (undefined here) from the manifest of the unpacked container.
 */
async function packPlanned(
  outUtoc: string,
  o: PackOptions,
  plain: boolean,
  plan: (outBase: string, outName: string, choice: ContainerIdChoice | undefined, warnings: string[]) => Promise<Plan>,
): Promise<PackResult> {
  if (!/\.utoc$/i.test(outUtoc)) throw new IoStoreError('USAGE', 'the output must be a .utoc path', { file: outUtoc });
  const outName = basename(outUtoc).replace(/\.utoc$/i, '');
  const outBase = resolve(dirname(outUtoc), outName);
  const warnings: string[] = [];
  const fromOption = typeof o.containerId === 'bigint' ? o.containerId : undefined;
  if (fromOption !== undefined && (fromOption < 0n || fromOption > 0xffffffffffffffffn)) throw new IoStoreError('USAGE', `container id ${fromOption} is not a u64`);
  const named = (): ContainerIdChoice => ({ id: containerIdFromName(outName), from: 'name' });
  const choice: ContainerIdChoice | undefined = fromOption !== undefined ? { id: fromOption, from: 'option' } : o.containerId === 'name' || plain ? named() : undefined;
  const p = await plan(outBase, outName, choice, warnings);
  let pak: CompanionPakSettings | undefined;
  if (!o.noPak) {
    pak = await companionPakSettings(p.source, p.settings.version);
    if (p.pakVersion !== undefined && pak.from === 'default') pak = { ...pak, version: p.pakVersion, from: 'engine' };
    if (o.pakVersion !== undefined) pak = { ...pak, version: o.pakVersion, from: 'option' };
  }
  if (p.pakFiles && pak) pak = { ...pak, mountPoint: p.pakFiles.mountPoint };
  if (p.pakFiles && !pak) warnings.push(`--no-pak: ${p.pakFiles.files.length} file(s) that only a .pak holds were left out`);
  const r = await writeContainer(outBase, p.settings, p.chunks, o, pak, warnings, p.pakFiles?.files);
  const { id, from } = p.containerId;
  return {
    ...r,
    compression: p.settings.codec?.name ?? 'None',
    version: p.settings.version,
    containerId: `0x${id.toString(16).padStart(16, '0')}`,
    containerIdFrom: from,
    warnings,
    ...(p.packages ? { packages: p.packages } : {}),
    ...('shaderLibraries' in p && p.shaderLibraries.length > 0 ? { shaderLibraries: p.shaderLibraries } : {}),
  };
}

interface ContainerIdChoice {
  id: bigint;
  from: PackResult['containerIdFrom'];
}

/** The manifest's container id, unless the caller chose one. */
function manifestContainerId(c: ManifestContainer, outName: string, chosen: ContainerIdChoice | undefined, warnings: string[], source: string): ContainerIdChoice {
  if (chosen) return chosen;
  if (!/^0x[0-9a-f]{1,16}$/i.test(c.containerId)) throw new IoStoreError('BAD_VALUE', `manifest: container id ${quote(c.containerId)} is not a 0x hex u64`, { file: source });
  const id = BigInt(c.containerId);
  if (outName.toLowerCase() !== c.name.toLowerCase()) {
    warnings.push(`kept the container id ${c.containerId} of ${c.name}; the engine gives a new container the hash of its own name: pass --container-id name to give ${outName} its own`);
  }
  return { id, from: 'manifest' };
}

async function planManifest(folder: string, outBase: string, outName: string, chosen: ContainerIdChoice | undefined, o: PackOptions, warnings: string[]) {
  const manifest = await readManifest(folder);
  const c = pickContainer(manifest, o.container, folder);
  const idChoice = manifestContainerId(c, outName, chosen, warnings, folder);
  const containerId = idChoice.id;
  if (!o.force && resolve(c.utoc).replace(/\.utoc$/i, '') === outBase) {
    throw new IoStoreError('USAGE', 'the output would overwrite the container this folder was unpacked from (pass --force to allow)', { file: `${outBase}.utoc` });
  }
  const target = o.engine !== undefined ? engineTarget(o.engine) : undefined;
  const version = checkVersion(o.version ?? target?.tocVersion ?? c.tocVersion);
  const codec = chooseCodec(o.compression, c.chunks.find((ch) => ch.compression !== 'None')?.compression, warnings);
  const mountPoint = c.mountPoint ?? '../../../';
  const prefix = mountPointRelative(mountPoint);
  // Chunks in their original .ucas order; files are checked before anything is written.
  const sorted = [...c.chunks].sort((a, b) => (a.ucasOffset ?? Infinity) - (b.ucasOffset ?? Infinity) || a.order - b.order);
  const chunks: PlannedChunk[] = [];
  // Packages whose bytes differ from the manifest's hash: their store entries are rebuilt in the header.
  const edited = new Map<bigint, string>();
  for (const ch of sorted) {
    const file = safeOutputPath(folder, ch.path);
    // Edited files may have changed size since unpack: the file, not the manifest, says how big the chunk is now.
    const fileSize = await requireFile(file, `chunk ${ch.id} (${ch.type}) is listed in the manifest but its file is missing`);
    if (ch.overriddenBy) warnings.push(`${ch.path} holds ${ch.overriddenBy}'s version of chunk ${ch.id}`);
    const id = Buffer.from(ch.id, 'hex');
    const isHeader = ch.type === 'ContainerHeader';
    if (isHeader) new DataView(id.buffer, id.byteOffset).setBigUint64(0, containerId, true);
    let path: string | undefined;
    if (ch.tocPath !== undefined) {
      if (!ch.tocPath.startsWith(prefix)) throw new IoStoreError('BAD_VALUE', `chunk path ${quote(ch.tocPath)} is not below the mount point ${quote(mountPoint)}`, { file: folder });
      path = ch.tocPath.slice(prefix.length);
    }
    chunks.push({
      id,
      size: isHeader ? ch.size : fileSize,
      pieces: isHeader ? () => headerWithEdits(file, containerId, c, edited, warnings) : () => readPieces(file),
      ...(path !== undefined ? { path } : {}),
      memoryMapped: (ch.flags & 2) !== 0 || ch.type === 'MemoryMappedBulkData',
      input: file,
      ...(isHeader ? { last: true } : { file }),
      ...(ch.type === 'ExportBundleData' ? { written: (h: Uint8Array) => void (Buffer.from(h).toString('hex') !== ch.hash && edited.set(id.readBigUInt64LE(0), file)) } : {}),
    });
  }
  const settings: ContainerWriterOptions = {
    version,
    containerId,
    blockSize: o.blockSize ?? c.blockSize,
    ...(codec ? { codec } : {}),
    hashAlgorithm: generationFromTocVersion(version) === 'UE4' ? 'sha1' : 'blake3',
    ...encryption(o, c.encryptionKeyGuid),
    ...partitioning(o.partitionSize ?? c.partitionSize ?? undefined),
    ...(c.compressionBlockAlignment ? { compressionBlockAlignment: c.compressionBlockAlignment } : {}),
    mountPoint,
    ...(c.mountPoint !== null ? { indexWhenEmpty: true } : {}),
    perfectHash: c.perfectHash ?? true,
    ...(c.perfectHashSeeds && version === c.tocVersion
      ? { reuseLayout: { order: new Map(c.chunks.map((ch) => [ch.id, ch.order])), seeds: Int32Array.from(c.perfectHashSeeds), overflow: Int32Array.from(c.chunksWithoutPerfectHash ?? []) } }
      : {}),
  };
  // The files of the container's own companion pak, when the folder was unpacked with it.
  const companion = manifest.paks?.find((p) => p.name.toLowerCase() === `${c.name.toLowerCase()}.pak`);
  const pakFiles: CompanionFiles | undefined = companion && companion.files.length > 0
    ? { mountPoint: companion.mountPoint, files: companion.files.map((f) => ({ file: join(folder, ...f.path.split('/')), path: f.pakPath })) }
    : undefined;
  return { settings, chunks, packages: undefined, source: c.utoc, pakVersion: target?.pakVersion, pakFiles, containerId: idChoice };
}

/**
 * Plans a container from loose files (a mod folder, or the inputs of to-zen): zen packages are taken as they are,
 * legacy ones (`.uasset`/`.umap` + `.uexp`) are converted to zen on the way in.
 */
export async function planModFiles(list: () => Promise<ModFile[]>, folder: string, outBase: string, containerId: bigint, o: PackOptions, warnings: string[]) {
  // The target's formats come from a real container of the game (`like`) or from the engine release named.
  const target = o.engine !== undefined ? engineTarget(o.engine) : undefined;
  let like: IoStoreToc | undefined;
  let headerVersion: ContainerHeaderVersionName;
  let entries = new Map<bigint, StoreEntry>();
  if (o.like !== undefined) {
    if (resolve(o.like).replace(/\.utoc$/i, '') === outBase) throw new IoStoreError('USAGE', 'the output would overwrite the --like container', { file: o.like });
    like = readToc(await readTocBytes(o.like), { source: o.like, ...(o.aesKey ? { aesKey: o.aesKey } : {}) });
    ({ headerVersion, entries } = await likeHeader(like, o.like, { ...o, ...(target && !o.containerHeaderVersion ? { containerHeaderVersion: target.containerHeaderVersion } : {}) }));
  } else if (target) {
    headerVersion = o.containerHeaderVersion ?? target.containerHeaderVersion;
  } else {
    throw new IoStoreError('USAGE', 'a folder without iostore-manifest.json needs --like <game .utoc> or --version <engine, e.g. UE5_4>', { file: folder });
  }
  const version = checkVersion(o.version ?? like?.version ?? target!.tocVersion);
  const gen = generationFromTocVersion(version);
  const mountPoint = o.mountPoint ?? like?.directoryIndex?.mountPoint ?? '../../../';
  const knownIds = new Set<bigint>();
  for (let i = 0; i < (like?.chunkCount ?? 0); i++) knownIds.add(like!.chunkId(i).id);
  // unpack and to-legacy put chunks without a path (the container header, script objects) under _chunks/: a mod
  // container gets its own header, so they stay out.
  const all = await list();
  const files = all.filter((f) => !f.path.startsWith(`${UNNAMED_CHUNKS_FOLDER}/`) && f.path !== MANIFEST_NAME);
  // ShaderCode chunks as unpack writes them: an IoStore-form shader library of the folder takes those it lists.
  const unpackedCode = new Map<string, ModFile>();
  const codePrefix = `${UNNAMED_CHUNKS_FOLDER}/ShaderCode/`;
  for (const f of all) if (f.path.startsWith(codePrefix) && f.path.endsWith('.bin')) unpackedCode.set(f.path.slice(codePrefix.length, -4).toLowerCase(), f);
  const shaderLibraries: PackedShaderLibrary[] = [];
  const loose: ModLooseFile[] = [];
  let mod = classifyModFiles(files, mountPointRelative(mountPoint), gen, knownIds, loose);
  if (mod.length === 0 && loose.length === 0) throw new IoStoreError('NOT_FOUND', 'the folder holds no files to pack', { file: folder });

  const chunks: PlannedChunk[] = [];
  const packages: ContainerPackage[] = [];
  const names: string[] = [];
  const legacyHints = { ...(target ? { engine: target.engine } : {}), containerHeaderVersion: headerVersion };
  const pkgChunks = new Map<ModChunk, { bytes?: Uint8Array; legacy: boolean; pieces?: Uint8Array[]; size?: number }>();
  // Shader libraries first: the shader maps they hold bound which asset-info entries the store entries take.
  const shaderCodeType = chunkTypeFromName('ShaderCode', gen);
  const shaderIds = new Map<string, string>();
  const knownShaderMaps = new Set<string>();
  for (const m of mod) {
    if (m.type !== 'ShaderCodeLibrary') continue;
    const r = await shaderLibraryChunks(m.src, m.id, shaderCodeType, (id) => unpackedCode.get(id), warnings);
    shaderLibraries.push(r.report);
    for (const h of r.shaderMaps) knownShaderMaps.add(h);
    for (const c of r.chunks) {
      const key = Buffer.from(c.id).toString('hex');
      const other = shaderIds.get(key);
      if (other !== undefined) throw new IoStoreError('BAD_VALUE', `${quote(m.path)} and ${quote(other)} both give chunk ${key}`, { file: m.file, offset: 0 });
      shaderIds.set(key, m.path);
      const data = c.data;
      chunks.push({ id: c.id, size: c.size, pieces: async function* () { yield await data(); }, ...(c.path !== undefined ? { path: c.path } : {}), memoryMapped: false });
    }
  }
  // ShaderAssetInfo-*.assetinfo.json (the cooker's, or to-legacy's) give packages their shader maps, as UnrealPak
  // does; they are read here and not staged.
  const assetInfos: ShaderAssetInfo[] = [];
  for (let k = loose.length - 1; k >= 0; k--) {
    const l = loose[k]!;
    if (!/(^|\/)ShaderAssetInfo-[^/]+\.assetinfo\.json$/i.test(l.path)) continue;
    const f = files.find((x) => x.path === l.path)!;
    assetInfos.push(parseShaderAssetInfo(new TextDecoder().decode(await f.read()), f.file));
    loose.splice(k, 1);
  }
  const shaderMapsOf = packageShaderMaps(assetInfos, knownShaderMaps);
  const failed = new Set<bigint>();
  let firstFailure: IoStoreError | undefined;
  const pendingFailures: Array<[string, IoStoreError]> = [];
  for (const m of mod) {
    if (m.type !== 'ExportBundleData') continue;
    let bytes = await m.src.read();
    let legacy = false;
    let convertedHeader: ZenPackage | undefined;
    let convertedImports: bigint[] | undefined;
    let convertedPieces: Uint8Array[] | undefined;
    let size = bytes.length;
    if (isLegacyPackage(bytes)) {
      let converted;
      try {
        const lp = parseLegacyPackage(bytes, { source: m.file, ...(target ? { engine: target.engine } : {}), packageName: m.packageName! });
        // Without a .uexp the export data follows the header in the .uasset (cooks that do not split packages).
        const inline = !m.uexp && hasInlineExportData(lp) ? bytes.subarray(lp.summary.totalHeaderSize) : undefined;
        if (!m.uexp && !inline) throw new IoStoreError('NOT_FOUND', `a legacy package without its .uexp (expected ${m.path.replace(/\.[^./]+$/, '.uexp')} beside it)`, { file: m.file, offset: 0 });
        converted = legacyToZen(lp, bytes, inline ?? (await m.uexp!.read()), legacyHints);
      } catch (e) {
        if (!(e instanceof IoStoreError) || !o.onPackageError) throw e;
        // Reported once the pack goes ahead: a pack of nothing but bad packages is that package's error.
        firstFailure ??= e;
        pendingFailures.push([m.file, e]);
        failed.add(m.packageId!);
        continue;
      }
      if (converted.warning) warnings.push(converted.warning);
      // Kept in pieces (header, .uexp): the writer takes them as they are.
      convertedPieces = converted.pieces;
      size = converted.size;
      convertedHeader = converted.zen;
      convertedImports = converted.importedPackages;
      legacy = true;
      if (o.onConvert) o.onConvert(m.path);
    }
    pkgChunks.set(m, convertedPieces ? { legacy, pieces: convertedPieces, size } : { bytes, legacy });
    const pkg = convertedHeader ?? parseZenPackage(bytes, { source: m.file, containerHeaderVersion: headerVersion });
    if (pkg.packageName.toLowerCase() !== m.packageName!.toLowerCase()) {
      // The package's own name is what other packages import: its id wins over the path's, for the package and
      // the bulk files beside it.
      if (!legacy) warnings.push(`${m.path}: the package calls itself ${quote(pkg.packageName)}, its path says ${m.packageName}; using ${quote(pkg.packageName)}`);
      renamePackage(mod, m, pkg.packageName, gen);
    }
    // A converted 5.0-5.2 package's import map indexes the converter's imported-package list, which its header
    // does not store: the store entry must carry that list.
    const game = entries.get(m.packageId!);
    const previous = convertedImports && !pkg.importedPackageNames ? { importedPackages: convertedImports, shaderMapHashes: game?.shaderMapHashes ?? [] } : game;
    const { entry, warning } = storeEntryFor(pkg, size, headerVersion, previous);
    if (warning) warnings.push(warning);
    const fromInfo = gen === 'UE5' ? shaderMapsOf.get(pkg.packageName.toLowerCase()) : undefined;
    if (fromInfo) entry.shaderMapHashes = fromInfo;
    packages.push({ packageId: m.packageId!, ...entry });
    names.push(m.packageName!);
    // Converted headers are the big allocation; the chunk keeps the bytes, zen packages are read again when written.
    if (!legacy) pkgChunks.set(m, { legacy });
  }
  // A package left out takes its bulk files with it.
  if (failed.size > 0) mod = mod.filter((m) => m.packageId === undefined || !failed.has(m.packageId));
  if (firstFailure && !mod.some((m) => m.type === 'ExportBundleData' || m.type === 'ShaderCodeLibrary')) throw firstFailure;
  for (const [file, e] of pendingFailures) o.onPackageError!(file, e);
  checkDistinctIds(mod);
  for (const m of mod) {
    if (m.type === 'ShaderCodeLibrary') continue;
    const converted = pkgChunks.get(m);
    if (converted?.pieces) {
      const pieces = converted.pieces;
      chunks.push({ id: m.id, size: converted.size!, pieces: async function* () { yield* pieces; }, path: m.path, memoryMapped: false });
      continue;
    }
    const src = m.src;
    chunks.push({
      id: m.id,
      size: src.size,
      pieces: src.onDisk ? () => readPieces(src.file) : async function* () { yield await src.read(); },
      path: m.path,
      memoryMapped: m.type === 'MemoryMappedBulkData',
      ...(src.onDisk ? { input: src.file, file: src.file } : {}),
    });
  }
  const header = serializeContainerHeader(buildContainerHeader(headerVersion, containerId, packages));
  const headerId = encodeChunkId({ id: containerId, index: 0, pad: 0, type: chunkTypeFromName('ContainerHeader', gen) }, gen);
  chunks.push({ id: headerId, size: header.length, pieces: async function* () { yield header; }, memoryMapped: false });

  const likeMethod = like?.compressionMethods.find((m) => m !== 'None');
  const codec = chooseCodec(o.compression, likeMethod, warnings);
  const alignment = like ? inferBlockAlignment(like) : undefined;
  const settings: ContainerWriterOptions = {
    version,
    containerId,
    blockSize: o.blockSize ?? (like?.blockSize || 0x10000),
    ...(codec ? { codec } : {}),
    hashAlgorithm: gen === 'UE4' ? 'sha1' : 'blake3',
    ...encryption(o, like ? Buffer.from(like.header.encryptionKeyGuid).toString('hex') : undefined),
    ...partitioning(o.partitionSize),
    ...(alignment ? { compressionBlockAlignment: alignment } : {}),
    mountPoint,
    perfectHash: like ? like.perfectHashSeeds.length > 0 : true,
  };
  const pakFiles: CompanionFiles | undefined = loose.length > 0 ? { mountPoint, files: loose } : undefined;
  return { settings, chunks, packages: names.sort(), shaderLibraries, source: o.like, pakVersion: target?.pakVersion, pakFiles, containerId: { id: containerId, from: o.containerId === undefined || o.containerId === 'name' ? 'name' : 'option' } as ContainerIdChoice };
}

/** Gives a package and its sibling bulk files (same path stem) the chunk ids of another package name. */
function renamePackage(mod: ModChunk[], pkgChunk: ModChunk, name: string, gen: 'UE4' | 'UE5'): void {
  const stem = pkgChunk.path.replace(/\.[^/.]+$/, '');
  const id = packageIdFromName(name);
  for (const c of mod) {
    if (c.packageId === undefined || c.path.replace(/(\.m)?\.[^/.]+$/, '') !== stem) continue;
    c.packageName = name;
    c.packageId = id;
    c.id = encodeChunkId({ id, index: 0, pad: 0, type: chunkTypeFromName(c.type, gen) }, gen);
  }
}

/** The container-header version and store entries of the `like` container, from its .ucas when present. */
async function likeHeader(like: IoStoreToc, likePath: string, o: PackOptions): Promise<{ headerVersion: ContainerHeaderVersionName; entries: Map<bigint, StoreEntry> }> {
  const entries = new Map<bigint, StoreEntry>();
  let headerVersion = o.containerHeaderVersion;
  const headerIndex = Array.from({ length: like.chunkCount }, (_, i) => i).find((i) => like.chunkTypeName(i) === 'ContainerHeader');
  const parts = partitionPaths(likePath, like.partitionCount);
  if (headerIndex !== undefined && parts.every((p) => existsSync(p))) {
    const reader = new ContainerReader(like, parts.map(fileSource), o.aesKey ? { aesKey: o.aesKey } : {});
    try {
      const bytes = await reader.readChunk(headerIndex);
      const h = parseContainerHeader(bytes, { source: `${likePath} (container header)`, ...(headerVersion ? { version: headerVersion } : {}) });
      headerVersion ??= h.version;
      for (const p of h.packages) entries.set(p.packageId, p);
    } catch (e) {
      if (!(e instanceof IoStoreError) || e.code !== 'CODEC' || headerVersion) throw e;
    } finally {
      await reader.close();
    }
  }
  headerVersion ??= headerVersionForToc(like.version);
  if (!headerVersion) {
    throw new IoStoreError('USAGE', `cannot tell the container-header version of a TOC v${like.version} game without its .ucas: pass --container-header-version`, { file: likePath });
  }
  return { headerVersion, entries };
}

/** The container-header version when the TOC version settles it (several engine releases share a TOC version). */
function headerVersionForToc(v: number): ContainerHeaderVersionName | undefined {
  if (v <= 3) return 'Initial';
  if (v === 6) return 'NoExportInfo';
  if (v >= 9) return 'SoftPackageReferencesOffset';
  return undefined;
}

function checkVersion(v: number): number {
  if (!(Number.isInteger(v) && v >= 1 && v <= LATEST_TOC_VERSION)) throw new IoStoreError('USAGE', `TOC version ${v} is not supported (1 to ${LATEST_TOC_VERSION})`);
  return v;
}

function encryption(o: PackOptions, guidHex: string | undefined): Partial<ContainerWriterOptions> {
  if (!o.aesKey) return {};
  return { aesKey: o.aesKey, encryptionKeyGuid: Uint8Array.from(Buffer.from(guidHex ?? '0'.repeat(32), 'hex')) };
}

function partitioning(size: number | undefined): Partial<ContainerWriterOptions> {
  return size ? { partitionSize: size } : {};
}

/** The size of a file that must exist. */
async function requireFile(file: string, missing: string): Promise<number> {
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new IoStoreError('BAD_VALUE', 'is not a file', { file });
    return st.size;
  } catch (e) {
    throw e instanceof IoStoreError ? e : new IoStoreError('NOT_FOUND', missing, { file });
  }
}

/** Writes the planned chunks under temporary names, then renames every output into place. */
async function writeContainer(
  outBase: string,
  settings: ContainerWriterOptions,
  chunks: PlannedChunk[],
  o: Pick<PackOptions, 'onProgress' | 'threads'>,
  pak: CompanionPakSettings | undefined,
  warnings: string[],
  pakFiles: readonly ModLooseFile[] = [],
): Promise<Omit<PackResult, 'compression' | 'version' | 'warnings' | 'containerId' | 'containerIdFrom'>> {
  const outputs = [`${outBase}.utoc`, `${outBase}.ucas`].map((p) => resolve(p));
  for (const c of chunks) if (c.input && outputs.includes(resolve(c.input))) throw new IoStoreError('USAGE', 'the output would overwrite one of its own input files', { file: c.input });
  await mkdir(dirname(outBase), { recursive: true }).catch((e) => {
    throw ioError(e, dirname(outBase));
  });
  // Opened through openTempFile, so an interrupted process removes them (see bin/iostore.js).
  const tmp = (p: string) => `${p}.iostore-tmp`;
  const ucasName = (i: number) => (i === 0 ? `${outBase}.ucas` : `${outBase}_s${i}.ucas`);
  const writer = await ContainerWriter.create((i) => fileSink(tmp(ucasName(i))), settings);
  const progress = { chunksDone: 0, chunksTotal: chunks.length, bytesDone: 0, bytesTotal: chunks.reduce((a, c) => a + c.size, 0) };
  const ordered = [...chunks.filter((x) => !x.last), ...chunks.filter((x) => x.last)];
  const pool = encodePoolFor(ordered, settings, o.threads);
  const threads = pool?.size ?? 0;
  try {
    const ahead = pool ? encodeAhead(pool, ordered, settings) : undefined;
    for (let k = 0; k < ordered.length; k++) {
      const c = ordered[k]!;
      const encoded = ahead?.take(k);
      const hash = encoded ? await writer.addEncodedChunk(c.id, await encoded, c.path, c.memoryMapped) : await writer.addChunk(c.id, c.pieces(), c.path, c.memoryMapped);
      c.written?.(hash);
      progress.chunksDone++;
      progress.bytesDone += c.size;
      o.onProgress?.({ ...progress });
    }
    const { utoc, partitions } = await writer.finish();
    await writeTempFile(tmp(`${outBase}.utoc`), utoc);
    // An existing .pak of that name may hold real files (AssetRegistry.bin ...): it is kept, not replaced.
    const pakPath = `${outBase}.pak`;
    // With files of its own the companion is (re)written; an empty one never replaces a .pak already there.
    const writePak = pak !== undefined && (pakFiles.length > 0 || !existsSync(pakPath));
    if (pak && !writePak) warnings.push(`kept the existing ${pakPath}`);
    if (writePak && pakFiles.length > 0) {
      if (existsSync(pakPath)) warnings.push(`replaced ${pakPath} with a pak of the folder's ${pakFiles.length} non-package file(s)`);
      await writeCompanionFiles(tmp(pakPath), pak!, pakFiles);
    } else if (writePak) {
      await writeTempFile(tmp(pakPath), writeCompanionPak({ version: pak!.version, mountPoint: pak!.mountPoint }));
    }
    await pool?.close();
    for (let i = 0; i < partitions; i++) await rename(tmp(ucasName(i)), ucasName(i));
    await rename(tmp(`${outBase}.utoc`), `${outBase}.utoc`);
    if (writePak) await rename(tmp(pakPath), pakPath);
    for (const t of [...tempFilesInFlight]) if (t.startsWith(outBase)) tempFilesInFlight.delete(t);
    return { utoc: `${outBase}.utoc`, ucas: Array.from({ length: partitions }, (_, i) => ucasName(i)), pak: pak ? pakPath : null, chunks: chunks.length, bytes: progress.bytesDone, threads };
  } catch (e) {
    await writer.abort();
    await pool?.close();
    for (let i = 0; i < 256; i++) await unlink(tmp(ucasName(i))).catch(() => {});
    await unlink(tmp(`${outBase}.utoc`)).catch(() => {});
    await unlink(tmp(`${outBase}.pak`)).catch(() => {});
    for (const t of [...tempFilesInFlight]) if (t.startsWith(outBase)) tempFilesInFlight.delete(t);
    throw e;
  }
}

/** Files that only a .pak can hold, and the mount point their paths are below. */
interface CompanionFiles {
  mountPoint: string;
  files: ModLooseFile[];
}

/** The companion .pak with the folder's non-package files, stored (as UnrealPak stages small files by default). */
async function writeCompanionFiles(tmpPath: string, pak: CompanionPakSettings, files: readonly ModLooseFile[]): Promise<void> {
  const inputs = [];
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const size = (await stat(f.file).catch((e) => { throw ioError(e, f.file); })).size;
    inputs.push({ path: f.path, size, read: () => readPieces(f.file) });
  }
  const fh = await openTempFile(tmpPath);
  try {
    await writePak(
      {
        async write(data, position) {
          let o = 0;
          while (o < data.length) o += (await fh.write(data, o, data.length - o, position + o)).bytesWritten;
        },
        truncate: (n) => fh.truncate(n),
      },
      inputs,
      { version: pak.version, mountPoint: pak.mountPoint },
    );
  } finally {
    await fh.close();
  }
}

/** Worker threads for the chunks a worker can encode (whole files of up to 16 MiB), or none. */
function encodePoolFor(chunks: readonly PlannedChunk[], settings: ContainerWriterOptions, threads: number | undefined): EncodePool | undefined {
  if (!EncodePool.supports(settings.codec)) return undefined;
  const n = threads ?? defaultEncodeThreads(chunks.reduce((a, c) => a + (onWorker(c) ? c.size : 0), 0));
  return n > 0 ? new EncodePool(n) : undefined;
}

function onWorker(c: PlannedChunk): boolean {
  return c.file !== undefined && c.size <= MAX_WORKER_CHUNK;
}

/** Chunks encoded ahead of the writer: bounds both the chunks and the bytes in flight. */
const AHEAD_BYTES = 64 << 20;

/**
 * Starts encoding the worker-eligible chunks a little ahead of the writer, which takes them in order: the output
 * is the same as encoding on this thread. `take(k)` returns chunk k's encoding, or undefined for one the writer
 * encodes itself.
 */
function encodeAhead(pool: EncodePool, chunks: readonly PlannedChunk[], settings: ContainerWriterOptions) {
  const jobs = new Map<number, Promise<EncodedChunk>>();
  let next = 0;
  let bytes = 0;
  const fill = (from: number) => {
    while (next < chunks.length && jobs.size < pool.size * 4 && (bytes < AHEAD_BYTES || jobs.size === 0) && next - from < pool.size * 64) {
      const c = chunks[next]!;
      if (onWorker(c)) {
        const job = pool.encode({ file: c.file!, blockSize: settings.blockSize, codec: settings.codec?.name ?? null, memoryMapped: c.memoryMapped, algorithm: settings.hashAlgorithm });
        // Awaited in order later; until then a failure must not count as unhandled.
        job.catch(() => {});
        jobs.set(next, job);
        bytes += c.size;
      }
      next++;
    }
  };
  return {
    take(k: number): Promise<EncodedChunk> | undefined {
      fill(k);
      const job = jobs.get(k);
      if (job) {
        jobs.delete(k);
        bytes -= chunks[k]!.size;
      }
      return job;
    },
  };
}

function chooseCodec(requested: string | undefined, sourceMethod: string | undefined, warnings: string[]): Codec | undefined {
  const registry = defaultCodecs();
  const want = requested ?? sourceMethod ?? 'None';
  if (want.toLowerCase() === 'none') return undefined;
  const codec = registry.get(want);
  if (codec?.compress) return codec;
  if (requested !== undefined) {
    throw new IoStoreError('USAGE', `cannot compress with ${quote(requested)} (this build encodes: ${registry.names().filter((n) => registry.get(n)?.compress && n !== 'None').join(', ')})`);
  }
  warnings.push(`the source used ${want}, which this build cannot encode: blocks are stored uncompressed (use --compression zlib or lz4 to compress)`);
  return undefined;
}

async function* readPieces(file: string): AsyncGenerator<Uint8Array> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  try {
    for await (const piece of stream) yield piece as Buffer;
  } catch (e) {
    throw ioError(e, file);
  }
}

/**
 * The unpacked container header with its own container id and, for packages edited since unpack, store entries
 * rebuilt from their new headers. Unchanged, it is the original bytes but for the id, so a plain repack stays
 * byte-identical.
 */
async function* headerWithEdits(file: string, id: bigint, c: ManifestContainer, edited: ReadonlyMap<bigint, string>, warnings: string[]): AsyncGenerator<Uint8Array> {
  let bytes: Uint8Array | undefined;
  for await (const piece of withContainerId(file, id, c)) bytes = piece;
  if (edited.size === 0) {
    yield bytes!;
    return;
  }
  const header = parseContainerHeader(bytes!, { source: file });
  for (const [packageId, pkgFile] of edited) {
    const entry = header.packages.find((p) => p.packageId === packageId);
    if (!entry) continue;
    const pkgBytes = new Uint8Array(await readFile(pkgFile).catch((e) => { throw ioError(e, pkgFile); }));
    const pkg = parseZenPackage(pkgBytes, { source: pkgFile, containerHeaderVersion: header.version, storeEntry: entry });
    const { entry: next, warning } = storeEntryFor(pkg, pkgBytes.length, header.version, entry);
    if (warning) warnings.push(warning);
    Object.assign(entry, next);
  }
  yield serializeContainerHeader(header);
}

/** The container header embeds its container's id (UE5: after magic and version; UE4: first); a renamed container needs its own. */
async function* withContainerId(file: string, id: bigint, c: ManifestContainer): AsyncGenerator<Uint8Array> {
  const bytes = new Uint8Array(await readFile(file).catch((e) => { throw ioError(e, file); }));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const ue5 = bytes.length >= 16 && view.getUint32(0, true) === 0x496f436e;
  const at = ue5 ? 8 : 0;
  if (bytes.length < at + 8) throw new IoStoreError('BAD_VALUE', 'container header is too short', { file });
  const old = `0x${view.getBigUint64(at, true).toString(16).padStart(16, '0')}`;
  if (old !== c.containerId) throw new IoStoreError('BAD_VALUE', `container header holds id ${old}, expected ${c.containerId}`, { file, offset: at });
  view.setBigUint64(at, id, true);
  yield bytes;
}
