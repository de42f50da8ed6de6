import { createHash } from 'node:crypto';
import { aesCtrCrypt, aesEcbDecrypt } from '../crypto/aes.js';
import type { CodecRegistry } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import { ByteReader, toHex } from '../util/bytes.js';
import { quote } from '../util/quote.js';
import { fullEntrySize, readFullEntry } from './entry.js';
import { PakEncryptionMethod, readPakFooter, type PakFooter } from './footer.js';
import { checkAesKey } from './pak-crypto.js';
import { pakBlockSize } from './data.js';
import { readPak, type PakEntry, type PakFile } from './read.js';

/**
 * Random access to a pak's bytes: a file (see `fileAccess` in pak-file.ts) or bytes in memory (browser). Reads
 * past the end return fewer bytes.
 */
export interface PakByteSource {
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
  /**
   * Reads into `into` (as many bytes as fit, fewer at the end) and returns how many: lets a reader keep one buffer
   * for a whole pak (readAheadSource) instead of a new one per read.
   */
  readInto?(offset: number, into: Uint8Array): Promise<number>;
  close?(): Promise<void>;
}

/** Bytes already in memory as a PakByteSource. */
export function bytesSource(bytes: Uint8Array): PakByteSource {
  return { size: bytes.length, read: async (o, n) => bytes.subarray(o, Math.min(bytes.length, o + n)) };
}

/**
 * `src` read a window of `window` bytes at a time: a read inside the last window is served from it, a read of a
 * window or more passes through. For one reader at a time, moving forward (small files in offset order). The window
 * is one buffer, refilled (when `src` can read into it): a piece handed out is valid until the next read that is not
 * served from the window, so the reader must be done with it by then (unpack writes each file, verify hashes it,
 * before reading the next). A new 2 MiB window per refill had left ~40-70 MB of dead buffers in a 50,000-file
 * pak's unpack waiting for V8 to collect them.
 */
export function readAheadSource(src: PakByteSource, window: number): PakByteSource {
  let at = 0;
  let buf: Uint8Array = new Uint8Array(0);
  const room = src.readInto ? new Uint8Array(window) : undefined;
  return {
    size: src.size,
    async read(offset, length) {
      if (offset >= at && offset + length <= at + buf.length) return buf.subarray(offset - at, offset - at + length);
      if (length >= window) return src.read(offset, length);
      // The old window's view goes before the refill: a failed read leaves nothing stale to serve.
      buf = new Uint8Array(0);
      buf = room ? room.subarray(0, await src.readInto!(offset, room)) : await src.read(offset, window);
      at = offset;
      return buf.subarray(0, Math.min(length, buf.length));
    },
  };
}

export interface OpenPakOptions {
  /** Name used in messages (the file path). */
  source?: string;
  /** The AES key for the pak's key GUID (hex, upper case; all zeros = the game's default key). */
  keyFor?: (guidHex: string) => Uint8Array | undefined;
  /** Check the SHA-1 of unencrypted index parts (default true; encrypted parts are always checked). */
  verifyIndexHashes?: boolean;
}

/** Largest footer (v15) with room to spare: the tail read to find it. */
const TAIL = 512;
/** Stored bytes read and decoded at a time: bounds memory for entries of any size. */
const BATCH = 4 << 20;
/** The window of a pak read entry after entry in offset order (withReadAhead): small files come from one read. */
const READ_AHEAD = 2 << 20;

/** How an entry's stored bytes are placed, as read from its in-place header. */
interface Placement {
  dataOffset: number;
  /** SHA-1 the header records for the stored bytes (all zero: none). */
  hash: Uint8Array;
}

export interface PakEntryCheck {
  path: string;
  ok: boolean;
  /** Hex SHA-1 recorded in the pak (in-place header, or the index before v10). */
  expected: string;
  actual: string;
  /** Set when the entry could not be read at all. */
  error?: { code: string; message: string };
}

/** What checking an entry's in-place header needs of its pak (plain data: a worker thread gets it too). */
export interface PlacementFacts {
  source: string;
  version: number;
  methodWidth: 1 | 4;
  /** Where the data area ends (the index starts). */
  dataEnd: number;
}

export function placementFacts(pak: PakFile): PlacementFacts {
  return { source: pak.source, version: pak.version, methodWidth: pak.footer.entryMethodWidth, dataEnd: pak.footer.offset };
}

/** The fields of an entry its in-place header is checked against. */
export type PlacedFields = Pick<PakEntry, 'path' | 'offset' | 'size' | 'uncompressedSize' | 'compressionMethodIndex' | 'blocks'>;

