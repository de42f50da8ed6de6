/** The package and container-header views of the page, over the library's describe functions. */
import { scriptObjectsFromReader, packageNamesFromToc, readContainerHeader } from '../inspect/context.js';
import { describeContainerHeader, describePackage, type ContainerHeaderView, type PackageView } from '../inspect/describe.js';
import type { ContainerHeader } from '../zen/container-header.js';
import type { StoreEntry } from '../zen/store-entry.js';
import type { LegacyPackageView } from '../legacy/describe.js';
import { parseZenPackage, type ZenPackage } from '../zen/zen-package.js';
import { importedExportPaths } from '../inspect/imports.js';
import { legacyViewer } from './legacy-viewer.js';
import { readRow, type Row, type WebContainer } from './session.js';

/** What the package view shows: a zen package's view or a legacy one's (`format: 'legacy'`). */
export type AnyPackageView = PackageView | LegacyPackageView;

export const isLegacyView = (v: AnyPackageView): v is LegacyPackageView => v.format === 'legacy';

/**
 * Package readers other than the zen one register here: given a package's bytes (and, for a legacy `.uasset`, a
 * function that fetches a companion such as its `.uexp`), return a view, or undefined when the bytes are not theirs.
 * A reader that recognises the bytes but cannot parse them throws (the page shows its one-line error).
 */
export interface PackageViewer {
  name: string;
  describe(bytes: Uint8Array, path: string, companion: (ext: string) => Promise<Uint8Array | undefined>): Promise<AnyPackageView | undefined>;
}
export const packageViewers: PackageViewer[] = [legacyViewer];

/** Caches what resolving references needs across the dropped containers. */
export class PackageContext {
  private names?: Map<bigint, string>;
  private scripts?: Promise<Map<bigint, string> | undefined>;
  private readonly headers = new Map<number, Promise<ContainerHeader | null>>();
  private readonly chunksIn = new Map<number, Map<bigint, number>>();
  /** Packages parsed to name another package's imports: a few, as the same ones are imported again and again. */
  private readonly parsed = new Map<bigint, Promise<ZenPackage | undefined>>();
  /** Store entries by package id, per container (a game's header lists tens of thousands). */
  private readonly entries = new Map<number, Map<bigint, StoreEntry>>();

  constructor(private readonly containers: readonly WebContainer[]) {}

  packageNames(): Map<bigint, string> {
    if (!this.names) {
      this.names = new Map();
      for (const c of this.containers) if (c.toc) for (const [k, v] of packageNamesFromToc(c.toc)) this.names.set(k, v);
    }
    return this.names;
  }

  scriptObjects(): Promise<Map<bigint, string> | undefined> {
    this.scripts ??= (async () => {
      const g = this.containers.find((c) => c.name.toLowerCase() === 'global' && c.reader);
      return g ? scriptObjectsFromReader(g.reader!).catch(() => undefined) : undefined;
    })();
    return this.scripts;
  }

  header(k: number): Promise<ContainerHeader | null> {
    let h = this.headers.get(k);
    if (!h) {
      const r = this.containers[k]?.reader;
      h = r ? readContainerHeader(r) : Promise.resolve(null);
      this.headers.set(k, h);
    }
    return h;
  }

  /** Container `k`'s header and the store entry of package `id` in it. */
  private async storeEntry(k: number, id: bigint): Promise<{ header: ContainerHeader | null; entry: StoreEntry | undefined }> {
    const header = await this.header(k);
    let byId = this.entries.get(k);
    if (!byId) this.entries.set(k, (byId = new Map(header?.packages.map((p) => [p.packageId, p]))));
    return { header, entry: byId.get(id) };
  }

  /** Package id -> TOC index of its package chunk, in container `k`. */
  private packageChunks(k: number): Map<bigint, number> {
    let m = this.chunksIn.get(k);
    if (!m) {
      m = new Map();
      const toc = this.containers[k]?.toc;
      if (toc) for (let i = 0; i < toc.chunkCount; i++) if (toc.chunkTypeName(i) === 'ExportBundleData') m.set(toc.chunkId(i).id, i);
      this.chunksIn.set(k, m);
    }
    return m;
  }

