/** Reading chunk data from .ucas partitions: sources, block cache, the container reader. */
export { ContainerReader } from './container-reader.js';
export type { ContainerReaderOptions, ContainerOrigin } from './container-reader.js';
export { bytesSource, fileSource, fileSourceSync, partitionPaths } from './source.js';
export type { RandomAccessSource } from './source.js';
export { blobSource } from './blob-source.js';
export { BlockCache } from './block-cache.js';
