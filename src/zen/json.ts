import { IoStoreError } from '../errors.js';
import { quoteValue } from '../util/quote.js';
import { fromHex, toHex } from '../util/bytes.js';
import {
  CONTAINER_HEADER_VERSIONS,
  type ContainerHeader,
  type ContainerPackage,
  type PackageRedirect,
} from './container-header.js';
import type { MappedName } from './mapped-name.js';

/** The JSON-friendly form of a value: bigints become `0x`-prefixed 16-digit hex strings, byte arrays hex strings. */
export type Jsonify<T> = T extends bigint
  ? string
  : T extends Uint8Array
    ? string
    : T extends readonly (infer U)[]
      ? Jsonify<U>[]
      : T extends object
        ? { [K in keyof T]: Jsonify<T[K]> }
        : T;

export function bigintToHex(v: bigint): string {
  return `0x${BigInt.asUintN(64, v).toString(16).padStart(16, '0')}`;
}

/** Converts parsed structures to plain JSON values (see Jsonify). */
export function toJsonFriendly<T>(value: T): Jsonify<T> {
  return convert(value) as Jsonify<T>;
}

function convert(v: unknown): unknown {
  if (typeof v === 'bigint') return bigintToHex(v);
  if (v instanceof Uint8Array) return toHex(v);
  if (Array.isArray(v)) return v.map(convert);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = convert(x);
    return out;
  }
  return v;
}

export type ContainerHeaderJson = Jsonify<ContainerHeader>;

export function containerHeaderToJson(h: ContainerHeader): ContainerHeaderJson {
  return toJsonFriendly(h);
}

function big(s: unknown, what: string): bigint {
  if (typeof s !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(s)) throw new IoStoreError('USAGE', `${what}: expected a 0x hex string, got ${quoteValue(s)}`);
  return BigInt(s);
}

function int(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new IoStoreError('USAGE', `${what}: expected an integer, got ${quoteValue(v)}`);
  return v;
}

function arr(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new IoStoreError('USAGE', `${what}: expected an array`);
  return v;
}

function obj(v: unknown, what: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new IoStoreError('USAGE', `${what}: expected an object`);
  return v as Record<string, unknown>;
}

function mapped(v: unknown, what: string): MappedName {
  const o = obj(v, what);
  return { index: int(o.index, `${what}.index`), type: int(o.type, `${what}.type`), number: int(o.number, `${what}.number`) };
}

function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new IoStoreError('USAGE', `${what}: expected a string`);
  return v;
}

function pkg(v: unknown, what: string): ContainerPackage {
  const o = obj(v, what);
  const p: ContainerPackage = {
    packageId: big(o.packageId, `${what}.packageId`),
    importedPackages: arr(o.importedPackages, `${what}.importedPackages`).map((x, i) => big(x, `${what}.importedPackages[${i}]`)),
    shaderMapHashes: arr(o.shaderMapHashes, `${what}.shaderMapHashes`).map((x, i) => fromHex(str(x, `${what}.shaderMapHashes[${i}]`))),
  };
  for (const k of ['exportBundlesSize', 'loadOrder', 'exportCount', 'exportBundleCount'] as const) {
    if (o[k] !== undefined) p[k] = int(o[k], `${what}.${k}`);
  }
  return p;
}

/** The inverse of containerHeaderToJson: validates the shape and restores bigints and byte arrays. */
export function containerHeaderFromJson(json: unknown): ContainerHeader {
  const o = obj(json, 'container header');
  const version = o.version;
  if (typeof version !== 'string' || !(CONTAINER_HEADER_VERSIONS as readonly string[]).includes(version)) {
    throw new IoStoreError('USAGE', `container header: unknown version ${quoteValue(version)}`);
  }
  const nm = obj(o.nameMap, 'nameMap');
  const soft = o.softPackageReferences;
  const hashSize = int(o.shaderMapHashSize, 'shaderMapHashSize');
  if (hashSize !== 20 && hashSize !== 8) throw new IoStoreError('USAGE', `shaderMapHashSize must be 20 or 8, not ${hashSize}`);
  return {
    version: version as ContainerHeader['version'],
    containerId: big(o.containerId, 'containerId'),
    packages: arr(o.packages, 'packages').map((p, i) => pkg(p, `packages[${i}]`)),
    optionalSegmentPackages: arr(o.optionalSegmentPackages, 'optionalSegmentPackages').map((p, i) => pkg(p, `optionalSegmentPackages[${i}]`)),
    nameMap: {
      names: arr(nm.names, 'nameMap.names').map((s, i) => str(s, `nameMap.names[${i}]`)),
      hashes: arr(nm.hashes, 'nameMap.hashes').map((s, i) => big(s, `nameMap.hashes[${i}]`)),
    },
    localizedPackages: arr(o.localizedPackages, 'localizedPackages').map((v, i) => {
      const l = obj(v, `localizedPackages[${i}]`);
      return { sourcePackageId: big(l.sourcePackageId, 'sourcePackageId'), sourcePackageName: mapped(l.sourcePackageName, 'sourcePackageName') };
    }),
    packageRedirects: arr(o.packageRedirects, 'packageRedirects').map((v, i) => {
      const l = obj(v, `packageRedirects[${i}]`);
      const r: PackageRedirect = { sourcePackageId: big(l.sourcePackageId, 'sourcePackageId'), targetPackageId: big(l.targetPackageId, 'targetPackageId') };
      if (l.sourcePackageName !== undefined) r.sourcePackageName = mapped(l.sourcePackageName, 'sourcePackageName');
      return r;
    }),
    culturePackageMap: arr(o.culturePackageMap, 'culturePackageMap').map((v, i) => {
      const c = obj(v, `culturePackageMap[${i}]`);
      return {
        culture: str(c.culture, 'culture'),
        packages: arr(c.packages, 'packages').map((p, k) => {
          const q = obj(p, `culture packages[${k}]`);
          return { sourcePackageId: big(q.sourcePackageId, 'sourcePackageId'), localizedPackageId: big(q.localizedPackageId, 'localizedPackageId') };
        }),
      };
    }),
    softPackageReferences:
      soft === null || soft === undefined
        ? null
        : (() => {
            const s = obj(soft, 'softPackageReferences');
            return {
              contains: s.contains === true,
              packageIds: arr(s.packageIds, 'softPackageReferences.packageIds').map((x, i) => big(x, `softPackageReferences.packageIds[${i}]`)),
              packageIndices: fromHex(str(s.packageIndices, 'softPackageReferences.packageIndices')),
            };
          })(),
    shaderMapHashSize: hashSize,
    trailingPadding: int(o.trailingPadding ?? 0, 'trailingPadding'),
  };
}