/** Bytes of the entry's in-place header; throws when they run past the data area. */
export function inPlaceHeaderSize(f: PlacementFacts, e: PlacedFields): number {
  const len = fullEntrySize(f.version, e.compressionMethodIndex, e.blocks?.length ?? 0, f.methodWidth);
  if (e.offset + len > f.dataEnd) throw new IoStoreError('TRUNCATED', `"${e.path}": entry header at ${e.offset} runs past the data area`, { file: f.source, offset: e.offset });
  return len;
}

/**
 * The entry's in-place header (`header`, read at its offset), checked against the index: where its stored bytes
 * start and the SHA-1 the header records.
 */
export function placedEntry(f: PlacementFacts, e: PlacedFields, header: Uint8Array): { dataOffset: number; hash: Uint8Array | undefined } {
  const r = new ByteReader(header, f.source, e.offset);
  const h = readFullEntry(r, f.version, f.methodWidth);
  if (h.size !== e.size || h.uncompressedSize !== e.uncompressedSize || h.compressionMethodIndex !== e.compressionMethodIndex) {
    throw new IoStoreError('BAD_VALUE', `"${e.path}": in-place header (size ${h.size}, uncompressed ${h.uncompressedSize}, method ${h.compressionMethodIndex}) disagrees with the index (size ${e.size}, uncompressed ${e.uncompressedSize}, method ${e.compressionMethodIndex})`, { file: f.source, offset: e.offset });
  }
  const dataOffset = e.offset + r.pos;
  if (dataOffset + e.size > f.dataEnd) throw new IoStoreError('TRUNCATED', `"${e.path}": ${e.size} stored bytes at ${dataOffset} run past the data area, which ends at ${f.dataEnd}`, { file: f.source, offset: dataOffset });
  return { dataOffset, hash: h.hash };
}

/**
 * An opened pak: its index (`pak`) and streaming access to each file's bytes, decrypted (AES-256 ECB, or CTR for v15
 * paks that say so) and decoded through a codec registry. Only the tail of the file (index and footer) is held in
 * memory; file data is read in bounded batches.
 */
export class PakArchive {
  private constructor(
    readonly pak: PakFile,
    private readonly src: PakByteSource,
    private readonly key: Uint8Array | undefined,
  ) {}

  get source(): string {
    return this.pak.source;
  }

  get size(): number {
    return this.src.size;
  }

  /** Only the footer (no key needed): what a pak with an encrypted index says about itself, its key GUID first. */
  static async footer(src: PakByteSource, source = 'pak'): Promise<PakFooter> {
    const tailAt = Math.max(0, src.size - TAIL);
    return readPakFooter(await src.read(tailAt, src.size - tailAt), source, tailAt);
  }

  /** Reads the footer and index. An encrypted index needs the key of the pak's GUID from `keyFor`. */
  static async open(src: PakByteSource, o: OpenPakOptions = {}): Promise<PakArchive> {
    const source = o.source ?? 'pak';
    const tailAt = Math.max(0, src.size - TAIL);
    const footer = readPakFooter(await src.read(tailAt, src.size - tailAt), source, tailAt);
    const key = o.keyFor?.(toHex(footer.encryptionKeyGuid).toUpperCase());
    if (key) checkAesKey(key, source, footer.offset);
    const index = await src.read(footer.indexOffset, src.size - footer.indexOffset);
    const pak = readPak(index, { source, base: footer.indexOffset, ...(key ? { aesKey: key } : {}), verifyHashes: o.verifyIndexHashes ?? true });
    return new PakArchive(pak, src, key);
  }

  async close(): Promise<void> {
    await this.src.close?.();
  }

  /**
   * The same pak read through a window of `bytes` (see readAheadSource), for one reader taking entries in the order
   * of their offsets (unpack, verify); closing stays with this archive.
   */
  withReadAhead(bytes = READ_AHEAD): PakArchive {
    return new PakArchive(this.pak, readAheadSource(this.src, bytes), this.key);
  }

  /** The entry's in-place header, checked against the index: where its stored bytes start and their SHA-1. */
  private async placement(e: PakEntry): Promise<Placement> {
    if (e.problem) throw new IoStoreError(e.problem.code, e.problem.message.replace(/^entry /, ''), { file: this.source, offset: e.problem.offset });
    const facts = placementFacts(this.pak);
    const h = placedEntry(facts, e, await this.src.read(e.offset, inPlaceHeaderSize(facts, e)));
    return { dataOffset: h.dataOffset, hash: e.hash ?? h.hash ?? new Uint8Array(20) };
  }

