import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readToc } from '../src/index.js';
// The generator runs on the built library, as `npm run sample` does (npm test builds first).
// @ts-expect-error plain JS module
import { makeSample, SAMPLE_DIR, SAMPLE_NAME } from '../scripts/make-sample.mjs';

describe('samples/demo', () => {
  it('is exactly what the generator writes (it is reproducible, not hand-edited)', async () => {
    const { utoc, ucas } = await makeSample();
    expect(Buffer.from(readFileSync(join(SAMPLE_DIR, `${SAMPLE_NAME}.utoc`))).equals(Buffer.from(utoc))).toBe(true);
    expect(Buffer.from(readFileSync(join(SAMPLE_DIR, `${SAMPLE_NAME}.ucas`))).equals(Buffer.from(ucas))).toBe(true);
  });

  it('lists five named chunks with mixed raw and Zlib blocks', () => {
    const toc = readToc(new Uint8Array(readFileSync(join(SAMPLE_DIR, `${SAMPLE_NAME}.utoc`))));
    expect(toc.chunkCount).toBe(5);
    expect(toc.files().map((f) => f.path).sort()).toEqual(['DemoMod/Content/Demo/Gradient.uasset', 'DemoMod/Content/Demo/Gradient.ubulk', 'DemoMod/Content/Demo/Hello.uasset', 'DemoMod/Content/Demo/Noise.uasset', 'DemoMod/Content/Demo/Noise.ubulk']);
    const methods = new Set(Array.from({ length: toc.blockCount }, (_, b) => toc.blockMethodName(b)));
    expect(methods).toEqual(new Set(['None', 'Zlib']));
  });
});
