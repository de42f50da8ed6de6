import { probePath } from '../util/path-probe.js';
import { keepV8FlagForWorkers, processFlagsOwned } from '../util/v8-flags.js';
import { setV8Flags } from '../util/v8-set-flags.js';

/**
 * A .utoc below this size (~100 bytes per chunk: ~10,000 chunks) makes a short run of `list`: its loops end before
 * V8's optimizing compiler pays for itself. Measured on 2 cores: 3,000 chunks 19% less CPU without it, 8,000 22%
 * less, 16,000 9% more (150,000: twice the time).
 */
export const SHORT_RUN_TOC_BYTES = 1 << 20;

/**
 * Whether a run over the container of `utoc` is short: its .utoc below SHORT_RUN_TOC_BYTES. A file that cannot be
 * read is not (the command's own open says what is wrong with it).
 */
export function isShortRun(utoc: string): boolean {
  return probePath(utoc, SHORT_RUN_TOC_BYTES)?.below ?? false;
}

/**
 * Turns V8's optimizing compiler (TurboFan) off for the rest of a short run of `list` or `info` (a .utoc below
 * SHORT_RUN_TOC_BYTES: isShortRun, or singleInput's probe), for JavaScript (`--no-opt`) and WebAssembly
 * (`--liftoff-only`). The listing's rows are written by WebAssembly (src/cli/chunk-rows.ts), whose write loop passes
 * V8's tier-up budget within a few hundred rows: TurboFan then compiled the module again on a background thread (~30M
 * instructions, list of 3,000 chunks 147M in all without it), and what is left in JavaScript ends before optimized
 * code would pay (before the rows were WebAssembly, compiling them was ~30% of `list`'s instructions). `info` turns
 * them off too: without the flags its CPU was ~0.7 ms higher (issue 28bj). Set at run time, after the bundles loaded
 * with their code cache (a flag given at start makes V8 refuse every cache), before the TOC is read;
 * scripts/warm-code-cache.cjs leaves it alone, as a cache written after a flag change is refused by every later
 * process. `IOSTORE_V8_OPT=1` keeps the compilers on (to compare). Returns whether they were turned off.
 */
export function skipOptimizingCompiler(): boolean {
  if (!processFlagsOwned() || process.env.IOSTORE_V8_OPT === '1') return false;
  if (process.env.IOSTORE_WRITING_CODE_CACHE) {
    // No flag changed (a cache written after a change is refused), but the setter's functions are compiled as a
    // short run compiles them, so that the command's code cache holds them (scripts/warm-code-cache.cjs).
    setV8Flags('');
    return false;
  }
  setV8Flags('--no-opt --liftoff-only');
  return true;
}

/**
 * Turns TurboFan off for the rest of a short run of `verify` or `unpack` (one container, isShortRun) once its worker
 * thread has loaded its code (src/util/v8-flags.ts: set any earlier, the worker would refuse its code cache). Its loop
 * over a few thousand chunks spends its time in native reads, inflates, hashes and writes; what TurboFan compiled for
 * it on background threads arrived too late to pay: verify of the bench's 3,000-chunk Zlib container 4,356M -> 4,127M
 * instructions (all threads; V8's background threads 415M -> 54M), unpack of the stored one 1,435M -> 1,122M. A run
 * that starts no worker keeps the compiler. Same exceptions as skipOptimizingCompiler. Returns whether it was kept
 * for the worker.
 */
export function skipOptimizingCompilerInWorkers(): boolean {
  if (!processFlagsOwned() || process.env.IOSTORE_WRITING_CODE_CACHE || process.env.IOSTORE_V8_OPT === '1') return false;
  keepV8FlagForWorkers('--no-opt');
  return true;
}
