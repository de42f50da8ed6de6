import { IoStoreError } from '../../errors.js';
import { mountEntry } from '../../mount/mount.js';
import { parseLoaderGlobalNames, parseLoaderInitialLoadMeta, readScriptObjectTable } from '../../zen/script-objects.js';
import { readWholeFile } from '../folder-input.js';
import { ScriptObjectIndex } from '../naming.js';
import { RawRangeReader } from '../raw-range.js';
import type { ToLegacyOptions } from '../to-legacy.js';
import { openSyncReader } from './containers.js';
import type { ToLegacyRun } from './run.js';
import { hasExtension } from '../../util/file-extension.js';

/**
 * Starts reading the script objects of the global container, which name `/Script/...` imports (read while the
 * package headers are: only the conversion needs them). One that cannot be read is a warning: they stay unnamed.
 */
export function loadScriptObjects(run: ToLegacyRun, globalPath: string | undefined): Promise<ScriptObjectIndex | undefined> {
  if (!globalPath) return Promise.resolve(undefined);
  return readScriptObjects(globalPath, run.options).catch((e: unknown) => {
    if (!(e instanceof IoStoreError)) throw e;
    run.result.warnings.push(`${globalPath}: the global container could not be read (${e.message}); script imports stay unnamed`);
    return undefined;
  });
}

async function readScriptObjects(utoc: string, o: ToLegacyOptions): Promise<ScriptObjectIndex | undefined> {
  // The ScriptObjects chunk on its own, as unpack writes it.
  if (!hasExtension(utoc, '.utoc')) return new ScriptObjectIndex(readScriptObjectTable(readWholeFile(utoc), { source: utoc }));
  const reader = await openSyncReader(mountEntry(utoc), o);
  try {
    const byType = (t: string) => {
      for (let i = 0; i < reader.toc.chunkCount; i++) if (reader.toc.chunkTypeName(i) === t) return i;
      return -1;
    };
    const so = byType('ScriptObjects');
    if (so >= 0) {
      // 2-3 MB read once: straight into its own buffer when stored raw.
      const raw = new RawRangeReader();
      try {
        const bytes = raw.read(reader, so, 0, reader.toc.chunkSize(so)) ?? (await reader.readChunk(so));
        return new ScriptObjectIndex(readScriptObjectTable(bytes, { source: utoc }));
      } finally {
        raw.close();
      }
    }
    // UE 4.26/4.27 globals: the global names and the initial load meta hold the same entries.
    const gn = byType('LoaderGlobalNames');
    const meta = byType('LoaderInitialLoadMeta');
    if (gn < 0 || meta < 0) return undefined;
    const names = parseLoaderGlobalNames(await reader.readChunk(gn), { source: utoc });
    return new ScriptObjectIndex({ names, nameHashes: [], objects: parseLoaderInitialLoadMeta(await reader.readChunk(meta), { source: utoc }) });
  } finally {
    await reader.close();
  }
}
