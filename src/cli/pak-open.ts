import { parseAesKey } from '../crypto/aes.js';
import type { PakArchive } from '../pak/archive.js';
import { openPakFile } from '../pak/pak-file.js';
import type { KeyRing } from '../unpack/keys.js';

/** A path the commands treat as a pak archive rather than a container. */
export const isPakPath = (p: string): boolean => /\.pak$/i.test(p);

/** Opens a pak with the key of its GUID from `keys`, or the one `--aes-key` gives for every GUID. */
export async function openPakForCli(path: string, key: { 'aes-key'?: string } | KeyRing | undefined, o: { verifyIndexHashes?: boolean } = {}): Promise<PakArchive> {
  if (key === undefined) return openPakFile(path, o);
  if ('get' in key && typeof key.get === 'function') {
    const ring = key as KeyRing;
    return openPakFile(path, { ...o, keyFor: (guid) => ring.get(guid) });
  }
  const text = (key as { 'aes-key'?: string })['aes-key'];
  if (!text) return openPakFile(path, o);
  const aes = parseAesKey(text);
  return openPakFile(path, { ...o, keyFor: () => aes });
}
