import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildPerfectHash,
  chunkTypeName,
  parseAesKey,
  perfectHashLookup,
  readToc,
  serializeToc,
  type IoStoreToc,
} from '../../src/index.js';
import { CORPUS_AES_KEY_HEX, corpusFiles, corpusPath } from '../corpus.js';

const KEY = parseAesKey(CORPUS_AES_KEY_HEX);
const load = (rel: string, aesKey: Uint8Array | null = KEY): IoStoreToc => {
  const o = aesKey ? { source: rel, aesKey } : { source: rel };
  return readToc(new Uint8Array(readFileSync(corpusPath(rel))), o);
};
const histogram = (toc: IoStoreToc) => {
  const h: Record<number, number> = {};
  for (let i = 0; i < toc.chunkCount; i++) h[toc.chunkType(i)] = (h[toc.chunkType(i)] ?? 0) + 1;
  return h;
};

// Expected values were read from the raw bytes with an independent script (header counts, chunk-type bytes,
// Σ lengths), not from this reader.
const EXPECTED: Record<string, { v: number; n: number; b: number; files: number; raw: number; types: Record<number, number>; mount?: string }> = {
  'ue5-wayoftheninja/WayOfTheNinja-Windows.utoc': { v: 8, n: 5370, b: 74138, files: 3818, raw: 4602229481, types: { 1: 2969, 2: 844, 3: 1, 6: 1, 8: 4, 9: 1551 }, mount: '../../../' },
  'ue5.1-templeofgiants/Colliderproject-Windows.utoc': { v: 5, n: 1803, b: 17998, files: 1261, raw: 1083968984, types: { 1: 892, 2: 366, 3: 1, 6: 1, 8: 2, 9: 541 }, mount: '../../../' },
  'ue5.1-templeofgiants/global.utoc': { v: 5, n: 1, b: 26, files: 0, raw: 1645254, types: { 5: 1 } },
  'ue5.1-patchtest/jh-patchtest-chunk1001-p/pakchunk1001-Windows_0_P.utoc': { v: 5, n: 8, b: 12, files: 5, raw: 314652, types: { 1: 3, 6: 1, 8: 2, 9: 2 }, mount: '../../../PatchTest/Content/' },
  'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc': { v: 8, n: 112, b: 135, files: 111, raw: 2468693, types: { 1: 97, 2: 14, 6: 1 }, mount: '../../../CUE4ParseFixtures/Content/Fixtures/' },
  'ue5.8-cue4parse/oodlepartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows.utoc': { v: 8, n: 112, b: 135, files: 111, raw: 2468693, types: { 1: 97, 2: 14, 6: 1 }, mount: '../../../CUE4ParseFixtures/Content/Fixtures/' },
  'ue6.0-cue4parse/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc': { v: 10, n: 112, b: 133, files: 111, raw: 2304103, types: { 1: 97, 2: 14, 6: 1 }, mount: '../../../CUE4ParseFixtures/Content/Fixtures/' },
  'ue6.0-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc': { v: 10, n: 112, b: 133, files: 111, raw: 2304103, types: { 1: 97, 2: 14, 6: 1 }, mount: '../../../CUE4ParseFixtures/Content/Fixtures/' },
  'ue6.0-cue4parse/patch/CUE4ParseFixtures-PatchBase_0_P.utoc': { v: 10, n: 2, b: 2, files: 1, raw: 802, types: { 1: 1, 6: 1 }, mount: '../../../CUE4ParseFixtures/Content/PatchFixtures/' },
};

