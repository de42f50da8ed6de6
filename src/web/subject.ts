/**
 * What the details pane shows: one file, either a row of a loaded container or a file dropped on its own. A subject
 * keeps the set it came from, so its buttons read that set's bytes even while another set is being opened.
 */
import { viewLoosePackage, type AnyPackageView, type PackageContext } from './package-view.js';
import { readRow, rowPieces, unreadable, verifyChunk, type InputFile, type LoadResult } from './session.js';
import { fmtInt } from './dom.js';

export interface Subject {
  /** The load (state.generation) it belongs to. */
  generation: number;
  kind: 'row' | 'loose';
  /** Its path: as `iostore unpack` writes it (rows), or as dropped. */
  path: string;
  /** The file name a download is saved under. */
  name: string;
  /** Chunk type (IoStore), or extension. */
  type: string;
  size: number;
  /** Why its bytes cannot be read (missing .ucas, no key); undefined when they can. */
  unreadable?: string;
  /** Label-value lines for the facts table. */
  facts: Array<[string, string]>;
  /** Its bytes in order, a block or slice at a time. */
  pieces(): AsyncIterable<Uint8Array>;
  /** Bytes `from` to `from + length`. */
  read(from: number, length: number): Promise<Uint8Array>;
  /** Its first `limit` bytes (default all). */
  bytes(limit?: number): Promise<Uint8Array>;
  /** A package (zen or legacy form) the package view can show. */
  isPackage: boolean;
  /** A file beside it of the same stem (`.uexp` of a legacy package), from the same set; undefined when absent. */
  companion(ext: string): Promise<Uint8Array | undefined>;
  /** The package's view, or why there is none (made once). */
  packageView(): Promise<AnyPackageView | string>;
  /** Re-hashes an IoStore chunk against its chunk meta. */
  verify?: () => ReturnType<typeof verifyChunk>;
  /** Computes something from the subject once (views keep their parses here). */
  memo<T>(key: string, make: () => Promise<T>): Promise<T>;
}

const fileName = (p: string) => p.replace(/\\/g, '/').split('/').pop()!;
const extOf = (p: string) => /\.[^./\\]+$/.exec(p)?.[0] ?? '';

function memoizer(): Subject['memo'] {
  const made = new Map<string, Promise<unknown>>();
  return <T>(key: string, make: () => Promise<T>) => {
    let p = made.get(key) as Promise<T> | undefined;
    if (!p) made.set(key, (p = make()));
    return p;
  };
}

/** Row `idx` of a loaded set. */
export function rowSubject(loaded: LoadResult, ctx: PackageContext, idx: number, key: Uint8Array | undefined, generation: number): Subject {
  const r = loaded.rows[idx]!;
  const c = loaded.containers[r.container]!;
  const memo = memoizer();
  const why = unreadable(c);
  const companion = async (ext: string) => {
    const want = r.path.replace(/\.[^./]+$/, ext);
    const other = loaded.rows.find((x) => x.path === want && !x.overridden);
    return other ? readRow(loaded.containers, other, key) : undefined;
  };
  const facts: Array<[string, string]> = [
    ['path', r.path],
    ['type', r.type],
    ['size', `${fmtInt(r.size)} bytes`],
    ['stored', `${fmtInt(r.stored)} bytes (${r.compression})`],
    ['container', `${c.label}${r.overridden ? ' (overridden by a higher-priority container)' : ''}`],
  ];
  if (c.toc) facts.push(['chunk id', c.toc.chunkIdHex(r.index)], ['hash', c.toc.chunkHashHex(r.index)]);
  return {
    generation,
    kind: 'row',
    path: r.path,
    name: fileName(r.path),
    type: r.type,
    size: r.size,
    ...(why ? { unreadable: why } : {}),
    facts,
    pieces: () => rowPieces(loaded.containers, r, key),
    read: async (from, length) => (c.reader ? c.reader.readRange(r.index, from, length) : (await readRow(loaded.containers, r, key, from + length)).subarray(from)),
    bytes: (limit) => (limit === undefined ? memo('bytes', () => readRow(loaded.containers, r, key)) : readRow(loaded.containers, r, key, limit)),
    isPackage: r.type === 'ExportBundleData' || /\.(uasset|umap)$/i.test(r.path),
    companion,
    packageView: () => memo('package', () => ctx.packageView(r, key, companion)),
    ...(c.reader ? { verify: () => verifyChunk(c, r.index) } : {}),
    memo,
  };
}

/** A file dropped on its own; `files` are the others dropped with it (a legacy package's .uexp). */
export function looseSubject(files: readonly InputFile[], f: InputFile, ctx: PackageContext | undefined, generation: number): Subject {
  const memo = memoizer();
  const all = () => memo('bytes', async () => new Uint8Array(await f.file.arrayBuffer()));
  const companion = async (ext: string) => {
    const want = f.path.replace(/\.[^./]+$/, ext).toLowerCase();
    const other = files.find((x) => x.path.toLowerCase() === want);
    return other ? new Uint8Array(await other.file.arrayBuffer()) : undefined;
  };
  return {
    generation,
    kind: 'loose',
    path: f.path,
    name: fileName(f.path),
    type: extOf(f.path) || 'file',
    size: f.file.size,
    facts: [
      ['file', f.path],
      ['size', `${fmtInt(f.file.size)} bytes`],
    ],
    async *pieces() {
      yield await all();
    },
    read: async (from, length) => new Uint8Array(await f.file.slice(from, from + length).arrayBuffer()),
    bytes: async (limit) => (limit === undefined ? all() : new Uint8Array(await f.file.slice(0, limit).arrayBuffer())),
    isPackage: /\.(uasset|umap|uzenasset)$/i.test(f.path),
    companion,
    packageView: () => memo('package', async () => viewLoosePackage(await all(), f.path, companion, await ctx?.scriptObjects(), ctx && ((id) => ctx.loadPackage(id)))),
    memo,
  };
}
