import { IoStoreError } from '../errors.js';
import { ByteReader } from '../util/bytes.js';
import { PAK_MAGIC, PAK_VERSION_LATEST, PakVersion, isKnownPakVersion } from './version.js';
import { quote } from '../util/quote.js';

/** Bytes in each compression-name slot of the footer. */
export const COMPRESSION_NAME_LEN = 32;
export const IV_SIZE = 12;

/** How the index (and, in v15+, the entries) are encrypted. Paks before v15 are AES-ECB by definition. */
export const PakEncryptionMethod = {
  /** AES-256-ECB over 16-byte blocks; the engine pads the data to 16 with a copy of its own start. */
  AesEcb: 1,
  /** AES-256-CTR; counter block = 12-byte IV then a big-endian u32 block counter from 0. */
  AesCtr: 2,
} as const;

export interface PakIndexIvs {
  primary: Uint8Array;
  pathHash: Uint8Array;
  fullDirectory: Uint8Array;
}

/** FPakInfo: the trailer at the very end of every pak. */
export interface PakFooter {
  version: number;
  /** Absolute offset of the first footer byte (the key GUID, or the magic for versions that have none). */
  offset: number;
  size: number;
  /** 16 bytes; all zero means "the embedded key". Zero before v7. */
  encryptionKeyGuid: Uint8Array;
  encryptedIndex: boolean;
  indexOffset: number;
  indexSize: number;
  /** SHA-1 of the (decrypted) primary index, padding included. */
  indexHash: Uint8Array;
  /** v9 only; the engine refuses frozen indexes. */
  frozenIndex: boolean;
  /** Number of 32-byte compression-name slots (0 before v8; 4 in UE 4.22's v8; 5 after). */
  compressionSlots: number;
  /**
   * The named methods in slot order, empty slots dropped. Entry method index 0 means "none"; index i > 0 means
   * `compressionMethods[i - 1]`. Before v8 the engine's fixed list (Zlib, Gzip, Oodle) is given.
   */
  compressionMethods: string[];
  /** Width of the entry's compression method field: 1 byte in UE 4.22's v8, otherwise 4. */
  entryMethodWidth: 1 | 4;
  /** v14+: the pakchunk this pak belongs to, -1 when none. */
  pakchunkIndex?: number;
  /** v15+: see PakEncryptionMethod. */
  encryptionMethod?: number;
  /** v15+: IVs of the primary index, path-hash index and full directory index (used with AES-CTR). */
  indexIvs?: PakIndexIvs;
}

/** The layout of one footer shape: bytes before the magic, and bytes from the magic to the end. */
interface Layout {
  version: number;
  slots: number;
  before: number;
  after: number;
}

function layoutFor(version: number, slots: number): Layout {
  let before = 0;
  if (version >= PakVersion.IndexEncryption) before += 1;
  if (version >= PakVersion.EncryptionKeyGuid) before += 16;
  let after = 4 + 4 + 8 + 8 + 20;
  if (version === PakVersion.FrozenIndex) after += 1;
  after += slots * COMPRESSION_NAME_LEN;
  if (version >= PakVersion.PakchunkIndex) after += 4;
  if (version >= PakVersion.EncryptionMethod) after += 1 + 3 * IV_SIZE;
  return { version, slots, before, after };
}

/** Footer size for a version (v8 needs the slot count: 4 for UE 4.22, 5 after). */
export function pakFooterSize(version: number, compressionSlots = defaultSlots(version)): number {
  const l = layoutFor(version, compressionSlots);
  return l.before + l.after;
}

export function defaultSlots(version: number): number {
  return version >= PakVersion.FNameBasedCompressionMethod ? 5 : 0;
}

/** Every footer shape, newest first, as the engine tries them (v8 with 5 slots before the 4-slot UE 4.22 one). */
const LAYOUTS: readonly Layout[] = (() => {
  const out: Layout[] = [];
  for (let v: number = PAK_VERSION_LATEST; v >= PakVersion.Initial; v--) {
    if (v === PakVersion.FNameBasedCompressionMethod) {
      out.push(layoutFor(v, 5), layoutFor(v, 4));
    } else {
      out.push(layoutFor(v, defaultSlots(v)));
    }
  }
  return out;
})();

