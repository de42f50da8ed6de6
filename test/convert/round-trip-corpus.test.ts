import { readdirSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContainerReader } from '../../src/cas/container-reader.js';
import { fileSource, partitionPaths } from '../../src/cas/source.js';
import { legacyToZen } from '../../src/convert/legacy-to-zen.js';
import { ScriptObjectIndex, ZenResolver, zenToLegacy } from '../../src/convert/index.js';
import { parseLegacyPackage } from '../../src/legacy/index.js';
import { fromHex } from '../../src/util/bytes.js';
import type { EngineVersion } from '../../src/toc/engine.js';
import { openToc } from '../../src/toc/read-file.js';
import { parseContainerHeader, parseScriptObjects, parseZenPackage, type ContainerHeader, type ZenPackage } from '../../src/zen/index.js';
import { CORPUS_AES_KEY_HEX, corpusPath, hasCorpus } from '../corpus.js';

/**
 * The third "done when": every package of every corpus container with a .ucas goes to legacy and back to zen.
 * Where the zen package was made from a legacy cook (UE 5.0-5.2, IoStore staged after a legacy cook) the result must
 * equal it byte for byte; where the engine cooked zen directly (5.8, 6.0) every table must be equal, and the bytes
 * too apart from CookedHeaderSize (the legacy header's size, which to-legacy lays out by its own rules).
 */
interface Case {
  dir: string;
  engine: EngineVersion;
  global: string;
  /** Packages in all the folder's containers. */
  packages: number;
}

const CASES: Case[] = [
  { dir: 'ue5.1-patchtest', engine: 'UE5_1', global: 'ue5.1-templeofgiants/global.utoc', packages: 8 },
  { dir: 'ue5.8-cue4parse', engine: 'UE5_8', global: 'ue5.8-cue4parse/global/global.utoc', packages: 97 * 5 + 2 + 1 },
  { dir: 'ue6.0-cue4parse', engine: 'UE6_0', global: 'ue6.0-cue4parse/global/global.utoc', packages: 97 * 5 + 2 + 1 },
];

const KEY = fromHex(CORPUS_AES_KEY_HEX);

interface Chunk {
  id: bigint;
  type: string;
  bytes: Uint8Array;
}

async function readContainer(utoc: string): Promise<{ chunks: Chunk[]; header: ContainerHeader | undefined; tocVersion: number }> {
  const toc = await openToc(utoc, { aesKey: KEY });
  const reader = new ContainerReader(toc, partitionPaths(utoc, toc.partitionCount).map(fileSource), { aesKey: KEY });
  const chunks: Chunk[] = [];
  let header: ContainerHeader | undefined;
  try {
    for (let i = 0; i < toc.chunkCount; i++) {
      const type = toc.chunkTypeName(i);
      if (type !== 'ExportBundleData' && type !== 'ContainerHeader' && type !== 'ScriptObjects') continue;
      const bytes = await reader.readChunk(i);
      if (type === 'ContainerHeader') header = parseContainerHeader(bytes, { source: utoc });
      chunks.push({ id: toc.chunkId(i).id, type, bytes });
    }
  } finally {
    await reader.close();
  }
  return { chunks, header, tocVersion: toc.version };
}

function utocsUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = `${d}/${e}`;
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith('.utoc') && !/^global\.utoc$/.test(e)) out.push(p);
    }
  };
  walk(corpusPath(dir));
  return out;
}

const big = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString(16) : v);
const json = (v: unknown) => JSON.stringify(v, big);

/** The tables the round trip must keep, each by name (so a failure names the first that differs). */
function tables(z: ZenPackage, importedPackages: readonly bigint[] | undefined) {
  return {
    names: z.names,
    imports: z.imports,
    importedPublicExportHashes: z.importedPublicExportHashes,
    exports: z.exports,
    exportBundles: z.exportBundles,
    exportBundleEntries: z.exportBundleEntries,
    dependencyBundleHeaders: z.dependencyBundleHeaders,
    dependencyBundleEntries: z.dependencyBundleEntries,
    internalArcs: z.internalArcs,
    externalArcs: z.externalArcs,
    referencedPackages: z.referencedPackages,
    importedPackageNames: z.importedPackageNames,
    importedPackages,
    bulkData: z.bulkData,
    packageFlags: z.packageFlags,
    versioningInfo: z.versioningInfo,
  };
}

