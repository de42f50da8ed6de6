import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ContainerReader } from '../cas/container-reader.js';
import { fileSource, partitionPaths } from '../cas/source.js';
import { IoStoreError } from '../errors.js';
import type { ManifestChunk, ManifestContainer, ManifestPak } from '../layout/manifest.js';
import { safeInputPath } from '../layout/output.js';
import { UNNAMED_CHUNKS_FOLDER } from '../layout/unnamed.js';
import { pakMountRelative } from '../pak/safe-path.js';
import { chunkTypeFromName, encodeChunkId } from '../toc/chunk-id.js';
import { mountPointRelative } from '../toc/directory-index.js';
import { generationFromTocVersion, type EngineGeneration } from '../toc/engine.js';
import { ioError, readTocBytes } from '../toc/read-file.js';
import { readToc } from '../toc/toc.js';
import { quote } from '../util/quote.js';
import { parseContainerHeader, type ContainerHeaderVersionName } from '../zen/container-header.js';
import type { StoreEntry } from '../zen/store-entry.js';
import type { ContainerWriterOptions } from './container-writer.js';
import { surveyFolder, type FolderSurvey } from './folder-survey.js';
import { rebuiltHeader, type HeaderBase } from './manifest-header.js';
import { pickContainer, readManifest } from './manifest-input.js';
import { classifyModFiles, modFileAt, type ModFile, type ModLooseFile } from './mod-folder.js';
import { modChunks, readModPackages, type ModPackages } from './mod-packages.js';
import type { PackOptions } from './pack.js';
import { checkVersion, chooseCodec, encryption, headerVersionForToc, partitioning, requireFile, type CompanionFiles, type ContainerIdChoice } from './pack-settings.js';
import { mountFolderFor, mountPointAt, PackageRoots, placeByOwnNames } from './placement.js';
import { readPieces, type PlannedChunk } from './planned-chunk.js';
import { engineTarget } from './targets.js';
import { plural } from '../util/plural.js';
import { withoutExtension } from '../util/file-extension.js';

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

/**
 * Plans the rebuild of a container from a folder written by unpack: its manifest gives every chunk and setting, and
 * the folder says what it holds now (see FolderSurvey): the listed files, files added since, packages that changed
 * form. Files are checked before anything is written.
 */
export async function planManifest(folder: string, outBase: string, outName: string, chosen: ContainerIdChoice | undefined, o: PackOptions, warnings: string[]) {
  const manifest = await readManifest(folder);
  const c = pickContainer(manifest, o.container, folder, outName);
  const idChoice = manifestContainerId(c, outName, chosen, warnings, folder);
  const containerId = idChoice.id;
  if (!o.force && withoutExtension(resolve(c.utoc), '.utoc') === outBase) {
    throw new IoStoreError('USAGE', 'the output would overwrite the container this folder was unpacked from (pass --force to allow)', { file: `${outBase}.utoc` });
  }
  const target = o.engine !== undefined ? engineTarget(o.engine) : undefined;
  const version = checkVersion(o.version ?? target?.tocVersion ?? c.tocVersion);
  const gen = generationFromTocVersion(version);
  const encrypt = keptEncryption(c, o, folder);
  const codec = chooseCodec(o.compression, c.chunks.find((ch) => ch.compression !== 'None')?.compression, warnings, o);
  const companion = manifest.paks?.find((p) => p.name.toLowerCase() === `${c.name.toLowerCase()}.pak`);
  const survey = await surveyFolder(folder, manifest, c, companion);
  const header = await headerPlan(folder, c, survey, gen, version, target?.containerHeaderVersion, o, warnings);
  const { prefix, mountPoint } = manifestMountPoint(c, survey, header.extra, folder, warnings);
  const listed = listedChunks(folder, survey, prefix);
  const chunks = [...(await listed.chunks(warnings)), ...extraChunks(header.extra, listed, prefix, folder)];
  const last = header.chunk(containerId, listed, warnings);
  if (last) chunks.push(last);
  const settings: ContainerWriterOptions = {
    version,
    containerId,
    blockSize: o.blockSize ?? c.blockSize,
    ...(codec ? { codec } : {}),
    hashAlgorithm: gen === 'UE4' ? 'sha1' : 'blake3',
    ...encrypt,
    ...partitioning(o.partitionSize ?? c.partitionSize ?? undefined),
    ...(c.compressionBlockAlignment ? { compressionBlockAlignment: c.compressionBlockAlignment } : {}),
    mountPoint,
    ...(c.mountPoint !== null ? { indexWhenEmpty: true } : {}),
    perfectHash: c.perfectHash ?? true,
    // Used only when it places exactly the chunks written (see ContainerWriter): an unchanged chunk set.
    ...(c.perfectHashSeeds && version === c.tocVersion
      ? { reuseLayout: { order: new Map(c.chunks.map((ch) => [ch.id, ch.order])), seeds: Int32Array.from(c.perfectHashSeeds), overflow: Int32Array.from(c.chunksWithoutPerfectHash ?? []) } }
      : {}),
  };
  const pakFiles = companionFiles(folder, companion, header.extra.loose(), prefix, mountPoint, warnings);
  return { settings, chunks, packages: undefined, source: c.utoc, pakVersion: target?.pakVersion, pakFiles, containerId: idChoice };
}

