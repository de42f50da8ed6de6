import { ByteReader } from '../util/bytes.js';
import { ContainerFlags, EncryptionMethod, LATEST_TOC_VERSION, TocVersion } from './version.js';

export const TOC_MAGIC = '-==--==--==--==-';
export const TOC_HEADER_SIZE = 144;
export const COMPRESSION_BLOCK_ENTRY_SIZE = 12;
export const COMPRESSION_METHOD_NAME_LENGTH = 32;
/** PartitionSize of a container that is not split into `_sN.ucas` files. */
export const NO_PARTITION_SIZE = 0xffffffffffffffffn;
/**
 * Largest CompressionBlockSize a container can use: a block entry stores its uncompressed size in 3 bytes, so a
 * block holds at most 16 MiB - 1 bytes (engine containers use 64 KiB).
 */
export const MAX_COMPRESSION_BLOCK_SIZE = 1 << 24;

/** FIoStoreTocHeader (144 bytes). */
export interface TocHeader {
  version: number;
  entryCount: number;
  compressedBlockEntryCount: number;
  compressionMethodNameCount: number;
  compressionMethodNameLength: number;
  compressionBlockSize: number;
  directoryIndexSize: number;
  /** As stored; readers treat v<3 as 1. */
  partitionCount: number;
  containerId: bigint;
  /** 16 bytes (FGuid A, B, C, D as little-endian u32s). */
  encryptionKeyGuid: Uint8Array;
  containerFlags: number;
  /** Header byte 0x51 (TOC v10+); 0 before. */
  encryptionMethodByte: number;
  perfectHashSeedsCount: number;
  /** As stored; NO_PARTITION_SIZE when the container is one file. */
  partitionSize: bigint;
  chunksWithoutPerfectHashCount: number;
  /** TOC v9+. */
  sourceHashCount: number;
  /** TOC v10+: number of 12-byte AES-CTR nonces. */
  encryptionIvCount: number;
}

export function parseTocHeader(bytes: Uint8Array, source: string): TocHeader {
  const r = new ByteReader(bytes, source);
  if (bytes.length < TOC_HEADER_SIZE) {
    r.fail('TRUNCATED', `file is ${bytes.length} bytes, shorter than the ${TOC_HEADER_SIZE}-byte TOC header`, 0);
  }
  for (let i = 0; i < 16; i++) {
    if (bytes[i] !== TOC_MAGIC.charCodeAt(i)) r.fail('BAD_MAGIC', `not a .utoc file: expected magic "${TOC_MAGIC}"`, 0);
  }
  r.pos = 0x10;
  const version = r.u8();
  if (version === TocVersion.Invalid || version > LATEST_TOC_VERSION) {
    r.fail('UNSUPPORTED', `TOC version ${version} is not supported (1 to ${LATEST_TOC_VERSION})`, 0x10);
  }
  r.pos = 0x14;
  const headerSize = r.u32();
  if (headerSize !== TOC_HEADER_SIZE) r.fail('BAD_VALUE', `header size is ${headerSize}, expected ${TOC_HEADER_SIZE}`, 0x14);
  const entryCount = r.u32();
  const compressedBlockEntryCount = r.u32();
  const blockEntrySize = r.u32();
  if (blockEntrySize !== COMPRESSION_BLOCK_ENTRY_SIZE) {
    r.fail('BAD_VALUE', `compression block entry size is ${blockEntrySize}, expected ${COMPRESSION_BLOCK_ENTRY_SIZE}`, 0x20);
  }
  const compressionMethodNameCount = r.u32();
  const compressionMethodNameLength = r.u32();
  if (compressionMethodNameCount > 0 && (compressionMethodNameLength === 0 || compressionMethodNameLength > 1024)) {
    r.fail('BAD_VALUE', `compression method name length is ${compressionMethodNameLength}, expected 32`, 0x28);
  }
  const compressionBlockSize = r.u32();
  if (compressedBlockEntryCount > 0 && compressionBlockSize === 0) {
    r.fail('BAD_VALUE', 'compression block size is 0 but the container has blocks', 0x2c);
  }
  if (compressedBlockEntryCount > 0 && compressionBlockSize > MAX_COMPRESSION_BLOCK_SIZE) {
    r.fail('BAD_VALUE', `compression block size ${compressionBlockSize} is larger than a block can hold (${MAX_COMPRESSION_BLOCK_SIZE} bytes)`, 0x2c);
  }
  const directoryIndexSize = r.u32();
  const partitionCount = r.u32();
  // The engine opens a new .ucas partition only for a block that does not fit the last one: each holds a block.
  if (version >= TocVersion.PartitionSize && partitionCount > Math.max(1, compressedBlockEntryCount)) {
    r.fail('BAD_VALUE', `partition count ${partitionCount} is more than the container's ${compressedBlockEntryCount} compression block(s) can fill`, 0x34);
  }
  const containerId = r.u64();
  const encryptionKeyGuid = bytes.slice(0x40, 0x50);
  r.pos = 0x50;
  const containerFlags = r.u8();
  const reserved3 = r.u8();
  r.pos = 0x54;
  const perfectHashSeedsCount = r.u32();
  const partitionSize = r.u64();
  const chunksWithoutPerfectHashCount = r.u32();
  const reserved7 = r.u32();
  const reserved8 = r.u32();
  return {
    version,
    entryCount,
    compressedBlockEntryCount,
    compressionMethodNameCount,
    compressionMethodNameLength,
    compressionBlockSize,
    directoryIndexSize,
    partitionCount,
    containerId,
    encryptionKeyGuid,
    containerFlags,
    encryptionMethodByte: version >= TocVersion.ContainerEncryptionMethod ? reserved3 : 0,
    perfectHashSeedsCount: version >= TocVersion.PerfectHash ? perfectHashSeedsCount : 0,
    partitionSize,
    chunksWithoutPerfectHashCount: version >= TocVersion.PerfectHashWithOverflow ? chunksWithoutPerfectHashCount : 0,
    sourceHashCount: version >= TocVersion.AddedSourceHashes ? reserved7 : 0,
    encryptionIvCount: version >= TocVersion.ContainerEncryptionMethod ? reserved8 : 0,
  };
}

