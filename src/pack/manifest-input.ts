import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IoStoreError } from '../errors.js';
import { ioError } from '../toc/read-file.js';
import { MANIFEST_NAME, type Manifest, type ManifestContainer } from '../layout/manifest.js';
import { quote } from '../util/quote.js';

/** Reads and checks the manifest `unpack` wrote; errors name the field that is wrong. */
export async function readManifest(folder: string): Promise<Manifest> {
  const path = join(folder, MANIFEST_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const err = ioError(e, path);
    if (err.code === 'NOT_FOUND') throw new IoStoreError('NOT_FOUND', `no ${MANIFEST_NAME}: pack needs a folder written by unpack (or pass --like for a plain folder)`, { file: path });
    throw err;
  }
  let m: Manifest;
  try {
    m = JSON.parse(text) as Manifest;
  } catch (e) {
    throw new IoStoreError('BAD_VALUE', `not valid JSON: ${(e as Error).message}`, { file: path });
  }
  const bad = (what: string): never => {
    throw new IoStoreError('BAD_VALUE', `manifest: ${what}`, { file: path });
  };
  if (m?.tool !== 'iostore-toolkit' || !Array.isArray(m.containers)) bad('not an iostore-toolkit manifest');
  for (const c of m.containers) {
    if (typeof c.name !== 'string' || !Number.isInteger(c.tocVersion) || !Number.isInteger(c.blockSize) || !Array.isArray(c.chunks)) {
      bad(`container ${JSON.stringify(c?.name)} lacks name, tocVersion, blockSize or chunks`);
    }
    for (const ch of c.chunks) {
      if (typeof ch.id !== 'string' || !/^[0-9a-f]{24}$/.test(ch.id)) bad(`container ${c.name}: chunk id ${JSON.stringify(ch?.id)} is not 24 hex digits`);
      if (typeof ch.path !== 'string') bad(`container ${c.name}: chunk ${ch.id} has no path`);
    }
  }
  return m;
}

/** The container to pack: the only one, or the one named. */
export function pickContainer(m: Manifest, name: string | undefined, source: string): ManifestContainer {
  if (name !== undefined) {
    const c = m.containers.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (!c) throw new IoStoreError('USAGE', `no container ${quote(name)} in the manifest (it has ${m.containers.map((x) => x.name).join(', ')})`, { file: source });
    return c;
  }
  if (m.containers.length !== 1) {
    throw new IoStoreError('USAGE', `the folder holds ${m.containers.length} containers (${m.containers.map((x) => x.name).join(', ')}): choose one with --container`, { file: source });
  }
  return m.containers[0]!;
}
