import type { ContainerReader } from '../../cas/container-reader.js';
import { IoStoreError } from '../../errors.js';
import type { EngineVersion } from '../../toc/engine.js';
import { parseZenPackage, type ZenPackage } from '../../zen/zen-package.js';
import type { RawRangeReader } from '../raw-range.js';

export const HEADER_PROBE = 64 * 1024;

/**
 * Reads a package header: small packages whole (kept for the conversion, within a memory budget), large ones by a
 * prefix first (headers are small), the whole chunk only when the prefix is too short.
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

/** Package chunks kept in memory between the two passes, at most this many bytes. */
export const KEEP_BUDGET = 256 * 1024 * 1024;
/** Of those, packages whose full parse is kept too (a parse takes a few times the bytes), at most this many bytes. */
export const KEEP_PARSED_BUDGET = 32 * 1024 * 1024;
