/** Unpacking containers to a folder: mount order, keys, safe atomic output, the manifest `pack` reads. */
export { unpack } from './unpack.js';
export { openContainer } from '../mount/open.js';
export type { OpenContainerOptions } from '../mount/open.js';
export { chunkOutputPath, unnamedChunkPath, UNNAMED_CHUNKS_FOLDER } from '../layout/unnamed.js';
export type { UnpackOptions, UnpackProgress, UnpackResult, UnpackFailure } from './unpack.js';
export { PlannedChunks } from './chunk-plan.js';
export type { PlannedChunk } from './chunk-plan.js';
export { discoverContainers, discoverMounts, containerPriority, mountEntry, pakMountEntry } from '../mount/mount.js';
export type { MountEntry, PakMountEntry } from '../mount/mount.js';
export { KeyRing } from '../mount/keys.js';
export { safeOutputPath, writeFileAtomic } from '../layout/output.js';
export type { AtomicWriteOptions } from '../layout/output.js';
export { MANIFEST_NAME, MANIFEST_VERSION } from '../layout/manifest.js';
export type { Manifest, ManifestContainer, ManifestChunk, ManifestPak, ManifestPakFile } from '../layout/manifest.js';
