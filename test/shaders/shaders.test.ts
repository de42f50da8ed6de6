import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader } from '../../src/cas/container-reader.js';
import { fileSource, partitionPaths } from '../../src/cas/source.js';
import { toLegacy, type ToLegacyResult } from '../../src/convert/to-legacy.js';
import { IoStoreError } from '../../src/errors.js';
import { cityHash64 } from '../../src/hash/cityhash.js';
import { lowerAscii, utf16leBytes } from '../../src/hash/names.js';
import { packFolder } from '../../src/pack/pack.js';
import { packPak } from '../../src/pack/pak-pack.js';
import { toZen } from '../../src/pack/to-zen.js';
import {
  computePreloadEntries,
  groupShaders,
  legacyShaderBytes,
  legacyShaderLibraryToZen,
  parseLegacyShaderLibrary,
  parseZenShaderLibrary,
  planLegacyShaderLibrary,
  serializeLegacyShaderTables,
  serializeZenShaderLibrary,
  shaderCodeChunkId,
  shaderLibraryName,
  zenGroupLayout,
  zenShaderCodes,
  type ZenShaderLibrary,
} from '../../src/shaders/index.js';
import { openToc } from '../../src/toc/read-file.js';
import { toHex } from '../../src/util/bytes.js';
import { verifyContainer } from '../../src/verify/verify.js';
import { parseContainerHeader } from '../../src/zen/container-header.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { hasOoz, oozDecode } from '../codecs/oodle/ooz.js';
import { listFiles, tempDir } from '../tmp.js';

const tmp = tempDir('iostore-shaders-');
const PAIR = corpusPath('zen-assets/UE5.4/ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6');
const PATCH = corpusPath('ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.utoc');
/** PATCH as to-legacy writes it and what it reported, made once: four tests read the folder (none writes into it). */
let patchLegacy: Promise<{ folder: string; result: ToLegacyResult }> | undefined;
const patchConverted = () => (patchLegacy ??= toLegacy([PATCH], join(tmp, 'patch-legacy')).then((result) => ({ folder: join(tmp, 'patch-legacy'), result })));
const patchAsLegacy = async (): Promise<string> => (await patchConverted()).folder;
/** A container's to-legacy folder and result (PATCH's the one made once). */
const converted = async (utoc: string): Promise<{ folder: string; result: ToLegacyResult }> => {
  if (utoc === PATCH) return patchConverted();
  const folder = join(tmp, 'legacy', utoc.split('/').pop()!);
  return { folder, result: await toLegacy([utoc], folder) };
};
/** The shader libraries and ShaderCode chunks of PATCH, read once (five tests compare with them; none changes them). */
let patchChunks: ReturnType<typeof shaderChunks> | undefined;
const patchShaderChunks = () => (patchChunks ??= shaderChunks(PATCH));
/** Every corpus container with shader libraries and a .ucas (the other two, wayoftheninja and templeofgiants, lack it). */
const WITH_SHADERS = [PATCH, corpusPath('ue5.1-patchtest/jh-patchtest-chunk1001-p/pakchunk1001-Windows_0_P.utoc')];
/** The ShaderCode chunk type byte of UE5 (EIoChunkType). */
const SHADER_CODE = 9;

const read = (p: string) => new Uint8Array(readFileSync(p));

/** Deep equality of large tables, fast when equal (vitest's toEqual walks 29,285 entries slowly); a diff when not. */
function same(actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected);
}

/** Byte equality of large buffers (first differing offset when not). */
function sameBytes(actual: Uint8Array, expected: Uint8Array): void {
  if (Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(Buffer.from(expected.buffer, expected.byteOffset, expected.length))) return;
  let i = 0;
  while (i < actual.length && actual[i] === expected[i]) i++;
  expect(`${actual.length} bytes, first difference at ${i}`).toBe(`${expected.length} bytes, equal`);
}

