import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toLegacy } from '../../src/convert/index.js';
import { fromHex, KeyRing } from '../../src/index.js';
import { describeLegacyPackage, isLegacyPackage, parseLegacyPackage } from '../../src/legacy/index.js';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusPath, hasCorpus } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

/** Every legacy package written below `dir` parses, its exports lie in its .uexp, and every path resolves. */
function inspectAll(dir: string): number {
  let n = 0;
  for (const f of listFiles(dir).filter((p) => /\.(uasset|umap)$/.test(p))) {
    const bytes = new Uint8Array(readFileSync(join(dir, f)));
    expect(isLegacyPackage(bytes), f).toBe(true);
    const view = describeLegacyPackage(parseLegacyPackage(bytes, { source: f }), new Uint8Array(readFileSync(join(dir, f.replace(/\.[^.]+$/, '.uexp')))));
    expect(view.uexp?.ok, `${f}: ${view.uexp?.error}`).toBe(true);
    for (const i of view.imports) expect(i.path, f).not.toBe('');
    n++;
  }
  return n;
}

describe.skipIf(!hasCorpus)('to-legacy of every corpus container with a .ucas', () => {
  const cases = [
    ['ue5.1-patchtest', 'ue5.1-mirage3d/global.utoc', 5],
    ['ue5.8-cue4parse/oodle', undefined, 97],
    ['ue5.8-cue4parse/oodlepartitioned', undefined, 97],
    ['ue5.8-cue4parse/patch', undefined, 2],
    ['ue6.0-cue4parse/oodleencrypted', undefined, 97],
    ['ue6.0-cue4parse/zlib', undefined, 97],
    ['ue6.0-cue4parse/patch', undefined, 2],
  ] as const;
  const root = tempDir();
  for (const [input, global, packages] of cases) {
    it(`${input}: no failures, every package written reads back`, async () => {
      const out = join(root, input.replace(/\//g, '_'));
      const keys = new KeyRing().add(fromHex(CORPUS_AES_KEY_HEX));
      const r = await toLegacy([corpusPath(input)], out, { keys, ...(global ? { global: corpusPath(global) } : {}) });
      expect(r.failures).toEqual([]);
      expect(r.global).not.toBeNull();
      expect(r.packages).toBe(packages);
      expect(inspectAll(out)).toBe(packages);
      // Only classes of /Engine content (not in these containers) stay unnamed, one warning line per package. Shader
      // code is recompressed with Oodle (every shader here shrinks): no line for it.
      for (const w of r.warnings) expect(w).toMatch(/^\S+\.(uasset|umap): \d+ unnamed \(import \d+ \(\/Engine\//);
      expect(r.shaderLibraries.every((l) => l.rawShaders === 0 && l.compressedShaders === l.shaders)).toBe(true);
    }, 20_000);
  }
});

describe.skipIf(!hasCorpus)('iostore to-legacy and inspect (CLI)', () => {
  const root = tempDir();

  it('converts a container, and inspect reads what it wrote (text and --json)', async () => {
    const out = join(root, 'a');
    const r = await cli('to-legacy', corpusPath('ue5.8-cue4parse/uncompressed'), out, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect([j.packages, j.failures.length, j.global.endsWith('global.utoc')]).toEqual([97, 0, true]);
    const map = join(out, 'CUE4ParseFixtures/Content/Fixtures/Maps/Empty.umap');
    const text = await cli('inspect', map);
    expect(text.code).toBe(0);
    expect(text.out).toContain('/Game/Fixtures/Maps/Empty.Empty:PersistentLevel.WorldSettings');
    expect(text.out).toContain('closing tag present');
    const json = JSON.parse((await cli('inspect', map, '--json')).out);
    expect(json.format).toBe('legacy');
    expect(json.exports.map((e: { class: string }) => e.class)).toContain('/Script/Engine.WorldSettings');
    expect(json.imports.find((i: { path: string }) => i.path === '/Script/Engine.Level').class).toBe('Class');
  });

  it('--filter and --dry-run write only what matches, and nothing', async () => {
    const out = join(root, 'b');
    const r = await cli('to-legacy', corpusPath('ue6.0-cue4parse/uncompressed'), out, '--filter', '**/Textures/T_Streaming.*', '--json');
    expect(r.code).toBe(0);
    expect(listFiles(out)).toEqual(['CUE4ParseFixtures/Content/Fixtures/Textures/T_Streaming.uasset', 'CUE4ParseFixtures/Content/Fixtures/Textures/T_Streaming.ubulk', 'CUE4ParseFixtures/Content/Fixtures/Textures/T_Streaming.uexp']);
    const dry = await cli('to-legacy', corpusPath('ue6.0-cue4parse/uncompressed'), join(root, 'c'), '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/97 packages and 15 other chunks would be written/);
  });

  it('a bad package is one error line naming it and its offset; the others are written (exit 1)', async () => {
    const dir = join(root, 'in');
    const out = join(root, 'd');
    mkdirSync(dir, { recursive: true });
    copyFileSync(corpusPath('zen-assets/UE5.5/T_Test.uzenasset'), join(dir, 'T_Test.uzenasset'));
    copyFileSync(corpusPath('zen-assets/UE5.5/T_Test.ubulk'), join(dir, 'T_Test.ubulk'));
    writeFileSync(join(dir, 'Bad.uzenasset'), readFileSync(corpusPath('zen-assets/UE5.5/SM_Cube.uzenasset')).subarray(0, 100));
    const r = await cli('to-legacy', join(dir, 'Bad.uzenasset'), join(dir, 'T_Test.uzenasset'), out, '--version', 'UE5_5');
    expect(r.code).toBe(1);
    const errors = r.err.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors.length).toBe(1);
    expect(errors[0]).toMatch(/Bad\.uzenasset at offset 0x[0-9a-f]+: /);
    expect(r.err).toMatch(/warning: T_Test\.uasset: 3 unnamed/);
    expect(listFiles(out)).toEqual(['T_Test.uasset', 'T_Test.ubulk', 'T_Test.uexp']);
  });
});
