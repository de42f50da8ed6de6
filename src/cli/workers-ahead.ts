import { statSync } from 'node:fs';
import { aheadThreads, WorkersAhead } from '../chunks/workers-ahead.js';
import { holdV8Flags, keptV8Flags, releaseV8Flags } from '../util/v8-flags.js';

/** What the loop workers of a command do: write chunks (unpack) or hash them (verify). */
export type AheadKind = 'hash' | 'write';

/** Workers startWorkersEarly started, and for which files, until a command's start takes them or the run ends. */
let early: { kind: AheadKind; utocs: string[]; workers: WorkersAhead } | undefined;

/**
 * Starts the loop workers a command line will likely want before the command's code loads (src/cli/main.ts, once it
 * knows the command): each loads its bundle on another core while this thread loads the command's bundle and
 * parses the arguments (the worker of a 30,000-chunk unpack took its first chunk ~40 ms sooner). The arguments are
 * not parsed yet, so this guesses from them: the .utoc files named are the inputs (verify: one only, as it opens its
 * containers one at a time), and a command line that names `--threads` starts nothing here. The command's own
 * start (startWorkersAhead) takes them when it asks for the same files; any other start of its, or the end of the
 * run (discardEarlyWorkers), terminates them idle (the other core's ~30 ms). Flags the command keeps while they load
 * are held (holdV8Flags) and go to them.
 */
export function startWorkersEarly(kind: AheadKind, args: readonly string[]): void {
  if (early || args.some((a) => a === '--threads' || a.startsWith('--threads='))) return;
  const utocs = args.filter((a) => !a.startsWith('-') && /\.utoc$/i.test(a));
  if (kind === 'hash' && utocs.length !== 1) return;
  const workers = workersFor(kind, utocs, undefined);
  if (!workers) return;
  early = { kind, utocs, workers };
  holdV8Flags();
}

/**
 * Loop workers for a run over these .utoc files, started before their TOCs are read (WorkersAhead) when the files'
 * sizes say the run will likely want them, else undefined: those startWorkersEarly started for the same files, or
 * new ones. Called after the command's V8 flags are kept (young generation): the workers set them once loaded. The
 * caller discards them at the end.
 */
export function startWorkersAhead(kind: AheadKind, utocs: readonly string[], threads: number | undefined): WorkersAhead | undefined {
  const guessed = early;
  early = undefined;
  let workers: WorkersAhead | undefined;
  if (guessed && guessed.kind === kind && threads === undefined && sameFiles(guessed.utocs, utocs)) {
    workers = guessed.workers;
    releaseV8Flags({ set: false });
  } else {
    if (guessed) {
      void guessed.workers.discard();
      // Before any worker starts below: a new worker starts with the flags V8 holds then.
      releaseV8Flags({ set: true });
    }
    workers = workersFor(kind, utocs, threads);
  }
  workers?.setFlags(keptV8Flags(0));
  return workers;
}

/** Terminates the workers startWorkersEarly started if no command took them (the run ended first). */
export function discardEarlyWorkers(): void {
  if (!early) return;
  void early.workers.discard();
  early = undefined;
  releaseV8Flags({ set: false });
}

/** The workers `aheadThreads` gives a run over these files, started; undefined for none. */
function workersFor(kind: AheadKind, utocs: readonly string[], threads: number | undefined): WorkersAhead | undefined {
  if (threads === 0 || utocs.length === 0) return undefined;
  let utocBytes = 0;
  let ucasBytes = 0;
  for (const utoc of utocs) {
    // One stat each (a partitioned container's first .ucas is enough to decide); a file missing is for the open to say.
    utocBytes += sizeOf(utoc);
    ucasBytes += sizeOf(utoc.replace(/\.utoc$/i, '.ucas'));
  }
  const n = aheadThreads(kind, { ...(threads !== undefined ? { threads } : {}), utocBytes, ucasBytes });
  return n > 0 ? new WorkersAhead(n) : undefined;
}

function sameFiles(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((f, k) => f === b[k]);
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
