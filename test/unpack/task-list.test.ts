import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readToc, type IoStoreToc } from '../../src/index.js';
import { ChunkPlan } from '../../src/unpack/chunk-plan.js';
import { planTasks } from '../../src/unpack/task-list.js';
import { corpusFiles, corpusPath, hasCorpus } from '../corpus.js';
import { countCalls } from '../count-calls.js';

const load = (rel: string) => readToc(new Uint8Array(readFileSync(corpusPath(rel))), { source: rel });

/** The plan made a chunk at a time (the general path of planContainers). */
function planChunkByChunk(tocs: IoStoreToc[]): ChunkPlan {
  const plan = new ChunkPlan(tocs, tocs.map((_, c) => `c${c}`));
  tocs.forEach((toc, c) => {
    for (let i = 0; i < toc.chunkCount; i++) plan.add(c, i);
  });
  return plan;
}

function tasksOf(plan: ChunkPlan, tocs: IoStoreToc[]) {
  const refused: number[] = [];
  const { tasks, taskPlan } = planTasks(plan, tocs, '/out', (k) => refused.push(k));
  const d = tasks.data;
  return { containers: [...d.containers], indices: [...d.indices], starts: [...d.targetStarts], targets: d.targets, taskPlan: Array.from({ length: taskPlan.length }, (_, t) => taskPlan.get(t)), refused };
}

describe.skipIf(!hasCorpus)('unpack task list', () => {
  // Out of .ucas order (a perfect hash orders them by id) and in it.
  const files = ['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'ue5.1-templeofgiants/Colliderproject-Windows.utoc', 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'];

  it('a container planned whole gets the tasks, plan positions and sizes of one planned chunk by chunk', () => {
    for (const f of files) {
      const tocs = [load(f)];
      const whole = new ChunkPlan(tocs, ['c0']);
      expect(whole.addAll(0)).toBe(0);
      expect(whole.wholeStart(0)).toBe(0);
      const each = planChunkByChunk(tocs);
      expect(whole.length).toBe(each.length);
      let sum = 0;
      for (let k = 0; k < each.length; k++) sum += each.size(k);
      expect(whole.totalSize(), f).toBe(sum);
      expect(whole.totalSize()).toBeGreaterThan(0);
      const a = tasksOf(whole, tocs);
      expect(a, f).toEqual(tasksOf(each, tocs));
      expect(a.indices, f).toEqual([...tocs[0]!.chunksInUcasOrder()]);
      expect(new Set(a.starts)).toEqual(new Set([-2]));
    }
  });

  it('two containers, the second whole after the first chunk by chunk; a renamed chunk takes the per-chunk path', () => {
    const tocs = [load(files[2]!), load(files[0]!)];
    const plan = new ChunkPlan(tocs, ['a', 'b']);
    for (let i = 0; i < tocs[0]!.chunkCount; i++) plan.add(0, i);
    const start = plan.addAll(1);
    expect(start).toBe(tocs[0]!.chunkCount);
    expect(plan.wholeStart(0)).toBe(-1);
    const each = planChunkByChunk(tocs);
    expect(plan.totalSize()).toBe(each.totalSize());
    expect(tasksOf(plan, tocs)).toEqual(tasksOf(each, tocs));
    // A renamed path is a target of its own, in both plans alike.
    const k = start + 3;
    plan.rename(k, 'renamed/file.bin');
    each.rename(k, 'renamed/file.bin');
    const renamed = tasksOf(plan, tocs);
    expect(renamed).toEqual(tasksOf(each, tocs));
    expect(renamed.targets).toBe('/out/renamed/file.bin\0');
    // An unsafe renamed path is refused (that chunk's failure), not a task.
    plan.rename(k, '../escape.bin');
    const refused = tasksOf(plan, tocs);
    expect(refused.refused).toEqual([k]);
    expect(refused.indices.length).toBe(plan.length - 1);
  });

  it('a container planned whole: its tasks and total size without a plan accessor call per chunk, one index list for the plan, the manifest and the .ucas order', () => {
    for (const f of files) {
      const tocs = [load(f)];
      const plan = new ChunkPlan(tocs, ['c0']);
      plan.addAll(0);
      // Made before a short unpack's first chunk: a call per chunk there is interpreted (and compiled again on the side).
      const counted = countCalls(plan, ['container', 'index', 'size', 'isRenamed']);
      const sum = tocs[0]!.chunkLengths.reduce((a, b) => a + b, 0);
      expect(plan.totalSize(), f).toBe(sum);
      tasksOf(plan, tocs);
      expect(counted.calls, f).toBe(0);
      const order = tocs[0]!.chunksInTocOrder();
      expect([...order]).toEqual(Array.from({ length: tocs[0]!.chunkCount }, (_, i) => i));
      expect(tocs[0]!.chunksInTocOrder()).toBe(order);
    }
    // A container in .ucas order already hands out the same array as its .ucas order, not a copy of its own.
    const inOrder = load('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc');
    expect(inOrder.chunksInUcasOrder()).toBe(inOrder.chunksInTocOrder());
  });

  it('ChunkPaths.hasUnnamed says whether a chunk of the container has no path', () => {
    let checked = 0;
    for (const f of corpusFiles('.utoc')) {
      let toc: IoStoreToc;
      try {
        toc = load(f);
      } catch {
        continue;
      }
      const paths = toc.chunkPaths;
      if (!paths) continue;
      let unnamed = false;
      for (let i = 0; i < toc.chunkCount; i++) if (paths.folder(i) < 0) unnamed = true;
      expect(paths.hasUnnamed, f).toBe(unnamed);
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });
});
