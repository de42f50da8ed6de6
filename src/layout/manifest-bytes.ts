import type { IoStoreToc } from '../toc/toc.js';
import type { ChunkPaths } from '../toc/directory-index.js';
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import { encodeText, type JsonBytes } from '../util/json-bytes.js';
import { latin1, toHex } from '../util/bytes.js';
import { UNNAMED_CHUNKS_FOLDER } from './unnamed.js';

/**
 * Writes a container's manifest chunk entries as UTF-8 bytes: the same text as `manifestChunkJson` (and so as
 * `JSON.stringify(manifestChunk(...), null, 1)`), made without a string per entry. Ids and hashes go from the TOC's
 * bytes to hex, numbers digit by digit, and a named chunk's path from its folder's text (made once per folder) and
 * its name's stored bytes: a 150,000-chunk manifest had taken ~2 s of one thread as strings.
 */
export class ManifestChunkWriter {
  /** The fixed text between the fields, each line after the first led by the indent. */
  private readonly open: Uint8Array;
  private readonly keys: Record<'type' | 'path' | 'order' | 'size' | 'hash' | 'flags' | 'compression' | 'offset' | 'ucasOffset' | 'tocPath' | 'rawBlocks' | 'overriddenBy', Uint8Array>;
  private readonly hashClose: Uint8Array;
  private readonly rawItem: Uint8Array;
  private readonly rawClose: Uint8Array;
  private readonly close: Uint8Array;
  private readonly nul = encodeText('null');
  // Tables by chunk type (a byte) and by folder, made at their full length: an index past an array's end, met in
  // optimized code (a type or folder first seen later in the container), deoptimized it (and V8 compiled it again).
  private readonly types: Array<Uint8Array | undefined> = new Array<Uint8Array | undefined>(256).fill(undefined);
  private readonly unnamed: Array<Uint8Array | undefined> = new Array<Uint8Array | undefined>(256).fill(undefined);
  private readonly methods: Uint8Array[];
  /** Per folder of the directory index: its path inside a JSON string. */
  private folders: Array<Uint8Array | undefined> = [];

  /** Entries are made as strings (`text`) rather than byte by byte: see TEXT_ENTRIES_MAX. */
  private readonly asText: boolean;

  /** `entries`: how many entries the document will hold (a short list is written as text: TEXT_ENTRIES_MAX). */
  constructor(
    private readonly toc: IoStoreToc,
    readonly indent: string,
    entries = Infinity,
  ) {
    this.asText = entries <= TEXT_ENTRIES_MAX;
    const t = entryTexts(indent);
    this.texts = t;
    this.open = encodeText(t.open);
    this.keys = {
      type: encodeText(t.type),
      path: encodeText(t.path),
      order: encodeText(t.order),
      size: encodeText(t.size),
      hash: encodeText(t.hash),
      flags: encodeText(t.flags),
      compression: encodeText(t.compression),
      offset: encodeText(t.offset),
      ucasOffset: encodeText(t.ucasOffset),
      tocPath: encodeText(t.tocPath),
      rawBlocks: encodeText(t.rawBlocks),
      overriddenBy: encodeText(t.overriddenBy),
    };
    this.hashClose = encodeText('"');
    this.rawItem = encodeText(t.rawItem);
    this.rawClose = encodeText(t.rawClose);
    this.close = encodeText(t.close);
    this.methods = toc.compressionMethods.map((m) => encodeText(JSON.stringify(m)));
  }

