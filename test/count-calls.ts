/**
 * Counts the calls of the named methods of `target` from now on, for tests that prove a loop reads a table once
 * instead of asking it per chunk or per block.
 */
export function countCalls(target: object, names: readonly string[]): { calls: number } {
  const counted = { calls: 0 };
  const own = target as Record<string, (i: number) => number>;
  for (const name of names) {
    const call = own[name]!.bind(target);
    own[name] = (i: number) => {
      counted.calls++;
      return call(i);
    };
  }
  return counted;
}

/** The per-chunk accessors of a TOC's path tables. */
export const CHUNK_PATH_CALLS = ['folder', 'storedNameAt', 'name', 'get'];
