import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Codec } from '../codecs/codec.js';
import { defaultCodecs } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import { containerIdFromName } from '../hash/names.js';
import { mountPointRelative } from '../toc/directory-index.js';
import { generationFromTocVersion } from '../toc/engine.js';
import { LATEST_TOC_VERSION } from '../toc/version.js';
import { ioError } from '../toc/read-file.js';
import { safeOutputPath } from '../unpack/output.js';
import type { ManifestContainer } from '../unpack/manifest.js';
import { ContainerWriter } from './container-writer.js';
import { pickContainer, readManifest } from './manifest-input.js';

export interface PackOptions {
  /** Which container of a multi-container unpack folder to rebuild. */
  container?: string;
  /** TOC version to write (default: the manifest's). */
  version?: number;
  /** `none`, `zlib`, `lz4`, ... (default: the manifest's method when this build can encode it, else none). */
  compression?: string;
  blockSize?: number;
  aesKey?: Uint8Array;
  partitionSize?: number;
  /** Overwrite the manifest's source container if the output is the same file. */
  force?: boolean;
  onProgress?: (p: { chunksDone: number; chunksTotal: number; bytesDone: number; bytesTotal: number }) => void;
}

export interface PackResult {
  utoc: string;
  ucas: string[];
  chunks: number;
  bytes: number;
  compression: string;
  version: number;
  warnings: string[];
}

/**
 * Rebuilds a container from a folder written by `unpack`: every chunk of the chosen container from its file, in the
 * original .ucas order, with the original settings unless overridden. Output files are written under temporary names
 * and renamed only when all are complete.
 */
