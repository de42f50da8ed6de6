import { existsSync, mkdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ContainerReader } from '../cas/container-reader.js';
import { encoderSettings } from '../codecs/registry.js';
import type { OodleEncoderName } from '../codecs/oodle/index.js';
import { IoStoreError } from '../errors.js';
import { containerIdFromName } from '../hash/names.js';
import { chunkTypeFromName, encodeChunkId } from '../toc/chunk-id.js';
import { mountPointRelative } from '../toc/directory-index.js';
import { generationFromTocVersion } from '../toc/engine.js';
import { partitionPaths, fileSource } from '../cas/source.js';
import { ioError, readTocBytes, withIoError } from '../toc/read-file.js';
import { readToc, type IoStoreToc } from '../toc/toc.js';
import { abortCleanups, isAborting, writeTempFile } from '../layout/output.js';
import { tempSink } from './pak-sink.js';
import { FileSet, removeMadeFolders } from '../layout/file-set.js';
import { leftoversWarning, removeLeftovers } from '../layout/leftovers.js';
import { companionChoice, stalePartitions } from './stale-outputs.js';
import { MANIFEST_NAME } from '../layout/manifest.js';
import { UNNAMED_CHUNKS_FOLDER } from '../layout/unnamed.js';
import { engineTarget } from './targets.js';
import { withLikeEngine } from './target-engine.js';
import { parseContainerHeader, serializeContainerHeader, type ContainerHeaderVersionName } from '../zen/container-header.js';
import type { StoreEntry } from '../zen/store-entry.js';
import { ContainerWriter, fileSink, type ContainerWriterOptions } from './container-writer.js';
import type { EncodedChunk } from './block-encoder.js';
import { defaultEncodeThreads, EncodePool, MAX_WORKER_CHUNK } from './encode-pool.js';
import { DeflateAhead } from './deflate-ahead.js';
import { StoredCopy } from './stored-copy.js';
import { buildContainerHeader } from './header-builder.js';
import { inferBlockAlignment } from '../toc/block-alignment.js';
import type { PackedShaderLibrary } from './shader-chunks.js';
import { classifyModFiles, listModFolder, prefixPaths, type ModFile, type ModLooseFile } from './mod-folder.js';
import { writePak } from '../pak/pak-writer.js';
import { companionPakSettings, type CompanionPakSettings } from './companion.js';
import { writeCompanionPak } from '../pak/write.js';
import { quote } from '../util/quote.js';
import { plural } from '../util/plural.js';
import { ChunkFileReader, readPieces, WHOLE_FILE_MAX, type PlannedChunk } from './planned-chunk.js';
import { modChunks, readModPackages } from './mod-packages.js';
import { folderLayout, mountFolderFor, mountPointAt, PackageRoots, placeByOwnNames } from './placement.js';
import { planManifest } from './manifest-plan.js';
import { checkContainerMethod, checkVersion, chooseCodec, encryption, headerVersionForToc, partitioning, type CompanionFiles, type ContainerIdChoice } from './pack-settings.js';
import { hasExtension, withoutExtension } from '../util/file-extension.js';

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
  /** `none`, `zlib`, `lz4`, `oodle`, ... (default: the source's method when this build can encode it, else none). */
  compression?: string;
  /** 1 (fastest) to 9 (smallest), for Oodle (default 4), Zlib and Gzip (default 6). */
  compressionLevel?: number;
  /** Which Oodle codec writes Oodle blocks (default Kraken, which the engine uses for containers). */
  oodleCodec?: OodleEncoderName;
  blockSize?: number;
  aesKey?: Uint8Array;
  partitionSize?: number;
  /**
   * The container id to write: a number, or `name` to derive it from the output file's name as the engine does for a
   * new container. Default: the manifest's (a rebuild keeps its container's id, e.g. 0xFFFFFFFFFFFFFFFF of the
   * global container), the output name's for a plain folder.
   */
  containerId?: bigint | 'name';
  /**
   * Write plain a container the manifest says was encrypted (without it and without `aesKey`, such a rebuild is
   * refused rather than silently written unencrypted).
   */
  noEncrypt?: boolean;
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
   * Called between the phases of writing a container: once the plan is made (`planned`: what making it took is no
   * longer used) and once every chunk is placed (`written`: the plan is no longer used; stored copies may still be
   * writing the last chunks' bytes), before the TOC is built. The CLI runs a full garbage collection there for a large pack.
   */
  betweenPhases?: (phase: 'planned' | 'written', chunks: number) => void;
  /**
   * Threads compressing chunk files ahead of the writer (0: all on this thread). Zlib blocks deflate on libuv's
   * thread pool, this many at once (default: one per core, at most 3), read block by block; other codecs on worker
   * threads hashing and compressing files of up to 16 MiB (default: one per core, at most 8, when such chunks add up
   * to 32 MiB or more). Stored chunk files are read, hashed and written to the .ucas by this thread and this many
   * worker threads side by side (default: one fewer than the cores, for 32 MiB or more; a file whose size changed
   * since the folder was read then stops the pack). The output is the same either way.
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

/**
 * Rebuilds a container: from a folder written by `unpack` (its manifest gives every chunk and setting), or, with
 * `like`, from a plain folder of zen packages and bulk files with a container header built from the packages.
 * Output files are written under temporary names and renamed only when all are complete.
 */
export async function packFolder(folder: string, outUtoc: string, o: PackOptions = {}): Promise<PackResult> {
  const plain = o.like !== undefined || (o.engine !== undefined && !existsSync(join(folder, MANIFEST_NAME)));
  return packPlanned(outUtoc, o, plain, async (outBase, outName, choice, warnings) => {
    if (!plain) return planManifest(folder, outBase, outName, choice, o, warnings);
    // Unversioned legacy packages are read with the release --like and they settle (or the run stops here).
    const files = await listModFolder(folder);
    return planModFiles(async () => files, folder, outBase, choice!.id, await withLikeEngine(files, o, folder, warnings), warnings);
  });
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
  if (!hasExtension(outUtoc, '.utoc')) throw new IoStoreError('USAGE', 'the output must be a .utoc path', { file: outUtoc });
  checkContainerMethod(o.compression);
  const outName = withoutExtension(basename(outUtoc), '.utoc');
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
  if (p.pakFiles && !pak) warnings.push(`--no-pak: ${plural(p.pakFiles.files.length, 'file')} that only a .pak holds ${p.pakFiles.files.length === 1 ? 'was' : 'were'} left out`);
  const r = await writeContainer(outBase, p.settings, p.chunks, o, pak, warnings, p.pakFiles?.files, p.source);
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
    if (withoutExtension(resolve(o.like), '.utoc') === outBase) throw new IoStoreError('USAGE', 'the output would overwrite the --like container', { file: o.like });
    like = readToc(await readTocBytes(o.like), { source: o.like, ...(o.aesKey ? { aesKey: o.aesKey } : {}) });
    ({ headerVersion, entries } = await likeHeader(like, o.like, { ...o, ...(target && !o.containerHeaderVersion ? { containerHeaderVersion: target.containerHeaderVersion } : {}) }));
  } else if (target) {
    headerVersion = o.containerHeaderVersion ?? target.containerHeaderVersion;
  } else {
    throw new IoStoreError('USAGE', 'a folder without iostore-manifest.json needs --like <game .utoc> or --version <engine, e.g. UE5_4>', { file: folder });
  }
  const version = checkVersion(o.version ?? like?.version ?? target!.tocVersion);
  const gen = generationFromTocVersion(version);
  const likeMountPoint = o.mountPoint ?? like?.directoryIndex?.mountPoint ?? '../../../';
  const likePrefix = mountPointRelative(likeMountPoint);
  const knownIds = new Set<bigint>();
  for (let i = 0; i < (like?.chunkCount ?? 0); i++) knownIds.add(like!.chunkId(i).id);
  // unpack and to-legacy put chunks without a path (the container header, script objects) under _chunks/: a mod
  // container gets its own header, so they stay out.
  const all = await list();
  const inFolder = all.filter((f) => !f.path.startsWith(`${UNNAMED_CHUNKS_FOLDER}/`) && f.path !== MANIFEST_NAME);
  // ShaderCode chunks as unpack writes them: an IoStore-form shader library of the folder takes those it lists.
  const unpackedCode = new Map<string, ModFile>();
  const codePrefix = `${UNNAMED_CHUNKS_FOLDER}/ShaderCode/`;
  for (const f of all) if (f.path.startsWith(codePrefix) && f.path.endsWith('.bin')) unpackedCode.set(f.path.slice(codePrefix.length, -4).toLowerCase(), f);
  // Paths from here on are below the engine root (`../../../`): a folder written by unpack or to-legacy is laid
  // out so, a mod folder below the mount point.
  const layout = o.mountPoint !== undefined ? 'mount' : folderLayout(inFolder.map((f) => f.path), likePrefix, knownIds);
  const files = layout === 'root' ? inFolder : prefixPaths(inFolder, likePrefix);
  const loose: ModLooseFile[] = [];
  const mod = classifyModFiles(files, '', gen, knownIds, loose);
  if (mod.length === 0 && loose.length === 0) throw new IoStoreError('NOT_FOUND', 'the folder holds no files to pack', { file: folder });
  const read = await readModPackages(mod, files, loose, { gen, headerVersion, ...(target ? { engine: target.engine } : {}), entries, unpackedCode, ...(o.onConvert ? { onConvert: o.onConvert } : {}), ...(o.onPackageError ? { onPackageError: o.onPackageError } : {}), ...(o.compressionLevel !== undefined ? { shaderCompression: { level: o.compressionLevel } } : {}) }, warnings);
  const shaderLibraries = read.shaderLibraries;
  const packages = read.packages;
  const names = [...read.ownNames.values()];
  // Each package goes where its own name says, whatever folder holds it.
  const roots = new PackageRoots();
  if (like) roots.learnFromContainer(like, read.ownNames.values());
  placeByOwnNames(mod, read.ownNames, roots, warnings);
  // The game container's mount point when it holds every file, else the folder that does (a mod may add a package
  // beside the game's folder); the companion pak likewise.
  const prefix = o.mountPoint !== undefined ? likePrefix : mountFolderFor([...mod.map((m) => m.path), ...read.shaderChunks.flatMap((c) => (c.path === undefined ? [] : [c.path]))], likePrefix);
  const lowerPrefix = prefix.toLowerCase();
  const outside = (p: string) => lowerPrefix !== '' && !p.toLowerCase().startsWith(lowerPrefix);
  const stray = mod.find((m) => outside(m.path)) ?? loose.find((l) => o.mountPoint !== undefined && outside(l.path));
  if (stray) throw new IoStoreError('USAGE', `${quote(stray.path)} is not below the mount point ${quote(likeMountPoint)}`, { file: stray.file });
  const mountPoint = prefix === likePrefix ? likeMountPoint : mountPointAt(likeMountPoint, prefix);
  if (prefix !== likePrefix) warnings.push(`mount point ${mountPoint}: the files are not all below the game container's ${likeMountPoint}`);
  const chunks = modChunks(mod, read, (p) => p.slice(prefix.length));
  const pakPrefix = mountFolderFor(loose.map((l) => l.path), prefix);
  const pakMountPoint = pakPrefix === prefix ? mountPoint : mountPointAt(likeMountPoint, pakPrefix);
  // Named fields, not a spread: a file on disk keeps its name in a getter, which a spread leaves behind.
  const pakLoose = loose.map((l) => ({ file: l.file, path: l.path.slice(pakPrefix.length) }));
  const header = serializeContainerHeader(buildContainerHeader(headerVersion, containerId, packages));
  const headerId = encodeChunkId({ id: containerId, index: 0, pad: 0, type: chunkTypeFromName('ContainerHeader', gen) }, gen);
  chunks.push({ id: headerId, size: header.length, pieces: async function* () { yield header; }, memoryMapped: false });

  const likeMethod = like?.compressionMethods.find((m) => m !== 'None');
  const codec = chooseCodec(o.compression, likeMethod, warnings, o);
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
  const pakFiles: CompanionFiles | undefined = pakLoose.length > 0 ? { mountPoint: pakMountPoint, files: pakLoose } : undefined;
  return { settings, chunks, packages: names.sort(), shaderLibraries, source: o.like, pakVersion: target?.pakVersion, pakFiles, containerId: { id: containerId, from: o.containerId === undefined || o.containerId === 'name' ? 'name' : 'option' } as ContainerIdChoice };
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

/**
 * Writes the planned chunks under temporary names, then puts the container's files in place together (FileSet):
 * its `.utoc`, `.ucas` partitions and companion `.pak` appear all at once or not at all, and files an earlier output
 * of the same name left that this one does not have (partitions, its pak) go with the commit.
 */
async function writeContainer(
  outBase: string,
  settings: ContainerWriterOptions,
  chunks: PlannedChunk[],
  o: Pick<PackOptions, 'onProgress' | 'betweenPhases' | 'threads'>,
  pak: CompanionPakSettings | undefined,
  warnings: string[],
  pakFiles: readonly ModLooseFile[] = [],
  source?: string,
): Promise<Omit<PackResult, 'compression' | 'version' | 'warnings' | 'containerId' | 'containerIdFrom'>> {
  const outputs = [`${outBase}.utoc`, `${outBase}.ucas`].map((p) => resolve(p));
  // Only a .utoc or .ucas input can be an output: the others are not resolved (a path per file of a big mod).
  for (const c of chunks) {
    const input = c.input;
    if (input && /\.u(toc|cas)$/i.test(input) && outputs.includes(resolve(input))) throw new IoStoreError('USAGE', 'the output would overwrite one of its own input files', { file: input });
  }
  // The folders made here go again if the run fails: no empty output folder is left behind. Made with a blocking
  // call after a check for an interrupt: one made after the interrupt's cleanup would outlive the run.
  if (isAborting()) throw new IoStoreError('IO', 'interrupted', { file: `${outBase}.utoc` });
  const made = withIoError(dirname(outBase), () => mkdirSync(dirname(outBase), { recursive: true }));
  // What a killed pack left beside its outputs (temporary .ucas files of hundreds of MB) goes first.
  const leftovers = removeLeftovers(dirname(outBase));
  if (leftovers.length > 0) warnings.push(leftoversWarning(leftovers));
  // An interrupt removes them too, once the temporary files are gone.
  const unmake = () => removeMadeFolders(dirname(outBase), made);
  abortCleanups.add(unmake);
  // Opened through openTempFile, so an interrupted process removes them (see bin/iostore.js).
  const files = new FileSet();
  const tmp = (p: string) => files.temp(p);
  const ucasName = (i: number) => (i === 0 ? `${outBase}.ucas` : `${outBase}_s${i}.ucas`);
  const progress = { chunksDone: 0, chunksTotal: chunks.length, bytesDone: 0, bytesTotal: chunks.reduce((a, c) => a + c.size, 0) };
  const ordered: Array<PlannedChunk | undefined> = [...chunks.filter((x) => !x.last), ...chunks.filter((x) => x.last)];
  // From here the plan is `ordered`'s alone: a stored copy lets go of each chunk once it is placed (see writeChunks).
  const chunkCount = chunks.length;
  chunks.length = 0;
  o.betweenPhases?.('planned', ordered.length);
  let writer: ContainerWriter | undefined;
  try {
    writer = await ContainerWriter.create((i) => fileSink(tmp(ucasName(i)), ucasName(i)), { ...settings, expectedChunks: ordered.length });
    // The plan is let go of (its chunks are this function's: the caller keeps none), so that a collection now frees
    // a path and a file name per file (~7 MB at 30,000 files) before the TOC is built.
    let released = false;
    const release = () => {
      ordered.length = 0;
      o.betweenPhases?.('written', chunkCount);
      released = true;
    };
    const threads = await writeChunks(writer, ordered, settings, o, progress, ucasName(0), release);
    await writer.drain();
    if (!released) release();
    const { utocParts, partitions } = await writer.finishInParts();
    await writeTempFile(tmp(`${outBase}.utoc`), utocParts, `${outBase}.utoc`);
    const pakPath = `${outBase}.pak`;
    const companion = companionChoice(outBase, { pak: pak !== undefined, files: pakFiles.length, ...(source !== undefined ? { source } : {}) });
    if (companion.warning) warnings.push(companion.warning);
    if (companion.write && pakFiles.length > 0) {
      await writeCompanionFiles(tmp(pakPath), pak!, pakFiles, pakPath);
    } else if (companion.write) {
      await writeTempFile(tmp(pakPath), writeCompanionPak({ version: pak!.version, mountPoint: pak!.mountPoint }), pakPath);
    }
    if (companion.remove) files.remove(pakPath);
    const stale = stalePartitions(outBase, partitions);
    for (const p of stale) files.remove(p);
    if (stale.length > 0) warnings.push(`removed ${plural(stale.length, '.ucas partition')} of an earlier container of this name: ${stale.map((p) => basename(p)).join(', ')}`);
    files.commit();
    return { utoc: `${outBase}.utoc`, ucas: Array.from({ length: partitions }, (_, i) => ucasName(i)), pak: pak ? pakPath : null, chunks: chunkCount, bytes: progress.bytesDone, threads };
  } catch (e) {
    await writer?.abort();
    files.discard();
    removeMadeFolders(dirname(outBase), made);
    throw e;
  } finally {
    abortCleanups.delete(unmake);
  }
}

/**
 * Writes every chunk, in order; returns the threads that encoded them. What reads and encodes them (buffers, encode
 * threads) is gone when this returns, before the TOC is built.
 */
async function writeChunks(
  writer: ContainerWriter,
  ordered: Array<PlannedChunk | undefined>,
  settings: ContainerWriterOptions,
  o: Pick<PackOptions, 'onProgress' | 'threads'>,
  progress: { chunksDone: number; chunksTotal: number; bytesDone: number; bytesTotal: number },
  ucas: string,
  /** Called once every chunk is placed, when the plan is no longer needed (before the TOC is built). */
  placed?: () => void,
): Promise<number> {
  const done = (chunks: number, bytes: number) => {
    progress.chunksDone += chunks;
    progress.bytesDone += bytes;
    o.onProgress?.({ ...progress });
  };
  // Zlib deflates on libuv's thread pool (no worker threads); other codecs on worker threads; stored chunk files are
  // copied by this thread and worker threads side by side.
  const plan = ordered as readonly PlannedChunk[];
  const deflating = await DeflateAhead.create(plan, settings, o.threads);
  const copying = deflating ? undefined : StoredCopy.create(writer, plan, { blockSize: settings.blockSize, algorithm: settings.hashAlgorithm, shownAs: ucas, threads: o.threads }, done);
  const pool = deflating || copying ? undefined : encodePoolFor(plan, settings, o.threads);
  try {
    const ahead = pool ? encodeAhead(pool, plan, settings) : undefined;
    // Files on this thread are read with blocking calls into reused buffers (see ChunkFileReader).
    const reader = new ChunkFileReader();
    for (let k = 0; k < ordered.length; k++) {
      const c = ordered[k]!;
      if (copying && StoredCopy.takes(c)) {
        const starting = copying.add(c);
        // Placed: the copy holds what it needs of the chunk until its segment is written, and the plan lets go of it
        // (a collection during the copy frees the files' paths and names as it goes, not only at its end).
        ordered[k] = undefined;
        if (starting) await starting;
        continue;
      }
      // The chunks written last (the container header) are made from what every chunk before them was.
      if (c.last) await copying?.finish();
      else await copying?.flush();
      const encoded = ahead?.take(k);
      let hash: Uint8Array;
      if (deflating?.handles(k)) hash = await writer.addEncodedBlocks(c.id, deflating.blocks(k), () => deflating.hash(), c.path, c.memoryMapped);
      else if (encoded) hash = await writer.addEncodedChunk(c.id, await encoded, c.path, c.memoryMapped);
      else if (c.file !== undefined && c.size <= WHOLE_FILE_MAX) hash = await writer.addChunkBytes(c.id, reader.read(c.file, c.size), c.path, c.memoryMapped);
      else hash = await writer.addChunk(c.id, c.file !== undefined ? reader.pieces(c.file) : c.pieces(), c.path, c.memoryMapped);
      c.written?.(hash);
      done(1, c.size);
    }
    // Every chunk is placed: this thread makes the TOC's layout while the workers copy the last segments.
    if (copying) {
      placed?.();
      writer.layoutAhead();
    }
    await copying?.finish();
    return deflating?.threads ?? copying?.threads ?? pool?.size ?? 0;
  } finally {
    deflating?.close();
    await copying?.close();
    await pool?.close();
  }
}

/** The companion .pak with the folder's non-package files, stored (as UnrealPak stages small files by default). */
async function writeCompanionFiles(tmpPath: string, pak: CompanionPakSettings, files: readonly ModLooseFile[], shownAs: string): Promise<void> {
  const inputs = [];
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const size = (await stat(f.file).catch((e) => { throw ioError(e, f.file); })).size;
    inputs.push({ path: f.path, size, read: () => readPieces(f.file) });
  }
  const sink = await tempSink(tmpPath, shownAs);
  try {
    await writePak(sink, inputs, { version: pak.version, mountPoint: pak.mountPoint });
  } finally {
    await sink.close();
  }
}