describe('every corpus .utoc', () => {
  const all = corpusFiles('.utoc');
  it('is present (24 containers, TOC v5, v8 and v10)', () => {
    expect(all.length).toBe(24);
    expect(new Set(all.map((f) => load(f).version))).toEqual(new Set([5, 8, 10]));
  });

  it.each(all)('%s parses with no bytes left over and writes back byte for byte', (rel) => {
    const bytes = new Uint8Array(readFileSync(corpusPath(rel)));
    const toc = readToc(bytes, { source: rel, aesKey: KEY });
    const end = toc.sections.reduce((a, s) => Math.max(a, s.offset + s.size), 0);
    expect(end).toBe(bytes.length);
    expect(toc.sections.reduce((a, s) => a + s.size, 0)).toBe(bytes.length);
    expect(Buffer.from(serializeToc(toc)).equals(Buffer.from(bytes))).toBe(true);
  });

  it.each(all)('%s: every chunk id resolves to its own index through the perfect hash', (rel) => {
    const toc = load(rel);
    expect(toc.perfectHashSeeds.length).toBeGreaterThan(0);
    // The chunks found elsewhere, as [index, found] (one expect per chunk had been most of the file's time).
    const lost: Array<[number, number]> = [];
    for (let i = 0; i < toc.chunkCount; i++) if (toc.findChunk(toc.chunkIdBytes(i)) !== i) lost.push([i, toc.findChunk(toc.chunkIdBytes(i))]);
    expect(lost).toEqual([]);
    // An id that is not in the container is not found.
    const absent = new Uint8Array(12).fill(0xab);
    expect(toc.findChunk(absent)).toBe(-1);
  });

  it.each(all)('%s: our seed construction places every chunk with the engine\'s table size', (rel) => {
    // Tie order among equal-size buckets follows the engine's unstable sort, so seeds may differ from the file's;
    // the table must still be valid: S = ceil(N/2), every chunk found at the slot it was placed in.
    const toc = load(rel);
    const ids = Array.from({ length: toc.chunkCount }, (_, i) => toc.chunkIdBytes(i)).reverse();
    const layout = buildPerfectHash(ids);
    expect(layout.seeds.length).toBe(toc.perfectHashSeeds.length);
    const slotted = new Uint8Array(ids.length * 12);
    layout.slotToInput.forEach((input, slot) => slotted.set(ids[input]!, slot * 12));
    const table = { chunkIds: slotted, seeds: layout.seeds, overflow: layout.overflow };
    const lost: Array<[number, number]> = [];
    for (let slot = 0; slot < ids.length; slot++) {
      const found = perfectHashLookup(table, slotted.subarray(slot * 12, slot * 12 + 12));
      if (found !== slot) lost.push([slot, found]);
    }
    expect(lost).toEqual([]);
  });

  it.each(all)('%s: every chunk\'s blocks tile the block table and sizes agree', (rel) => {
    const toc = load(rel);
    let next = 0;
    const order = Array.from({ length: toc.chunkCount }, (_, i) => i).sort((a, b) => toc.chunkOffset(a) - toc.chunkOffset(b));
    // Each chunk's offset, first block and size, with what they should be, where they differ.
    const wrong: string[] = [];
    for (const i of order) {
      if (toc.chunkOffset(i) % toc.blockSize !== 0) wrong.push(`chunk ${i}: offset ${toc.chunkOffset(i)} not block-aligned`);
      if (toc.chunkFirstBlock(i) !== next) wrong.push(`chunk ${i}: first block ${toc.chunkFirstBlock(i)}, not ${next}`);
      let sum = 0;
      for (let k = 0; k < toc.chunkBlockCount(i); k++) sum += toc.blocks.uncompressedSize(next + k);
      if (sum !== toc.chunkSize(i)) wrong.push(`chunk ${i}: blocks hold ${sum} bytes, the chunk ${toc.chunkSize(i)}`);
      next += toc.chunkBlockCount(i);
    }
    expect(wrong).toEqual([]);
    expect(next).toBe(toc.blockCount);
  });
});

