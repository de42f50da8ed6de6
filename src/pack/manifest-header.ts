import { readFile } from 'node:fs/promises';
import { IoStoreError } from '../errors.js';
import { ioError } from '../toc/read-file.js';
import { parseContainerHeader, serializeContainerHeader, type ContainerHeaderVersionName, type ContainerPackage } from '../zen/container-header.js';
import { parseZenPackage } from '../zen/zen-package.js';
import { buildContainerHeader, storeEntryFor } from './header-builder.js';

/** The container header a rebuild of an unpacked container starts from. */
export interface HeaderBase {
  bytes: Uint8Array;
  /** What messages name: the header's file, or the source container. */
  source: string;
  /** The container id it must hold (the manifest's), as 0x and 16 hex digits. */
  containerId: string;
}

/** What changed in the container since unpack, for its header. */
export interface HeaderChanges {
  version: ContainerHeaderVersionName;
  /** Package ids whose package chunk is written: the header lists these and no others. */
  packed: ReadonlySet<bigint>;
  /** Listed packages whose bytes changed since unpack (filled as chunks are written): their entries are rebuilt. */
  edited: ReadonlyMap<bigint, string>;
  /** The file of each listed package: one the header has no entry for gets one from its own header. */
  files: ReadonlyMap<bigint, string>;
  /** Entries of packages packed from their own headers (added to the folder, or now in another form). */
  added: readonly ContainerPackage[];
}

/**
 * The header of a rebuilt container: the unpacked one with its own container id and, when packages were edited,
 * added or left out, entries for exactly the packages written (edited ones rebuilt from their new headers). Unchanged,
 * it is the original bytes but for the id, so a plain repack stays byte-identical. Without a base (a partial unpack
 * left it out and the source container is gone) it is built from the entries alone.
 */
export async function* rebuiltHeader(base: HeaderBase | undefined, id: bigint, ch: HeaderChanges, warnings: string[]): AsyncGenerator<Uint8Array> {
  const bytes = base ? withContainerId(base, id) : undefined;
  const header = bytes ? undefined : buildContainerHeader(ch.version, id, []);
  if (bytes) {
    const view = parseContainerHeader(bytes, { source: base!.source, version: ch.version });
    const unchanged = ch.edited.size === 0 && ch.added.length === 0 && view.packages.length === ch.packed.size && view.packages.every((p) => ch.packed.has(p.packageId));
    if (unchanged) {
      yield bytes;
      return;
    }
  }
  const h = header ?? parseContainerHeader(bytes!, { source: base!.source, version: ch.version });
  h.containerId = id;
  h.packages = h.packages.filter((p) => ch.packed.has(p.packageId));
  const rebuild = new Map(ch.edited);
  const added = new Set(ch.added.map((a) => a.packageId));
  for (const [packageId, file] of ch.files) if (!added.has(packageId) && !h.packages.some((p) => p.packageId === packageId)) rebuild.set(packageId, file);
  for (const [packageId, pkgFile] of rebuild) {
    let entry = h.packages.find((p) => p.packageId === packageId);
    const pkgBytes = new Uint8Array(await readFile(pkgFile).catch((e) => { throw ioError(e, pkgFile); }));
    const pkg = parseZenPackage(pkgBytes, { source: pkgFile, containerHeaderVersion: h.version, ...(entry ? { storeEntry: entry } : {}) });
    const { entry: next, warning } = storeEntryFor(pkg, pkgBytes.length, h.version, entry);
    if (warning) warnings.push(warning);
    if (!entry) h.packages.push((entry = { packageId, ...next }));
    else Object.assign(entry, next);
  }
  for (const a of ch.added) {
    const at = h.packages.findIndex((p) => p.packageId === a.packageId);
    if (at >= 0) h.packages[at] = a;
    else h.packages.push(a);
  }
  // The engine writes them sorted by id.
  h.packages.sort((a, b) => (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0));
  yield serializeContainerHeader(h);
}

/** The container header embeds its container's id (UE5: after magic and version; UE4: first); a renamed container needs its own. */
function withContainerId(base: HeaderBase, id: bigint): Uint8Array {
  const bytes = base.bytes.slice();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const ue5 = bytes.length >= 16 && view.getUint32(0, true) === 0x496f436e;
  const at = ue5 ? 8 : 0;
  if (bytes.length < at + 8) throw new IoStoreError('BAD_VALUE', 'container header is too short', { file: base.source });
  const old = `0x${view.getBigUint64(at, true).toString(16).padStart(16, '0')}`;
  if (old !== base.containerId) throw new IoStoreError('BAD_VALUE', `container header holds id ${old}, expected ${base.containerId}`, { file: base.source, offset: at });
  view.setBigUint64(at, id, true);
  return bytes;
}

/** The version of a container header's bytes, when its layout names it (UE5 headers store it). */
export function headerVersionOf(bytes: Uint8Array, source: string): ContainerHeaderVersionName {
  return parseContainerHeader(bytes, { source }).version;
}
