import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IoStoreError } from '../../src/errors.js';
import { ContainerReader, parseLoaderGlobalNames, parseLoaderInitialLoadMeta, parseScriptObjects } from '../../src/index.js';
import { ScriptObjectIndex, ZenResolver, zenToLegacy, toLegacy } from '../../src/convert/index.js';
import {
  legacyExportClassPath,
  legacyExportData,
  legacyNameText,
  legacyObjectPath,
  parseLegacyPackage,
  type LegacyPackage,
} from '../../src/legacy/index.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { parseZenPackage } from '../../src/zen/zen-package.js';
import { legacyPak, pakFiles, readCorpus } from '../legacy/helpers.js';
import { tempDir } from '../tmp.js';

const importPaths = (p: LegacyPackage) => p.imports.map((_, i) => legacyObjectPath(p, -i - 1));
const exportRows = (p: LegacyPackage) =>
  p.exports.map((e, i) => ({
    path: legacyObjectPath(p, i + 1),
    cls: legacyExportClassPath(p, i),
    outer: legacyObjectPath(p, e.outerIndex),
    template: legacyObjectPath(p, e.templateIndex),
    flags: e.objectFlags,
    size: e.serialSize,
  }));

async function scriptIndex(globalUtoc: string): Promise<ScriptObjectIndex> {
  const g = await ContainerReader.open(corpusPath(globalUtoc));
  try {
    for (let i = 0; i < g.toc.chunkCount; i++) {
      if (g.toc.chunkTypeName(i) === 'ScriptObjects') return new ScriptObjectIndex(parseScriptObjects(await g.readChunk(i)));
    }
  } finally {
    await g.close();
  }
  throw new Error('no ScriptObjects chunk');
}