/**
 * The container header of the rebuild and what it depends on: which packages are written (listed and extra), the
 * header to start from (see headerBase) and its version. A header is written when the container had one or packages
 * are written; `chunk` makes it, written last (edited packages are known once their chunks are).
 */
async function headerPlan(folder: string, c: ManifestContainer, survey: FolderSurvey, gen: EngineGeneration, version: number, targetVersion: ContainerHeaderVersionName | undefined, o: PackOptions, warnings: string[]) {
  const listedHeader = survey.listed.find((ch) => ch.type === 'ContainerHeader');
  const extra = await planExtraFiles(folder, survey, c, gen, o, warnings, () => headerVersion, () => base?.entries ?? new Map<bigint, StoreEntry>());
  const packageIds = [...survey.listed.filter((ch) => ch.type === 'ExportBundleData').map((ch) => packageIdOf(ch)), ...extra.packageIds];
  const needed = listedHeader !== undefined || packageIds.length > 0;
  const base = needed ? await headerBase(folder, c, listedHeader, o) : undefined;
  const headerVersion = base?.version ?? o.containerHeaderVersion ?? targetVersion ?? headerVersionForToc(version);
  if (needed && headerVersion === undefined) {
    throw new IoStoreError('USAGE', `the folder holds no container header (a partial unpack?) and ${c.utoc} is not at hand (or not readable without --aes-key) to read it from: pass --container-header-version`, { file: folder });
  }
  await extra.read();
  return {
    extra,
    chunk(containerId: bigint, listed: ReturnType<typeof listedChunks>, warnings: string[]): PlannedChunk | undefined {
      if (!needed) return undefined;
      const id = listedHeader ? Buffer.from(listedHeader.id, 'hex') : encodeChunkId({ id: containerId, index: 0, pad: 0, type: chunkTypeFromName('ContainerHeader', gen) }, gen);
      new DataView(id.buffer, id.byteOffset).setBigUint64(0, containerId, true);
      if (!base && listed.packageFiles.size > 0) warnings.push(`the container header is built from the packages' own headers (${c.utoc} is not at hand to give the engine's entries): shader-map hashes, which package headers do not hold, are left empty`);
      const changes = { version: headerVersion!, packed: new Set(packageIds), edited: listed.edited, added: extra.entries(), files: listed.packageFiles };
      return { id, size: base?.bytes.length ?? 0, pieces: () => rebuiltHeader(base, containerId, changes, warnings), memoryMapped: false, last: true, ...(base?.file ? { input: base.file } : {}) };
    },
  };
}

const packageIdOf = (ch: ManifestChunk): bigint => Buffer.from(ch.id, 'hex').readBigUInt64LE(0);