  /**
   * Chunk i's entry; `path`: the output path it was written under when not its own, `overriddenBy` as in
   * manifestChunkJson.
   */
  write(out: JsonBytes, i: number, path: string | undefined, overriddenBy: string | undefined): void {
    if (this.asText) {
      out.text(this.text(i, path, overriddenBy));
      return;
    }
    const toc = this.toc;
    const k = this.keys;
    out.bytes(this.open);
    out.hex(toc.chunkIds, i * CHUNK_ID_SIZE, (i + 1) * CHUNK_ID_SIZE);
    out.bytes(k.type);
    const type = toc.chunkType(i);
    out.bytes((this.types[type] ??= encodeText(JSON.stringify(toc.chunkTypeName(i)))));
    out.bytes(k.path);
    let tocPathAt = -1;
    let tocPathEnd = -1;
    if (path !== undefined) out.string(path);
    else {
      tocPathAt = out.length;
      if (!this.tocPath(out, i)) this.unnamedPath(out, i);
      else tocPathEnd = out.length;
    }
    out.bytes(k.order);
    out.number(i);
    out.bytes(k.size);
    out.number(toc.chunkSize(i));
    out.bytes(k.hash);
    // toc.chunkHash's bytes, by its rule (a 32-byte hash whose last 12 bytes are zero is its first 20), read in
    // place: its views were two objects an entry.
    const metas = toc.metas;
    const at = i * toc.metaSize;
    let hashEnd = at + toc.metaHashSize;
    if (hashEnd - at > 20) {
      let zero = true;
      for (let b = at + 20; b < hashEnd && zero; b++) zero = metas[b] === 0;
      if (zero) hashEnd = at + 20;
    }
    out.hex(metas, at, hashEnd);
    out.bytes(this.hashClose);
    out.bytes(k.flags);
    out.number(toc.chunkMetaFlags(i));
    const first = toc.chunkFirstBlock(i);
    const count = toc.chunkBlockCount(i);
    const methods = blockMethods(toc, first, count);
    const method = methods & 0xff;
    const raw = (methods & RAW_BLOCKS) !== 0;
    out.bytes(k.compression);
    out.bytes(this.methods[method]!);
    out.bytes(k.offset);
    out.number(toc.chunkOffset(i));
    out.bytes(k.ucasOffset);
    if (count > 0) out.number(toc.blocks.offset(first));
    else out.bytes(this.nul);
    if (tocPathEnd >= 0) {
      out.bytes(k.tocPath);
      out.again(tocPathAt, tocPathEnd);
    } else if (path !== undefined && (toc.chunkPaths?.folder(i) ?? -1) >= 0) {
      // Written under another name: its directory-index path follows.
      out.bytes(k.tocPath);
      this.tocPath(out, i);
    }
    if (method !== 0 && raw) {
      out.bytes(k.rawBlocks);
      let firstRaw = true;
      for (let b = 0; b < count; b++) {
        if (toc.blocks.method(first + b) !== 0) continue;
        if (!firstRaw) out.byte(0x2c);
        firstRaw = false;
        out.bytes(this.rawItem);
        out.number(b);
      }
      out.bytes(this.rawClose);
    }
    if (overriddenBy !== undefined) {
      out.bytes(k.overriddenBy);
      out.string(overriddenBy);
    }
    out.bytes(this.close);
  }

  /**
   * Chunk i's entry as a string (the text `write` writes): made with few JavaScript steps per entry, each a native
   * string operation, where `write` runs a loop per byte.
   */
  text(i: number, path: string | undefined, overriddenBy: string | undefined): string {
    const toc = this.toc;
    const s = this.texts;
    if (this.methodText.length === 0) this.methodText = toc.compressionMethods.map((m) => JSON.stringify(m));
    if (i < this.hexFrom || i >= this.hexFrom + HEX_WINDOW) this.hexWindow(i);
    const w = i - this.hexFrom;
    const id = this.idHex.substr(w * 2 * CHUNK_ID_SIZE, 2 * CHUNK_ID_SIZE);
    const type = toc.chunkType(i);
    const own = path === undefined ? this.tocPathText(i) : undefined;
    const pathText = path !== undefined ? JSON.stringify(path) : (own ?? `${(this.unnamedText[type] ??= JSON.stringify(`${UNNAMED_CHUNKS_FOLDER}/${toc.chunkTypeName(i)}/`).slice(0, -1))}${id}.bin"`);
    // toc.chunkHash's bytes, by its rule (a 32-byte hash whose last 12 bytes are zero is its first 20).
    const hashAt = w * 2 * toc.metaSize;
    const hashSize = toc.metaHashSize;
    // Its bytes tested, not its hex: comparing the hex strings was a runtime call an entry.
    let long = false;
    if (hashSize > 20) {
      const metas = toc.metas;
      for (let b = i * toc.metaSize + 20, e = i * toc.metaSize + hashSize; b < e && !long; b++) long = metas[b] !== 0;
    }
    const hash = this.metaHex.substr(hashAt, long ? 2 * hashSize : 40);
    const first = toc.chunkFirstBlock(i);
    const count = toc.chunkBlockCount(i);
    const methods = blockMethods(toc, first, count);
    const method = methods & 0xff;
    const raw = (methods & RAW_BLOCKS) !== 0;
    let text = `${s.open}${id}${s.type}${(this.typeText[type] ??= JSON.stringify(toc.chunkTypeName(i)))}${s.path}${pathText}${s.order}${i}${s.size}${toc.chunkSize(i)}${s.hash}${hash}"${s.flags}${toc.chunkMetaFlags(i)}${s.compression}${this.methodText[method]}${s.offset}${toc.chunkOffset(i)}${s.ucasOffset}${count > 0 ? toc.blocks.offset(first) : 'null'}`;
    if (own !== undefined) text += `${s.tocPath}${own}`;
    else if (path !== undefined) {
      const tocPath = this.tocPathText(i);
      if (tocPath !== undefined) text += `${s.tocPath}${tocPath}`;
    }
    if (method !== 0 && raw) {
      text += s.rawBlocks;
      let firstRaw = true;
      for (let b = 0; b < count; b++) {
        if (toc.blocks.method(first + b) !== 0) continue;
        text += `${firstRaw ? '' : ','}${s.rawItem}${b}`;
        firstRaw = false;
      }
      text += s.rawClose;
    }
    if (overriddenBy !== undefined) text += `${s.overriddenBy}${JSON.stringify(overriddenBy)}`;
    return text + s.close;
  }

