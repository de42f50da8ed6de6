import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { manifestChunk, manifestChunkJson } from '../../src/layout/manifest.js';
import { ManifestChunkWriter } from '../../src/layout/manifest-bytes.js';
import { JsonBytes } from '../../src/util/json-bytes.js';
import { chunkOutputPath } from '../../src/layout/unnamed.js';
import { readToc } from '../../src/toc/toc.js';
import { corpusPath, hasCorpus } from '../corpus.js';

// Containers with named and unnamed chunks, stored, Zlib and Oodle chunks, and compressed chunks with raw blocks.
const CONTAINERS = [
  'ue5-wayoftheninja/WayOfTheNinja-Windows.utoc',
  'ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc',
  'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc',
  'ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.utoc',
];

const decoder = new TextDecoder();
// Small, so that entries often outgrow it.
const out = new JsonBytes(64);

describe.skipIf(!hasCorpus)('manifestChunkJson and ManifestChunkWriter: a manifest entry written without its object', () => {
  it('is the text JSON.stringify makes of manifestChunk, at any indent, with and without overriddenBy', () => {
    let rawBlocks = 0;
    for (const file of CONTAINERS) {
      const toc = readToc(new Uint8Array(readFileSync(corpusPath(file))));
      const writers: Record<string, ManifestChunkWriter> = {};
      for (let i = 0; i < toc.chunkCount; i++) {
        const path = i % 7 === 3 ? `renamed "${i}" ✓/x (2).bin` : chunkOutputPath(toc, i);
        const entry = manifestChunk(toc, i, path);
        if (entry.rawBlocks) rawBlocks++;
        const by = i % 5 === 0 ? `Patch_${i}_P` : undefined;
        if (by !== undefined) entry.overriddenBy = by;
        for (const indent of ['', '   ']) {
          const expected = JSON.stringify(entry, null, 1).replace(/\n/g, `\n${indent}`);
          expect(manifestChunkJson(toc, i, path, by, indent)).toBe(expected);
          // Byte by byte (a long manifest) and as strings (a short one: TEXT_ENTRIES_MAX).
          for (const entries of indent === '' ? [Infinity] : [Infinity, toc.chunkCount]) {
            const writer = (writers[`${indent}/${entries}`] ??= new ManifestChunkWriter(toc, indent, entries));
            out.clear();
            writer.write(out, i, path, by);
            expect(decoder.decode(out.view())).toBe(expected);
            // No path given: the chunk's own (named and unnamed chunks alike).
            if (i % 7 !== 3) {
              expect(manifestChunkJson(toc, i, undefined, by, indent)).toBe(expected);
              out.clear();
              writer.write(out, i, undefined, by);
              expect(decoder.decode(out.view())).toBe(expected);
            }
          }
        }
      }
    }
    // The case the array of raw blocks is for was met.
    expect(rawBlocks).toBeGreaterThan(50);
  });
});

describe('ManifestChunkWriter: names that need escaping or more than one byte', () => {
  it('writes Latin-1 and UTF-16 names, quotes and a mount point as JSON.stringify does', async () => {
    const { buildContainer } = await import('../../src/pack/container-builder.js');
    const { encodeChunkId } = await import('../../src/toc/chunk-id.js');
    const paths = ['Ä "q" dir/ñame.uasset', 'x/日本語 名前.bin', 'x/a\'b`c$.txt', 'ÿ/\u00a0.bin', 'x/😀 face.bin', 'plain.bin'];
    const chunks = paths.map((path, i) => ({ id: encodeChunkId({ id: BigInt(i + 1), index: 0, pad: 0, type: 2 }, 'UE5'), data: new Uint8Array([i, 1, 2]), path }));
    // A chunk the directory index does not name.
    chunks.push({ id: encodeChunkId({ id: 99n, index: 0, pad: 0, type: 10 }, 'UE5'), data: new Uint8Array([9]), path: undefined as unknown as string });
    const { utoc } = await buildContainer(chunks, { name: 'Names', mountPoint: '../../../Game "Mod"/' });
    const toc = readToc(utoc);
    for (const writer of [new ManifestChunkWriter(toc, '  '), new ManifestChunkWriter(toc, '  ', toc.chunkCount)]) {
      for (let i = 0; i < toc.chunkCount; i++) {
        for (const path of [undefined, `renamed/${i} "x" ñ.bin`]) {
          const entry = manifestChunk(toc, i, path ?? chunkOutputPath(toc, i));
          out.clear();
          writer.write(out, i, path, i === 2 ? 'Ov\u00e9r "P"' : undefined);
          if (i === 2) entry.overriddenBy = 'Ov\u00e9r "P"';
          expect(decoder.decode(out.view())).toBe(JSON.stringify(entry, null, 1).replace(/\n/g, '\n  '));
        }
      }
    }
    expect(Array.from({ length: toc.chunkCount }, (_, i) => toc.chunkPath(i)).filter(Boolean)).toHaveLength(paths.length);
  });
});

