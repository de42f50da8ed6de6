import { existsSync } from 'node:fs';
import { ContainerReader } from '../cas/container-reader.js';
import { fileSource, partitionPaths } from '../cas/source.js';
import type { CodecRegistry } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import type { EngineVersion } from '../toc/engine.js';
import { guidHex, parseTocHeader } from '../toc/header.js';
import { readTocBytes } from '../toc/read-file.js';
import { readToc } from '../toc/toc.js';
import { ContainerFlags } from '../toc/version.js';
import type { KeyRing } from './keys.js';
import type { MountEntry } from './mount.js';

export interface OpenContainerOptions {
  /** AES keys by key GUID, for encrypted containers. */
  keys?: KeyRing;
  /** Engine release, when the TOC alone cannot settle it. */
  engine?: EngineVersion;
  codecs?: CodecRegistry;
}

/** Opens one container, choosing its AES key from the ring by the container's key GUID. */
export async function openContainer(entry: MountEntry, o: OpenContainerOptions): Promise<ContainerReader> {
  const bytes = await readTocBytes(entry.utoc, { shared: true });
  const header = parseTocHeader(bytes, entry.utoc);
  let aesKey: Uint8Array | undefined;
  if (header.containerFlags & ContainerFlags.Encrypted) {
    aesKey = o.keys?.get(guidHex(header.encryptionKeyGuid));
    if (!aesKey) {
      throw new IoStoreError('NEEDS_KEY', `the container is encrypted (key GUID ${guidHex(header.encryptionKeyGuid)}): pass --aes-key or --keys`, { file: entry.utoc });
    }
  }
  const toc = readToc(bytes, { source: entry.utoc, ...(aesKey ? { aesKey } : {}), ...(o.engine ? { engine: o.engine } : {}) });
  if (toc.directoryIndexError) throw toc.directoryIndexError;
  const parts = partitionPaths(entry.utoc, toc.partitionCount);
  const origin = { utoc: entry.utoc, partitions: parts, ...(aesKey ? { aesKey } : {}), ...(o.engine ? { engine: o.engine } : {}), tocBytes: bytes };
  const readerOptions = { ...(aesKey ? { aesKey } : {}), ...(o.codecs ? { codecs: o.codecs } : {}), origin };
  // One clear error for a missing data file, rather than one per chunk that lives in it.
  const missing = toc.blockCount > 0 ? parts.find((p) => !existsSync(p)) : undefined;
  if (missing) throw new IoStoreError('NOT_FOUND', `the container's data file is missing (${toc.chunkCount} chunks live in its .ucas files)`, { file: missing });
  return new ContainerReader(toc, parts.map(fileSource), readerOptions);
}