/** The container's own mount point, or the folder holding every file when added ones lie outside it. */
function manifestMountPoint(c: ManifestContainer, survey: FolderSurvey, extra: { paths(): string[] }, folder: string, warnings: string[]): { prefix: string; mountPoint: string } {
  const own = c.mountPoint ?? '../../../';
  const ownPrefix = mountPointRelative(own);
  for (const ch of survey.listed) {
    if (ch.tocPath !== undefined && !ch.tocPath.startsWith(ownPrefix)) throw new IoStoreError('BAD_VALUE', `chunk path ${quote(ch.tocPath)} is not below the mount point ${quote(own)}`, { file: folder });
  }
  const prefix = mountFolderFor([...survey.listed.flatMap((ch) => (ch.tocPath === undefined ? [] : [ch.tocPath])), ...extra.paths()], ownPrefix);
  if (prefix === ownPrefix) return { prefix, mountPoint: own };
  const mountPoint = mountPointAt(own, prefix);
  warnings.push(`mount point ${mountPoint}: files added to the folder lie outside the container's ${own}`);
  return { prefix, mountPoint };
}

/**
 * The listed chunks (the header aside) in their original .ucas order, from their files; `edited` fills as they are
 * written with the packages whose bytes differ from the manifest's hash, whose store entries are then rebuilt.
 */
function listedChunks(folder: string, survey: FolderSurvey, prefix: string) {
  const sorted = survey.listed.filter((ch) => ch.type !== 'ContainerHeader').sort((a, b) => (a.ucasOffset ?? Infinity) - (b.ucasOffset ?? Infinity) || a.order - b.order);
  const edited = new Map<bigint, string>();
  const packageFiles = new Map(sorted.flatMap((ch) => (ch.type === 'ExportBundleData' ? [[packageIdOf(ch), safeInputPath(folder, ch.path)] as const] : [])));
  return {
    edited,
    /** The file of each listed package, by package id. */
    packageFiles,
    /** Chunk id (hex) -> the path the manifest lists it at. */
    paths: new Map(sorted.map((ch) => [ch.id, ch.path])),
    async chunks(warnings: string[]): Promise<PlannedChunk[]> {
      const out: PlannedChunk[] = [];
      for (const ch of sorted) {
        const file = safeInputPath(folder, ch.path);
        // Edited files may have changed size since unpack: the file, not the manifest, says how big the chunk is now.
        const fileSize = await requireFile(file, `chunk ${ch.id} (${ch.type}) is listed in the manifest but its file is missing`);
        if (ch.overriddenBy) warnings.push(`${ch.path} holds ${ch.overriddenBy}'s version of chunk ${ch.id}`);
        const id = Buffer.from(ch.id, 'hex');
        out.push({
          id,
          size: fileSize,
          pieces: () => readPieces(file),
          ...(ch.tocPath !== undefined ? { path: ch.tocPath.slice(prefix.length) } : {}),
          memoryMapped: (ch.flags & 2) !== 0 || ch.type === 'MemoryMappedBulkData',
          input: file,
          file,
          ...(ch.type === 'ExportBundleData' ? { written: (h: Uint8Array) => void (Buffer.from(h).toString('hex') !== ch.hash && edited.set(packageIdOf(ch), file)) } : {}),
        });
      }
      return out;
    },
  };
}

/** The chunks of the files packed from their own contents; one with the id of a listed chunk is refused. */
function extraChunks(extra: Awaited<ReturnType<typeof planExtraFiles>>, listed: ReturnType<typeof listedChunks>, prefix: string, folder: string): PlannedChunk[] {
  const chunks = extra.chunks((p) => p.slice(prefix.length));
  for (const ch of chunks) {
    const key = Buffer.from(ch.id).toString('hex');
    const other = listed.paths.get(key);
    if (other !== undefined) throw new IoStoreError('BAD_VALUE', `${quote(extra.sourceOf(key) ?? ch.path ?? key)} and ${quote(other)} are one package (chunk id ${key}): remove one of them`, { file: folder });
  }
  return chunks;
}

/**
 * The encryption a rebuild keeps: the unpacked container's, with the key given; without one an encrypted
 * container is refused rather than written plain, unless `noEncrypt` says so.
 */
