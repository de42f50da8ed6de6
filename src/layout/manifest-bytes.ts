import type { IoStoreToc } from '../toc/toc.js';
import { CHUNK_ID_SIZE } from '../toc/chunk-id.js';
import { encodeText, type JsonBytes } from '../util/json-bytes.js';
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

  constructor(
    private readonly toc: IoStoreToc,
    readonly indent: string,
  ) {
    const n = `,\n${indent} `;
    const key = (k: string, quote = false) => encodeText(`${n}"${k}": ${quote ? '"' : ''}`);
    this.open = encodeText(`{\n${indent} "id": "`);
    this.keys = {
      type: encodeText(`"${n}"type": `),
      path: key('path'),
      order: key('order'),
      size: key('size'),
      hash: key('hash', true),
      flags: key('flags'),
      compression: key('compression'),
      offset: key('offset'),
      ucasOffset: key('ucasOffset'),
      tocPath: key('tocPath'),
      rawBlocks: encodeText(`${n}"rawBlocks": [`),
      overriddenBy: key('overriddenBy'),
    };
    this.hashClose = encodeText('"');
    this.rawItem = encodeText(`\n${indent}  `);
    this.rawClose = encodeText(`\n${indent} ]`);
    this.close = encodeText(`\n${indent}}`);
    this.methods = toc.compressionMethods.map((m) => encodeText(JSON.stringify(m)));
  }

  /**
   * Chunk i's entry; `path`: the output path it was written under when not its own, `overriddenBy` as in
   * manifestChunkJson.
   */
  write(out: JsonBytes, i: number, path: string | undefined, overriddenBy: string | undefined): void {
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
    let method = 0;
    let raw = false;
    for (let b = 0; b < count; b++) {
      const m = toc.blocks.method(first + b);
      if (m === 0) raw = true;
      else method = m;
    }
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
