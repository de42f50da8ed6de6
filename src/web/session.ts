/**
 * What the page knows about the files dropped on it: the containers (IoStore and pak), their rows in mount order,
 * and reading any row's bytes from the dropped `File`s in slices. No DOM here, so tests can drive it in Node too.
 */
import { blobSource } from '../cas/blob-source.js';
import { ContainerReader } from '../cas/container-reader.js';
import { partitionPaths, type RandomAccessSource } from '../cas/source.js';
import { CodecRegistry, noneCodec } from '../codecs/registry.js';
import { lz4Codec } from '../codecs/lz4.js';
import { oodleCodec } from '../codecs/oodle/index.js';
import { gzipFflate, zlibFflate } from '../codecs/zlib-fflate.js';
import { PakArchive, type PakByteSource } from '../pak/archive.js';
import type { PakFile } from '../pak/read.js';
import { pakMountRelative } from '../pak/safe-path.js';
import { guidHex, parseTocHeader } from '../toc/header.js';
import { readToc, type IoStoreToc } from '../toc/toc.js';
import { ContainerFlags } from '../toc/version.js';
import { createChunkHasher } from '../hash/chunk-hash.js';
import { toHex } from '../util/bytes.js';
import { containerPriority } from '../mount/mount.js';
import { metaHashAlgorithm } from '../chunks/write-chunk.js';
import { unnamedChunkPath } from '../layout/unnamed.js';
import { hasExtension } from '../util/file-extension.js';

/** A dropped file: its path inside the dropped folder (or its bare name) and its contents, read on demand. */
export interface InputFile {
  path: string;
  file: Blob;
}

export interface WebContainer {
  kind: 'iostore' | 'pak';
  /** Base name without extension, e.g. `pakchunk0-Windows_0_P`. */
  name: string;
  /**
   * What the page calls it: the file name with its extension (a .pak and a .utoc of one stem are different files),
   * with its folder when another dropped file has the same name.
   */
  label: string;
  /** The label without a long prefix it shares with other containers (`CUE4ParseFixtures-`), for narrow places. */
  short: string;
  /** The .utoc or .pak path as dropped. */
  path: string;
  priority: number;
  toc?: IoStoreToc;
  /** Present when every .ucas partition was dropped (and the key is known, for encrypted containers). */
  reader?: ContainerReader;
  /** A pak's index; its bytes are read through `pakArchive` in slices of the dropped file. */
  pak?: PakFile;
  pakArchive?: PakArchive;
  /** One-line problems: missing .ucas, wrong key, unreadable file. */
  problems: string[];
}

export interface Row {
  /** The path `iostore unpack` writes the row to (unnamed chunks under `_chunks/<Type>/<id>.bin`). */
  path: string;
  type: string;
  size: number;
  stored: number;
  compression: string;
  container: number;
  /** Chunk index in its TOC, or entry index in its pak. */
  index: number;
  /** A higher-priority container holds the same chunk id (or a later one the same path). */
  overridden: boolean;
}

export interface LoadResult {
  containers: WebContainer[];
  rows: Row[];
  /** Loose files dropped alone (packages, .locres), opened in the details pane. */
  looseFiles: InputFile[];
  errors: string[];
}

/** The codecs the page decodes with: pure TypeScript and fflate, no Node built-ins. */
export function webCodecs(): CodecRegistry {
  return new CodecRegistry([noneCodec, zlibFflate, gzipFflate, lz4Codec, oodleCodec]);
}

const lower = (s: string) => s.toLowerCase();
const baseOf = (p: string) => p.replace(/\\/g, '/').split('/').pop()!;
const stem = (p: string) => p.replace(/\.[^./]*$/, '');

/** One line for any failure: library errors already name file and offset. */
export function oneLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0]!;
}