/** The shader libraries (by path) and ShaderCode chunks (by hex id) of a container. */
async function shaderChunks(utoc: string) {
  const toc = await openToc(utoc);
  const reader = new ContainerReader(toc, partitionPaths(utoc, toc.partitionCount).map(fileSource));
  const libraries = new Map<string, Uint8Array>();
  const code = new Map<string, Uint8Array>();
  try {
    for (let i = 0; i < toc.chunkCount; i++) {
      const type = toc.chunkTypeName(i);
      if (type === 'ShaderCodeLibrary') libraries.set(toc.chunkPath(i)!.split('/').pop()!, await reader.readChunk(i));
      if (type === 'ShaderCode') code.set(toc.chunkIdHex(i), await reader.readChunk(i));
    }
  } finally {
    await reader.close();
  }
  return { libraries, code };
}

/** The container header of a container. */
async function headerOf(utoc: string) {
  const t = await openToc(utoc);
  const rd = new ContainerReader(t, partitionPaths(utoc, t.partitionCount).map(fileSource));
  try {
    for (let i = 0; i < t.chunkCount; i++) if (t.chunkTypeName(i) === 'ContainerHeader') return parseContainerHeader(await rd.readChunk(i));
  } finally {
    await rd.close();
  }
  throw new Error(`${utoc}: no container header`);
}

/** Each package's store-entry shader-map hashes, by package id. */
const maps = (h: Awaited<ReturnType<typeof headerOf>>) => new Map(h.packages.map((p) => [p.packageId, p.shaderMapHashes.map(toHex)]));

/** The zen tables with every group's compressed size set to the one of `like` (the only field the input leaves open). */
function withCompressedSizes(z: ZenShaderLibrary, like: ZenShaderLibrary): ZenShaderLibrary {
  return { ...z, groupEntries: z.groupEntries.map((g, i) => ({ ...g, compressedSize: like.groupEntries[i]!.compressedSize })) };
}

