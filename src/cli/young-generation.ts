import { createRequire } from 'node:module';

/**
 * Below this many chunks a run's young generation has no room to grow far, and keeping it small is not worth what
 * node:v8 costs a short command to load (it loads Node's stream modules behind it: ~5 ms of a 3,000-chunk `list`).
 */
export const YOUNG_GENERATION_MIN_CHUNKS = 16_384;

/**
 * Keeps V8's young generation at its starting size for the rest of the process (and in worker threads started
 * after), for the commands that run a loop over every chunk of a game (`chunks` of them: a run of fewer than
 * YOUNG_GENERATION_MIN_CHUNKS leaves V8 as it is). Left alone, V8 doubles the young generation
 * each time as many bytes have survived its collections as it holds, which a long loop always reaches: up to two
 * 16 MiB semi-spaces, ~32 MB of a 150,000-chunk unpack's peak RSS (137 -> 103 MB with `--threads 0`), for the few
 * bytes each chunk leaves alive across a collection. A collection of a small young generation with few survivors
 * costs little, and the same run took as much CPU time. `--max-semi-space-size` at start would do the same but makes
 * V8 refuse the code cache built into Node; the growth factor is read at each growth, so it can be set now.
 * Returns whether it set the flag.
 */
export function keepYoungGenerationSmall(chunks = Infinity): boolean {
  // A changed flag changes V8's flag hash, and a code cache written after it is refused by every later process:
  // scripts/warm-code-cache.cjs runs the commands in its own process to write the bundles' caches.
  if (process.env.IOSTORE_WRITING_CODE_CACHE || chunks < YOUNG_GENERATION_MIN_CHUNKS) return false;
  (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}
