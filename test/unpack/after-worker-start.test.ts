import { describe, expect, it } from 'vitest';
import { AfterWorkerStart } from '../../src/unpack/after-worker-start.js';

describe('AfterWorkerStart (a new manifest written once a loop worker has done a chunk)', () => {
  const counted = () => {
    const state = { started: 0 };
    const later = new AfterWorkerStart(async () => {
      state.started++;
    });
    return { state, later };
  };

  it('does not start while every chunk done is one of the calling thread (one tick each)', () => {
    const { state, later } = counted();
    for (let done = 1; done <= 50; done++) later.tick(done);
    expect(state.started).toBe(0);
  });

  it('starts at the first tick that counts a chunk done elsewhere, once', async () => {
    const { state, later } = counted();
    later.tick(1);
    later.tick(2);
    later.tick(4);
    expect(state.started).toBe(1);
    later.tick(9);
    await later.finish();
    expect(state.started).toBe(1);
  });

  it('starts at the end of the loop when no worker ever took a chunk', async () => {
    const { state, later } = counted();
    later.tick(1);
    await later.done();
    expect(state.started).toBe(0);
    await later.finish();
    expect(state.started).toBe(1);
  });

  it('waits for the work it started and passes its failure on', async () => {
    let finished = false;
    const ok = new AfterWorkerStart(async () => {
      await new Promise((r) => setTimeout(r, 10));
      finished = true;
    });
    ok.tick(2);
    expect(finished).toBe(false);
    await ok.finish();
    expect(finished).toBe(true);
    const bad = new AfterWorkerStart(() => Promise.reject(new Error('disk full')));
    bad.tick(5);
    await expect(bad.done()).rejects.toThrow('disk full');
  });
});
