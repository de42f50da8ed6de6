import { describe, expect, it } from 'vitest';
import { IoStoreError } from '../../src/errors.js';
import { parseLegacyPackage } from '../../src/legacy/index.js';
import { exportHashOfPath as publicExportHash, legacyToZen } from '../../src/convert/legacy-to-zen.js';
import { parseContainerHeader, parseScriptObjects, parseZenPackage } from '../../src/zen/index.js';
import { ContainerReader } from '../../src/cas/container-reader.js';
import { fileSource, partitionPaths } from '../../src/cas/source.js';
import { openToc } from '../../src/toc/read-file.js';
import { ScriptObjectIndex, ZenResolver, zenToLegacy } from '../../src/convert/index.js';
import type { EngineVersion } from '../../src/toc/engine.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { readCorpus } from '../legacy/helpers.js';

/** The zen-assets pairs whose zen form the engine made from the legacy form. */
const PAIRS: Array<[string, EngineVersion]> = [
  ['zen-assets/UE5.4/BP_Table_Lamp', 'UE5_4'],
  ['zen-assets/UE5.4/Randy', 'UE5_4'],
  ['zen-assets/UE5.5/BP_ThirdPersonCharacter', 'UE5_5'],
  ['zen-assets/UE5.5/SM_Cube', 'UE5_5'],
  ['zen-assets/UE5.5/T_Test', 'UE5_5'],
];

function convert(rel: string, engine: EngineVersion) {
  const uasset = readCorpus(`${rel}.uasset`);
  const uexp = readCorpus(`${rel}.uexp`);
  const pkg = parseLegacyPackage(uasset, { source: rel, engine });
  return legacyToZen(pkg, uasset, uexp, { engine });
}

describe.skipIf(!hasCorpus)('legacy -> zen on the engine-made pairs', () => {
  it.each(PAIRS)('%s: the converted chunk equals the engine .uzenasset byte for byte', (rel, engine) => {
    const out = convert(rel, engine);
    const engineZen = readCorpus(`${rel}.uzenasset`);
    expect(out.chunk.length).toBe(engineZen.length);
    expect(Buffer.compare(Buffer.from(out.chunk), Buffer.from(engineZen))).toBe(0);
    const mine = parseZenPackage(out.chunk, { engine });
    expect(mine.packageName).toBe(out.packageName);
  });

  it('SM_Cube: imports, imported packages and dependency bundles as the engine wrote them', () => {
    const out = convert('zen-assets/UE5.5/SM_Cube', 'UE5_5');
    const z = out.zen;
    // M_Cube_1 and M_Cube_2: one base name with two numbers, ordered by package id.
    expect(z.importedPackageNames!.batch.names).toEqual(['/Game/Meshes/M_Cube', '/Game/Meshes/M_Cube']);
    expect(z.importedPackageNames!.numbers).toEqual([3, 2]);
    expect(out.importedPackages).toHaveLength(2);
    expect(out.importedPackages[0]! < out.importedPackages[1]!).toBe(true);
    expect(z.names.slice(-4)).toEqual(['BodySetup', 'NavCollision', 'SM_Cube', '/Game/Meshes/SM_Cube']);
    expect(z.exportBundleEntries.map((e) => `${e.localExportIndex}${e.commandType ? 's' : 'c'}`).join(' ')).toBe('2c 0c 1c 2s 0s 1s');
    expect(z.dependencyBundleEntries).toEqual([3, 3, -5, -6, 1, 2]);
    expect(z.bulkData).toHaveLength(5);
  });

  it('public export hashes are of the path inside the package, lower-cased, without the leading separator', () => {
    expect(publicExportHash('/T_Test')).toBe(0x384692722f9fb7c9n);
    expect(publicExportHash('T_Test')).toBe(0x384692722f9fb7c9n);
  });

  it('a .uexp without its closing tag converts to the chunk of the tagged one, with one warning naming it; an export past its end is refused', () => {
    const rel = 'zen-assets/UE5.5/T_Test';
    const uasset = readCorpus(`${rel}.uasset`);
    const uexp = readCorpus(`${rel}.uexp`);
    const pkg = parseLegacyPackage(uasset, { source: `${rel}.uasset`, engine: 'UE5_5' });
    const tagged = legacyToZen(pkg, uasset, uexp, { engine: 'UE5_5' });
    expect(tagged.warning).toBeUndefined();
    const untagged = legacyToZen(pkg, uasset, uexp.slice(0, -4), { engine: 'UE5_5' });
    expect(Buffer.compare(Buffer.from(untagged.chunk), Buffer.from(tagged.chunk))).toBe(0);
    expect(untagged.warning).toMatch(/^zen-assets\/UE5\.5\/T_Test\.uexp: no closing package tag/);
    // Cut into the last export: it no longer fits, whatever the tag.
    const cut = uexp.slice(0, -6);
    try {
      legacyToZen(pkg, uasset, cut, { engine: 'UE5_5' });
      throw new Error('expected an error');
    } catch (e) {
      expect(e).toBeInstanceOf(IoStoreError);
      expect((e as IoStoreError).message).toMatch(/export 0 .* lies outside the \d+-byte \.uexp/);
      expect((e as IoStoreError).offset).toBe(pkg.summary.exportOffset);
    }
  });

  it('rejects a preload dependency outside the tables', () => {
    const rel = 'zen-assets/UE5.5/SM_Cube';
    const uasset = readCorpus(`${rel}.uasset`);
    const pkg = parseLegacyPackage(uasset, { source: rel, engine: 'UE5_5' });
    pkg.preloadDependencies[0] = -99;
    expect(() => legacyToZen(pkg, uasset, readCorpus(`${rel}.uexp`), { engine: 'UE5_5' })).toThrow(/package index -99, outside/);
  });
});

