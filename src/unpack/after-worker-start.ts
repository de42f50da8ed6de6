/**
 * The calling thread's work (a new manifest) started once a loop worker has finished a chunk, or else once the calling
 * thread's loop is over. Until the worker has loaded its code, V8's optimizing compiler is still on (a short run turns
 * it off from there: src/cli/short-run.ts), and written first thing, the manifest's functions were hot enough in that
 * window to be compiled by TurboFan on the other core (~25 of the ~32 background compiles of the bench's 3,000-chunk
 * unpack) for a text written once. `tick` is the loop's progress callback, called by the calling thread after each of
 * its chunks (and from timers): the chunks done past those calls were done by a worker. Started inside the loop, the
 * work runs at its next yield (its file operations are blocking, so it is done there in one go).
 */
export class AfterWorkerStart {
  private calls = 0;
  private running: Promise<void> | undefined;

  constructor(private readonly work: () => Promise<void>) {}

  tick(chunksDone: number): void {
    if (this.running === undefined && chunksDone > ++this.calls) this.start();
  }

  /** Whether the work has been started. */
  get started(): boolean {
    return this.running !== undefined;
  }

  /** The loop is over: started now if it was not, and waited for. */
  finish(): Promise<void> {
    if (this.running === undefined) this.start();
    return this.done();
  }

  /** What was started (nothing: resolved). */
  done(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private start(): void {
    this.running = this.work();
    // Awaited by done(); a failed loop must not leave it as an unhandled rejection.
    this.running.catch(() => {});
  }
}