  private decryptor(e: PakEntry, at: number): (bytes: Uint8Array, unitOffset: number) => Uint8Array {
    if (!e.encrypted) return (b) => b;
    const key = this.key;
    if (!key) throw new IoStoreError('NEEDS_KEY', `"${e.path}" is encrypted (key GUID ${this.pak.encryptionKeyGuid}): pass --aes-key or --keys`, { file: this.source, offset: at });
    const method = this.pak.footer.encryptionMethod ?? PakEncryptionMethod.AesEcb;
    if (method === PakEncryptionMethod.AesEcb) return (b) => aesEcbDecrypt(key, b);
    if (method !== PakEncryptionMethod.AesCtr) throw new IoStoreError('UNSUPPORTED', `pak encryption method ${method} is not supported (1 = AES-ECB, 2 = AES-CTR)`, { file: this.source, offset: this.pak.footer.offset });
    const nonce = e.encryptionIv;
    if (!nonce) throw new IoStoreError('BAD_VALUE', `AES-CTR entry "${e.path}" has no IV in the index`, { file: this.source, offset: at });
    // The counter runs from 0 at the start of the entry's encryption unit, one step per 16 bytes.
    return (b, unitOffset) => aesCtrCrypt(key, nonce, b, unitOffset / 16);
  }

  /**
   * The file's bytes in order, in pieces of bounded size. `verify` hashes the stored bytes on the way and throws
   * HASH_MISMATCH at the end when they differ from the recorded SHA-1 (compare `checkEntry`, which only hashes).
   */
  async *read(e: PakEntry, codecs: CodecRegistry, o: { verify?: boolean } = {}): AsyncGenerator<Uint8Array> {
    const { dataOffset, hash } = await this.placement(e);
    const hasher = o.verify && hash.some((b) => b !== 0) ? createHash('sha1') : undefined;
    const decrypt = this.decryptor(e, dataOffset);
    const align = (n: number) => (e.encrypted ? Math.ceil(n / 16) * 16 : n);
    const hashStored = (stored: Uint8Array, relStart: number) => {
      // The recorded SHA-1 covers the `size` bytes as stored (ciphertext when encrypted), not the AES padding.
      if (hasher && relStart < e.size) hasher.update(stored.subarray(0, Math.min(stored.length, e.size - relStart)));
    };
    if (e.compressionMethodIndex === 0) {
      const end = dataOffset + align(e.size);
      if (end > this.src.size) throw new IoStoreError('TRUNCATED', `"${e.path}": data at ${dataOffset} runs past the end of the ${this.src.size}-byte file`, { file: this.source, offset: dataOffset });
      let left = e.size;
      for (let at = dataOffset; left > 0; ) {
        const n = Math.min(BATCH, align(left));
        const stored = await this.src.read(at, n);
        // A file cut short since it was opened (another program writing it) reads fewer bytes: no progress is made.
        if (stored.length < n) throw this.shrunk(e, at, n, stored.length);
        hashStored(stored, at - dataOffset);
        const plain = decrypt(stored, at - dataOffset);
        const take = Math.min(left, plain.length);
        yield plain.subarray(0, take);
        left -= take;
        at += n;
      }
    } else {
      const codec = codecs.get(e.compressionMethod);
      if (!codec) throw new IoStoreError('CODEC', `"${e.path}" is compressed with ${e.compressionMethod}, which this build cannot decode${/zstd/i.test(e.compressionMethod) ? ' (Zstd needs Node.js 22.15 or later)' : ''}`, { file: this.source, offset: dataOffset });
      const blocks = e.blocks ?? [];
      const unitStart = blocks[0]?.start ?? dataOffset;
      const blockSize = pakBlockSize(e, this.source);
      let produced = 0;
      for (let i = 0; i < blocks.length; ) {
        // A batch of consecutive blocks read with one call; a block is always whole in one batch.
        let j = i;
        const from = blocks[i]!.start;
        let to = from;
        while (j < blocks.length && (j === i || blocks[j]!.start + align(blocks[j]!.end - blocks[j]!.start) - from <= BATCH)) {
          to = blocks[j]!.start + align(blocks[j]!.end - blocks[j]!.start);
          j++;
        }
        if (to > this.pak.footer.offset) throw new IoStoreError('TRUNCATED', `"${e.path}": compression blocks run to ${to}, past the data area`, { file: this.source, offset: from });
        const stored = await this.src.read(from, to - from);
        if (stored.length < to - from) throw this.shrunk(e, from, to - from, stored.length);
        hashStored(stored, from - dataOffset);
        for (let k = i; k < j; k++) {
          const b = blocks[k]!;
          const rel = b.start - from;
          const raw = stored.subarray(rel, rel + align(b.end - b.start));
          const plain = decrypt(raw, b.start - unitStart).subarray(0, b.end - b.start);
          const want = Math.min(blockSize, e.uncompressedSize - produced);
          let out: Uint8Array;
          try {
            out = codec.decompress(plain, want);
          } catch (err) {
            const m = err instanceof Error ? err.message : String(err);
            throw new IoStoreError('CODEC', `"${e.path}": block ${k} at ${b.start}: ${m}`, { file: this.source, offset: b.start });
          }
          produced += out.length;
          yield out;
        }
        i = j;
      }
      if (produced !== e.uncompressedSize) throw new IoStoreError('BAD_VALUE', `"${e.path}": blocks decode to ${produced} bytes, the index says ${e.uncompressedSize}`, { file: this.source, offset: dataOffset });
    }
    if (hasher) {
      const actual = new Uint8Array(hasher.digest());
      if (!actual.every((b, k) => b === hash[k])) {
        throw new IoStoreError('HASH_MISMATCH', `"${e.path}": stored bytes have SHA-1 ${toHex(actual)}, the pak records ${toHex(hash)}`, { file: this.source, offset: dataOffset });
      }
    }
  }