function keptEncryption(c: ManifestContainer, o: PackOptions, folder: string): Partial<ContainerWriterOptions> {
  if (o.noEncrypt && o.aesKey) throw new IoStoreError('USAGE', '--no-encrypt and --aes-key exclude each other');
  const was = c.encryption !== 'None' || (c.flagNames ?? []).includes('Encrypted');
  if (was && !o.aesKey && !o.noEncrypt) {
    throw new IoStoreError('USAGE', `the container was encrypted (key GUID ${c.encryptionKeyGuid}): give --aes-key, or --no-encrypt to write it plain`, { file: folder });
  }
  return encryption(o, c.encryptionKeyGuid);
}

/** The header a manifest pack starts from: the folder's header file, else the source container's header. */
async function headerBase(folder: string, c: ManifestContainer, listed: ManifestChunk | undefined, o: PackOptions): Promise<(HeaderBase & { version: ContainerHeaderVersionName; entries: Map<bigint, StoreEntry>; file?: string }) | undefined> {
  let bytes: Uint8Array | undefined;
  let source = '';
  let file: string | undefined;
  if (listed) {
    file = safeInputPath(folder, listed.path);
    await requireFile(file, `chunk ${listed.id} (${listed.type}) is listed in the manifest but its file is missing`);
    bytes = new Uint8Array(await readFile(file).catch((e) => { throw ioError(e, file!); }));
    source = file;
  } else {
    bytes = await sourceHeader(c, o);
    source = `${c.utoc} (container header)`;
  }
  if (!bytes) return undefined;
  const h = parseContainerHeader(bytes, { source });
  return { bytes, source, containerId: c.containerId, version: h.version, entries: new Map(h.packages.map((p) => [p.packageId, p])), ...(file ? { file } : {}) };
}

/** The container header of the container a folder was unpacked from, when it is still at hand. */
async function sourceHeader(c: ManifestContainer, o: PackOptions): Promise<Uint8Array | undefined> {
  if (!existsSync(c.utoc)) return undefined;
  try {
    const toc = readToc(await readTocBytes(c.utoc), { source: c.utoc, ...(o.aesKey ? { aesKey: o.aesKey } : {}) });
    const i = Array.from({ length: toc.chunkCount }, (_, k) => k).find((k) => toc.chunkTypeName(k) === 'ContainerHeader');
    const parts = partitionPaths(c.utoc, toc.partitionCount);
    if (i === undefined || !parts.every((p) => existsSync(p))) return undefined;
    const reader = new ContainerReader(toc, parts.map(fileSource), o.aesKey ? { aesKey: o.aesKey } : {});
    try {
      return await reader.readChunk(i);
    } finally {
      await reader.close();
    }
  } catch (e) {
    if (e instanceof IoStoreError) return undefined;
    throw e;
  }
}

/**
 * Files a manifest pack takes from their own contents (see FolderSurvey.extra): packages and shader libraries
 * become chunks with ids from their own names, filed where those names say; other files go into the companion pak.
 * Steps: classify now (so the header knows which packages come), `read` once the header's version and entries are
 * known, then `chunks`.
 */
