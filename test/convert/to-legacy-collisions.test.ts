import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toLegacy } from '../../src/convert/to-legacy.js';
import type { Manifest } from '../../src/layout/manifest.js';
import { packFolder } from '../../src/pack/pack.js';
import { unpack } from '../../src/unpack/unpack.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const TEX = 'CUE4ParseFixtures/Content/Fixtures/Textures';

describe.skipIf(!hasCorpus)('to-legacy keeps every file whose names collide in the output (issue #24 item 12)', () => {
  it('X.uasset and X.umap (which share X.uexp), and a bulk chunk named like a package\'s .uexp: all written, each reported', async () => {
    const dir = tempDir();
    // A container whose directory index names T_BC3's package T_BC1.umap, beside package T_BC1.uasset, and names
    // T_UDIM's bulk data T_BC4.uexp, beside package T_BC4.uasset: rebuilt from the corpus with those names.
    const unpacked = join(dir, 'unpacked');
    await unpack([corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc')], unpacked);
    const manifestPath = join(unpacked, 'iostore-manifest.json');
    const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
    const rename = (from: string, to: string) => {
      const ch = m.containers[0]!.chunks.find((c) => c.tocPath === `${TEX}/${from}`)!;
      ch.tocPath = `${TEX}/${to}`;
    };
    rename('T_BC3.uasset', 'T_BC1.umap');
    rename('T_UDIM.ubulk', 'T_BC4.uexp');
    writeFileSync(manifestPath, JSON.stringify(m));
    const utoc = join(dir, 'Clash.utoc');
    await packFolder(unpacked, utoc);

    const out = join(dir, 'legacy');
    const r = await toLegacy([utoc], out, { filter: `${TEX}/T_BC[134]*` });
    expect(r.failures).toEqual([]);
    const files = listFiles(out);
    expect(files).toEqual(
      ['T_BC1 (2).uexp', 'T_BC1 (2).umap', 'T_BC1.uasset', 'T_BC1.uexp', 'T_BC4 (2).uexp', 'T_BC4.uasset', 'T_BC4.uexp'].map((f) => `${TEX}/${f}`),
    );
    // The two packages' export data differ: both .uexp files are whole, neither replaced the other.
    expect(readFileSync(join(out, TEX, 'T_BC1.uexp')).equals(readFileSync(join(out, TEX, 'T_BC1 (2).uexp')))).toBe(false);
    // The bulk chunk kept its bytes (the corpus's T_UDIM.ubulk), under a suffixed name.
    expect(readFileSync(join(out, TEX, 'T_BC4 (2).uexp')).equals(readFileSync(join(unpacked, TEX, 'T_UDIM.ubulk')))).toBe(true);
    expect(r.warnings.filter((w) => /written as/.test(w))).toEqual([
      `"${TEX}/T_BC1.umap" (with "${TEX}/T_BC1.uexp"): "${TEX}/T_BC1.uexp" is another entry's path too: written as "${TEX}/T_BC1 (2).umap" and "${TEX}/T_BC1 (2).uexp"`,
      `"${TEX}/T_BC4.uexp": another entry has the same path: written as "${TEX}/T_BC4 (2).uexp"`,
    ]);
    expect(r.planned.map((p) => p.path)).toContain(`${TEX}/T_BC1 (2).umap`);
    expect(existsSync(join(out, 'iostore-manifest.json'))).toBe(false);
  });
});
