import { aesCtrCrypt, aesEcbDecrypt } from '../crypto/aes.js';
import { IoStoreError } from '../errors.js';
import { ByteReader } from '../util/bytes.js';
import { readFullEntry, type PakEntryRecord } from './entry.js';
import { PakEncryptionMethod } from './footer.js';
import { checkAesKey, sha1 } from './pak-crypto.js';
import type { PakEntry, PakFile } from './read.js';
import { quote } from '../util/quote.js';

export interface PakDataOptions {
  /** 32-byte AES-256 key for encrypted entries. */
  aesKey?: Uint8Array;
  /** Check the stored bytes against the SHA-1 in the in-place header (default true; unencrypted entries only). */
  verifyHash?: boolean;
}

const alignAes = (n: number) => Math.ceil(n / 16) * 16;

/**
 * Most bytes one compression block of a pak entry may decode to. Each block is decoded into a buffer of its declared
 * size, so the declaration alone would set the memory a read takes (a 1 MB pak can declare a 1 GiB block). UnrealPak
 * writes 64 KiB blocks (a few games 256 KiB or 1 MiB); a single-block entry declares the file's whole size.
 */
export const MAX_PAK_BLOCK_BYTES = 64 << 20;

/**
 * The uncompressed bytes each block of a compressed entry gives (the last one possibly fewer), checked before any
 * block is decoded: the blocks must be able to give the entry's size, and no block may declare more than
 * MAX_PAK_BLOCK_BYTES.
 */
export function pakBlockSize(entry: PakEntry, source: string): number {
  const blockSize = entry.compressionBlockSize || entry.uncompressedSize;
  const blocks = entry.blocks?.length ?? 0;
  const fail = (message: string): never => {
    throw new IoStoreError('BAD_VALUE', `${quote(entry.path)}: ${message}`, { file: source, offset: entry.offset });
  };
  if (blocks * blockSize < entry.uncompressedSize) fail(`${blocks} compression block(s) of ${blockSize} bytes cannot give its ${entry.uncompressedSize} bytes`);
  if (Math.min(blockSize, entry.uncompressedSize) > MAX_PAK_BLOCK_BYTES) {
    fail(`a compression block declares ${Math.min(blockSize, entry.uncompressedSize)} bytes, more than the ${MAX_PAK_BLOCK_BYTES >> 20} MiB a block may decode to`);
  }
  return blockSize;
}

/**
 * The in-place header the engine writes before each payload (a full FPakEntry, offset field 0). Its length is
 * where the payload starts; it must agree with the index or the pak is corrupt.
 */
export function readPakEntryHeader(bytes: Uint8Array, pak: PakFile, entry: PakEntry): { header: PakEntryRecord; dataOffset: number } {
  if (entry.offset >= bytes.length) {
    throw new IoStoreError('TRUNCATED', `entry ${quote(entry.path)} starts at ${entry.offset}, past the end of the ${bytes.length}-byte file`, { file: pak.source, offset: entry.offset });
  }
  const r = new ByteReader(bytes.subarray(entry.offset, pak.footer.offset), pak.source, entry.offset);
  const header = readFullEntry(r, pak.version, pak.footer.entryMethodWidth);
  if (header.size !== entry.size || header.uncompressedSize !== entry.uncompressedSize || header.compressionMethodIndex !== entry.compressionMethodIndex) {
    r.fail('BAD_VALUE', `in-place header of ${quote(entry.path)} (size ${header.size}, uncompressed ${header.uncompressedSize}, method ${header.compressionMethodIndex}) disagrees with the index (size ${entry.size}, uncompressed ${entry.uncompressedSize}, method ${entry.compressionMethodIndex})`, 0);
  }
  return { header, dataOffset: entry.offset + r.pos };
}

/**
 * Decrypts an entry's encryption unit (its payload, or the span of its blocks, each padded to 16 bytes). The
 * whole unit is decrypted at once: with ECB blocks are independent, and with CTR (v15) the counter runs from 0 at
 * the unit's first byte with the entry's IV, so decrypting from the start yields every block at its position.
 */