  /** Chunk i's directory-index path as a JSON string (quoted), or undefined when it has none. */
  private tocPathText(i: number): string | undefined {
    const paths = this.toc.chunkPaths;
    const f = paths ? paths.folder(i) : -1;
    if (f < 0) return undefined;
    if (this.folderText.length === 0) this.folderText = new Array<string | undefined>(paths!.folderCount).fill(undefined);
    const folder = (this.folderText[f] ??= JSON.stringify(paths!.folderPath(f)).slice(0, -1));
    const name = this.storedName(paths!, i) ?? paths!.name(i)!;
    return `${folder}${NEEDS_ESCAPE.test(name) ? JSON.stringify(name).slice(1) : `${name}"`}`;
  }

  /**
   * Chunk i's file name (chunk i named: its folder >= 0) cut from the string table made one Latin-1 string (once,
   * for a table of at most NAMES_TEXT_MAX bytes), or undefined (a UTF-16 name, or no stored table): a name decoded on
   * its own was a view and a character list an entry, ~20% of the entries' time in the interpreter of a short run.
   */
  private storedName(paths: ChunkPaths, i: number): string | undefined {
    if (this.namesFor !== paths) {
      this.namesFor = paths;
      const stored = paths.storedNames;
      const { nameOf, nameStarts } = paths.tables;
      this.names = stored && nameStarts && stored.length <= NAMES_TEXT_MAX ? { stored, nameOf, nameStarts, text: latin1(stored) } : undefined;
    }
    const names = this.names;
    if (names === undefined) return undefined;
    const { stored } = names;
    const at = names.nameStarts[names.nameOf[i]!]!;
    const len = stored[at]! | (stored[at + 1]! << 8) | (stored[at + 2]! << 16) | (stored[at + 3]! << 24);
    // Characters are bytes (Latin-1), so positions in the text are positions in the table; the NUL is left out.
    return len > 0 ? names.text.substring(at + 4, at + 3 + len) : undefined;
  }

  private namesFor: ChunkPaths | undefined;
  private names: { stored: Uint8Array; nameOf: Int32Array; nameStarts: Int32Array; text: string } | undefined;

  /** Hex of the ids and metas of chunks [i, i + HEX_WINDOW): one native call each for a window of entries. */
  private hexWindow(i: number): void {
    const toc = this.toc;
    const end = Math.min(toc.chunkCount, i + HEX_WINDOW);
    const ids = toc.chunkIds;
    const metas = toc.metas;
    this.hexFrom = i;
    this.idHex = toHex(ids.subarray(i * CHUNK_ID_SIZE, end * CHUNK_ID_SIZE));
    this.metaHex = toHex(metas.subarray(i * toc.metaSize, end * toc.metaSize));
  }

  private readonly texts: EntryTexts;
  private methodText: string[] = [];
  private readonly typeText: Array<string | undefined> = new Array<string | undefined>(256).fill(undefined);
  private readonly unnamedText: Array<string | undefined> = new Array<string | undefined>(256).fill(undefined);
  private folderText: Array<string | undefined> = [];
  private hexFrom = -HEX_WINDOW;
  private idHex = '';
  private metaHex = '';

