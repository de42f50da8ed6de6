/** Unpacking containers to a folder: mount order, keys, safe atomic output, the manifest `pack` reads. */
export { unpack, openContainer, unnamedChunkPath } from './unpack.js';
export type { UnpackOptions, UnpackProgress, UnpackResult, UnpackFailure, PlannedChunk } from './unpack.js';
export { discoverContainers, discoverMounts, containerPriority, mountEntry, pakMountEntry } from './mount.js';
export type { MountEntry, PakMountEntry } from './mount.js';
export { KeyRing } from './keys.js';
export { safeOutputPath, writeFileAtomic } from './output.js';
export type { AtomicWriteOptions } from './output.js';
export { ChunkPool, defaultThreads } from './chunk-pool.js';
export type { ChunkTask, ChunkOutcome, WorkerSetup } from './chunk-pool.js';
export { MANIFEST_NAME, MANIFEST_VERSION } from './manifest.js';
export type { Manifest, ManifestContainer, ManifestChunk, ManifestPak, ManifestPakFile } from './manifest.js';