export async function loadFiles(files: readonly InputFile[], aesKey: Uint8Array | undefined, onStep?: (what: string) => void): Promise<LoadResult> {
  const byPath = new Map(files.map((f) => [lower(f.path.replace(/\\/g, '/')), f]));
  const containers: WebContainer[] = [];
  const errors: string[] = [];
  const looseFiles: InputFile[] = [];
  const codecs = webCodecs();
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of sorted) {
    const name = baseOf(f.path);
    try {
      if (hasExtension(name, '.utoc')) {
        onStep?.(`reading ${name}`);
        containers.push(await openIoStore(f, byPath, aesKey, codecs));
      } else if (hasExtension(name, '.pak')) {
        onStep?.(`reading ${name}`);
        containers.push(await openPak(f, aesKey));
      } else if (LOOSE.test(name)) {
        looseFiles.push(f);
      }
    } catch (e) {
      errors.push(oneLine(e));
    }
  }
  // A data file without its table of contents cannot be read: say which .utoc to add.
  for (const f of sorted) {
    const m = /^(.*?)(?:_s\d+)?\.ucas$/i.exec(f.path.replace(/\\/g, '/'));
    if (m && !byPath.has(lower(`${m[1]}.utoc`))) errors.push(`${f.path}: its table of contents ${baseOf(m[1]!)}.utoc was not dropped with it`);
  }
  // Mount order as `unpack` applies it: lowest priority first, equal priorities by name, later wins.
  containers.sort((a, b) => a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  labelContainers(containers);
  return { containers, rows: buildRows(containers), looseFiles, errors };
}

/** Files the page opens on their own, without a container. */
export const LOOSE = /\.(uasset|umap|uzenasset|locres)$/i;

/** Sets each container's label: its file name, and as many of its folders as it takes to tell equal names apart. */
function labelContainers(containers: WebContainer[]): void {
  const parts = containers.map((c) => c.path.replace(/\\/g, '/').split('/'));
  const label = (k: number, depth: number) => parts[k]!.slice(-1 - depth).join('/');
  containers.forEach((c, k) => {
    let depth = 0;
    while (depth < parts[k]!.length - 1 && parts.some((_, j) => j !== k && label(j, depth) === label(k, depth))) depth++;
    c.label = label(k, depth);
  });
  // Files picked one by one carry no folder: equal names are numbered.
  const seen = new Map<string, number>();
  for (const c of containers) {
    const n = (seen.get(c.label) ?? 0) + 1;
    seen.set(c.label, n);
    if (n > 1) c.label = `${c.label} (${n})`;
  }
  const labels = containers.map((c) => c.label);
  containers.forEach((c, k) => (c.short = withoutSharedPrefix(labels, k)));
}

/**
 * Label `k` without its first word when another label starts with the same word and what remains still has two
 * words before its extension: `CUE4ParseFixtures-Minimal-Oodle.pak` beside `CUE4ParseFixtures-Minimal-Zlib.pak`
 * becomes `Minimal-Oodle.pak`, while `pakchunk0-Windows.pak` stays whole.
 */
export function withoutSharedPrefix(labels: readonly string[], k: number): string {
  const l = labels[k]!;
  const m = /^([^-_/]{4,}[-_])(.+)$/.exec(l);
  if (!m) return l;
  const shared = labels.some((other, j) => j !== k && other.startsWith(m[1]!));
  const words = m[2]!.replace(/\.[^.]*$/, '').split(/[-_]/).filter(Boolean).length;
  return shared && words >= 2 ? m[2]! : l;
}