describe('ManifestChunkWriter.text: the hash rule and names cut from the string table', () => {
  it('writes a 32-byte hash whole only when its last 12 bytes are not zero, and quotes names as JSON.stringify does', async () => {
    const { buildContainer } = await import('../../src/pack/container-builder.js');
    const { encodeChunkId } = await import('../../src/toc/chunk-id.js');
    // (Control characters and backslashes, which JSON also escapes, are refused in a directory index we build.)
    const paths = ['a/quote".bin', 'a/"both"ends".bin', 'b/plain.bin', 'b/\u00ff\u00e9 \u007f.bin', 'b/\u00a0.bin'];
    const chunks = paths.map((path, i) => ({ id: encodeChunkId({ id: BigInt(i + 1), index: 0, pad: 0, type: 2 }, 'UE5'), data: new Uint8Array([i, 7]), path }));
    // TOC v6 (5.4): 32-byte hash fields in the metas.
    const toc = readToc((await buildContainer(chunks, { name: 'Hashes', version: 6 })).utoc);
    expect(toc.metaHashSize).toBe(32);
    // Chunk 1's hash made 32 bytes long (a byte past the first 20 set); the others stay 20.
    toc.metas[1 * toc.metaSize + 31] = 0x5a;
    expect(toc.chunkHashHex(1)).toHaveLength(64);
    const writer = new ManifestChunkWriter(toc, ' ', toc.chunkCount);
    for (let i = 0; i < toc.chunkCount; i++) {
      const entry = manifestChunk(toc, i, chunkOutputPath(toc, i));
      expect(writer.text(i, undefined, undefined)).toBe(JSON.stringify(entry, null, 1).replace(/\n/g, '\n '));
    }
    expect(Array.from({ length: toc.chunkCount }, (_, i) => toc.chunkPath(i)).sort()).toEqual([...paths].sort());
  });
});

describe('manifestContainer with its block alignment worked out when read', () => {
  it('makes the same entry and the same JSON text, key order included', async () => {
    const { manifestContainer } = await import('../../src/layout/manifest.js');
    const { buildContainer } = await import('../../src/pack/container-builder.js');
    const { encodeChunkId } = await import('../../src/toc/chunk-id.js');
    const chunks = Array.from({ length: 40 }, (_, i) => ({ id: encodeChunkId({ id: BigInt(i + 1), index: 0, pad: 0, type: 2 }, 'UE5'), data: new Uint8Array(3000 + i), path: `Game/F${i}.bin` }));
    const toc = readToc((await buildContainer(chunks, { name: 'Lazy' })).utoc);
    const eager = manifestContainer(toc, 'Lazy', 3);
    const lazy = manifestContainer(toc, 'Lazy', 3, { lazyAlignment: true });
    expect(JSON.stringify(Object.assign(lazy, { chunks: [] }), null, 1)).toBe(JSON.stringify(Object.assign(eager, { chunks: [] }), null, 1));
    expect(typeof eager.compressionBlockAlignment).toBe('number');
    expect(lazy.compressionBlockAlignment).toBe(eager.compressionBlockAlignment);
  });
});
