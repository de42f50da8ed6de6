import { ContainerReader } from '../../cas/container-reader.js';
import { fileSourceSync } from '../../cas/source.js';
import type { MountEntry } from '../../mount/mount.js';
import { openContainer } from '../../mount/open.js';
import type { ToLegacyOptions } from '../to-legacy.js';

/**
 * A reader whose reads are blocking calls: packages are read one after another and are small, and a read from the
 * page cache costs less than a round trip through the libuv pool (spans are at most the reader's 2 MiB).
 */
export async function openSyncReader(entry: MountEntry, o: ToLegacyOptions): Promise<ContainerReader> {
  const r = await openContainer(entry, o);
  const origin = r.origin!;
  await r.close();
  return new ContainerReader(r.toc, origin.partitions.map((p) => fileSourceSync(p)), { ...(origin.aesKey ? { aesKey: origin.aesKey } : {}), codecs: r.codecs, origin });
}