  /** Chunk i's directory-index path as a JSON string; false (nothing written) when it has none. */
  private tocPath(out: JsonBytes, i: number): boolean {
    const paths = this.toc.chunkPaths;
    const f = paths ? paths.folder(i) : -1;
    if (f < 0) return false;
    if (this.folders.length === 0) this.folders = new Array<Uint8Array | undefined>(paths!.folderCount).fill(undefined);
    out.byte(0x22);
    out.bytes((this.folders[f] ??= encodeText(JSON.stringify(paths!.folderPath(f)).slice(1, -1))));
    const stored = paths!.storedNames;
    const at = paths!.storedNameAt(i);
    const len = stored && at >= 0 ? stored[at]! | (stored[at + 1]! << 8) | (stored[at + 2]! << 16) | (stored[at + 3]! << 24) : 0;
    // Latin-1 names (nearly all) from their bytes; UTF-16 ones as a string.
    if (len > 0) out.latin1(stored!, at + 4, at + 3 + len);
    else out.text(JSON.stringify(paths!.name(i)!).slice(1, -1));
    out.byte(0x22);
    return true;
  }

  /** `"_chunks/<Type>/<id>.bin"` (see unnamedChunkPath). */
  private unnamedPath(out: JsonBytes, i: number): void {
    const toc = this.toc;
    const type = toc.chunkType(i);
    out.bytes((this.unnamed[type] ??= encodeText(JSON.stringify(`${UNNAMED_CHUNKS_FOLDER}/${toc.chunkTypeName(i)}/`).slice(0, -1))));
    out.hex(toc.chunkIds, i * CHUNK_ID_SIZE, (i + 1) * CHUNK_ID_SIZE);
    out.bytes(BIN_CLOSE);
  }
}

const BIN_CLOSE = encodeText('.bin"');
/** Entries whose ids and metas are turned into hex in one call (see ManifestChunkWriter.hexWindow). */
const HEX_WINDOW = 1024;
/** Set in blockMethods' result when some of the chunk's blocks are stored raw. */
const RAW_BLOCKS = 0x100;

/** A chunk's compression method index (that of its compressed blocks, 0 if none), with RAW_BLOCKS if any block is raw. */
function blockMethods(toc: IoStoreToc, first: number, count: number): number {
  let method = 0;
  let raw = 0;
  for (let b = 0; b < count; b++) {
    const m = toc.blocks.method(first + b);
    if (m === 0) raw = RAW_BLOCKS;
    else method = m;
  }
  return method | raw;
}

export type EntryTexts = Record<'open' | 'type' | 'path' | 'order' | 'size' | 'hash' | 'flags' | 'compression' | 'offset' | 'ucasOffset' | 'tocPath' | 'rawBlocks' | 'rawItem' | 'rawClose' | 'overriddenBy' | 'close', string>;

/** The fixed text between a chunk entry's values at this indent: the one source of both writers' keys. */
export function entryTexts(indent: string): EntryTexts {
  const n = `,\n${indent} `;
  const key = (k: string, quote = false) => `${n}"${k}": ${quote ? '"' : ''}`;
  return {
    open: `{\n${indent} "id": "`,
    type: `"${n}"type": `,
    path: key('path'),
    order: key('order'),
    size: key('size'),
    hash: key('hash', true),
    flags: key('flags'),
    compression: key('compression'),
    offset: key('offset'),
    ucasOffset: key('ucasOffset'),
    tocPath: key('tocPath'),
    rawBlocks: `${n}"rawBlocks": [`,
    rawItem: `\n${indent}  `,
    rawClose: `\n${indent} ]`,
    overriddenBy: key('overriddenBy'),
    close: `\n${indent}}`,
  };
}

/**
 * Entries up to which a manifest's chunk entries are made as strings (`text`), not byte by byte. The byte loops pay
 * only once V8's optimizing compiler has compiled them: a cold process writing the 3,000 entries of the side-by-side
 * bench's container spent more in the interpreter and in TurboFan's background compiles than the strings cost
 * (unpack of it: ~97M instructions less in all, main thread 501 -> 479M); at 150,000 entries, optimized, the bytes
 * take half the time of the strings (~0.45 against ~0.9 s), and the two meet near 10,000.
 */
export const TEXT_ENTRIES_MAX = 8192;
/** What JSON.stringify escapes in a Latin-1 string: a name without it is quoted as it is. */
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\x00-\x1f]/;
/** String tables up to this size are made one string for the entries written as text (a short run's: ~100 KB). */
const NAMES_TEXT_MAX = 4 << 20;
