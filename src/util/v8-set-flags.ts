import { createRequire } from 'node:module';
import { processBinding } from './process-binding.js';

type FlagSetter = (flags: string) => void;
let setter: FlagSetter | undefined;

/**
 * Sets V8 flags for the rest of the process (see src/util/v8-flags.ts and src/cli/short-run.ts for which, and when).
 * node:v8, the public way, loads Node's stream modules through internal/heap_utils: ~8M instructions, ~5% of a
 * 3,000-chunk `list`, where the flags save ~30M. Node's own binding of it (`process.binding('v8')`, the same object
 * node:v8 calls, src/util/process-binding.ts) holds the same setFlagsFromString and costs nothing to reach. A Node
 * without it, or without the function, takes node:v8.
 */
export function setV8Flags(flags: string): void {
  setter ??= bindingSetter() ?? (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString;
  setter(flags);
}

function bindingSetter(): FlagSetter | undefined {
  const set = processBinding<{ setFlagsFromString: FlagSetter }>('v8')?.setFlagsFromString;
  return typeof set === 'function' ? set : undefined;
}
