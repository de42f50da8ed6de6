/** The package and container-header views of the page, over the library's describe functions. */
import { scriptObjectsFromReader, packageNamesFromToc, readContainerHeader } from '../inspect/context.js';
import { describeContainerHeader, describePackage, type ContainerHeaderView, type PackageView } from '../inspect/describe.js';
import type { ContainerHeader } from '../zen/container-header.js';
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
  /** Package id -> the container and TOC index of its package chunk, the highest-priority one winning. */
  private chunks?: Map<bigint, { k: number; i: number }>;
  /** Packages parsed to name another package's imports: a few, as the same ones are imported again and again. */
  private readonly parsed = new Map<bigint, Promise<ZenPackage | undefined>>();

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

  private packageChunk(id: bigint): { k: number; i: number } | undefined {
    if (!this.chunks) {
      this.chunks = new Map();
      // Containers come in mount order: a later one overrides an earlier one's package.
      this.containers.forEach((c, k) => {
        const toc = c.toc;
        if (toc) for (let i = 0; i < toc.chunkCount; i++) if (toc.chunkTypeName(i) === 'ExportBundleData') this.chunks!.set(toc.chunkId(i).id, { k, i });
      });
    }
    return this.chunks.get(id);
  }

  /** The package of this id from whichever dropped container holds it (undefined when none can be read). */
  loadPackage(id: bigint): Promise<ZenPackage | undefined> {
    let p = this.parsed.get(id);
    if (!p) {
      if (this.parsed.size >= 64) this.parsed.delete(this.parsed.keys().next().value!);
      p = (async () => {
        const at = this.packageChunk(id);
        const c = at && this.containers[at.k];
        if (!at || !c?.reader) return undefined;
        const header = await this.header(at.k);
        const entry = header?.packages.find((e) => e.packageId === id);
        return parseZenPackage(await c.reader.readChunk(at.i), { source: `${c.path}: ${c.toc!.chunkPath(at.i) ?? c.toc!.chunkIdHex(at.i)}`, ...(header ? { containerHeaderVersion: header.version } : {}), ...(entry ? { storeEntry: entry } : {}) });
      })();
      this.parsed.set(id, p);
    }
    return p;
  }

  /** How many exports a package of container `k` has (for container headers that no longer store it). */
  async exportCount(k: number, id: bigint): Promise<number | undefined> {
    const at = this.packageChunk(id);
    if (!at || at.k !== k) return undefined;
    return (await this.loadPackage(id))?.exports.length;
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
      const header = await this.header(row.container);
      const id = c.toc.chunkId(row.index).id;
      const entry = header?.packages.find((p) => p.packageId === id);
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
