import { IoStoreError } from '../errors.js';
import { chunkHash, type ChunkHashAlgorithm } from '../hash/chunk-hash.js';
import { containerIdFromName } from '../hash/names.js';
import { align } from '../util/bytes.js';
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import { buildDirectoryIndex, concatBytes, serializeDirectoryIndex, type DirectoryFile } from '../toc/directory-index.js';
import { generationFromTocVersion } from '../toc/engine.js';
import { NO_PARTITION_SIZE, type TocHeader } from '../toc/header.js';
import { buildPerfectHash } from '../toc/perfect-hash.js';
import { serializeToc } from '../toc/write.js';
import { BlockTable } from '../toc/compression-blocks.js';
import { ContainerFlags, TocVersion } from '../toc/version.js';

export interface BuildChunk {
  /** The 12-byte FIoChunkId. */
  id: Uint8Array;
  data: Uint8Array;
  /** Path below the mount point for the directory index; unnamed chunks (container header ...) have none. */
  path?: string;
}

/** A block codec for the writer: returns the compressed bytes, or undefined to store the block raw. */
export interface BlockCompressor {
  /** Method name as written into the TOC (`Zlib`, `LZ4` ...). */
  name: string;
  compress(block: Uint8Array): Uint8Array | undefined;
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
 * Lays out a small container in memory: each chunk starts on a block boundary of the uncompressed address space;
 * blocks are stored back to back, each padded to 16 bytes by repeating its own bytes as the engine does.
 * Streaming packing of large inputs builds on the same layout rules.
 */
export async function buildContainer(chunks: readonly BuildChunk[], o: BuildOptions): Promise<{ utoc: Uint8Array; ucas: Uint8Array }> {
  const version = o.version ?? TocVersion.ReplaceIoChunkHashWithIoHash;
  const blockSize = o.blockSize ?? 0x10000;
  if (blockSize <= 0 || blockSize > 0xffffff) throw new IoStoreError('USAGE', `block size ${blockSize} is out of range`);
  const hashAlgorithm = o.hashAlgorithm ?? (generationFromTocVersion(version) === 'UE4' ? 'sha1' : 'blake3');
  for (const c of chunks) if (c.id.length !== CHUNK_ID_SIZE) throw new IoStoreError('USAGE', 'a chunk id must be 12 bytes');

  let order = chunks.map((_, i) => i);
  let seeds: Int32Array = new Int32Array(0);
  let overflow: Int32Array = new Int32Array(0);
  if ((o.perfectHash ?? version >= TocVersion.PerfectHashWithOverflow) && version >= TocVersion.PerfectHash) {
    const layout = buildPerfectHash(chunks.map((c) => c.id));
    if (version < TocVersion.PerfectHashWithOverflow && layout.overflow.length > 0) {
      throw new IoStoreError('UNSUPPORTED', `TOC v${version} has no overflow list and the perfect hash could not place every chunk`);
    }
    order = Array.from(layout.slotToInput);
    seeds = layout.seeds;
    overflow = layout.overflow;
  }

  const n = chunks.length;
  const chunkIds = new Uint8Array(n * CHUNK_ID_SIZE);
  const chunkOffsets = new Float64Array(n);
  const chunkLengths = new Float64Array(n);
  const metaHashes = new Uint8Array(n * 20);
  const metaFlags = new Uint8Array(n);
  const blockRows: Array<[number, number, number, number]> = [];
  const stored: Uint8Array[] = [];
  const methods = ['None'];
  let virtualOffset = 0;
  let diskOffset = 0;
  const files: DirectoryFile[] = [];

  for (let slot = 0; slot < n; slot++) {
    const c = chunks[order[slot]!]!;
    chunkIds.set(c.id, slot * CHUNK_ID_SIZE);
    chunkOffsets[slot] = virtualOffset;
    chunkLengths[slot] = c.data.length;
    metaHashes.set(await chunkHash(hashAlgorithm, c.data), slot * 20);
    if (c.path !== undefined) files.push({ path: c.path, tocIndex: slot });
    for (let p = 0; p < c.data.length; p += blockSize) {
      const raw = c.data.subarray(p, Math.min(p + blockSize, c.data.length));
      const packed = o.compressor?.compress(raw);
      let method = 0;
      let payload = raw;
      if (packed && packed.length < raw.length) {
        let m = methods.indexOf(o.compressor!.name);
        if (m < 0) m = methods.push(o.compressor!.name) - 1;
        method = m;
        payload = packed;
        metaFlags[slot]! |= 1;
      }
      blockRows.push([diskOffset, payload.length, raw.length, method]);
      const padded = padBlock(payload);
      stored.push(padded);
      diskOffset += padded.length;
    }
    virtualOffset = align(virtualOffset + c.data.length, blockSize);
  }

  const b = blockRows.length;
  const blocks = BlockTable.fromEntries(blockRows.map(([offset, compressedSize, uncompressedSize, method]) => ({ offset, compressedSize, uncompressedSize, method })));
  const directoryIndexBytes = files.length > 0 ? serializeDirectoryIndex(buildDirectoryIndex(o.mountPoint ?? '../../../', files)) : new Uint8Array(0);
  let flags = 0;
  if (files.length > 0) flags |= ContainerFlags.Indexed;
  if (methods.length > 1) flags |= ContainerFlags.Compressed;
  const header: TocHeader = {
    version,
    entryCount: n,
    compressedBlockEntryCount: b,
    compressionMethodNameCount: methods.length - 1,
    compressionMethodNameLength: 32,
    compressionBlockSize: blockSize,
    directoryIndexSize: directoryIndexBytes.length,
    partitionCount: n > 0 ? 1 : 0,
    containerId: o.containerId ?? containerIdFromName(o.name),
    encryptionKeyGuid: new Uint8Array(16),
    containerFlags: flags,
    encryptionMethodByte: 0,
    perfectHashSeedsCount: seeds.length,
    partitionSize: NO_PARTITION_SIZE,
    chunksWithoutPerfectHashCount: overflow.length,
    sourceHashCount: 0,
    encryptionIvCount: 0,
  };
  const utoc = serializeToc({
    header, chunkIds, chunkOffsets, chunkLengths, perfectHashSeeds: seeds, chunksWithoutPerfectHash: overflow, blocks,
    encryptionIvs: new Uint8Array(0), compressionMethods: methods, signatures: null, directoryIndexBytes,
    metaHashes, metaHashSize: 20, metaFlags, onDemandHashes: null, sourceHashes: null,
  });
  return { utoc, ucas: concatBytes(stored) };
}

/** Pads a stored block to 16 bytes with its own bytes from the start (the engine's rule, encrypted or not). */
export function padBlock(payload: Uint8Array): Uint8Array {
  const size = align(payload.length, 16);
  if (size === payload.length) return payload;
  const out = new Uint8Array(size);
  out.set(payload);
  for (let i = payload.length; i < size; i++) out[i] = payload[(i - payload.length) % payload.length]!;
  return out;
}