/** How the blocks and the directory index are encrypted, from the flags and (v10+) the method byte. */
export function effectiveEncryption(h: TocHeader): number {
  if ((h.containerFlags & ContainerFlags.Encrypted) === 0) return EncryptionMethod.None;
  if (h.version >= TocVersion.ContainerEncryptionMethod && h.encryptionMethodByte !== 0) return h.encryptionMethodByte;
  return EncryptionMethod.AesEcb;
}

export function serializeTocHeader(h: TocHeader): Uint8Array {
  const out = new Uint8Array(TOC_HEADER_SIZE);
  const v = new DataView(out.buffer);
  for (let i = 0; i < 16; i++) out[i] = TOC_MAGIC.charCodeAt(i);
  v.setUint8(0x10, h.version);
  v.setUint32(0x14, TOC_HEADER_SIZE, true);
  v.setUint32(0x18, h.entryCount, true);
  v.setUint32(0x1c, h.compressedBlockEntryCount, true);
  v.setUint32(0x20, COMPRESSION_BLOCK_ENTRY_SIZE, true);
  v.setUint32(0x24, h.compressionMethodNameCount, true);
  v.setUint32(0x28, h.compressionMethodNameLength, true);
  v.setUint32(0x2c, h.compressionBlockSize, true);
  v.setUint32(0x30, h.directoryIndexSize, true);
  v.setUint32(0x34, h.partitionCount, true);
  v.setBigUint64(0x38, h.containerId, true);
  out.set(h.encryptionKeyGuid.subarray(0, 16), 0x40);
  v.setUint8(0x50, h.containerFlags);
  v.setUint8(0x51, h.version >= TocVersion.ContainerEncryptionMethod ? h.encryptionMethodByte : 0);
  v.setUint32(0x54, h.perfectHashSeedsCount, true);
  v.setBigUint64(0x58, h.partitionSize, true);
  v.setUint32(0x60, h.chunksWithoutPerfectHashCount, true);
  v.setUint32(0x64, h.version >= TocVersion.AddedSourceHashes ? h.sourceHashCount : 0, true);
  v.setUint32(0x68, h.version >= TocVersion.ContainerEncryptionMethod ? h.encryptionIvCount : 0, true);
  return out;
}

export function guidHex(g: Uint8Array): string {
  // FGuid prints as four 8-digit groups of its u32s.
  const v = new DataView(g.buffer, g.byteOffset, 16);
  return [0, 4, 8, 12].map((o) => v.getUint32(o, true).toString(16).toUpperCase().padStart(8, '0')).join('');
}