/**
 * Worker threads for the chunks a worker can encode (whole files of up to 16 MiB), or none. By default none when
 * blocks are stored: this thread reads, hashes and writes files as fast as workers handing it their blocks did
 * (30,000 files: 3.3-5.2 s on this thread, 5.4-6.8 s with two workers, which also took 35 MB more).
 */
function encodePoolFor(chunks: readonly PlannedChunk[], settings: ContainerWriterOptions, threads: number | undefined): EncodePool | undefined {
  if (!EncodePool.supports(settings.codec)) return undefined;
  if (threads === undefined && settings.codec === undefined) return undefined;
  // By default the main thread encodes its share too (see encodeAhead): one worker fewer than the pool's default,
  // each worker being ~25 MB.
  const n = threads ?? Math.max(0, defaultEncodeThreads(chunks.reduce((a, c) => a + (onWorker(c) ? c.size : 0), 0)) - 1);
  return n > 0 ? new EncodePool(n, threads === undefined) : undefined;
}

function onWorker(c: PlannedChunk): boolean {
  return c.file !== undefined && c.size <= MAX_WORKER_CHUNK;
}

/** Chunks encoded ahead of the writer: bounds both the chunks and the bytes in flight. */
const AHEAD_BYTES = 64 << 20;
/** A worker task takes consecutive chunks up to this many bytes (and BATCH_CHUNKS chunks): one message per batch. */
const BATCH_BYTES = 1 << 20;
const BATCH_CHUNKS = 256;

