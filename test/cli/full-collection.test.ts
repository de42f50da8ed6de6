import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/cli/full-collection.js';

const turn = () => new Promise((r) => setTimeout(r, 0));

describe('collectGarbage', () => {
  it('runs a full collection: an object nothing refers to is gone after it, and no global gc is left behind', async () => {
    const gcBefore = (globalThis as { gc?: unknown }).gc;
    let held: object | undefined = { big: new Uint8Array(1 << 20) };
    const ref = new WeakRef(held);
    held = undefined;
    // A WeakRef keeps its target for the rest of the turn that made it.
    await turn();
    collectGarbage();
    await turn();
    collectGarbage();
    expect(ref.deref()).toBeUndefined();
    expect((globalThis as { gc?: unknown }).gc).toBe(gcBefore);
  });
});