describe.skipIf(!hasCorpus)('zen -> legacy on the zen-assets pairs (UE 5.4, 5.5)', () => {
  const pairs = [
    ['UE5.5', 'T_Test', 'UE5_5'],
    ['UE5.5', 'SM_Cube', 'UE5_5'],
    ['UE5.5', 'BP_ThirdPersonCharacter', 'UE5_5'],
    ['UE5.4', 'BP_Table_Lamp', 'UE5_4'],
    ['UE5.4', 'Randy', 'UE5_4'],
  ] as const;

  it("gives the engine's exports, imports as object paths, export bytes, and (with a global container) names", async () => {
    // The global container of another UE 5.5 game: engine script objects hash the same in every game.
    const resolver = new ZenResolver(await scriptIndex('ue5-wayoftheninja/global.utoc'), undefined);
    let unnamedTotal = 0;
    for (const [dir, name, engine] of pairs) {
      const zen = readCorpus(`zen-assets/${dir}/${name}.uzenasset`);
      const r = zenToLegacy(zen, { source: name, engine, resolver });
      const got = parseLegacyPackage(r.uasset, { engine, source: `${name} (converted)` });
      const want = parseLegacyPackage(readCorpus(`zen-assets/${dir}/${name}.uasset`), { engine });
      expect(importPaths(got), name).toEqual(importPaths(want));
      expect(exportRows(got), name).toEqual(exportRows(want));
      expect(got.exports.map((e) => [e.isAsset, e.isInheritedInstance, e.notForClient, e.notForServer]), name).toEqual(
        want.exports.map((e) => [e.isAsset, e.isInheritedInstance, e.notForClient, e.notForServer]),
      );
      // The .uexp is the engine's, byte for byte: the export data is copied unchanged and in order.
      const uexp = readCorpus(`zen-assets/${dir}/${name}.uexp`);
      expect(Buffer.compare(Buffer.from(r.uexp), Buffer.from(uexp)), name).toBe(0);
      legacyExportData(got, r.uexp).forEach((d, i) => expect(d.length).toBe(want.exports[i]!.serialSize));
      // Zen names keep their indices, so FNames inside the export data keep their meaning.
      const zenNames = got.names.slice(0, got.summary.namesReferencedFromExportDataCount).map((n) => n.name);
      for (const n of zenNames) expect(want.names.some((w) => w.name === n)).toBe(true);
      // Every engine name is there except the class names of imports from packages not at hand (each warned about).
      const gotNames = new Set(got.names.map((n) => n.name));
      const missing = want.names.filter((n) => !gotNames.has(n.name)).map((n) => n.name);
      const unnamedClasses = r.unnamed.filter((u) => u.endsWith(': class')).length;
      expect(missing.length, `${name}: ${missing.join(', ')}`).toBeLessThanOrEqual(unnamedClasses);
      unnamedTotal += r.unnamed.length;
      // The bulk data table matches the engine's, owners included.
      expect(got.dataResources, name).toEqual(want.dataResources);
      if (name === 'T_Test' || name === 'Randy') {
        expect(got.names.map((n) => n.name).sort()).toEqual(want.names.map((n) => n.name).sort());
        expect(got.preloadDependencies).toEqual(want.preloadDependencies);
        expect(r.uasset.length).toBe(want.summary.totalHeaderSize);
      }
    }
    // Only classes of imports from packages that are not at hand stay unnamed (materials, input actions, meshes).
    expect(unnamedTotal).toBe(9);
  });

  it('UE 4.27: same exports and .uexp bytes; every import it names is the engine\'s, the others are listed', () => {
    const names = parseLoaderGlobalNames(readCorpus('zen-assets/UE4.27/LoaderGlobalNames_1.bin'));
    const objects = parseLoaderInitialLoadMeta(readCorpus('zen-assets/UE4.27/LoaderInitialLoadMeta_1.bin'));
    const resolver = new ZenResolver(new ScriptObjectIndex({ names, nameHashes: [], objects }), undefined);
    const r = zenToLegacy(readCorpus('zen-assets/UE4.27/TestModUI.uzenasset'), { resolver, engine: 'UE4_27' });
    const packageName = '/Game/_AssemblyStorm/TestMod/TestModUI';
    const got = parseLegacyPackage(r.uasset, { packageName });
    const want = parseLegacyPackage(readCorpus('zen-assets/UE4.27/TestModUI.uasset'), { packageName });
    expect(got.summary.legacyFileVersion).toBe(-7);
    expect(got.layout.exportEntrySize).toBe(104);
    expect(exportRows(got)).toEqual(exportRows(want));
    expect(Buffer.compare(Buffer.from(r.uexp), Buffer.from(readCorpus('zen-assets/UE4.27/TestModUI.uexp')))).toBe(0);
    const g = importPaths(got);
    const w = importPaths(want);
    let named = 0;
    g.forEach((p, i) => {
      if (p === 'None') return;
      named++;
      expect(p, `import ${i}`).toBe(w[i]);
    });
    // The global chunks come from another game: its engine script objects and outers name 141 imports; the game's own module
    // and the other packages (not at hand) stay unnamed, and each is listed.
    expect(named).toBe(141);
    expect(r.unnamed.length).toBe(229 - 141);
  });

  it('names only what it can without the global container, and says what stayed unnamed', () => {
    const r = zenToLegacy(readCorpus('zen-assets/UE5.5/T_Test.uzenasset'), { engine: 'UE5_5' });
    expect(r.unnamed.length).toBe(3);
    expect(r.unnamed[0]).toMatch(/import 0: script object \(no global container\)/);
    expect(() => parseLegacyPackage(r.uasset)).not.toThrow();
  });

  it('a reference outside the tables is one error naming the export and its map entry', () => {
    const bytes = readCorpus('zen-assets/UE5.5/BP_ThirdPersonCharacter.uzenasset');
    const z = parseZenPackage(bytes, { engine: 'UE5_5' });
    const mapAt = z.sections.find((x) => x.name === 'export map')!.offset;
    const last = z.exports.length - 1;
    const at = (i: number) => `offset 0x${(mapAt + i * 72).toString(16)}`;
    const broken = (change: (e: (typeof z.exports)[number]) => void) => {
      const copy = { ...z, exports: z.exports.map((e) => ({ ...e })) };
      change(copy.exports[last]!);
      return () => zenToLegacy(bytes, { source: 'BP', engine: 'UE5_5', parsed: copy });
    };
    // An import that is not in the import map (a script import index no package has).
    expect(broken((e) => (e.classIndex = (1n << 62n) | 0x1234n))).toThrow(new RegExp(`${at(last)}: export ${last}: its class 0x4000000000001234 is not in the import map`));
    // An export past the export map.
    expect(broken((e) => (e.templateIndex = BigInt(z.exports.length)))).toThrow(new RegExp(`${at(last)}: export ${last}: its template is export ${z.exports.length} of ${z.exports.length}`));
    // A name past the name map.
    expect(broken((e) => (e.objectName = { ...e.objectName, index: z.names.length }))).toThrow(/its name is entry \d+ of a \d+-entry name map/);
  });

  it('reports a bad package as one typed error naming it', () => {
    const bytes = readCorpus('zen-assets/UE5.5/T_Test.uzenasset').slice(0, 40);
    expect(() => zenToLegacy(bytes, { source: 'T_Test.uzenasset', engine: 'UE5_5' })).toThrow(/^T_Test\.uzenasset at offset 0x[0-9a-f]+: /);
  });
});