describe('real values', () => {
  it.each(Object.entries(EXPECTED))('%s', (rel, e) => {
    const toc = load(rel);
    expect(toc.version).toBe(e.v);
    expect(toc.chunkCount).toBe(e.n);
    expect(toc.blockCount).toBe(e.b);
    expect(toc.files().length).toBe(e.files);
    expect(toc.totals().rawSize).toBe(e.raw);
    expect(histogram(toc)).toEqual(e.types);
    if (e.mount) expect(toc.directoryIndex?.mountPoint).toBe(e.mount);
  });

  it('names chunk types by engine generation', () => {
    const toc = load('ue5-wayoftheninja/WayOfTheNinja-Windows.utoc');
    const names = new Set(Array.from({ length: toc.chunkCount }, (_, i) => toc.chunkTypeName(i)));
    expect(names).toEqual(new Set(['ExportBundleData', 'BulkData', 'OptionalBulkData', 'ContainerHeader', 'ShaderCodeLibrary', 'ShaderCode']));
    // The same type byte means something else in UE4's numbering.
    expect(chunkTypeName(2, 'UE4')).toBe('ExportBundleData');
    expect(chunkTypeName(6, 'UE4')).toBe('LoaderGlobalMeta');
    const asUe4 = readToc(new Uint8Array(readFileSync(corpusPath('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc'))), { engine: 'UE4_27' });
    expect(asUe4.generation).toBe('UE4');
    expect(new Set([0, 1, 2].map((i) => asUe4.chunkTypeName(i)))).toEqual(new Set(['InstallManifest', 'LoaderGlobalMeta']));
  });

  it('reads paths, sizes and hashes of known chunks', () => {
    const toc = load('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
    const i = toc.findChunk('915ddb99070a4f0400000001');
    expect(i).toBe(0);
    expect(toc.chunkPath(i)).toBe('CUE4ParseFixtures/Content/Fixtures/Blueprints/S_Fixture.uasset');
    expect(toc.chunkSize(i)).toBe(1825);
    expect(toc.chunkHashHex(i)).toBe('af1e97aed3c5309c0dbf47f14be1385ac22b03f5');
    const paths = toc.files().map((f) => f.path);
    expect(paths.filter((p) => p.endsWith('.ubulk')).length).toBe(14);
    expect(paths.filter((p) => p.endsWith('.uasset') || p.endsWith('.umap')).length).toBe(97);
  });

  it('matches the spec\'s perfect-hash vector in Colliderproject-Windows.utoc', () => {
    const toc = load('ue5.1-templeofgiants/Colliderproject-Windows.utoc');
    expect(toc.perfectHashSeeds.length).toBe(902);
    expect(toc.perfectHashSeeds[321]).toBe(2);
    expect(toc.findChunk('1ae2613c787381c800000001')).toBe(1667);
  });

  it('resolves overflow chunks of the patch containers (K = 6 of N = 8)', () => {
    const toc = load('ue5.1-patchtest/jh-patchtest-chunk1001-p/pakchunk1001-Windows_0_P.utoc');
    expect(toc.chunksWithoutPerfectHash.length).toBe(6);
    for (const slot of toc.chunksWithoutPerfectHash) expect(toc.findChunk(toc.chunkIdBytes(slot))).toBe(slot);
  });
});

describe('encrypted containers', () => {
  it.each(['ue5.8-cue4parse', 'ue6.0-cue4parse'])('%s: the decrypted directory index equals the plain one', (project) => {
    const plain = load(`${project}/oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.utoc`, null);
    const enc = load(`${project}/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc`);
    expect(enc.isEncrypted).toBe(true);
    expect(enc.directoryIndex).not.toBeNull();
    expect(enc.directoryIndex!.mountPoint).toBe(plain.directoryIndex!.mountPoint);
    // The two builds order their string tables differently; what must agree is each path's chunk.
    const named = (t: IoStoreToc) => t.files().map((f) => `${f.path} ${t.chunkIdHex(f.tocIndex)}`).sort();
    expect(named(enc)).toEqual(named(plain));
    expect(named(enc).length).toBe(111);
  });

  it('v10 AES-CTR: method byte 2 and one IV per block plus one for the index', () => {
    const enc = load('ue6.0-cue4parse/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc');
    expect(enc.encryption).toBe(2);
    expect(enc.encryptionIvs.length / 12).toBe(enc.blockCount + 1);
  });

  it('without a key the chunks are listed and the index is reported as encrypted', () => {
    const enc = load('ue5.8-cue4parse/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc', null);
    expect(enc.chunkCount).toBe(112);
    expect(enc.directoryIndex).toBeNull();
    expect(enc.directoryIndexError?.code).toBe('NEEDS_KEY');
  });
});
