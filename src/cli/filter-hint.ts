import type { CliIO } from './io.js';

/**
 * A `--filter` that matched nothing, written as a file name pattern (`*.uasset`): globs match whole paths below the
 * mount point, so it matches only files at the top. One line on stderr saying so, with the pattern that was meant.
 */
export function hintFilter(io: CliIO, filter: string | undefined, matched: number): void {
  if (filter === undefined || matched > 0 || filter.includes('/') || filter.startsWith('**')) return;
  io.err(`hint: --filter ${JSON.stringify(filter)} matched nothing: globs match whole paths, so it names only files at the top; try --filter ${JSON.stringify(`**/${filter}`)}\n`);
}
