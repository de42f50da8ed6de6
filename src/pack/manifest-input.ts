import { IoStoreError } from '../errors.js';
import { MANIFEST_NAME, type Manifest, type ManifestContainer } from '../layout/manifest.js';
import { readManifestFile } from '../layout/manifest-read.js';
import { quote } from '../util/quote.js';

/** Reads and checks the manifest `unpack` wrote; errors name the field that is wrong. */
export async function readManifest(folder: string): Promise<Manifest> {
  return readManifestFile(folder, `no ${MANIFEST_NAME}: pack needs a folder written by unpack (or pass --like for a plain folder)`);
}

/**
 * The container to pack: the one named, else the only one, else the one the output is named after (a folder
 * holding several, from a Paks folder or from several unpacks into it, is rebuilt one container at a time).
 */
export function pickContainer(m: Manifest, name: string | undefined, source: string, outName?: string): ManifestContainer {
  const byName = (n: string) => m.containers.find((x) => x.name.toLowerCase() === n.toLowerCase());
  const names = m.containers.map((x) => x.name).join(', ');
  if (name !== undefined) {
    const c = byName(name);
    if (!c) throw new IoStoreError('USAGE', `no container ${quote(name)} in the manifest (it has ${names})`, { file: source });
    return c;
  }
  if (m.containers.length === 1) return m.containers[0]!;
  const named = outName === undefined ? undefined : byName(outName);
  if (named) return named;
  if (m.containers.length === 0) throw new IoStoreError('USAGE', 'the manifest lists no container (the folder was unpacked from .pak files: pack it to a .pak output)', { file: source });
  throw new IoStoreError('USAGE', `the folder holds ${m.containers.length} containers (${names}): choose one with --container <name>, or name the output after it`, { file: source });
}
