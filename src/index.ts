/**
 * iostore-toolkit: read, unpack, verify and rebuild Unreal Engine IoStore containers.
 * Library code never prints or exits: it returns values or throws IoStoreError.
 */
export { IoStoreError, isIoStoreError } from './errors.js';
export type { IoStoreErrorCode } from './errors.js';
export * from './toc/index.js';
export { cityHash64 } from './hash/cityhash.js';
export { packageIdFromName, containerIdFromName, utf16leBytes, lowerAscii } from './hash/names.js';
export { parseAesKey, aesEcbDecrypt, aesEcbEncrypt, aesCtrCrypt } from './crypto/aes.js';
export { toHex, fromHex } from './util/bytes.js';
export * from './codecs/index.js';
export * from './cas/index.js';
export * from './unpack/index.js';
export * from './verify/index.js';
export { createChunkHasher, chunkHash, blake3Backend } from './hash/chunk-hash.js';
export type { ChunkHasher, ChunkHashAlgorithm, Blake3Backend } from './hash/chunk-hash.js';
export { packFolder } from './pack/pack.js';
export type { PackOptions, PackResult } from './pack/pack.js';
export { packPak } from './pack/pak-pack.js';
export type { PakPackOptions, PakPackResult } from './pack/pak-pack.js';
export { toZen } from './pack/to-zen.js';
export type { ToZenOptions, ToZenResult } from './pack/to-zen.js';
export { ContainerWriter } from './pack/container-writer.js';
export type { ContainerWriterOptions } from './pack/container-writer.js';
export { buildContainer, padBlock } from './pack/container-builder.js';
export type { BuildChunk, BuildOptions, BlockCompressor } from './pack/container-builder.js';
export { inferBlockAlignment, alignedChunkStart } from './toc/block-alignment.js';
export * from './zen/index.js';
export * from './inspect/index.js';
export * from './pak/index.js';
export * from './classic/index.js';
export * from './locres/index.js';
export * from './legacy/index.js';
export * from './convert/index.js';
export * from './shaders/index.js';
export * from './usmap/index.js';
export * from './props/index.js';