  private shrunk(e: PakEntry, at: number, wanted: number, got: number): IoStoreError {
    return new IoStoreError('TRUNCATED', `${quote(e.path)}: read ${got} of ${wanted} bytes at ${at}: the file ends early (was it changed while being read?)`, { file: this.source, offset: at });
  }

  /** The whole file in memory (small files; use `read` to stream large ones). */
  async readAll(e: PakEntry, codecs: CodecRegistry, o: { verify?: boolean } = {}): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for await (const p of this.read(e, codecs, o)) parts.push(p);
    if (parts.length === 1) return parts[0]!;
    const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  /**
   * The SHA-1 of each index part (primary, and from v10 the path-hash and full directory indexes) against the
   * footer and primary index. Encrypted parts were already checked when the pak was opened (a mismatch there is a
   * wrong key), so they report ok.
   */
  async checkIndex(): Promise<Array<{ part: string; offset: number; ok: boolean; expected: string; actual: string }>> {
    const p = this.pak;
    const parts: Array<{ part: string; offset: number; size: number; hash: Uint8Array }> = [{ part: 'primary index', offset: p.indexOffset, size: p.indexSize, hash: p.footer.indexHash }];
    if (p.pathHashIndex) parts.push({ part: 'path-hash index', ...p.pathHashIndex });
    if (p.fullDirectoryIndex) parts.push({ part: 'full directory index', ...p.fullDirectoryIndex });
    const out = [];
    for (const x of parts) {
      const expected = toHex(x.hash);
      const actual = p.encryptedIndex ? expected : toHex(new Uint8Array(createHash('sha1').update(await this.src.read(x.offset, x.size)).digest()));
      out.push({ part: x.part, offset: x.offset, ok: actual === expected, expected, actual });
    }
    return out;
  }

  /** Hashes an entry's stored bytes (no decryption or decoding, no key needed) against its recorded SHA-1. */
  async checkEntry(e: PakEntry): Promise<PakEntryCheck> {
    let placement: Placement;
    try {
      placement = await this.placement(e);
    } catch (err) {
      if (!(err instanceof IoStoreError)) throw err;
      return { path: e.path, ok: false, expected: '', actual: '', error: { code: err.code, message: err.message } };
    }
    const h = createHash('sha1');
    for (let at = 0; at < e.size; at += BATCH) {
      const want = Math.min(BATCH, e.size - at);
      const got = await this.src.read(placement.dataOffset + at, want);
      if (got.length < want) {
        const err = this.shrunk(e, placement.dataOffset + at, want, got.length);
        return { path: e.path, ok: false, expected: '', actual: '', error: { code: err.code, message: err.message } };
      }
      h.update(got);
    }
    const actual = toHex(new Uint8Array(h.digest()));
    // An all-zero hash means the writer recorded none: nothing to compare against.
    const expected = placement.hash.some((b) => b !== 0) ? toHex(placement.hash) : '';
    return { path: e.path, ok: expected === '' || actual === expected, expected, actual };
  }
}