describe.skipIf(!hasCorpus)('shader libraries: the UE 5.4 pair (zen form beside the legacy tables)', () => {
  const zenBytes = read(`${PAIR}.uzenshaderbytecode`);
  const legacyBytes = read(`${PAIR}.ushaderbytecode`);
  const zen = parseZenShaderLibrary(zenBytes, 'zen');
  const legacy = parseLegacyShaderLibrary(legacyBytes, 'legacy');

  it('both forms hold the same 988 shader maps and 29,285 shaders; the legacy file of the corpus holds its tables only', () => {
    expect(zen.shaderMapHashes.length).toBe(988);
    expect(zen.shaderHashes.length).toBe(29285);
    expect(zen.groupEntries.length).toBe(2423);
    same(legacy.shaderMapHashes.map(toHex), zen.shaderMapHashes.map(toHex));
    same(legacy.shaderHashes.map(toHex), zen.shaderHashes.map(toHex));
    // 1,627,317 bytes end with the shader indices: the code (1,043,454,279 bytes stored) is not in the corpus.
    expect(legacy.codeOffset).toBe(legacyBytes.length);
    expect(legacy.hasCode).toBe(false);
    expect(() => legacyShaderBytes(legacyBytes, legacy, 0, 'legacy')).toThrow(/code of its 29285 shaders is missing/);
  });

  it('to-legacy tables equal the engine legacy file: hashes, shader maps, uncompressed sizes, frequencies, indices', () => {
    const plan = planLegacyShaderLibrary(zen, 'zen');
    const l = plan.library;
    same(l.shaderMapHashes.map(toHex), legacy.shaderMapHashes.map(toHex));
    same(l.shaderHashes.map(toHex), legacy.shaderHashes.map(toHex));
    same(l.shaderMapEntries.map((m) => [m.shaderIndicesOffset, m.numShaders]), legacy.shaderMapEntries.map((m) => [m.shaderIndicesOffset, m.numShaders]));
    same(l.shaderEntries.map((s) => s.uncompressedSize), legacy.shaderEntries.map((s) => s.uncompressedSize));
    same(l.shaderEntries.map((s) => s.frequency), legacy.shaderEntries.map((s) => s.frequency));
    same(l.shaderIndices, legacy.shaderIndices);
    expect(l.shaderIndices.length).toBe(69340);
    // Stored sizes, offsets and so preload ranges follow the code written: 235 one-shader groups keep their Oodle
    // bytes, the 29,050 shaders of larger groups are stored raw.
    expect(plan.reusedGroups).toBe(235);
    expect(plan.rawShaders).toBe(29285 - 235);
    // With the engine file's own stored sizes and offsets the tables serialize to its bytes exactly.
    const tables = serializeLegacyShaderTables({ ...l, shaderEntries: legacy.shaderEntries, preloadEntries: legacy.preloadEntries, shaderMapEntries: legacy.shaderMapEntries });
    sameBytes(tables, legacyBytes);
  });

  it('to-zen groups equal the engine: 2,423 ShaderCode chunk ids, group and shader entries, indices, the library bytes', () => {
    const g = groupShaders(legacy, 'PCD3D_SM6');
    same(g.groupHashes.map((h) => toHex(shaderCodeChunkId(h, SHADER_CODE))), zen.groupChunkIds.map(toHex));
    same(g.groupEntries.map((e) => [e.shaderIndicesOffset, e.numShaders, e.uncompressedSize]), zen.groupEntries.map((e) => [e.shaderIndicesOffset, e.numShaders, e.uncompressedSize]));
    same(g.shaderEntries, zen.shaderEntries);
    same(g.shaderIndices, zen.shaderIndices);
    const built: ZenShaderLibrary = { ...zen, groupChunkIds: g.groupHashes.map((h) => shaderCodeChunkId(h, SHADER_CODE)), groupEntries: g.groupEntries, shaderEntries: g.shaderEntries, shaderIndices: g.shaderIndices };
    // Compressed sizes are Oodle's output: the one field the tables cannot give.
    sameBytes(serializeZenShaderLibrary(withCompressedSizes(built, zen)), zenBytes);
  });

  it('the engine appends the group indices the shader maps lack: from the shader maps\' 40,306 indices alone, the same 69,340', () => {
    const mapsOnly = Math.max(...legacy.shaderMapEntries.map((m) => m.shaderIndicesOffset + m.numShaders));
    expect(mapsOnly).toBe(40306);
    const g = groupShaders({ ...legacy, shaderIndices: legacy.shaderIndices.slice(0, mapsOnly) }, 'PCD3D_SM6');
    same(g.shaderIndices, zen.shaderIndices);
    same(g.groupHashes.map((h) => toHex(shaderCodeChunkId(h, SHADER_CODE))), zen.groupChunkIds.map(toHex));
  });

  it('a different shader format or group size limit gives other chunk ids (the rule is checked, not echoed)', () => {
    const sm5 = groupShaders(legacy, 'PCD3D_SM5');
    expect(toHex(shaderCodeChunkId(sm5.groupHashes[0]!, SHADER_CODE))).not.toBe(toHex(zen.groupChunkIds[0]!));
    expect(groupShaders(legacy, 'PCD3D_SM6', 512 * 1024).groupEntries.length).toBeGreaterThan(2423);
  });

  it('preload entries: the engine rule merges ranges up to 1 KiB apart', () => {
    const maps = [{ shaderIndicesOffset: 0, numShaders: 3, firstPreloadIndex: 9, numPreloadEntries: 9 }];
    const shaders = [
      { offset: 5000, size: 100, uncompressedSize: 100, frequency: 0 },
      { offset: 0, size: 1000, uncompressedSize: 1000, frequency: 0 },
      { offset: 2024, size: 10, uncompressedSize: 10, frequency: 0 },
    ];
    same(computePreloadEntries(maps, shaders, [0, 1, 2]), [{ offset: 0, size: 2034 }, { offset: 5000, size: 100 }]);
    expect(maps[0]).toMatchObject({ firstPreloadIndex: 0, numPreloadEntries: 2 });
  });

  it('library and format come from the file name as UnrealPak reads it', () => {
    same(shaderLibraryName('ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6.ushaderbytecode'), { library: 'NuclearNightmare-PCD3D_SM6', format: 'PCD3D_SM6' });
    expect(shaderLibraryName('ShaderArchive.ushaderbytecode')).toBeUndefined();
  });
});

