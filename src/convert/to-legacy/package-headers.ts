import type { ContainerReader } from '../../cas/container-reader.js';
import { IoStoreError } from '../../errors.js';
import { packageIdFromName } from '../../hash/names.js';
import type { EngineVersion } from '../../toc/engine.js';
import type { ContainerPackage } from '../../zen/container-header.js';
import { NULL_OBJECT_INDEX } from '../../zen/object-index.js';
import { parseZenPackage, type ZenPackage } from '../../zen/zen-package.js';
import type { PackageDirectory } from '../naming.js';
import type { RawRangeReader } from '../raw-range.js';

/** Bytes read first for a package's header: small packages are read whole by it. */
export const HEADER_PROBE = 64 * 1024;
/** Package chunks kept in memory between the two passes, at most this many bytes. */
export const KEEP_BUDGET = 256 * 1024 * 1024;
/** Of those, packages whose full parse is kept too (a parse takes a few times the bytes), at most this many bytes. */
export const KEEP_PARSED_BUDGET = 32 * 1024 * 1024;

/**
 * Reads a package header from a container: small packages whole (kept for the conversion, within a memory budget),
 * large ones by a prefix first (headers are small), the whole chunk only when the prefix is too short.
 */
export async function readHeader(reader: ContainerReader, raw: RawRangeReader, i: number, source: string, engine: EngineVersion | undefined, keep: boolean): Promise<{ z: ZenPackage; bytes?: Uint8Array }> {
  const size = reader.toc.chunkSize(i);
  const hints = { source, ...(engine ? { engine } : {}) };
  if (size > HEADER_PROBE || !keep) {
    try {
      const probe = Math.min(size, HEADER_PROBE);
      return { z: parseZenPackage(raw.read(reader, i, 0, probe) ?? (await reader.readRange(i, 0, probe)), hints) };
    } catch (e) {
      if (!(e instanceof IoStoreError) || e.code !== 'TRUNCATED' || size <= HEADER_PROBE) throw e;
    }
  }
  const bytes = raw.read(reader, i, 0, size) ?? (await reader.readChunk(i));
  return keep ? { z: parseZenPackage(bytes, hints), bytes } : { z: parseZenPackage(bytes, hints) };
}

/**
 * Headers of every package at hand, so imports can be named from the packages at hand, with the store entries of
 * the container headers (imports of 5.0-5.2 and UE4 packages). Headers are kept without what only the conversion of
 * the package itself needs: a game's worth of full headers would not fit in memory. Each package is parsed again,
 * whole, when it is converted.
 */
export class PackageHeaders implements PackageDirectory {
  private readonly headers = new Map<bigint, ZenPackage>();
  /** Store entries of the container headers at hand, by package id. */
  readonly stores = new Map<bigint, ContainerPackage>();
  private readonly idOf = new WeakMap<ZenPackage, bigint>();
  private globalImports: Map<bigint, { pkg: ZenPackage; exportIndex: number }> | undefined;

  add(id: bigint, z: ZenPackage): void {
    const slim: ZenPackage = {
      ...z,
      nameHashes: [],
      bulkData: [],
      dependencyBundleEntries: [],
      dependencyBundleHeaders: [],
      exportBundleEntries: [],
      exportBundles: [],
      internalArcs: [],
      externalArcs: [],
      referencedPackages: [],
      sections: [],
      cellExports: [],
      cellImports: [],
    };
    this.headers.set(id, slim);
    this.idOf.set(slim, id);
  }

  /** The full parse of a package added as `z`, for its conversion: known by the same id. */
  addParsed(full: ZenPackage, z: ZenPackage): void {
    this.idOf.set(full, this.idOf.get(z) ?? packageIdFromName(full.packageName));
  }

  get(id: bigint): ZenPackage | undefined {
    return this.headers.get(id);
  }

  importedPackageIds(pkg: ZenPackage): bigint[] | undefined {
    const id = this.idOf.get(pkg);
    return id === undefined ? undefined : this.stores.get(id)?.importedPackages;
  }

  globalImport(index: bigint): { pkg: ZenPackage; exportIndex: number } | undefined {
    if (!this.globalImports) {
      const found = new Map<bigint, { pkg: ZenPackage; exportIndex: number }>();
      this.globalImports = found;
      for (const z of this.headers.values()) {
        if (z.layout.format !== 'UE4') continue;
        z.exports.forEach((e, i) => {
          if (e.publicExportHash !== NULL_OBJECT_INDEX) found.set(e.publicExportHash, { pkg: z, exportIndex: i });
        });
      }
    }
    return this.globalImports.get(index);
  }
}