function decryptUnit(unit: Uint8Array, pak: PakFile, entry: PakEntry, opts: PakDataOptions, at: number): Uint8Array {
  if (!opts.aesKey) throw new IoStoreError('NEEDS_KEY', `entry ${quote(entry.path)} is encrypted; an AES key is needed`, { file: pak.source, offset: at });
  checkAesKey(opts.aesKey, pak.source, at);
  if (unit.length % 16 !== 0) {
    throw new IoStoreError('BAD_VALUE', `encrypted data of ${quote(entry.path)} is ${unit.length} bytes, not a multiple of the AES block size`, { file: pak.source, offset: at });
  }
  const method = pak.footer.encryptionMethod ?? PakEncryptionMethod.AesEcb;
  if (method === PakEncryptionMethod.AesEcb) return aesEcbDecrypt(opts.aesKey, unit);
  if (method === PakEncryptionMethod.AesCtr) {
    if (!entry.encryptionIv) throw new IoStoreError('BAD_VALUE', `AES-CTR entry ${quote(entry.path)} has no IV in the index`, { file: pak.source, offset: at });
    return aesCtrCrypt(opts.aesKey, entry.encryptionIv, unit);
  }
  throw new IoStoreError('UNSUPPORTED', `pak encryption method ${method} is not supported (1 = AES-ECB, 2 = AES-CTR)`, { file: pak.source, offset: at });
}

function slice(bytes: Uint8Array, pak: PakFile, at: number, len: number, what: string): Uint8Array {
  if (at + len > pak.footer.offset || at + len > bytes.length) {
    throw new IoStoreError('TRUNCATED', `${what} needs ${len} bytes at ${at} but the data ends at ${Math.min(pak.footer.offset, bytes.length)}`, { file: pak.source, offset: at });
  }
  return bytes.subarray(at, at + len);
}

/**
 * The bytes of an uncompressed entry (decrypted when it is encrypted and a key is given). Compressed
 * entries are refused; read their blocks with readPakEntryBlocks and decode them with the matching codec.
 */
export function readPakEntryData(bytes: Uint8Array, pak: PakFile, entry: PakEntry, opts: PakDataOptions = {}): Uint8Array {
  if (entry.compressionMethodIndex !== 0) {
    throw new IoStoreError('UNSUPPORTED', `entry ${quote(entry.path)} is compressed with ${quote(entry.compressionMethod)}; read its blocks with readPakEntryBlocks and decode them`, { file: pak.source, offset: entry.offset });
  }
  const { header, dataOffset } = readPakEntryHeader(bytes, pak, entry);
  const storedLen = entry.encrypted ? alignAes(entry.size) : entry.size;
  const stored = slice(bytes, pak, dataOffset, storedLen, `entry ${quote(entry.path)}`);
  if (!entry.encrypted && (opts.verifyHash ?? true) && header.hash && header.hash.some((b) => b !== 0)) {
    const actual = sha1(stored);
    if (!actual.every((b, i) => b === header.hash![i])) {
      throw new IoStoreError('HASH_MISMATCH', `entry ${quote(entry.path)} does not match the SHA-1 in its header`, { file: pak.source, offset: dataOffset });
    }
  }
  return entry.encrypted ? decryptUnit(stored, pak, entry, opts, dataOffset).subarray(0, entry.size) : stored;
}

/**
 * The stored blocks of a compressed entry, decrypted when encrypted, each trimmed to its own length:
 * feed each to the decoder named by `entry.compressionMethod`.
 */
export function readPakEntryBlocks(bytes: Uint8Array, pak: PakFile, entry: PakEntry, opts: PakDataOptions = {}): Uint8Array[] {
  if (entry.compressionMethodIndex === 0 || !entry.blocks) {
    throw new IoStoreError('USAGE', `entry ${quote(entry.path)} is not compressed; use readPakEntryData`, { file: pak.source, offset: entry.offset });
  }
  readPakEntryHeader(bytes, pak, entry);
  const blocks = entry.blocks;
  if (!entry.encrypted) return blocks.map((b, i) => slice(bytes, pak, b.start, b.end - b.start, `block ${i} of ${quote(entry.path)}`));
  const unitStart = blocks[0]!.start;
  let unitEnd = unitStart;
  for (const [i, b] of blocks.entries()) {
    if (b.start < unitEnd || (b.start - unitStart) % 16 !== 0) {
      throw new IoStoreError('BAD_VALUE', `block ${i} of encrypted entry ${quote(entry.path)} at ${b.start} is not 16-byte aligned after the previous block`, { file: pak.source, offset: b.start });
    }
    unitEnd = b.start + alignAes(b.end - b.start);
  }
  const plain = decryptUnit(slice(bytes, pak, unitStart, unitEnd - unitStart, `blocks of ${quote(entry.path)}`), pak, entry, opts, unitStart);
  return blocks.map((b) => plain.subarray(b.start - unitStart, b.end - unitStart));
}