describe.skipIf(!hasCorpus)('shader libraries with their code: ue5.1-patchtest chunk1001 (PCD3D_SM5 and PCD3D_SM6)', () => {
  it.each(WITH_SHADERS)('to-legacy writes each library with every shader\'s code; to-zen gives back its chunk ids, tables and code (%s)', async (utoc) => {
    const { libraries, code } = utoc === PATCH ? await patchShaderChunks() : await shaderChunks(utoc);
    expect([...libraries.keys()].sort()).toEqual(['ShaderArchive-PatchTest_Chunk1001-PCD3D_SM5-PCD3D_SM5.ushaderbytecode', 'ShaderArchive-PatchTest_Chunk1001-PCD3D_SM6-PCD3D_SM6.ushaderbytecode']);
    const { folder: out, result: r } = await converted(utoc);
    expect(r.failures).toEqual([]);
    // Each shader cut out of its group is compressed on its own, as the engine stores legacy shaders.
    expect(r.shaderLibraries.map((s) => [s.shaders, s.groups, s.rawShaders + s.compressedShaders])).toEqual([[26, 1, 26], [28, 1, 28]]);
    expect(r.shaderLibraries.map((s) => s.compressedShaders)).toEqual([26, 28]);
    expect(r.warnings.filter((w) => /stored uncompressed/.test(w))).toHaveLength(0);
    // The ShaderCode chunks went into the libraries, not into files of their own.
    expect(listFiles(out).filter((f) => f.startsWith('_chunks/')).map((f) => f.split('/')[1])).toEqual(['ContainerHeader']);
    let shaders = 0;
    for (const [name, libBytes] of libraries) {
      const zen = parseZenShaderLibrary(libBytes, name);
      const codes = zenShaderCodes(zen, code, name);
      const file = read(join(out, 'PatchTest/Content', name));
      const l = parseLegacyShaderLibrary(file, name);
      expect(l.shaderHashes.map(toHex)).toEqual(zen.shaderHashes.map(toHex));
      expect(l.shaderIndices).toEqual(zen.shaderIndices);
      l.shaderEntries.forEach((s, i) => {
        expect(s.size).toBeLessThan(s.uncompressedSize); // Oodle-compressed
        expect(toHex(legacyShaderBytes(file, l, i, name))).toBe(toHex(codes[i]!));
        shaders++;
      });
      // Back to zen: the engine's chunk ids and tables; only the compressed size of the group differs, within 10% of
      // the engine's (Oodle Mermaid, as the engine compresses shader code).
      const back = legacyShaderLibraryToZen(file, { source: name, shaderCodeType: SHADER_CODE });
      expect(back.zen.groupChunkIds.map(toHex)).toEqual(zen.groupChunkIds.map(toHex));
      expect(toHex(serializeZenShaderLibrary(withCompressedSizes(back.zen, zen)))).toBe(toHex(libBytes));
      expect([back.rawGroups, back.compressedGroups]).toEqual([0, 1]);
      back.zen.groupEntries.forEach((g, k) => {
        expect(g.compressedSize).toBe(back.groups[k]!.data().length);
        expect(g.compressedSize).toBeLessThan(1.1 * zen.groupEntries[k]!.compressedSize);
        expect(back.groups[k]!.data()[1]).toBe(10); // a Mermaid stream
      });
      expect(zenShaderCodes(back.zen, new Map(back.groups.map((g) => [toHex(g.id), g.data()])), name).map(toHex)).toEqual(codes.map(toHex));
    }
    expect(shaders).toBe(54);
  });

  it('pack of the to-legacy folder writes the IoStore form: verify passes, code reads back equal (and ooz decodes it)', async () => {
    const { libraries, code } = await patchShaderChunks();
    const folder = await patchAsLegacy();
    const utoc = join(tmp, 'packed', 'Mod.utoc');
    // The game mounts at ../../../PatchTest/Content/: the mod folder is what lies below it.
    const r = await packFolder(join(folder, 'PatchTest/Content'), utoc, { like: PATCH });
    expect(r.shaderLibraries?.map((s) => [s.from, s.shaders, s.groups, s.rawGroups, s.compressedGroups])).toEqual([['legacy', 26, 1, 0, 1], ['legacy', 28, 1, 0, 1]]);
    const toc = await openToc(utoc);
    const engineToc = await openToc(PATCH);
    const named = (t: typeof toc) => Array.from({ length: t.chunkCount }, (_, i) => `${t.chunkIdHex(i)} ${t.chunkTypeName(i)} ${t.chunkPath(i) ?? ''}`).filter((x) => x.includes('Shader')).sort();
    // The same ShaderCodeLibrary chunks under the same paths, and the same ShaderCode chunk ids.
    expect(named(toc)).toEqual(named(engineToc));
    const reader = new ContainerReader(toc, partitionPaths(utoc, toc.partitionCount).map(fileSource));
    const v = await verifyContainer(reader).finally(() => reader.close());
    expect(v.mismatches).toEqual([]);
    expect(v.errors).toEqual([]);
    expect(v.verified).toBe(8);
    const packed = await shaderChunks(utoc);
    expect([...packed.code.keys()].sort()).toEqual([...code.keys()].sort());
    for (const [name, libBytes] of libraries) {
      const zen = parseZenShaderLibrary(libBytes, name);
      const mine = parseZenShaderLibrary(packed.libraries.get(name)!, name);
      expect(toHex(serializeZenShaderLibrary(withCompressedSizes(mine, zen)))).toBe(toHex(libBytes));
      expect(zenShaderCodes(mine, packed.code, name).map(toHex)).toEqual(zenShaderCodes(zen, code, name).map(toHex));
    }
    // Without --like, the store entries take their shader maps from the asset-info files to-legacy wrote.
    expect(listFiles(folder).filter((f) => f.endsWith('.assetinfo.json'))).toHaveLength(2);
    const plain = join(tmp, 'plain', 'Plain.utoc');
    await packFolder(folder, plain, { engine: 'UE5_1' });
    const engineHeader = await headerOf(PATCH);
    const plainHeader = await headerOf(plain);
    expect(maps(plainHeader)).toEqual(maps(engineHeader));
    expect([...maps(plainHeader).values()].flat()).toHaveLength(2);
    // The groups are Oodle Mermaid: an independent decoder (ooz) gives back the same code. (retoc, without Oodle in this
    // build, cannot open the container: --like gives it the game's Oodle compression.)
    if (hasOoz) {
      for (const [name] of libraries) {
        const mine = parseZenShaderLibrary(packed.libraries.get(name)!, name);
        const decoded = oozDecode(mine.groupEntries.map((g, k) => [packed.code.get(toHex(mine.groupChunkIds[k]!))!, g.uncompressedSize] as const));
        const zen = parseZenShaderLibrary(libraries.get(name)!, name);
        const want = zenShaderCodes(zen, code, name);
        const got = mine.groupEntries.flatMap((_, k) => zenGroupLayout(mine, k).map((m) => ({ shader: m.shader, code: decoded[k]!.subarray(m.offset, m.offset + m.size) })));
        for (const { shader, code: c } of got) expect(toHex(c)).toBe(toHex(want[shader]!));
      }
    }
  });

  it('iostore to-zen takes a .ushaderbytecode on its own: the engine library chunk id, its group, --json reports it', async () => {
    const folder = await patchAsLegacy();
    const lib = join(folder, 'PatchTest/Content/ShaderArchive-PatchTest_Chunk1001-PCD3D_SM6-PCD3D_SM6.ushaderbytecode');
    const out = join(tmp, 'cli-zen', 'S.utoc');
    const r = await cli('to-zen', lib, out, '--version', 'UE5_1', '--project', 'PatchTest', '--json');
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.shaderLibraries).toEqual([{ path: 'PatchTest/Content/ShaderArchive-PatchTest_Chunk1001-PCD3D_SM6-PCD3D_SM6.ushaderbytecode', from: 'legacy', shaders: 28, groups: 1, rawGroups: 0, compressedGroups: 1 }]);
    expect(j.warnings.some((w: string) => /stored uncompressed/.test(w))).toBe(false);
    const toc = await openToc(out);
    const ids = Array.from({ length: toc.chunkCount }, (_, i) => `${toc.chunkTypeName(i)} ${toc.chunkIdHex(i)}`).sort();
    expect(ids.filter((x) => !x.startsWith('ContainerHeader'))).toEqual(['ShaderCode b67058def1a7571b6c539109', 'ShaderCodeLibrary d35f7bfd72b18e7e00000008']);
  });

  it('to-zen of a legacy .pak holding a mod\'s packages and shader library (Zlib) writes the IoStore form', async () => {
    const folder = await patchAsLegacy();
    const pak = join(tmp, 'pak', 'Mod.pak');
    await packPak(folder, pak, { engine: 'UE5_1', compression: 'zlib' });
    const out = join(tmp, 'pak-zen', 'Mod_P.utoc');
    const r = await toZen([pak], out, { engine: 'UE5_1' });
    expect(r.converted).toBe(3);
    expect(r.shaderLibraries?.map((l) => [l.from, l.shaders, l.groups])).toEqual([['legacy', 26, 1], ['legacy', 28, 1]]);
    // The asset-info files in the pak give the material its shader maps in the new container header.
    expect(maps(await headerOf(out))).toEqual(maps(await headerOf(PATCH)));
    const { libraries, code } = await patchShaderChunks();
    const packed = await shaderChunks(out);
    for (const [name, libBytes] of libraries) {
      const zen = parseZenShaderLibrary(libBytes, name);
      const mine = parseZenShaderLibrary(packed.libraries.get(name)!, name);
      expect(mine.groupChunkIds.map(toHex)).toEqual(zen.groupChunkIds.map(toHex));
      expect(zenShaderCodes(mine, packed.code, name).map(toHex)).toEqual(zenShaderCodes(zen, code, name).map(toHex));
    }
  });

  it('a library given on its own finds its ShaderCode chunks where unpack wrote them; without them, nothing is written', async () => {
    const { libraries, code } = await patchShaderChunks();
    const [name, libBytes] = [...libraries][0]!;
    const dir = join(tmp, 'loose');
    mkdirSync(join(dir, 'Game'), { recursive: true });
    const lib = join(dir, 'Game', name.replace(/\.ushaderbytecode$/, '.uzenshaderbytecode'));
    writeFileSync(lib, libBytes);
    const bad = await toLegacy([lib], join(tmp, 'loose-out1'));
    expect(bad.failures.map((f) => f.code)).toEqual(['NOT_FOUND']);
    expect(bad.failures[0]!.message).toMatch(/1 of the 1 ShaderCode chunks .* not at hand/);
    expect(existsSync(join(tmp, 'loose-out1')) ? listFiles(join(tmp, 'loose-out1')) : []).toEqual([]);
    mkdirSync(join(dir, '_chunks/ShaderCode'), { recursive: true });
    const zen = parseZenShaderLibrary(libBytes, name);
    for (const id of zen.groupChunkIds) writeFileSync(join(dir, '_chunks/ShaderCode', `${toHex(id)}.bin`), code.get(toHex(id))!);
    const ok = await toLegacy([lib], join(tmp, 'loose-out2'));
    expect(ok.failures).toEqual([]);
    const file = read(join(tmp, 'loose-out2', name));
    const l = parseLegacyShaderLibrary(file, name);
    expect(l.shaderEntries.map((_, i) => toHex(legacyShaderBytes(file, l, i)))).toEqual(zenShaderCodes(zen, code).map(toHex));
    // A mod folder holding the IoStore form packs it with those chunks.
    const mod = join(tmp, 'zenmod');
    mkdirSync(join(mod, 'PatchTest/Content'), { recursive: true });
    cpSync(join(dir, '_chunks'), join(mod, '_chunks'), { recursive: true });
    writeFileSync(join(mod, 'PatchTest/Content', name), libBytes);
    const r = await packFolder(mod, join(tmp, 'zenmod-out', 'Z.utoc'), { like: PATCH });
    expect(r.shaderLibraries?.map((s) => [s.from, s.groups, s.compressedGroups])).toEqual([['zen', 1, 1]]);
    const packed = await shaderChunks(join(tmp, 'zenmod-out', 'Z.utoc'));
    expect([...packed.code.keys()]).toEqual(zen.groupChunkIds.map(toHex));
    expect(toHex(packed.code.get(toHex(zen.groupChunkIds[0]!))!)).toBe(toHex(code.get(toHex(zen.groupChunkIds[0]!))!));
  });
});