async function openIoStore(f: InputFile, byPath: Map<string, InputFile>, aesKey: Uint8Array | undefined, codecs: CodecRegistry): Promise<WebContainer> {
  const name = stem(baseOf(f.path));
  const bytes = new Uint8Array(await f.file.arrayBuffer());
  const header = parseTocHeader(bytes, f.path);
  const encrypted = (header.containerFlags & ContainerFlags.Encrypted) !== 0;
  const c: WebContainer = { kind: 'iostore', name, label: baseOf(f.path), short: baseOf(f.path), path: f.path, priority: containerPriority(name), problems: [] };
  let toc: IoStoreToc;
  if (encrypted && !aesKey) {
    toc = readToc(bytes, { source: f.path });
    c.problems.push(`${f.path}: encrypted (key GUID ${guidHex(header.encryptionKeyGuid)}): enter its AES key to see paths and read chunks`);
  } else {
    try {
      toc = readToc(bytes, { source: f.path, ...(encrypted && aesKey ? { aesKey } : {}) });
    } catch (e) {
      if (!encrypted) throw e;
      // A wrong key turns the directory index into noise: still list the chunks, without paths.
      toc = readToc(bytes, { source: f.path });
      c.problems.push(`${f.path}: wrong AES key? the directory index does not decrypt (${oneLine(e)})`);
    }
  }
  c.toc = toc;
  if (toc.directoryIndexError && c.problems.length === 0) c.problems.push(oneLine(toc.directoryIndexError));
  const parts = partitionPaths(f.path.replace(/\\/g, '/'), toc.partitionCount).map((p) => byPath.get(lower(p)));
  const missing = partitionPaths(baseOf(f.path), toc.partitionCount).filter((_, k) => !parts[k]);
  if (toc.blockCount > 0 && missing.length > 0) {
    c.problems.push(`${f.path}: missing ${missing.join(', ')}: the table shows the chunks, their bytes cannot be read`);
  } else if (!(encrypted && (!aesKey || c.problems.length > 0))) {
    c.reader = new ContainerReader(toc, parts.map((p) => blobSource(p!.file, p!.path)), { codecs, ...(encrypted && aesKey ? { aesKey } : {}) });
  }
  return c;
}

/**
 * A pak's view of a random-access source: the pak reader takes a known size and short reads at the end, the
 * `.ucas` sources an async size and exact reads.
 */
export async function pakByteSource(src: RandomAccessSource): Promise<PakByteSource> {
  const size = await src.size();
  return { size, read: (offset, length) => src.read(offset, Math.max(0, Math.min(length, size - offset))), close: () => src.close() };
}

async function openPak(f: InputFile, aesKey: Uint8Array | undefined): Promise<WebContainer> {
  const name = stem(baseOf(f.path));
  // Only the footer and index are read here; entries are read in slices when shown or extracted.
  const archive = await PakArchive.open(await pakByteSource(blobSource(f.file, f.path)), { source: f.path, ...(aesKey ? { keyFor: () => aesKey } : {}) });
  const c: WebContainer = { kind: 'pak', name, label: baseOf(f.path), short: baseOf(f.path), path: f.path, priority: containerPriority(name), problems: [], pak: archive.pak, pakArchive: archive };
  if (archive.pak.entries.some((e) => e.encrypted) && !aesKey) c.problems.push(`${f.path}: some entries are encrypted: enter the AES key to read them`);
  return c;
}

/** Rows of every container in mount order, each marked overridden when a later container supersedes it. */
export function buildRows(containers: readonly WebContainer[]): Row[] {
  const rows: Row[] = [];
  const ownerOfId = new Map<string, number>();
  containers.forEach((c, k) => {
    const toc = c.toc;
    if (toc) for (let i = 0; i < toc.chunkCount; i++) ownerOfId.set(toc.chunkIdHex(i), k);
  });
  const byPath = new Map<string, number>();
  const claim = (row: Row) => {
    const prev = byPath.get(row.path);
    if (prev !== undefined) rows[prev]!.overridden = true;
    byPath.set(row.path, rows.length);
    rows.push(row);
  };
  containers.forEach((c, k) => {
    const toc = c.toc;
    if (toc) {
      const methods = toc.compressionMethods;
      for (let i = 0; i < toc.chunkCount; i++) {
        const path = toc.chunkPath(i) ?? unnamedChunkPath(toc.chunkTypeName(i), toc.chunkIdHex(i));
        const row: Row = { path, type: toc.chunkTypeName(i), size: toc.chunkSize(i), stored: toc.chunkStoredSize(i), compression: chunkMethods(toc, i, methods), container: k, index: i, overridden: false };
        if (ownerOfId.get(toc.chunkIdHex(i)) !== k) {
          row.overridden = true;
          rows.push(row);
        } else claim(row);
      }
    } else if (c.pak) {
      const prefix = pakMountRelative(c.pak.mountPoint, c.path).replace(/^\/+/, '');
      c.pak.entries.forEach((e, i) => {
        const ext = /\.([^./]+)$/.exec(e.path)?.[1] ?? '';
        claim({ path: prefix + e.path, type: ext ? `.${ext}` : 'file', size: e.uncompressedSize, stored: e.size, compression: e.compressionMethod + (e.encrypted ? ' +AES' : ''), container: k, index: i, overridden: false });
      });
    }
  });
  return rows;
}

