import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LoopCounters, LoopTasks } from '../../src/chunks/chunk-loop.js';

const root = resolve(__dirname, '../..');

describe('LoopCounters: the task list cut into one segment per thread', () => {
  it('gives every task to exactly one thread, each starting in its own segment and then helping the others', () => {
    const buffer = LoopCounters.create(10, 3);
    const threads = [0, 1, 2].map((k) => new LoopCounters(buffer, k));
    // Segments of 10 tasks over 3 threads: [0,3) [3,6) [6,10).
    expect(threads.map((t) => t.take())).toEqual([0, 3, 6]);
    const taken: number[][] = [[0], [3], [6]];
    // Thread 1 runs ahead: it finishes its own segment, then takes from segment 2, where thread 2 also still works.
    for (let i = 0; i < 4; i++) taken[1]!.push(threads[1]!.take());
    expect(taken[1]).toEqual([3, 4, 5, 7, 8]);
    for (;;) {
      const progress = threads.map((t, k) => {
        const x = t.take();
        if (x >= 0) taken[k]!.push(x);
        return x;
      });
      if (progress.every((x) => x < 0)) break;
    }
    expect(taken.flat().sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
    // Once empty, every thread stays empty.
    expect(threads.map((t) => t.take())).toEqual([-1, -1, -1]);
  });

  it('serves one thread alone, an empty list, and more threads than tasks', () => {
    const one = new LoopCounters(LoopCounters.create(3, 1));
    expect([one.take(), one.take(), one.take(), one.take()]).toEqual([0, 1, 2, -1]);
    expect(new LoopCounters(LoopCounters.create(0, 2)).take()).toBe(-1);
    const buffer = LoopCounters.create(2, 4);
    const all = [0, 1, 2, 3].flatMap((k) => {
      const c = new LoopCounters(buffer, k);
      const got: number[] = [];
      for (let x = c.take(); x >= 0; x = c.take()) got.push(x);
      return got;
    });
    expect(all.sort()).toEqual([0, 1]);
  });

  it('keeps its optimized code when a thread moves on to another segment (no deopt for lack of type feedback)', () => {
    // The built library in a process of its own, where V8's natives can force and observe TurboFan. A loop runs
    // take() in its own segment until TurboFan compiles it (as the chunk loop is, thousands of chunks in), then
    // empties that segment and takes from the next: had the move to it never run before, that code would have
    // been thrown away there (the unpack of an Oodle container with a worker: both threads' loops, issue 28y).
    const script = `
      const { LoopCounters } = await import(${JSON.stringify(join(root, 'dist', 'chunks', 'chunk-loop.js'))});
      const c = new LoopCounters(LoopCounters.create(2000, 2), 0);
      function drain(n) { let s = 0; for (let k = 0; k < n; k++) s += c.take(); return s; }
      %PrepareFunctionForOptimization(drain);
      drain(10); drain(10);
      %OptimizeFunctionOnNextCall(drain);
      drain(10);
      const before = (%GetOptimizationStatus(drain) & 16) !== 0;
      // The rest of segment 0 (1,000 tasks), then all of segment 1 and past the end.
      drain(2000);
      console.log(JSON.stringify({ before, after: (%GetOptimizationStatus(drain) & 16) !== 0, next: c.take() }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop()!);
    expect(out).toEqual({ before: true, after: true, next: -1 });
  });

  it('counts finished tasks and bytes, and carries the stop flag', () => {
    const buffer = LoopCounters.create(4, 2);
    const a = new LoopCounters(buffer, 0);
    const b = new LoopCounters(buffer, 1);
    a.finished(100);
    b.finished(23);
    expect([a.done, b.done, a.bytesDone]).toEqual([2, 2, 123]);
    expect(b.stopped).toBe(false);
    a.stop();
    expect(b.stopped).toBe(true);
  });
});

describe('LoopTasks: the task list packed', () => {
  it('gives back each task, with or without a target, and survives a structured clone', () => {
    const list = [
      { container: 0, index: 5, target: '/out/a/b.uasset' },
      { container: 1, index: 0 },
      { container: 2, index: 7, target: '/out/Ünïcødé/名前.ubulk' },
      { container: 0, index: 9, target: '' },
      { container: 3, index: 1 },
    ];
    for (const tasks of [LoopTasks.of(list), LoopTasks.from(structuredClone(LoopTasks.of(list).data))]) {
      expect(tasks.length).toBe(5);
      expect(list.map((_, t) => ({ container: tasks.container(t), index: tasks.index(t), target: tasks.target(t) }))).toEqual(list.map((x) => ({ target: undefined, ...x })));
    }
    expect(LoopTasks.of([]).length).toBe(0);
  });
});
