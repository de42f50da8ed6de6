import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

/**
 * Runs one full garbage collection now, for a command between two phases of a long run: what the first phase left
 * dead (a pack's plan of every file and its read buffers, ~15 MB at 30,000 files) is freed before the second builds
 * what it needs (the TOC and its directory index), instead of adding to the peak. V8 frees dead array buffers only
 * in a full collection, which a run that allocates mostly array buffers seldom reaches. `gc` is exposed to a new
 * context only (the process's own global is left alone); where that is refused, nothing is done.
 */
export function collectGarbage(): void {
  // A changed flag changes V8's flag hash (see young-generation.ts).
  if (process.env.IOSTORE_WRITING_CODE_CACHE) return;
  if (gc === undefined) {
    gc = null;
    try {
      setFlagsFromString('--expose-gc');
      const f: unknown = runInNewContext('gc');
      if (typeof f === 'function') gc = f as () => void;
    } catch {
      // Left null: no collection.
    }
  }
  gc?.();
}
