/** How the page names containers in its charts and table: short, yet never two alike. */
import { describe, expect, it } from 'vitest';
import { withoutSharedPrefix } from '../../src/web/session.js';

const short = (labels: string[]) => labels.map((_, k) => withoutSharedPrefix(labels, k));

describe('container labels', () => {
  it('drop a first word other files share, when two words remain', () => {
    expect(short(['CUE4ParseFixtures-Minimal-Oodle-Windows.utoc', 'CUE4ParseFixtures-Minimal-Oodle.pak', 'global.utoc'])).toEqual(['Minimal-Oodle-Windows.utoc', 'Minimal-Oodle.pak', 'global.utoc']);
    expect(short(['CUE4ParseFixtures-PatchBase.pak', 'CUE4ParseFixtures-PatchBase_0_P.pak'])).toEqual(['CUE4ParseFixtures-PatchBase.pak', 'PatchBase_0_P.pak']);
  });

  it('keep names whole where the rest would say too little', () => {
    expect(short(['pakchunk0-Windows.utoc', 'pakchunk0-Windows.pak'])).toEqual(['pakchunk0-Windows.utoc', 'pakchunk0-Windows.pak']);
    expect(short(['pakchunk0-Windows.pak', 'pakchunk1-Windows.pak'])).toEqual(['pakchunk0-Windows.pak', 'pakchunk1-Windows.pak']);
    expect(short(['Game-Windows-Shipping.pak'])).toEqual(['Game-Windows-Shipping.pak']);
  });
});
