import { parseAesKey } from '../crypto/aes.js';
import { IoStoreError } from '../errors.js';
import type { PakArchive } from '../pak/archive.js';
import { openPakFile } from '../pak/pak-file.js';
import type { KeyRing } from '../mount/keys.js';

export { isPakPath } from './options.js';

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

/**
 * Opens a pak of a folder run; one whose index needs a key it was not given is skipped with a warning (undefined),
 * so the other containers still show.
 */
export async function openPakOrWarn(path: string, key: Parameters<typeof openPakForCli>[1], warn: (message: string) => void): Promise<PakArchive | undefined> {
  try {
    return await openPakForCli(path, key);
  } catch (e) {
    if (!(e instanceof IoStoreError) || (e.code !== 'NEEDS_KEY' && e.code !== 'BAD_KEY')) throw e;
    warn(e.message);
    return undefined;
  }
}
