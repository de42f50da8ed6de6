import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packFolder, parseZenPackage, readPak, readToc } from '../src/index.js';
import { listFiles, tempDir } from './tmp.js';
// The generator runs on the built library, as `npm run sample` does (npm test builds first).
// @ts-expect-error plain JS module
import { MOD_DIR, PACK_OPTIONS, SAMPLE_DIR, SAMPLE_NAME, sampleFiles } from '../scripts/make-sample.mjs';

describe('samples/demo', () => {
  it('the mod folder is exactly what the generator writes (reproducible, not hand-edited)', () => {
    const files: Record<string, Uint8Array> = sampleFiles();
    expect(listFiles(MOD_DIR)).toEqual(Object.keys(files).sort());
    for (const [p, data] of Object.entries(files)) expect(readFileSync(join(MOD_DIR, p)).equals(Buffer.from(data))).toBe(true);
  });

  it('the committed container is what pack makes of the mod folder, byte for byte', async () => {
    const out = join(tempDir('iostore-sample-'), `${SAMPLE_NAME}.utoc`);
    await packFolder(MOD_DIR, out, PACK_OPTIONS);
    for (const ext of ['utoc', 'ucas', 'pak']) {
      expect(readFileSync(out.replace(/utoc$/, ext)).equals(readFileSync(join(SAMPLE_DIR, `${SAMPLE_NAME}.${ext}`)))).toBe(true);
    }
  });

  it('holds three parseable zen packages, two bulk files and a container header, as UE 5.4 writes them', () => {
    const toc = readToc(new Uint8Array(readFileSync(join(SAMPLE_DIR, `${SAMPLE_NAME}.utoc`))));
    expect(toc.version).toBe(6);
    expect(toc.chunkCount).toBe(6);
    expect(toc.files()).toHaveLength(5);
    expect(readPak(new Uint8Array(readFileSync(join(SAMPLE_DIR, `${SAMPLE_NAME}.pak`)))).version).toBe(11);
    for (const f of listFiles(MOD_DIR).filter((p) => p.endsWith('.uasset'))) {
      const pkg = parseZenPackage(new Uint8Array(readFileSync(join(MOD_DIR, f))));
      expect(pkg.packageName).toBe(`/Game/${f.split('/Content/')[1]!.replace('.uasset', '')}`);
    }
  });
});