/**
 * Starts encoding the worker-eligible chunks a little ahead of the writer, which takes them in order: the output
 * is the same as encoding on this thread. Consecutive small chunks go to a worker together (a message each way per
 * chunk had cost more than compressing a small file). `take(k)` returns chunk k's encoding, or undefined for one the
 * writer encodes itself.
 */
function encodeAhead(pool: EncodePool, chunks: readonly PlannedChunk[], settings: ContainerWriterOptions) {
  const jobs = new Map<number, Promise<EncodedChunk>>();
  let next = 0;
  let bytes = 0;
  let batches = 0;
  let turn = 0;
  const made = settings.codec ? encoderSettings(settings.codec) : undefined;
  const fill = (from: number) => {
    while (next < chunks.length && batches < pool.size * 3 && (bytes < AHEAD_BYTES || jobs.size === 0) && next - from < pool.size * BATCH_CHUNKS * 3) {
      if (!onWorker(chunks[next]!)) {
        next++;
        continue;
      }
      const members: number[] = [];
      let size = 0;
      while (next < chunks.length && onWorker(chunks[next]!) && members.length < BATCH_CHUNKS && (size < BATCH_BYTES || members.length === 0)) {
        const c = chunks[next]!;
        if (members.length > 0 && size + c.size > BATCH_BYTES) break;
        members.push(next);
        size += c.size;
        next++;
      }
      // The main thread's turn: it encodes these itself when the writer takes them (it waits otherwise).
      if (pool.mainEncodes && turn++ % (pool.size + 1) === pool.size) continue;
      const task = pool.encode({ files: members.map((k) => ({ file: chunks[k]!.file!, memoryMapped: chunks[k]!.memoryMapped })), blockSize: settings.blockSize, codec: settings.codec?.name ?? null, ...(made ? { settings: made.settings } : {}), algorithm: settings.hashAlgorithm });
      batches++;
      const settled = task.finally(() => batches--);
      // Awaited in order later; until then a failure must not count as unhandled.
      settled.catch(() => {});
      members.forEach((k, j) => {
        const job = settled.then((r) => r[j]!);
        job.catch(() => {});
        jobs.set(k, job);
      });
      bytes += size;
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