export async function packFolder(folder: string, outUtoc: string, o: PackOptions = {}): Promise<PackResult> {
  if (!/\.utoc$/i.test(outUtoc)) throw new IoStoreError('USAGE', 'the output must be a .utoc path', { file: outUtoc });
  const manifest = await readManifest(folder);
  const c = pickContainer(manifest, o.container, folder);
  const warnings: string[] = [];
  const outName = basename(outUtoc).replace(/\.utoc$/i, '');
  const outBase = resolve(dirname(outUtoc), outName);
  if (!o.force && resolve(c.utoc).replace(/\.utoc$/i, '') === outBase) {
    throw new IoStoreError('USAGE', 'the output would overwrite the container this folder was unpacked from (pass --force to allow)', { file: outUtoc });
  }
  const version = o.version ?? c.tocVersion;
  if (!(version >= 1 && version <= LATEST_TOC_VERSION)) throw new IoStoreError('USAGE', `TOC version ${version} is not supported`);
  const codec = chooseCodec(c, o.compression, warnings);
  const containerId = containerIdFromName(outName);
  const generation = generationFromTocVersion(version);

  // Chunks in their original .ucas order (unnamed first-block-less chunks last), files checked before writing.
  const chunks = [...c.chunks].sort((a, b) => (a.ucasOffset ?? Infinity) - (b.ucasOffset ?? Infinity) || a.order - b.order);
  const inputs = new Set<string>();
  for (const ch of chunks) {
    const file = safeOutputPath(folder, ch.path);
    inputs.add(file);
    try {
      const st = await stat(file);
      if (!st.isFile()) throw new IoStoreError('BAD_VALUE', 'is not a file', { file });
    } catch (e) {
      throw e instanceof IoStoreError ? e : new IoStoreError('NOT_FOUND', `chunk ${ch.id} (${ch.type}) is listed in the manifest but its file is missing`, { file });
    }
    if (ch.overriddenBy) warnings.push(`${ch.path} holds ${ch.overriddenBy}'s version of chunk ${ch.id}`);
  }
  const finalPaths = [`${outBase}.utoc`, `${outBase}.ucas`];
  for (const p of finalPaths) if (inputs.has(resolve(p))) throw new IoStoreError('USAGE', 'the output would overwrite one of its own input files', { file: p });

  await mkdir(dirname(outBase), { recursive: true }).catch((e) => {
    throw ioError(e, dirname(outBase));
  });
  const tmp = (p: string) => `${p}.iostore-tmp`;
  const ucasName = (i: number) => (i === 0 ? `${outBase}.ucas` : `${outBase}_s${i}.ucas`);
  const mountPoint = c.mountPoint ?? '../../../';
  const prefix = mountPointRelative(mountPoint);
  const writer = await ContainerWriter.create((i) => tmp(ucasName(i)), {
    version,
    containerId,
    blockSize: o.blockSize ?? c.blockSize,
    ...(codec ? { codec } : {}),
    hashAlgorithm: generation === 'UE4' ? 'sha1' : 'blake3',
    ...(o.aesKey ? { aesKey: o.aesKey, encryptionKeyGuid: Buffer.from(c.encryptionKeyGuid ?? '0'.repeat(32), 'hex') } : {}),
    ...((o.partitionSize ?? c.partitionSize) ? { partitionSize: (o.partitionSize ?? c.partitionSize)! } : {}),
    ...(c.compressionBlockAlignment ? { compressionBlockAlignment: c.compressionBlockAlignment } : {}),
    mountPoint,
    perfectHash: c.perfectHash ?? true,
    ...(c.perfectHashSeeds && version === c.tocVersion
      ? { reuseLayout: { order: new Map(c.chunks.map((ch) => [ch.id, ch.order])), seeds: Int32Array.from(c.perfectHashSeeds), overflow: Int32Array.from(c.chunksWithoutPerfectHash ?? []) } }
      : {}),
  });
  const progress = { chunksDone: 0, chunksTotal: chunks.length, bytesDone: 0, bytesTotal: chunks.reduce((a, ch) => a + ch.size, 0) };
  let partitions = 0;
  try {
    for (const ch of chunks) {
      const file = safeOutputPath(folder, ch.path);
      const id = Buffer.from(ch.id, 'hex');
      const isHeader = ch.type === 'ContainerHeader';
      if (isHeader) new DataView(id.buffer, id.byteOffset).setBigUint64(0, containerId, true);
      let path: string | undefined;
      if (ch.tocPath !== undefined) {
        if (!ch.tocPath.startsWith(prefix)) throw new IoStoreError('BAD_VALUE', `chunk path "${ch.tocPath}" is not below the mount point "${mountPoint}"`, { file: folder });
        path = ch.tocPath.slice(prefix.length);
      }
      const data = isHeader ? withContainerId(file, containerId, c) : readPieces(file);
      await writer.addChunk(id, data, path, (ch.flags & 2) !== 0 || ch.type === 'MemoryMappedBulkData');
      progress.chunksDone++;
      progress.bytesDone += ch.size;
      o.onProgress?.({ ...progress });
    }
    const { utoc, partitions: n } = await writer.finish();
    partitions = n;
    await writeFile(tmp(`${outBase}.utoc`), utoc).catch((e) => {
      throw ioError(e, `${outBase}.utoc`);
    });
    for (let i = 0; i < n; i++) await rename(tmp(ucasName(i)), ucasName(i));
    await rename(tmp(`${outBase}.utoc`), `${outBase}.utoc`);
  } catch (e) {
    await writer.abort();
    for (let i = 0; i < 64; i++) await unlink(tmp(ucasName(i))).catch(() => {});
    await unlink(tmp(`${outBase}.utoc`)).catch(() => {});
    throw e;
  }
  return {
    utoc: `${outBase}.utoc`,
    ucas: Array.from({ length: partitions }, (_, i) => ucasName(i)),
    chunks: chunks.length,
    bytes: progress.bytesDone,
    compression: codec?.name ?? 'None',
    version,
    warnings,
  };
}

function chooseCodec(c: ManifestContainer, requested: string | undefined, warnings: string[]): Codec | undefined {
  const registry = defaultCodecs();
  const want = requested ?? c.chunks.find((ch) => ch.compression !== 'None')?.compression ?? 'None';
  if (want.toLowerCase() === 'none') return undefined;
  const codec = registry.get(want);
  if (codec?.compress) return codec;
  if (requested !== undefined) throw new IoStoreError('USAGE', `cannot compress with "${requested}" (this build encodes: ${registry.names().filter((n) => registry.get(n)?.compress && n !== 'None').join(', ')})`);
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