/**
 * Finds and parses the footer. The footer's size depends on the version it holds, so each known shape is tried
 * from the newest down until the magic sits where that shape puts it and the version agrees with the shape.
 */
export function readPakFooter(bytes: Uint8Array, source: string, base = 0): PakFooter {
  const len = bytes.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let strayVersion: { version: number; at: number } | undefined;
  for (const l of LAYOUTS) {
    if (len < l.after) continue;
    const magicAt = len - l.after;
    if (view.getUint32(magicAt, true) !== PAK_MAGIC) continue;
    const version = view.getInt32(magicAt + 4, true);
    if (version !== l.version) {
      if (!isKnownPakVersion(version)) strayVersion ??= { version, at: magicAt + 4 };
      continue;
    }
    if (magicAt < l.before) {
      throw new IoStoreError('TRUNCATED', `pak footer of version ${version} needs ${l.before + l.after} bytes but the file has ${len}`, { file: source, offset: 0 });
    }
    return parseFooter(bytes, source, l, base);
  }
  if (strayVersion) {
    const code = strayVersion.version > PAK_VERSION_LATEST ? 'UNSUPPORTED' : 'BAD_VALUE';
    throw new IoStoreError(code, `pak version ${strayVersion.version} is not supported (known: 1 to ${PAK_VERSION_LATEST})`, { file: source, offset: base + strayVersion.at });
  }
  const smallest = Math.min(...LAYOUTS.map((l) => l.after));
  if (len < smallest) {
    throw new IoStoreError('TRUNCATED', `file of ${len} bytes is too small for a pak footer (at least ${smallest} bytes)`, { file: source, offset: 0 });
  }
  throw new IoStoreError('BAD_MAGIC', `not a pak file: no footer magic 0x${PAK_MAGIC.toString(16)} where any pak version (1 to ${PAK_VERSION_LATEST}) puts it`, { file: source, offset: base + Math.max(0, len - 44) });
}

/** `base`: absolute offset of `bytes[0]` in the file (a caller may hold only the file's tail). */
function parseFooter(bytes: Uint8Array, source: string, l: Layout, base: number): PakFooter {
  const start = base + bytes.length - l.after - l.before;
  const r = new ByteReader(bytes.subarray(start - base), source, start);
  const v = l.version;
  let encryptionKeyGuid = new Uint8Array(16);
  let encryptedIndex = false;
  if (v >= PakVersion.EncryptionKeyGuid) encryptionKeyGuid = Uint8Array.from(r.bytesView(16, 'encryption key GUID'));
  if (v >= PakVersion.IndexEncryption) {
    const at = r.pos;
    const flag = r.u8('encrypted-index flag');
    if (flag > 1) r.fail('BAD_VALUE', `encrypted-index flag is ${flag}, expected 0 or 1`, at);
    encryptedIndex = flag === 1;
  }
  r.skip(8, 'magic and version');
  const offAt = r.pos;
  const indexOffset = r.i64('index offset');
  const indexSize = r.i64('index size');
  const indexHash = Uint8Array.from(r.bytesView(20, 'index hash'));
  let frozenIndex = false;
  if (v === PakVersion.FrozenIndex) frozenIndex = r.u8('frozen-index flag') !== 0;
  const compressionMethods: string[] = [];
  for (let i = 0; i < l.slots; i++) {
    const slot = r.bytesView(COMPRESSION_NAME_LEN, 'compression method name');
    const end = slot.indexOf(0);
    const name = String.fromCharCode(...slot.subarray(0, end < 0 ? COMPRESSION_NAME_LEN - 1 : end));
    if (name !== '') compressionMethods.push(name);
  }
  if (v < PakVersion.FNameBasedCompressionMethod) compressionMethods.push('Zlib', 'Gzip', 'Oodle');
  const footer: PakFooter = {
    version: v,
    offset: start,
    size: l.before + l.after,
    encryptionKeyGuid,
    encryptedIndex,
    indexOffset: 0,
    indexSize: 0,
    indexHash,
    frozenIndex,
    compressionSlots: l.slots,
    compressionMethods,
    entryMethodWidth: v === PakVersion.FNameBasedCompressionMethod && l.slots === 4 ? 1 : 4,
  };
  if (v >= PakVersion.PakchunkIndex) footer.pakchunkIndex = r.i32('pakchunk index');
  if (v >= PakVersion.EncryptionMethod) {
    footer.encryptionMethod = r.u8('encryption method');
    footer.indexIvs = {
      primary: Uint8Array.from(r.bytesView(IV_SIZE, 'primary index IV')),
      pathHash: Uint8Array.from(r.bytesView(IV_SIZE, 'path-hash index IV')),
      fullDirectory: Uint8Array.from(r.bytesView(IV_SIZE, 'full directory index IV')),
    };
  }
  if (indexOffset < 0n || indexSize < 0n || indexOffset + indexSize > BigInt(start)) {
    r.fail('BAD_VALUE', `index at ${indexOffset} of ${indexSize} bytes does not lie before the footer at ${start}`, offAt);
  }
  footer.indexOffset = Number(indexOffset);
  footer.indexSize = Number(indexSize);
  return footer;
}

