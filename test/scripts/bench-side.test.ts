import { describe, expect, it } from 'vitest';
import { timeRatio } from '../../scripts/bench-side.mjs';

describe("the bench's time ratios", () => {
  it('of two contenders run in the same rounds: the median of the rounds\' ratios, which a slow spell falls on alike', () => {
    // The machine was slower in rounds 4 and 5 (both 30% slower), and round 3 had a spike in ours alone: the
    // medians of the times alone (136.5 against 100 ms) mix the spells.
    const ours = { ms: 136.5, rounds: [105, 105, 200, 136.5, 136.5] };
    const floor = { ms: 100, rounds: [100, 100, 100, 130, 130] };
    expect(timeRatio(ours, floor)).toBeCloseTo(1.05, 6);
    expect(ours.ms / floor.ms).toBeCloseTo(1.365, 6);
  });

  it('of a figure computed rather than run (no rounds, or other rounds): the ratio of the medians', () => {
    expect(timeRatio({ ms: 150, rounds: [150, 150, 150] }, { ms: 100 })).toBe(1.5);
    expect(timeRatio({ ms: 150, rounds: [150] }, { ms: 100, rounds: [100, 90] })).toBe(1.5);
  });
});
