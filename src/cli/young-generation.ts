import { keepV8Flag, keepV8FlagForWorkers } from '../util/v8-flags.js';

/**
 * Keeps V8's young generation at its starting size for the rest of the process (and in worker threads, which set the
 * flag again once started: src/util/v8-flags.ts), for the commands that run a loop over every chunk of a game. Left
 * alone, V8 doubles the young generation
 * each time as many bytes have survived its collections as it holds, which a long loop always reaches: up to two
 * 16 MiB semi-spaces, ~32 MB of a 150,000-chunk unpack's peak RSS (137 -> 103 MB with `--threads 0`), for the few
 * bytes each chunk leaves alive across a collection. A collection of a small young generation with few survivors
 * costs little, and the same run took as much CPU time. `--max-semi-space-size` at start would do the same but makes
 * V8 refuse the code cache built into Node; the growth factor is read at each growth, so it can be set now. (Every
 * built-in module loaded after a flag change is compiled from source: `list` and `verify` of a small container,
 * src/cli/short-run.ts, leave it.) node:v8 loads on the first call.
 */
export function keepYoungGenerationSmall(): void {
  // A changed flag changes V8's flag hash, and a code cache written after it is refused by every later process:
  // scripts/warm-code-cache.cjs runs the commands in its own process to write the bundles' caches.
  if (process.env.IOSTORE_WRITING_CODE_CACHE) return;
  // Kept (src/util/v8-flags.ts): starting a worker thread undoes it, and the code starting one sets it again.
  keepV8Flag('--semi-space-growth-factor=1');
}

/**
 * For an unpack with worker threads: V8's heaps grow as when memory is short (`--optimize-for-size`: an old
 * generation collected after ~2 MB of growth instead of ~8), set once the first worker has loaded its code
 * (keepV8FlagForWorkers). Each thread's old generation otherwise held ~7 MB of dead per-chunk objects (Node's own objects of
 * each blocking file call) until its next full collection: the 150,000-chunk stored unpack's peak RSS went 128-130 ->
 * 118-119 MB at the same CPU time. Only from OLD_GENERATION_SMALL_MIN_CHUNKS chunks: below, what it saves is a few MB,
 * and its extra full collections (pauses of the calling thread and the workers, while the other core is busy) cost
 * the run's scaling on every core.
 */
export function keepOldGenerationSmall(): void {
  if (process.env.IOSTORE_WRITING_CODE_CACHE) return;
  keepV8FlagForWorkers('--optimize-for-size', { minChunks: OLD_GENERATION_SMALL_MIN_CHUNKS });
}

/**
 * Chunks from which an unpack keeps old generations small: the dead per-chunk objects it bounds are ~50 bytes a chunk
 * and thread (~5 MB per thread at 100,000 chunks), and it cost the 30,000-chunk Oodle unpack (64 KiB blocks) 3-5 full
 * collections instead of 1-2 (`--trace-gc`), where the one-thread run, which starts no worker, never had it set.
 */
export const OLD_GENERATION_SMALL_MIN_CHUNKS = 100_000;