describe.skipIf(!hasCorpus)('round trip over whole containers: to-legacy, then to-zen', () => {
  for (const [engine, ev] of [['ue5.8', 'UE5_8'], ['ue6.0', 'UE6_0']] as const) {
    it(`${engine}: every package comes back with the same tables; all but one byte for byte apart from CookedHeaderSize`, async () => {
      const utoc = corpusPath(`${engine}-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc`);
      const globalUtoc = corpusPath(`${engine}-cue4parse/global/global.utoc`);
      const { chunks, header } = await containerChunks(utoc);
      const global = await containerChunks(globalUtoc);
      const scripts = [...global.chunks.values()].find((c) => c.type === 'ScriptObjects')!.bytes;
      const pkgs = [...chunks.values()].filter((c) => c.type === 'ExportBundleData');
      const parsed = new Map(pkgs.map((c) => [c.id, parseZenPackage(c.bytes, { engine: ev })]));
      const byPkg = new Map([...parsed].map(([id, p]) => [p, id]));
      const resolver = new ZenResolver(new ScriptObjectIndex(parseScriptObjects(scripts)), {
        get: (id) => parsed.get(id),
        importedPackageIds: (p) => header!.packages.find((e) => e.packageId === byPkg.get(p))?.importedPackages,
      });
      let sameTables = 0;
      let sameBytes = 0;
      for (const c of pkgs) {
        const z = parsed.get(c.id)!;
        const legacy = zenToLegacy(c.bytes, { engine: ev, resolver, parsed: z });
        const back = legacyToZen(parseLegacyPackage(legacy.uasset, { engine: ev }), legacy.uasset, legacy.uexp, { engine: ev });
        expect(back.packageId).toBe(c.id);
        const m = back.zen;
        if (
          JSON.stringify([m.names, m.imports, m.exports, m.exportBundleEntries, m.importedPublicExportHashes, m.dependencyBundleEntries], big) ===
          JSON.stringify([z.names, z.imports, z.exports, z.exportBundleEntries, z.importedPublicExportHashes, z.dependencyBundleEntries], big)
        ) sameTables++;
        const a = Buffer.from(back.chunk);
        const b = Buffer.from(c.bytes);
        // CookedHeaderSize (bytes 20-23) counts the legacy header, which to-legacy lays out by its own rules.
        if (a.length === b.length && a.subarray(0, 20).equals(b.subarray(0, 20)) && a.subarray(24).equals(b.subarray(24))) sameBytes++;
      }
      expect(pkgs.length).toBe(97);
      expect(sameTables).toBe(97);
      expect(sameBytes).toBeGreaterThanOrEqual(96);
    });
  }
});

const big = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString(16) : v);
const json = (v: unknown) => JSON.stringify(v, big);

async function containerChunks(utoc: string) {
  const toc = await openToc(utoc);
  const reader = new ContainerReader(toc, partitionPaths(utoc, toc.partitionCount).map(fileSource));
  const chunks = new Map<bigint | number, { id: bigint; type: string; bytes: Uint8Array }>();
  let header;
  try {
    for (let i = 0; i < toc.chunkCount; i++) {
      const bytes = await reader.readChunk(i);
      const type = toc.chunkTypeName(i);
      if (type === 'ContainerHeader') header = parseContainerHeader(bytes, { source: utoc });
      chunks.set(type === 'ExportBundleData' ? toc.chunkId(i).id : i, { id: toc.chunkId(i).id, type, bytes });
    }
  } finally {
    await reader.close();
  }
  return { chunks, header };
}

describe.skipIf(!hasCorpus)('legacy -> zen on damaged packages', () => {
  it('a flipped or truncated .uasset converts or fails with an IoStoreError, never anything else', () => {
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let failed = 0;
    for (const [rel, engine] of PAIRS) {
      const uasset = readCorpus(`${rel}.uasset`);
      const uexp = readCorpus(`${rel}.uexp`);
      for (let k = 0; k < 60; k++) {
        const bad = uasset.slice(0, k % 10 === 9 ? rand(uasset.length) : uasset.length);
        for (let f = 0; f < 4; f++) if (bad.length > 0) bad[rand(bad.length)] = rand(256);
        try {
          const pkg = parseLegacyPackage(bad, { source: rel, engine });
          legacyToZen(pkg, bad, uexp, { engine });
        } catch (e) {
          if (!(e instanceof IoStoreError)) throw new Error(`${rel} case ${k}: ${String(e)}`);
          expect(e.message).not.toContain('\n');
          failed++;
        }
      }
    }
    expect(failed).toBeGreaterThan(0);
  });
});

