import type { IoStoreToc } from '../toc/toc.js';
import { inferBlockAlignment } from '../toc/block-alignment.js';
import { containerTraits, type ContainerTraits } from '../toc/listing.js';
import { tocVersionName } from '../toc/version.js';
import { chunkOutputPath } from './unnamed.js';

export const MANIFEST_NAME = 'iostore-manifest.json';
export const MANIFEST_VERSION = 1;

/** One chunk as `pack` needs it to rebuild the container faithfully. */
export interface ManifestChunk {
  id: string;
  type: string;
  /** Output file, relative to the unpack folder, `/`-separated. */
  path: string;
  /** Directory-index path below the mount point, when the chunk is named. */
  tocPath?: string;
  /** TOC index in the source container. */
  order: number;
  size: number;
  hash: string;
  /** Meta flags (1 Compressed, 2 MemoryMapped). */
  flags: number;
  /** The compression method of its compressed blocks, or None. */
  compression: string;
  /** Indices (within the chunk) of blocks stored raw although the chunk is compressed. */
  rawBlocks?: number[];
  /** Offset of the chunk in the uncompressed address space, and of its first block in the .ucas space. */
  offset: number;
  ucasOffset: number | null;
  /** Set when a higher-priority container supplied the chunk id; the file then holds that container's data. */
  overriddenBy?: string;
}

export interface ManifestContainer extends ContainerTraits {
  name: string;
  utoc: string;
  priority: number;
  tocVersion: number;
  tocVersionName: string;
  engineGeneration: string;
  perfectHash: boolean;
  /** The perfect-hash table, so an unchanged chunk set repacks to the same TOC order. */
  perfectHashSeeds: number[];
  chunksWithoutPerfectHash: number[];
  /** The engine's CompressionBlockAlignment inferred from chunk placement (null when it could not be). */
  compressionBlockAlignment: number | null;
  chunks: ManifestChunk[];
}

/** One file of a `.pak`, as `pack` needs it to rebuild the pak. */
export interface ManifestPakFile {
  /** Output file, relative to the unpack folder, `/`-separated (mount point folder + pak path). */
  path: string;
  /** Path below the pak's mount point, as its index names it. */
  pakPath: string;
  size: number;
  storedSize: number;
  compression: string;
  encrypted: boolean;
  /** Uncompressed bytes per compression block (0 when stored). */
  blockSize: number;
  /** Hex SHA-1 of the stored bytes the pak records ('' when none). */
  hash: string;
  /** Set when a higher-priority pak (or a container) supplied the same output path. */
  overriddenBy?: string;
}

export interface ManifestPak {
  name: string;
  pak: string;
  priority: number;
  version: number;
  versionName: string;
  mountPoint: string;
  encryptedIndex: boolean;
  encryptionKeyGuid: string;
  compressionMethods: string[];
  /** Name slots in the footer (v8: 4 for UE 4.22, 5 after). */
  compressionSlots: number;
  /** v10+: the path-hash seed, as a decimal string (a u64). */
  pathHashSeed: string | null;
  /** Paths a patch pak deletes from lower paks. */
  deleted: string[];
  files: ManifestPakFile[];
}

export interface Manifest {
  tool: 'iostore-toolkit';
  manifestVersion: number;
  containers: ManifestContainer[];
  /** The `.pak` archives unpacked beside the containers (absent when there were none). */
  paks?: ManifestPak[];
}

/**
 * A container's manifest entry without its chunks. `lazyAlignment`: its compressionBlockAlignment (a replay of every
 * chunk's placement) is worked out when first read, not now: unpack makes the entry before its workers get their
 * chunks, and reads it while they write them.
 */
export function manifestContainer(toc: IoStoreToc, name: string, priority: number, o: { lazyAlignment?: boolean } = {}): Omit<ManifestContainer, 'chunks'> {
  const entry = manifestContainerHead(toc, name, priority, o.lazyAlignment ? null : (inferBlockAlignment(toc) ?? null));
  if (o.lazyAlignment) {
    // Redefined in place (the same position among the members, so the same JSON text) once worked out.
    Object.defineProperty(entry, 'compressionBlockAlignment', {
      enumerable: true,
      configurable: true,
      get() {
        const value = inferBlockAlignment(toc) ?? null;
        Object.defineProperty(entry, 'compressionBlockAlignment', { value, enumerable: true, writable: true, configurable: true });
        return value;
      },
    });
  }
  return entry;
}

