/** The package and container-header views of the page, over the library's describe functions. */
import { scriptObjectsFromReader, packageNamesFromToc, readContainerHeader } from '../inspect/context.js';
import { describeContainerHeader, describePackage, type ContainerHeaderView, type PackageView } from '../inspect/describe.js';
import type { ContainerHeader } from '../zen/container-header.js';
import type { LegacyPackageView } from '../legacy/describe.js';
import { parseZenPackage } from '../zen/zen-package.js';
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
      return describePackage(pkg, { packageNames: this.packageNames(), ...(entry ? { importedPackageIds: entry.importedPackages } : {}), ...(scriptObjects ? { scriptObjects } : {}) });
    }
    return viewLoosePackage(bytes, row.path, companion, await this.scriptObjects());
  }
}

/** A package file on its own: the registered viewers first (legacy), then the zen reader. */
export async function viewLoosePackage(bytes: Uint8Array, path: string, companion: (ext: string) => Promise<Uint8Array | undefined>, scriptObjects?: Map<bigint, string>): Promise<AnyPackageView | string> {
  for (const v of packageViewers) {
    const view = await v.describe(bytes, path, companion);
    if (view) return view;
  }
  if (bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) === 0x9e2a83c1) {
    return `${path}: a classic (UE1-UE3) package, which the page does not show`;
  }
  const pkg = parseZenPackage(bytes, { source: path });
  return describePackage(pkg, scriptObjects ? { scriptObjects } : {});
}