describe.skipIf(!hasCorpus)('shader libraries: a one-shader group keeps its Oodle bytes both ways', () => {
  it('an Oodle stream stays the stored code of a legacy shader and of its IoStore group', () => {
    // One shader whose stored code is a real Oodle (Kraken) stream of the corpus: 5,345,280 bytes of text.
    const kraken = read(corpusPath('oodle-vectors/xml.kraken')).subarray(4);
    const hash = (n: number) => new Uint8Array(20).fill(n);
    const tables = serializeLegacyShaderTables({
      version: 2,
      shaderMapHashes: [hash(1)],
      shaderHashes: [hash(2)],
      shaderMapEntries: [{ shaderIndicesOffset: 0, numShaders: 1, firstPreloadIndex: 0, numPreloadEntries: 1 }],
      shaderEntries: [{ offset: 0, size: kraken.length, uncompressedSize: 5345280, frequency: 5 }],
      preloadEntries: [{ offset: 0, size: kraken.length }],
      shaderIndices: [0],
    });
    const legacyFile = new Uint8Array(tables.length + kraken.length);
    legacyFile.set(tables);
    legacyFile.set(kraken, tables.length);
    const z = legacyShaderLibraryToZen(legacyFile, { source: 'x', fileName: 'ShaderArchive-Test-SF_VULKAN_SM5.ushaderbytecode', shaderCodeType: SHADER_CODE });
    expect(z.reusedGroups).toBe(1);
    expect(z.rawGroups).toBe(0);
    expect(z.zen.groupEntries).toEqual([{ shaderIndicesOffset: 0, numShaders: 1, uncompressedSize: 5345280, compressedSize: kraken.length }]);
    expect(z.groups[0]!.size).toBe(kraken.length);
    expect(toHex(z.groups[0]!.data())).toBe(toHex(kraken));
    const plan = planLegacyShaderLibrary(z.zen);
    expect(plan.reusedGroups).toBe(1);
    expect(toHex(plan.tables)).toBe(toHex(tables));
  });
});

