import { IoStoreError } from '../errors.js';
import type { ChunkHashAlgorithm } from '../hash/chunk-hash.js';
import { containerIdFromName } from '../hash/names.js';
import { generationFromTocVersion } from '../toc/engine.js';
import { TocVersion } from '../toc/version.js';
import { ContainerWriter, memorySink } from './container-writer.js';

export { padBlock } from './container-writer.js';

export interface BuildChunk {
  /** The 12-byte FIoChunkId. */
  id: Uint8Array;
  data: Uint8Array;
  /** Path below the mount point for the directory index; unnamed chunks (container header ...) have none. */
  path?: string;
}

/** A block codec for the writer: returns the compressed bytes; a result no smaller than the input stores it raw. */
export interface BlockCompressor {
  /** Method name as written into the TOC (`Zlib`, `LZ4` ...). */
  name: string;
  compress(block: Uint8Array): Uint8Array;
}

export interface BuildOptions {
  /** Container base name (`pakchunk0-Windows`); its CityHash64 is the container id unless one is given. */
  name: string;
  containerId?: bigint;
  version?: number;
  mountPoint?: string;
  blockSize?: number;
  compressor?: BlockCompressor;
  /** Seeds for the engine's chunk lookup (TOC v4+); default on where the version supports them. */
  perfectHash?: boolean;
  hashAlgorithm?: ChunkHashAlgorithm;
}

/**
 * Builds a small container in memory, with no file system: the same writer as `pack`, its one partition collected
 * in a buffer. For tests, browsers and generated samples; `pack` streams to files.
 */
export async function buildContainer(chunks: readonly BuildChunk[], o: BuildOptions): Promise<{ utoc: Uint8Array; ucas: Uint8Array }> {
  const version = o.version ?? TocVersion.ReplaceIoChunkHashWithIoHash;
  const sink = memorySink();
  let opened = false;
  const writer = await ContainerWriter.create(async () => {
    if (opened) throw new IoStoreError('USAGE', 'buildContainer writes one partition');
    opened = true;
    return sink;
  }, {
    version,
    containerId: o.containerId ?? containerIdFromName(o.name),
    blockSize: o.blockSize ?? 0x10000,
    ...(o.compressor ? { codec: o.compressor } : {}),
    hashAlgorithm: o.hashAlgorithm ?? (generationFromTocVersion(version) === 'UE4' ? 'sha1' : 'blake3'),
    mountPoint: o.mountPoint ?? '../../../',
    perfectHash: o.perfectHash ?? version >= TocVersion.PerfectHashWithOverflow,
  });
  for (const c of chunks) await writer.addChunk(c.id, [c.data], c.path);
  const { utoc } = await writer.finish();
  return { utoc, ucas: sink.bytes() };
}