  /** The container that mounts package `id`: the last in mount order that holds it (a patch over its base). */
  private winner(id: bigint): number | undefined {
    for (let k = this.containers.length - 1; k >= 0; k--) if (this.packageChunks(k).has(id)) return k;
    return undefined;
  }

  private async parseIn(k: number, id: bigint): Promise<ZenPackage | undefined> {
    const c = this.containers[k]!;
    const i = this.packageChunks(k).get(id);
    if (i === undefined || !c.reader) return undefined;
    const { header, entry } = await this.storeEntry(k, id);
    return parseZenPackage(await c.reader.readChunk(i), { source: `${c.path}: ${c.toc!.chunkPath(i) ?? c.toc!.chunkIdHex(i)}`, ...(header ? { containerHeaderVersion: header.version } : {}), ...(entry ? { storeEntry: entry } : {}) });
  }

  /** The package of this id as mounted, from whichever dropped container holds it (undefined when none can be read). */
  loadPackage(id: bigint): Promise<ZenPackage | undefined> {
    let p = this.parsed.get(id);
    if (!p) {
      if (this.parsed.size >= 64) this.parsed.delete(this.parsed.keys().next().value!);
      const k = this.winner(id);
      p = k === undefined ? Promise.resolve(undefined) : this.parseIn(k, id);
      this.parsed.set(id, p);
    }
    return p;
  }

  /** How many exports package `id` of container `k` has (for container headers that no longer store it). */
  async exportCount(k: number, id: bigint): Promise<number | undefined> {
    const pkg = this.winner(id) === k ? await this.loadPackage(id) : await this.parseIn(k, id);
    return pkg?.exports.length;
  }

  async containerHeaderView(k: number): Promise<ContainerHeaderView | null> {
    const h = await this.header(k);
    return h ? describeContainerHeader(h, this.packageNames()) : null;
  }

  /** The view of the package a row holds (zen chunk or loose/legacy file), or a reason it has none. */
  async packageView(row: Row, key?: Uint8Array, companion: (ext: string) => Promise<Uint8Array | undefined> = async () => undefined): Promise<AnyPackageView | string> {
    const c = this.containers[row.container]!;
    const bytes = await readRow(this.containers, row, key);
    if (c.toc && row.type === 'ExportBundleData') {
      const { header, entry } = await this.storeEntry(row.container, c.toc.chunkId(row.index).id);
      const pkg = parseZenPackage(bytes, { source: `${c.path}: ${row.path}`, ...(header ? { containerHeaderVersion: header.version } : {}), ...(entry ? { storeEntry: entry } : {}) });
      const scriptObjects = await this.scriptObjects();
      const importedExports = await importedExportPaths(pkg, entry, (pid) => this.loadPackage(pid));
      return describePackage(pkg, { packageNames: this.packageNames(), importedExports, ...(entry ? { importedPackageIds: entry.importedPackages } : {}), ...(scriptObjects ? { scriptObjects } : {}) });
    }
    return viewLoosePackage(bytes, row.path, companion, await this.scriptObjects(), (id) => this.loadPackage(id));
  }
}

/**
 * A package file on its own: the registered viewers first (legacy), then the zen reader. `loadPackage` finds the
 * packages it imports (in containers dropped with it) to name its imports.
 */
export async function viewLoosePackage(
  bytes: Uint8Array,
  path: string,
  companion: (ext: string) => Promise<Uint8Array | undefined>,
  scriptObjects?: Map<bigint, string>,
  loadPackage?: (id: bigint) => Promise<ZenPackage | undefined>,
): Promise<AnyPackageView | string> {
  for (const v of packageViewers) {
    const view = await v.describe(bytes, path, companion);
    if (view) return view;
  }
  if (bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) === 0x9e2a83c1) {
    return `${path}: a classic (UE1-UE3) package, which the page does not show`;
  }
  const pkg = parseZenPackage(bytes, { source: path });
  const importedExports = loadPackage ? await importedExportPaths(pkg, undefined, loadPackage) : undefined;
  return describePackage(pkg, { ...(scriptObjects ? { scriptObjects } : {}), ...(importedExports ? { importedExports } : {}) });
}