describe.skipIf(!hasCorpus)('shader library chunk ids: CityHash64 of the lower-cased <Library>-<Format>, UTF-16LE', () => {
  it.each(['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'ue5.1-templeofgiants/Colliderproject-Windows.utoc', 'ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.utoc'])('%s', async (rel) => {
    const toc = await openToc(corpusPath(rel));
    let n = 0;
    for (let i = 0; i < toc.chunkCount; i++) {
      if (toc.chunkTypeName(i) !== 'ShaderCodeLibrary') continue;
      const { library, format } = shaderLibraryName(toc.chunkPath(i)!)!;
      const id = cityHash64(utf16leBytes(lowerAscii(`${library}-${format}`)));
      expect(toc.chunkId(i).id).toBe(id);
      n++;
    }
    expect(n).toBeGreaterThan(0);
  });
});

describe('shader libraries: bad input is one typed error naming the file and offset', () => {
  const small = (): ZenShaderLibrary => ({
    version: 1,
    shaderMapHashes: [new Uint8Array(20)],
    shaderHashes: [new Uint8Array(20).fill(1), new Uint8Array(20).fill(2)],
    groupChunkIds: [new Uint8Array(12)],
    shaderMapEntries: [{ shaderIndicesOffset: 0, numShaders: 2 }],
    shaderEntries: [{ frequency: 0, groupIndex: 0, offsetInGroup: 0 }, { frequency: 3, groupIndex: 0, offsetInGroup: 10 }],
    groupEntries: [{ shaderIndicesOffset: 0, numShaders: 2, uncompressedSize: 30, compressedSize: 30 }],
    shaderIndices: [0, 1],
  });
  const expectError = (f: () => unknown, code: string, re: RegExp) => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(IoStoreError);
      expect((e as IoStoreError).code).toBe(code);
      expect((e as IoStoreError).message).toMatch(re);
      expect((e as IoStoreError).message).not.toMatch(/\n/);
      return;
    }
    throw new Error('no error');
  };

  it('round trips a small library; truncation, counts past the end and out-of-range indices are refused', () => {
    const bytes = serializeZenShaderLibrary(small());
    expect(parseZenShaderLibrary(bytes, 'lib.bin')).toEqual(small());
    expectError(() => parseZenShaderLibrary(bytes.subarray(0, bytes.length - 3), 'lib.bin'), 'TRUNCATED', /^lib\.bin at offset 0x[0-9a-f]+: shader indices/);
    const huge = bytes.slice();
    new DataView(huge.buffer).setInt32(4, 0x7fffffff, true);
    expectError(() => parseZenShaderLibrary(huge, 'lib.bin'), 'TRUNCATED', /^lib\.bin at offset 0x4: shader map hashes: 2147483647 entries of 20 bytes/);
    const badIndex = serializeZenShaderLibrary({ ...small(), shaderIndices: [0, 7] });
    expectError(() => parseZenShaderLibrary(badIndex, 'lib.bin'), 'BAD_VALUE', new RegExp(`^lib\\.bin at offset 0x${(badIndex.length - 4).toString(16)}: shader index 7 \\(entry 1\\) is out of range`));
    expectError(() => parseZenShaderLibrary(serializeZenShaderLibrary({ ...small(), shaderEntries: [{ frequency: 0, groupIndex: 5, offsetInGroup: 0 }, small().shaderEntries[1]!] }), 'lib.bin'), 'BAD_VALUE', /shader 0: group 5 is out of range/);
    expectError(() => parseZenShaderLibrary(serializeZenShaderLibrary({ ...small(), shaderMapEntries: [{ shaderIndicesOffset: 1, numShaders: 2 }] }), 'lib.bin'), 'BAD_VALUE', /shader map 0: shader indices 1\+2 run past the 2 indices/);
    expectError(() => parseZenShaderLibrary(new Uint8Array([9, 0, 0, 0, 0, 0, 0, 0]), 'lib.bin'), 'UNSUPPORTED', /version 9/);
  });

  it('legacy: code past the end of the file, a shader index out of range, a truncated table', () => {
    const plan = planLegacyShaderLibrary(small());
    const file = new Uint8Array(plan.tables.length + plan.codeSize);
    file.set(plan.tables);
    expect(parseLegacyShaderLibrary(file, 'a.ushaderbytecode').shaderEntries.map((s) => s.uncompressedSize)).toEqual([10, 20]);
    expectError(() => parseLegacyShaderLibrary(file.subarray(0, file.length - 1), 'a.ushaderbytecode'), 'TRUNCATED', /^a\.ushaderbytecode at offset 0x[0-9a-f]+: shader 1: code 10\+20 runs past the 29 bytes of code/);
    expectError(() => parseLegacyShaderLibrary(file.subarray(0, 50), 'a.ushaderbytecode'), 'TRUNCATED', /^a\.ushaderbytecode at offset 0x/);
    const bad = file.slice();
    new DataView(bad.buffer).setUint32(plan.tables.length - 4, 2, true);
    expectError(() => parseLegacyShaderLibrary(bad, 'a.ushaderbytecode'), 'BAD_VALUE', /shader index 2 \(entry 1\) is out of range: the library has 2 shaders/);
    expectError(() => legacyShaderLibraryToZen(file, { source: 'x/NoDash.ushaderbytecode', shaderCodeType: SHADER_CODE }), 'BAD_VALUE', /ShaderArchive-<Library>-<Format>/);
    // A stored shader that claims 300 MiB once decoded is refused before anything that size is allocated.
    const claim = serializeLegacyShaderTables({ ...parseLegacyShaderLibrary(file), shaderEntries: [{ offset: 0, size: 10, uncompressedSize: 300 * 2 ** 20, frequency: 0 }, { offset: 10, size: 20, uncompressedSize: 20, frequency: 3 }] });
    const big = new Uint8Array(claim.length + 30);
    big.set(claim);
    const z = legacyShaderLibraryToZen(big, { source: 'ShaderArchive-X-PCD3D_SM6.ushaderbytecode', shaderCodeType: SHADER_CODE });
    expect(() => z.groups.forEach((g) => g.data())).toThrow(/300\d+ bytes exceeds the 268435456-byte limit|exceeds the 268435456-byte limit/);
  });

  it('to-legacy of a container whose library is corrupt reports it and writes no library', async () => {
    const dir = join(tmp, 'corrupt');
    mkdirSync(dir, { recursive: true });
    const lib = join(dir, 'ShaderArchive-X-PCD3D_SM6.ushaderbytecode');
    const bytes = serializeZenShaderLibrary(small());
    writeFileSync(lib, bytes.subarray(0, 60));
    const r = await toLegacy([lib], join(tmp, 'corrupt-out'));
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]!.code).toBe('TRUNCATED');
    expect(r.failures[0]!.message).toMatch(/ShaderArchive-X-PCD3D_SM6\.ushaderbytecode at offset 0x[0-9a-f]+:/);
    expect(existsSync(join(tmp, 'corrupt-out')) ? readdirSync(join(tmp, 'corrupt-out')) : []).toEqual([]);
  });
});