async function planExtraFiles(
  folder: string,
  survey: FolderSurvey,
  c: ManifestContainer,
  gen: EngineGeneration,
  o: PackOptions,
  warnings: string[],
  headerVersion: () => ContainerHeaderVersionName | undefined,
  entries: () => ReadonlyMap<bigint, StoreEntry>,
) {
  const knownIds = new Set(c.chunks.map((ch) => Buffer.from(ch.id, 'hex').readBigUInt64LE(0)));
  const loose: ModLooseFile[] = [];
  const mod = classifyModFiles(survey.extra, '', gen, knownIds, loose);
  const code = new Map<string, ModFile>();
  const codePrefix = `${UNNAMED_CHUNKS_FOLDER}/ShaderCode/`;
  for (const rel of survey.unknownChunks) if (rel.startsWith(codePrefix) && rel.endsWith('.bin')) code.set(rel.slice(codePrefix.length, -4).toLowerCase(), modFileAt(join(folder, ...rel.split('/')), rel));
  const used = new Set<string>();
  const unpackedCode = { get: (id: string) => (used.add(id), code.get(id)) } as unknown as Map<string, ModFile>;
  let read: ModPackages | undefined;
  if (survey.extra.length > 0) {
    const names = survey.extra.map((f) => f.path);
    warnings.push(`packed ${plural(names.length, 'file')} the manifest does not list from their own contents (added since unpack, or packages now in legacy form): ${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`);
  }
  return {
    packageIds: mod.filter((m) => m.type === 'ExportBundleData').map((m) => m.packageId!),
    async read(): Promise<void> {
      if (mod.length > 0) {
        read = await readModPackages(mod, survey.extra, loose, { gen, headerVersion: headerVersion()!, entries: entries(), unpackedCode, ...(o.onConvert ? { onConvert: o.onConvert } : {}) }, warnings);
        placeByOwnNames(mod, read.ownNames, knownRoots(c, read.ownNames.values()), warnings);
      }
      const left = survey.unknownChunks.filter((rel) => !(rel.startsWith(codePrefix) && used.has(rel.slice(codePrefix.length, -4).toLowerCase())));
      if (left.length > 0) warnings.push(`left out ${plural(left.length, 'file')} under ${UNNAMED_CHUNKS_FOLDER}/ that the manifest does not list (no chunk id can be told for them): ${left.slice(0, 5).join(', ')}${left.length > 5 ? ` and ${left.length - 5} more` : ''}`);
      if (survey.absent.length > 0) {
        const a = survey.absent;
        warnings.push(`left out ${plural(a.length, 'chunk')} the manifest lists whose package came from another source without such a file: ${a.slice(0, 5).map((ch) => `${ch.path} (${ch.overriddenBy})`).join(', ')}${a.length > 5 ? ` and ${a.length - 5} more` : ''}`);
      }
    },
    /** Paths of the chunks (below the engine root), once read. */
    paths: (): string[] => [...mod.map((m) => m.path), ...(read?.shaderChunks.flatMap((ch) => (ch.path === undefined ? [] : [ch.path])) ?? [])],
    chunks: (below: (p: string) => string): PlannedChunk[] => (read ? modChunks(mod, read, below) : []),
    entries: () => read?.packages ?? [],
    loose: () => loose,
    /** The folder's file (relative path) a chunk of these comes from, by chunk id (hex). */
    sourceOf: (idHex: string): string | undefined => mod.find((m) => Buffer.from(m.id).toString('hex') === idHex)?.src.path,
  };
}

/** Package roots taught by the container's own packages (its chunk ids hash their names), for the names wanted. */
function knownRoots(c: ManifestContainer, names: Iterable<string>): PackageRoots {
  const roots = new PackageRoots();
  roots.learnFrom(
    (function* () {
      for (const ch of c.chunks) if (ch.type === 'ExportBundleData' && ch.tocPath !== undefined) yield { path: ch.tocPath, id: Buffer.from(ch.id, 'hex').readBigUInt64LE(0) };
    })(),
    names,
  );
  return roots;
}

/**
 * The companion pak's files: those of the container's own pak when the folder was unpacked with it, and files added
 * to the folder that only a pak holds; its mount point the pak's (else the container's), or the folder holding them all.
 */
function companionFiles(folder: string, companion: ManifestPak | undefined, added: readonly ModLooseFile[], prefix: string, mountPoint: string, warnings: string[]): CompanionFiles | undefined {
  const files = [...(companion?.files ?? []).map((f) => ({ file: join(folder, ...f.path.split('/')), path: f.path })), ...added];
  if (files.length === 0) return undefined;
  const ownMount = companion?.mountPoint ?? mountPoint;
  const own = companion ? pakMountRelative(companion.mountPoint) : prefix;
  const pakPrefix = mountFolderFor(files.map((f) => f.path), own);
  if (pakPrefix !== own && companion) warnings.push(`companion pak mount point ${mountPointAt(ownMount, pakPrefix)}: files added to the folder lie outside ${ownMount}`);
  return { mountPoint: pakPrefix === own ? ownMount : mountPointAt(ownMount, pakPrefix), files: files.map((f) => ({ file: f.file, path: f.path.slice(pakPrefix.length) })) };
}

