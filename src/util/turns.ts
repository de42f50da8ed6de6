/**
 * Gives the event loop a turn every `everyMs` of synchronous work: a loop that only awaits promises already
 * resolved never lets a signal handler, a timer or a progress bar run (to-legacy converted a whole container, deaf
 * to Ctrl-C, and exited 0). Call the returned function once per step and await what it returns.
 */
export function eventLoopTurns(everyMs = 20): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    const now = performance.now();
    if (now - last < everyMs) return undefined;
    last = now;
    return new Promise<void>((r) => setImmediate(r)).then(() => {
      last = performance.now();
    });
  };
}