export interface PakFooterInit {
  version: number;
  compressionSlots?: number;
  encryptionKeyGuid?: Uint8Array;
  encryptedIndex?: boolean;
  indexOffset: number;
  indexSize: number;
  indexHash: Uint8Array;
  compressionMethods?: readonly string[];
  pakchunkIndex?: number;
  encryptionMethod?: number;
  indexIvs?: PakIndexIvs;
}

/** Serializes a footer exactly as the engine lays it out for that version. */
export function writePakFooter(f: PakFooterInit): Uint8Array {
  const slots = f.compressionSlots ?? defaultSlots(f.version);
  const l = layoutFor(f.version, slots);
  const out = new Uint8Array(l.before + l.after);
  const view = new DataView(out.buffer);
  let p = 0;
  if (f.version >= PakVersion.EncryptionKeyGuid) {
    out.set(f.encryptionKeyGuid ?? new Uint8Array(16), p);
    p += 16;
  }
  if (f.version >= PakVersion.IndexEncryption) out[p++] = f.encryptedIndex ? 1 : 0;
  view.setUint32(p, PAK_MAGIC, true);
  view.setInt32(p + 4, f.version, true);
  view.setBigInt64(p + 8, BigInt(f.indexOffset), true);
  view.setBigInt64(p + 16, BigInt(f.indexSize), true);
  out.set(f.indexHash.subarray(0, 20), p + 24);
  p += 44;
  if (f.version === PakVersion.FrozenIndex) out[p++] = 0;
  const names = f.compressionMethods ?? [];
  if (names.length > slots) throw new IoStoreError('USAGE', `${names.length} compression methods do not fit the ${slots} footer slots of pak version ${f.version}`);
  for (let i = 0; i < slots; i++) {
    const name = names[i];
    if (name !== undefined) {
      if (name.length >= COMPRESSION_NAME_LEN || /[^\x20-\x7e]/.test(name)) {
        throw new IoStoreError('USAGE', `compression method name ${quote(name)} must be printable ASCII shorter than ${COMPRESSION_NAME_LEN} characters`);
      }
      for (let c = 0; c < name.length; c++) out[p + c] = name.charCodeAt(c);
    }
    p += COMPRESSION_NAME_LEN;
  }
  if (f.version >= PakVersion.PakchunkIndex) {
    view.setInt32(p, f.pakchunkIndex ?? -1, true);
    p += 4;
  }
  if (f.version >= PakVersion.EncryptionMethod) {
    out[p++] = f.encryptionMethod ?? PakEncryptionMethod.AesEcb;
    const ivs = f.indexIvs;
    if (ivs) {
      out.set(ivs.primary.subarray(0, IV_SIZE), p);
      out.set(ivs.pathHash.subarray(0, IV_SIZE), p + IV_SIZE);
      out.set(ivs.fullDirectory.subarray(0, IV_SIZE), p + 2 * IV_SIZE);
    }
    p += 3 * IV_SIZE;
  }
  return out;
}
