import { writeSync } from 'node:fs';
import { setV8Flags } from './v8-set-flags.js';

/**
 * V8 flags a command set at run time for the rest of the process (see src/cli/young-generation.ts). Starting a
 * worker thread puts V8's flags back through their implications, and `--semi-space-growth-factor` has a minimum of
 * 2 there: after a worker started, the young generations of the calling thread and the worker grew again to two
 * 16 MiB semi-spaces each (a 150,000-chunk unpack: ~35 MB of peak RSS). So the flags are kept here, and code that
 * starts workers has them set again once the workers have loaded their code (`setKeptV8Flags`): set any earlier,
 * the new flag hash makes V8 refuse the code cache of what they load. Flags are set through src/util/v8-set-flags.ts.
 */
const kept: string[] = [];

/**
 * Whether the CLI owns this process (bin/iostore.js says so through ownProcessFlags). V8's flags hold for the whole
 * process: a command run in-process by another program, or by a test runner, must leave them alone (one in-process
 * `list` of a small container had turned TurboFan off for every later test of its vitest worker: the Oodle fuzz
 * file took 19 s instead of 5).
 */
let owned = false;

/** Lets the CLI's commands set V8 flags for the rest of the process: called by the `iostore` program only. */
export function ownProcessFlags(): void {
  owned = true;
}

/** Whether commands may set V8 flags (see ownProcessFlags). */
export function processFlagsOwned(): boolean {
  return owned;
}

function setFlag(flag: string): void {
  setV8Flags(flag);
}

/** Sets a V8 flag now and keeps it for `setKeptV8Flags` (in a process the CLI owns). */
export function keepV8Flag(flag: string): void {
  if (!owned) return;
  setFlag(flag);
  if (!kept.includes(flag)) kept.push(flag);
}

/**
 * Keeps a V8 flag for worker threads without setting it now: a worker started later sets it once it has loaded its
 * code (`setKeptV8Flags`), and from then on it holds for the whole process. Set here and now, it would make the
 * worker refuse its bundle's code cache and compile the built-in modules it loads from source. A run that starts no
 * worker never sets it, and with `minChunks`, neither does a run of fewer chunks (see keptV8Flags).
 */
export function keepV8FlagForWorkers(flag: string, o: { minChunks?: number } = {}): void {
  if (!owned) return;
  if (!kept.includes(flag)) kept.push(flag);
  if (o.minChunks !== undefined) minChunks.set(flag, o.minChunks);
}

/**
 * Flags kept for workers only when a run has this many chunks or more (keepV8FlagForWorkers' `minChunks`): a flag
 * that bounds what grows per chunk costs more than it saves in a run of fewer.
 */
const minChunks = new Map<string, number>();

/**
 * The flags kept so far (for a worker's start-up data); given the run's chunk count, without those kept for larger
 * runs only.
 */
export function keptV8Flags(chunks = Infinity): string[] {
  return kept.filter((f) => chunks >= (minChunks.get(f) ?? 0));
}

/** Sets the given kept flags again (on any thread: V8's flags are the process's). */
export function setKeptV8Flags(flags: readonly string[] = kept): void {
  for (const f of flags) setFlag(f);
  // For tests and for checking a build, beside the code cache report (bin/bundle-loader.js): a flag set before the
  // code loaded would have made V8 refuse its cache.
  if (process.env.IOSTORE_CODE_CACHE_REPORT && flags.length > 0) writeSync(2, `v8 flags set: ${flags.join(' ')}\n`);
}