describe.skipIf(!hasCorpus)('round trip over every package of every corpus container: to-legacy, then to-zen', () => {
  const totals = { containers: 0, packages: 0, reused: 0, bytes: 0, bytesButHeaderSize: 0, tables: 0 };

  for (const c of CASES) {
    it(`${c.dir}: every container, every package`, async () => {
      const global = await readContainer(corpusPath(c.global));
      const scripts = new ScriptObjectIndex(parseScriptObjects(global.chunks.find((x) => x.type === 'ScriptObjects')!.bytes));
      const containers = utocsUnder(c.dir);
      expect(containers.length).toBeGreaterThan(0);
      let packages = 0;
      const done = new Map<bigint, { bytes: Uint8Array; neighbours: string; same: boolean; sameButHeaderSize: boolean }>();
      for (const utoc of containers) {
        const { chunks, header, tocVersion } = await readContainer(utoc);
        expect([5, 8, 10]).toContain(tocVersion);
        const entryOf = new Map(header!.packages.map((e) => [e.packageId, e]));
        const pkgs = chunks.filter((x) => x.type === 'ExportBundleData');
        const neighbours = pkgs.map((x) => x.id.toString(16)).sort().join();
        const hints = (id: bigint) => (c.engine === 'UE5_1' ? { containerHeaderVersion: header!.version, storeEntry: entryOf.get(id)! } : { engine: c.engine });
        const parsed = new Map(pkgs.map((x) => [x.id, parseZenPackage(x.bytes, { source: `${utoc} ${x.id.toString(16)}`, ...hints(x.id) })]));
        const idOf = new Map([...parsed].map(([id, p]) => [p, id]));
        const resolver = new ZenResolver(scripts, { get: (id) => parsed.get(id), importedPackageIds: (p) => entryOf.get(idOf.get(p)!)?.importedPackages });
        for (const x of pkgs) {
          packages++;
          // The variants of one cook (stored, Zlib, Oodle, partitioned, encrypted) hold the same package bytes: a
          // package equal to one already converted (same id, same bytes, same neighbours) gives the same result.
          const before = done.get(x.id);
          if (before && Buffer.from(before.bytes).equals(Buffer.from(x.bytes)) && before.neighbours === neighbours) {
            totals.reused++;
            totals.tables++;
            if (before.same) totals.bytes++;
            if (before.sameButHeaderSize) totals.bytesButHeaderSize++;
            continue;
          }
          const z = parsed.get(x.id)!;
          const where = `${utoc.slice(utoc.indexOf(c.dir))}: ${z.packageName}`;
          // No corpus package has Verse cells (5.8 and 6.0 headers have the cell maps, empty).
          expect([z.layout.cellMaps, z.cellImports.length, z.cellExports.length], where).toEqual([c.engine !== 'UE5_1', 0, 0]);
          const legacy = zenToLegacy(x.bytes, { engine: c.engine, resolver, parsed: z });
          // Only classes of /Engine content, which no corpus container holds, stay unnamed (they do not reach zen).
          for (const u of legacy.unnamed) expect(u, where).toMatch(/\(\/Engine\//);
          const back = legacyToZen(parseLegacyPackage(legacy.uasset, { engine: c.engine, source: where }), legacy.uasset, legacy.uexp, { engine: c.engine });
          expect(back.packageId, where).toBe(x.id);
          const mine = tables(back.zen, back.importedPackages);
          const theirs = tables(z, entryOf.get(x.id)!.importedPackages);
          for (const k of Object.keys(mine) as Array<keyof typeof mine>) expect(json(mine[k]), `${where}: ${k}`).toBe(json(theirs[k]));
          // Export data (and, for 5.3+, the package tag after it) unchanged.
          expect(Buffer.from(back.chunk.subarray(back.zen.headerSize)).equals(Buffer.from(x.bytes.subarray(z.headerSize))), `${where}: export data`).toBe(true);
          totals.tables++;
          const a = Buffer.from(back.chunk);
          const b = Buffer.from(x.bytes);
          const same = a.equals(b);
          // CookedHeaderSize is the u32 at 20 in every UE5 zen summary.
          const sameButHeaderSize = a.length === b.length && a.subarray(0, 20).equals(b.subarray(0, 20)) && a.subarray(24).equals(b.subarray(24));
          if (same) totals.bytes++;
          if (sameButHeaderSize) totals.bytesButHeaderSize++;
          done.set(x.id, { bytes: x.bytes, neighbours, same, sameButHeaderSize });
        }
        totals.containers++;
      }
      expect(packages).toBe(c.packages);
      totals.packages += packages;
    }, 30_000);
  }

  it('figures', () => {
    // eslint-disable-next-line no-console
    console.log(
      `round trip: ${totals.containers} containers, ${totals.packages} packages (${totals.packages - totals.reused} converted, ${totals.reused} equal to one converted); ` +
        `tables equal ${totals.tables}; bytes equal ${totals.bytes}; equal apart from CookedHeaderSize ${totals.bytesButHeaderSize}`,
    );
    expect(totals.containers).toBe(17);
    expect(totals.packages).toBe(8 + 488 * 2);
    expect(totals.tables).toBe(totals.packages);
    // 5.1: made from a legacy cook, so byte for byte; 5.8/6.0: cooked directly, so CookedHeaderSize may differ.
    expect(totals.bytes).toBeGreaterThanOrEqual(8);
    expect(totals.bytesButHeaderSize).toBe(totals.packages);
  });
});
