/** Reading chunk data from .ucas partitions: sources, block cache, the container reader. */
export { ContainerReader } from './container-reader.js';
export type { ContainerReaderOptions } from './container-reader.js';
export { bytesSource, fileSource, partitionPaths } from './source.js';
export type { RandomAccessSource } from './source.js';
export { BlockCache } from './block-cache.js';
export { DecodePool } from './decode-pool.js';
