import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, packFolder, packPak, readToc, unpack, verifyContainer, type IoStoreToc } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { hasOoz, oozDecode } from '../codecs/oodle/ooz.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { freshPaths, listFiles, tempDir } from '../tmp.js';

const fresh = freshPaths(tempDir('i29-oodle-pack-'));

/** Every Oodle block of a container: its stream and uncompressed size. */
function oodleBlocks(toc: IoStoreToc, ucas: Uint8Array): Array<[Uint8Array, number]> {
  const out: Array<[Uint8Array, number]> = [];
  for (let b = 0; b < toc.blockCount; b++) {
    if (toc.compressionMethods[toc.blocks.method(b)] !== 'Oodle') continue;
    const at = toc.blocks.offset(b);
    out.push([ucas.subarray(at, at + toc.blocks.compressedSize(b)), toc.blocks.uncompressedSize(b)]);
  }
  return out;
}

/** Files and bytes of an unpacked folder, without the manifest and container header (they name the container). */
function tree(dir: string): Map<string, string> {
  return new Map(listFiles(dir).filter((f) => f !== 'iostore-manifest.json' && !f.startsWith('_chunks/ContainerHeader/')).map((f) => [f, readFileSync(join(dir, f)).toString('hex')]));
}

describe.skipIf(!hasCorpus)('pack with Oodle compression', () => {
  it('an uncompressed container repacked as Oodle Kraken (on worker threads) verifies, unpacks to the same files, and ooz decodes its blocks', async () => {
    const src = fresh('unpacked');
    await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], src);
    const out = fresh('Kraken-Windows.utoc');
    const r = await packFolder(src, out, { compression: 'oodle', compressionLevel: 2, threads: 2 });
    expect(r.compression).toBe('Oodle');
    expect(r.threads).toBe(2);
    const toc = readToc(new Uint8Array(readFileSync(out)));
    expect(toc.compressionMethods).toEqual(['None', 'Oodle']);
    const ucas = new Uint8Array(readFileSync(out.replace(/\.utoc$/, '.ucas')));
    const blocks = oodleBlocks(toc, ucas);
    // Most blocks shrink (the rest, stored as they are, are the ones that did not).
    expect(blocks.length).toBeGreaterThan(toc.blockCount * 0.8);
    expect(blocks.every(([s]) => s[1] === 6)).toBe(true);
    const reader = await ContainerReader.open(out);
    try {
      const v = await verifyContainer(reader);
      expect([v.mismatches, v.errors, v.ok]).toEqual([[], [], true]);
      if (hasOoz) {
        const decoded = oozDecode(blocks);
        for (let k = 0, b = 0; b < toc.blockCount; b++) {
          if (toc.compressionMethods[toc.blocks.method(b)] !== 'Oodle') continue;
          expect(Buffer.from(decoded[k++]!).equals(Buffer.from(await reader.readBlock(b)))).toBe(true);
        }
      }
    } finally {
      await reader.close();
    }
    const back = fresh('back');
    expect((await unpack([out], back)).failures).toEqual([]);
    expect(tree(back)).toEqual(tree(src));
  });

  it('the CLI takes --compression oodle --oodle-codec mermaid --level; a level or codec without Oodle is refused', async () => {
    const src = fresh('unpacked-cli');
    await unpack([corpusPath('ue6.0-cue4parse/uncompressed')], src);
    const out = fresh('Mermaid-Windows.utoc');
    const r = await cli('pack', src, out, '--compression', 'oodle', '--oodle-codec', 'mermaid', '--level', '1', '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).compression).toBe('Oodle');
    const toc = readToc(new Uint8Array(readFileSync(out)));
    const blocks = oodleBlocks(toc, new Uint8Array(readFileSync(out.replace(/\.utoc$/, '.ucas'))));
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.every(([s]) => s[1] === 10)).toBe(true);
    const back = fresh('back-cli');
    expect((await unpack([out], back)).failures).toEqual([]);
    expect(tree(back)).toEqual(tree(src));
    const bad = await cli('pack', src, fresh('x.utoc'), '--compression', 'zlib', '--oodle-codec', 'kraken');
    expect([bad.code, bad.err.trim()]).toEqual([2, 'iostore: an Oodle codec (kraken) was given, but the compression is Zlib']);
    const level = await cli('pack', src, fresh('y.utoc'), '--compression', 'oodle', '--level', '0');
    expect([level.code, level.err.trim()]).toEqual([2, 'iostore: --level must be a whole number from 1 to 9, not 0']);
  });

  it('a .pak written with Oodle entries unpacks to the same files', async () => {
    const src = fresh('pak-src');
    await unpack([corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak')], src);
    const pak = fresh('Oodle.pak');
    const r = await packPak(src, pak, { compression: 'oodle', compressionLevel: 4 });
    expect(r.compression).toBe('Oodle');
    expect(r.storedBytes).toBeLessThan(r.rawBytes / 3);
    const back = fresh('pak-back');
    expect((await unpack([pak], back)).failures).toEqual([]);
    expect(tree(back)).toEqual(tree(src));
  });
});