describe.skipIf(!hasCorpus)('legacy -> zen, UE 4.27', () => {
  it('TestModUI: the converted chunk equals the engine .uzenasset byte for byte; store-entry figures match the metadata', () => {
    const rel = 'zen-assets/UE4.27/TestModUI';
    const uasset = readCorpus(`${rel}.uasset`);
    // UE4 packages store None as their name: the name comes from where the package lives.
    const pkg = parseLegacyPackage(uasset, { source: rel, engine: 'UE4_27', packageName: '/Game/_AssemblyStorm/TestMod/TestModUI' });
    const out = legacyToZen(pkg, uasset, readCorpus(`${rel}.uexp`), { engine: 'UE4_27' });
    const engineZen = readCorpus(`${rel}.uzenasset`);
    expect(Buffer.compare(Buffer.from(out.chunk), Buffer.from(engineZen))).toBe(0);
    const text = Buffer.from(readCorpus(`${rel}.metadata.json`)).toString('utf8');
    const meta = JSON.parse(text);
    // Package ids pass 2^53: read them from the text, not through JSON numbers.
    const imported = /"imported_packages":\s*\[([\d,\s]*)\]/.exec(text)![1]!.split(',').map((d) => BigInt(d.trim()));
    expect(out.chunk.length).toBe(meta.store_entry.export_bundles_size);
    expect(out.zen.exports).toHaveLength(meta.store_entry.export_count);
    expect(out.zen.exportBundles).toHaveLength(meta.store_entry.export_bundle_count);
    expect(new Set(out.importedPackages)).toEqual(new Set(imported));
  });
});

describe.skipIf(!hasCorpus)('legacy -> zen, UE 5.0-5.2 graph-data header', () => {
  it('ue5.1 patch-test containers: to-legacy then to-zen gives back each package byte for byte, graph data included', async () => {
    const scripts = [...(await containerChunks(corpusPath('ue5.1-templeofgiants/global.utoc'))).chunks.values()].find((c) => c.type === 'ScriptObjects')!.bytes;
    let checked = 0;
    let sameArcs = 0;
    for (const rel of ['jh-patchtest-chunk1/pakchunk1-Windows.utoc', 'jh-patchtest-chunk1001/pakchunk1001-Windows.utoc']) {
      const { chunks, header } = await containerChunks(corpusPath(`ue5.1-patchtest/${rel}`));
      const pkgs = [...chunks.values()].filter((c) => c.type === 'ExportBundleData');
      const entryOf = (id: bigint) => header!.packages.find((e) => e.packageId === id);
      const parsed = new Map(pkgs.map((c) => [c.id, parseZenPackage(c.bytes, { containerHeaderVersion: header!.version, storeEntry: entryOf(c.id)! })]));
      const byPkg = new Map([...parsed].map(([id, p]) => [p, id]));
      const resolver = new ZenResolver(new ScriptObjectIndex(parseScriptObjects(scripts)), { get: (id) => parsed.get(id), importedPackageIds: (p) => entryOf(byPkg.get(p)!)?.importedPackages });
      for (const c of pkgs) {
        const z = parsed.get(c.id)!;
        const legacy = zenToLegacy(c.bytes, { engine: 'UE5_1', resolver, parsed: z });
        const back = legacyToZen(parseLegacyPackage(legacy.uasset, { engine: 'UE5_1' }), legacy.uasset, legacy.uexp, { engine: 'UE5_1' });
        const m = back.zen;
        expect(m.layout.summarySize).toBe(44);
        expect(JSON.stringify([m.names, m.imports, m.exportBundles, m.exportBundleEntries, m.internalArcs], big)).toBe(
          JSON.stringify([z.names, z.imports, z.exportBundles, z.exportBundleEntries, z.internalArcs], big),
        );
        // External arcs come back from the preload dependencies to-legacy rebuilds from them (dd_Mat: import 4, the
        // texture, created before the bundle); with the script class and template put back too, the legacy header
        // has the engine's size, so CookedHeaderSize and the export offsets counting it match: the whole chunk does.
        expect(json(m.externalArcs)).toBe(json(z.externalArcs));
        expect(Buffer.from(back.chunk).equals(Buffer.from(c.bytes)), z.packageName).toBe(true);
        if (z.externalArcs.some((a) => a.length > 0)) sameArcs++;
        checked++;
      }
    }
    expect(checked).toBe(5);
    expect(sameArcs).toBe(1);
  });
});