describe.skipIf(!hasCorpus)('zen containers -> legacy against the Legacy-Tagged paks of the same project', () => {
  for (const engine of ['ue5.8', 'ue6.0'] as const) {
    it(`${engine}: same imports as object paths, same exports with classes and serial sizes, same .ubulk bytes`, async () => {
      const out = tempDir();
      const r = await toLegacy([corpusPath(`${engine}-cue4parse/uncompressed`)], out, { global: corpusPath(`${engine}-cue4parse/global/global.utoc`) });
      expect(r.failures).toEqual([]);
      expect(r.global).not.toBeNull();
      expect(r.packages).toBeGreaterThan(50);
      const legacy = pakFiles(legacyPak(engine));
      let compared = 0;
      for (const [path, bytes] of legacy) {
        const base = join(out, 'CUE4ParseFixtures/Content/Fixtures', path);
        if (path.endsWith('.ubulk')) {
          expect(Buffer.compare(readFileSync(base), Buffer.from(bytes)), path).toBe(0);
          continue;
        }
        if (!/\.(uasset|umap)$/.test(path)) continue;
        const want = parseLegacyPackage(bytes, { source: path });
        const got = parseLegacyPackage(new Uint8Array(readFileSync(base)), { source: base });
        expect(got.summary.packageName).toBe(want.summary.packageName);
        expect(got.summary.fileVersionUE5).toBe(want.summary.fileVersionUE5);
        expect(got.layout).toEqual(want.layout);
        expect(importPaths(got).sort(), path).toEqual(importPaths(want).sort());
        const rows = (p: LegacyPackage) =>
          exportRows(p).map(({ path: x, cls, size, outer }, i) => ({ x, cls, size, outer, script: [p.exports[i]!.scriptSerializationStartOffset, p.exports[i]!.scriptSerializationEndOffset] }));
        expect(rows(got), path).toEqual(rows(want));
        // Names compared as text: the two cooks order their name maps differently.
        expect(new Set(got.imports.map((i) => legacyNameText(got, i.className)))).toEqual(new Set(want.imports.map((i) => legacyNameText(want, i.className))));
        const uexp = new Uint8Array(readFileSync(base.replace(/\.[^.]+$/, '.uexp')));
        expect(legacyExportData(got, uexp).map((d) => d.length)).toEqual(want.exports.map((e) => e.serialSize));
        compared++;
      }
      expect(compared).toBe(5);
    });
  }
});

describe.skipIf(!hasCorpus)('zen -> legacy on damaged packages', () => {
  it('random byte flips give a typed error or a package that reads back, never anything else', () => {
    const good = readCorpus('zen-assets/UE5.5/SM_Cube.uzenasset');
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    let ok = 0;
    for (let k = 0; k < 200; k++) {
      const d = good.slice();
      // Damage the header (the export data is copied as it is, whatever it holds).
      for (let j = 0; j < 3; j++) d[Math.floor(rnd() * 1000)] = Math.floor(rnd() * 256);
      try {
        const r = zenToLegacy(d, { engine: 'UE5_5', source: 'damaged' });
        parseLegacyPackage(r.uasset, { engine: 'UE5_5' });
        ok++;
      } catch (e) {
        expect(e, String(e)).toBeInstanceOf(IoStoreError);
      }
    }
    expect(ok).toBeGreaterThan(0);
  });
});
