import type { ToLegacyProgress } from '../to-legacy.js';
import type { Job, ToLegacyRun } from './run.js';

/**
 * Pass 2: runs every job in order (conversion on this thread, files handed to the writer), with progress, and waits
 * until every file is on disk. A job that fails is reported and the others continue.
 */
export async function runJobs(run: ToLegacyRun): Promise<void> {
  const { jobs, options: o } = run;
  const progress: ToLegacyProgress = { done: 0, total: jobs.length, bytesDone: 0, bytesTotal: jobs.reduce((a, j) => a + j.size, 0) };
  o.onProgress?.({ ...progress });
  const finish = (j: Job, e?: unknown) => {
    if (e !== undefined) run.fail(j.path, e);
    progress.done++;
    progress.bytesDone += j.size;
    o.onProgress?.({ ...progress });
  };
  const written: Promise<void>[] = [];
  for (const j of jobs) {
    await run.turn();
    run.stopIfInterrupted();
    // A dry run still converts packages (to report what would fail or stay unnamed) but writes nothing.
    if (o.dryRun && j.kind !== 'package') {
      finish(j);
      continue;
    }
    let w: Promise<void> | undefined;
    try {
      w = (await j.run()).written;
    } catch (e) {
      finish(j, e);
      continue;
    }
    if (!w) finish(j);
    else {
      written.push(w.then(() => finish(j), (e: unknown) => finish(j, e)));
      await run.writer!.room();
    }
  }
  run.writer?.flush();
  await Promise.all(written);
}