function chunkMethods(toc: IoStoreToc, i: number, methods: readonly string[]): string {
  const first = toc.chunkFirstBlock(i);
  const n = toc.chunkBlockCount(i);
  let seen = -1;
  for (let b = first; b < first + n; b++) {
    const m = toc.blocks.method(b);
    if (seen === -1) seen = m;
    else if (seen !== m) return 'mixed';
  }
  return seen <= 0 ? 'None' : (methods[seen] ?? `#${seen}`);
}

/** Why a row's bytes cannot be read, or undefined when they can. */
export function unreadable(c: WebContainer): string | undefined {
  if (c.reader || c.pakArchive) return undefined;
  return c.problems[0] ?? `${c.path}: its data cannot be read`;
}

/** The row's bytes in order, in pieces of at most a few MiB (one compression block for IoStore chunks). */
export async function* rowPieces(containers: readonly WebContainer[], row: Row, aesKey?: Uint8Array): AsyncGenerator<Uint8Array> {
  const c = containers[row.container]!;
  const why = unreadable(c);
  if (why) throw new Error(why);
  if (c.reader) {
    yield* c.reader.chunkBlocks(row.index);
    return;
  }
  const entry = c.pak!.entries[row.index]!;
  if (entry.encrypted && !aesKey) throw new Error(`${c.path}: "${entry.path}" is encrypted: enter the AES key`);
  yield* c.pakArchive!.read(entry, webCodecs());
}

/** The row's whole bytes (for the viewers; extraction streams with `rowPieces`). */
export async function readRow(containers: readonly WebContainer[], row: Row, aesKey?: Uint8Array, limit = Infinity): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let n = 0;
  for await (const p of rowPieces(containers, row, aesKey)) {
    pieces.push(p);
    n += p.length;
    if (n >= limit) break;
  }
  const out = new Uint8Array(Math.min(n, limit));
  let o = 0;
  for (const p of pieces) {
    const take = Math.min(p.length, out.length - o);
    out.set(p.subarray(0, take), o);
    o += take;
  }
  return out;
}

/**
 * Re-hashes an IoStore chunk as `iostore verify` does (BLAKE3-160 for UE5 in WebAssembly, SHA-1 for UE4) and
 * compares it with its chunk meta. Returns both hashes in hex.
 */
export async function verifyChunk(c: WebContainer, index: number): Promise<{ ok: boolean; actual: string; expected: string; algorithm: string }> {
  if (!c.reader) throw new Error(unreadable(c) ?? `${c.path}: not an IoStore container`);
  const toc = c.reader.toc;
  const algorithm = metaHashAlgorithm(toc);
  const hasher = await createChunkHasher(algorithm, 'wasm');
  for await (const piece of c.reader.chunkBlocks(index)) hasher.update(piece);
  const actual = toHex(hasher.digest());
  const expected = toHex(toc.chunkHash(index).subarray(0, 20));
  return { ok: actual === expected, actual, expected, algorithm };
}
