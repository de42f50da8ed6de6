/**
 * Unreal `.pak` files: a reader for the footer and index of versions 1 to 15, data access for uncompressed
 * entries (and raw blocks of compressed ones), and a writer for the companion pak an IoStore container needs.
 */
export { readPak } from './read.js';
export type { PakEntry, PakFile, ReadPakOptions } from './read.js';
export { readPakEntryData, readPakEntryBlocks, readPakEntryHeader } from './data.js';
export type { PakDataOptions } from './data.js';
export { writeCompanionPak } from './write.js';
export type { CompanionPakFile, CompanionPakOptions } from './write.js';
export { readPakFooter, writePakFooter, pakFooterSize, PakEncryptionMethod } from './footer.js';
export type { PakFooter, PakFooterInit, PakIndexIvs } from './footer.js';
export type { PakBlock, PakEntryRecord } from './entry.js';
export { pakPathHash, pakFnv64 } from './path-hash.js';
export { isSafePakPath, assertSafePakPath, unsafePakPathReason, pakMountRelative } from './safe-path.js';
export {
  PAK_MAGIC,
  PAK_VERSION_LATEST,
  PAK_VERSION_MIN,
  PakVersion,
  pakVersionName,
  pakVersionForEngine,
  ENGINE_PAK_VERSIONS,
} from './version.js';
export type { EnginePakVersion, PakVersionNumber } from './version.js';
export { PakArchive, bytesSource as pakBytesSource } from './archive.js';
export type { PakByteSource, OpenPakOptions, PakEntryCheck } from './archive.js';
export { openPakFile, fileSource as pakFileSource } from './pak-file.js';
export { listPakFiles, pakInfo } from './listing.js';
export type { PakFileRow, PakListQuery, PakInfo } from './listing.js';
export { writePak, writePakBytes, memorySink, keepInPrunedIndexDefault } from './pak-writer.js';
export type { PakSink, PakInputFile, PakWriterOptions, PakWriteResult } from './pak-writer.js';