function manifestContainerHead(toc: IoStoreToc, name: string, priority: number, alignment: number | null): Omit<ManifestContainer, 'chunks'> {
  return {
    name,
    utoc: toc.source,
    priority,
    tocVersion: toc.header.version,
    tocVersionName: tocVersionName(toc.header.version),
    engineGeneration: toc.generation,
    ...containerTraits(toc),
    perfectHash: toc.perfectHashSeeds.length > 0,
    perfectHashSeeds: Array.from(toc.perfectHashSeeds),
    chunksWithoutPerfectHash: Array.from(toc.chunksWithoutPerfectHash),
    compressionBlockAlignment: alignment,
  };
}

export function manifestChunk(toc: IoStoreToc, i: number, path: string): ManifestChunk {
  const first = toc.chunkFirstBlock(i);
  const count = toc.chunkBlockCount(i);
  let compression = 'None';
  const rawBlocks: number[] = [];
  for (let k = 0; k < count; k++) {
    const m = toc.blocks.method(first + k);
    if (m === 0) rawBlocks.push(k);
    else compression = toc.compressionMethods[m]!;
  }
  const c: ManifestChunk = {
    id: toc.chunkIdHex(i),
    type: toc.chunkTypeName(i),
    path,
    order: i,
    size: toc.chunkSize(i),
    hash: toc.chunkHashHex(i),
    flags: toc.chunkMetaFlags(i),
    compression,
    offset: toc.chunkOffset(i),
    ucasOffset: count > 0 ? toc.blocks.offset(first) : null,
  };
  const tocPath = toc.chunkPath(i);
  if (tocPath !== undefined) c.tocPath = tocPath;
  if (compression !== 'None' && rawBlocks.length > 0) c.rawBlocks = rawBlocks;
  return c;
}

/**
 * The text `JSON.stringify(entry, null, 1)` makes of manifestChunk's entry (with `overriddenBy` when given), each line
 * after the first led by `indent`, made without the object: a game's manifest has an entry per chunk, and the
 * objects made to be stringified (with their hex strings and arrays) were most of what writing it allocated.
 * `path` undefined: the chunk's own output path (chunkOutputPath), its directory-index path made and quoted once.
 */
export function manifestChunkJson(toc: IoStoreToc, i: number, path: string | undefined, overriddenBy: string | undefined, indent: string): string {
  const first = toc.chunkFirstBlock(i);
  const count = toc.chunkBlockCount(i);
  let compression = 'None';
  let raw = '';
  for (let k = 0; k < count; k++) {
    const m = toc.blocks.method(first + k);
    if (m === 0) raw += `${raw === '' ? '' : ','}\n${indent}  ${k}`;
    else compression = toc.compressionMethods[m]!;
  }
  const n = `,\n${indent} `;
  const tocPath = toc.chunkPath(i);
  const tocPathJson = tocPath === undefined ? undefined : JSON.stringify(tocPath);
  const pathJson = path === undefined ? (tocPathJson ?? JSON.stringify(chunkOutputPath(toc, i))) : JSON.stringify(path);
  return (
    `{\n${indent} "id": "${toc.chunkIdHex(i)}"${n}"type": ${JSON.stringify(toc.chunkTypeName(i))}${n}"path": ${pathJson}` +
    `${n}"order": ${i}${n}"size": ${toc.chunkSize(i)}${n}"hash": "${toc.chunkHashHex(i)}"${n}"flags": ${toc.chunkMetaFlags(i)}` +
    `${n}"compression": ${JSON.stringify(compression)}${n}"offset": ${toc.chunkOffset(i)}${n}"ucasOffset": ${count > 0 ? toc.blocks.offset(first) : 'null'}` +
    (tocPathJson !== undefined ? `${n}"tocPath": ${tocPathJson}` : '') +
    (compression !== 'None' && raw !== '' ? `${n}"rawBlocks": [${raw}\n${indent} ]` : '') +
    (overriddenBy !== undefined ? `${n}"overriddenBy": ${JSON.stringify(overriddenBy)}` : '') +
    `\n${indent}}`
  );
}
