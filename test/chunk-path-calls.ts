import type { IoStoreToc } from '../src/index.js';

/**
 * Counts the calls into a TOC's path tables from now on (the per-chunk accessors), for tests that prove a loop reads
 * the tables once per TOC instead of asking per chunk.
 */
export function countChunkPathCalls(toc: IoStoreToc): { calls: number } {
  const paths = toc.chunkPaths!;
  const counted = { calls: 0 };
  const own = paths as unknown as Record<string, (i: number) => number>;
  for (const name of ['folder', 'storedNameAt', 'name', 'get']) {
    const call = own[name]!.bind(paths);
    own[name] = (i: number) => {
      counted.calls++;
      return call(i);
    };
  }
  return counted;
}
