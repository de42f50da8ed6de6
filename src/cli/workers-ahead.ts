import { statSync } from 'node:fs';
import { aheadThreads, WorkersAhead } from '../chunks/loop-pool.js';
import { compileManifestLoops, WASM_ENTRIES_MIN } from '../layout/manifest-wasm.js';

/**
 * Loop workers for a run over these .utoc files, started before their TOCs are read (WorkersAhead) when the files'
 * sizes say the run will likely want them, else undefined. Called after the command's V8 flags are set (young
 * generation), so the workers start with the flags the process holds. The caller discards them at the end.
 */
export function startWorkersAhead(kind: 'hash' | 'write', utocs: readonly string[], threads: number | undefined): WorkersAhead | undefined {
  if (threads === 0 || utocs.length === 0) return undefined;
  let utocBytes = 0;
  let ucasBytes = 0;
  for (const utoc of utocs) {
    // One stat each (a partitioned container's first .ucas is enough to decide); a file missing is for the open to say.
    utocBytes += sizeOf(utoc);
    ucasBytes += sizeOf(utoc.replace(/\.utoc$/i, '.ucas'));
  }
  const n = aheadThreads(kind, { ...(threads !== undefined ? { threads } : {}), utocBytes, ucasBytes });
  if (n <= 0) return undefined;
  // The manifest's module too, where its TOCs likely hold enough chunks for it, before the workers start (tocLoopsModule).
  if (kind === 'write' && utocBytes >= WASM_ENTRIES_MIN * 96) compileManifestLoops();
  return new WorkersAhead(n);
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
