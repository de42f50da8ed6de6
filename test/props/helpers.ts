import { ContainerReader } from '../../src/cas/container-reader.js';
import { scriptObjectsFromReader } from '../../src/inspect/context.js';
import { zenPublicExports, type PackagePropsJson, type PropJson, type PropsJsonValue as Json } from '../../src/props/index.js';
import { parseZenPackage } from '../../src/zen/index.js';

/** Package chunks of a container by the tail of their path, with the script objects of a global container. */
export async function containerPackages(utoc: string, globalUtoc: string): Promise<{
  get(tail: string): Uint8Array;
  scriptObjects: ReadonlyMap<bigint, string> | undefined;
  publicExportPath: (pkg: string, hash: bigint) => string | undefined;
}> {
  const reader = await ContainerReader.open(utoc);
  const g = await ContainerReader.open(globalUtoc);
  const scriptObjects = await scriptObjectsFromReader(g);
  await g.close();
  const chunks = new Map<string, Uint8Array>();
  for (let i = 0; i < reader.toc.chunkCount; i++) {
    if (reader.toc.chunkTypeName(i) === 'ExportBundleData') chunks.set(reader.toc.chunkPath(i) ?? '', await reader.readChunk(i));
  }
  await reader.close();
  const publics = new Map<string, Map<bigint, string>>();
  for (const [p, b] of chunks) {
    const z = parseZenPackage(b, { source: p });
    publics.set(z.packageName.toLowerCase(), zenPublicExports(z));
  }
  return {
    publicExportPath: (pkg, hash) => publics.get(pkg.toLowerCase())?.get(hash),
    get(tail) {
      for (const [p, b] of chunks) if (p.endsWith(tail)) return b;
      throw new Error(`no package ${tail}`);
    },
    scriptObjects,
  };
}

/**
 * Property values without the form's bookkeeping (types, tag fields, zero flags): name -> value, structs as
 * objects, for comparing what two forms of a package hold. Names compare without case, as the engine's do.
 */
export function plain(v: Json | undefined): unknown {
  if (Array.isArray(v)) {
    if (v.length > 0 && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && 'type' in x && 'name' in x)) {
      const o: Record<string, unknown> = {};
      for (const p of v as unknown as PropJson[]) {
        const key = `${String(p.name).toLowerCase()}${p.arrayIndex ? `[${p.arrayIndex}]` : ''}`;
        o[key] = plain(p.value);
      }
      return o;
    }
    return v.map(plain);
  }
  if (v !== null && typeof v === 'object') {
    if (Array.isArray((v as Record<string, Json>).properties) && typeof (v as Record<string, Json>).header === 'string') return plain((v as Record<string, Json>).properties);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

export function exportOf(json: PackagePropsJson, name: string) {
  const e = json.exports.find((x) => x.name === name);
  if (!e) throw new Error(`no export ${name}`);
  return e;
}

export const prop = (props: PropJson[] | undefined, name: string) => props?.find((p) => String(p.name).toLowerCase() === name.toLowerCase());
