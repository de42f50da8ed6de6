// unpack's plan turned into the chunk loop's tasks: container by container, in the order their blocks lie in the
// .ucas files, so the reads go front to back.
import { IoStoreError } from '../errors.js';
import { safeOutputPath } from '../layout/output.js';
import { LoopTaskBuilder, type LoopTasks } from '../chunks/chunk-loop.js';
import type { IoStoreToc } from '../toc/toc.js';
import { IntList } from '../util/int-list.js';
import type { ChunkPlan } from './chunk-plan.js';

export interface PlanTasks {
  tasks: LoopTasks;
  /** Task -> its plan position. */
  taskPlan: IntList;
}

/**
 * Each task writes its chunk under its own path (made again from the TOC and checked by the thread that writes it:
 * an unsafe path is that chunk's failure), or a renamed one, checked here: `refused` gets the plan position and the
 * error of a renamed path that is unsafe, and that chunk gets no task.
 */
export function planTasks(plan: ChunkPlan, tocs: readonly IoStoreToc[], root: string, refused: (k: number, e: IoStoreError) => void): PlanTasks {
  const build = new LoopTaskBuilder(root);
  const taskPlan = new IntList(plan.length);
  // Plan position by chunk, for the containers not planned whole (4 bytes a chunk, let go at the end).
  const plannedAt = tocs.map((t, c) => (plan.wholeStart(c) >= 0 && plan.renamedCount === 0 ? undefined : new Int32Array(t.chunkCount).fill(-1)));
  // Filled only for those (a whole container's loop over the plan did nothing, a call per chunk, interpreted).
  for (let k = 0, end = plannedAt.some(Boolean) ? plan.length : 0; k < end; k++) {
    const at = plannedAt[plan.container(k)];
    if (at) at[plan.index(k)] = k;
  }
  tocs.forEach((toc, c) => {
    const order = toc.chunksInUcasOrder();
    const at = plannedAt[c];
    if (!at) {
      // A whole container with no renamed path (most games' unpack): its tasks in a few calls.
      build.addOwnPaths(c, order);
      taskPlan.pushAll(order, plan.wholeStart(c));
      return;
    }
    for (const i of order) {
      const k = at[i]!;
      if (k < 0) continue;
      try {
        // A chunk under its own path has it made and checked by the thread that writes it (a failure of the
        // check is that chunk's): made here as well, it was ~0.35 s of 150,000 chunks with every worker waiting.
        if (plan.isRenamed(k)) build.add(c, i, safeOutputPath(root, plan.path(k)));
        else build.addOwnPath(c, i);
        taskPlan.push(k);
      } catch (e) {
        if (!(e instanceof IoStoreError)) throw e;
        refused(k, e);
      }
    }
  });
  return { tasks: build.finish(), taskPlan };
}
