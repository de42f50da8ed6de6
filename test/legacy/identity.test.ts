import { describe, expect, it } from 'vitest';
import {
  legacyPackageSpec,
  legacyRegionSpans,
  parseLegacyPackage,
  writeLegacyPackage,
  type LegacyEngineRelease,
  type LegacyPackage,
} from '../../src/legacy/index.js';
import { corpusFiles, hasCorpus } from '../corpus.js';
import { LEGACY_PAK_VARIANTS, legacyGamesPackages, legacyPak, pakFiles, readCorpus } from './helpers.js';

/**
 * Identity: `writeLegacyPackage(legacyPackageSpec(parseLegacyPackage(x))).uasset` is x, byte for byte, for every
 * legacy package of the corpus: legacy-games (UE 4.14 to 5.7, cooked and editor, the edge cases), the zen-assets
 * pairs, and the packages of the 5.8/6.0 Legacy-Tagged paks. The tables the writer makes (names, imports, exports,
 * cells, preload dependencies, data resources) are written from the parsed entries; the others (thumbnails,
 * gatherable text, asset registry data, an editor package's export data ...) are kept as their bytes, and the
 * figures test names each of those tables and the bytes it keeps, for the readers that will decode them.
 */
interface Case {
  name: string;
  bytes: Uint8Array;
  engine?: LegacyEngineRelease;
}

function cases(): Case[] {
  const out: Case[] = legacyGamesPackages().map((p) => ({ name: p.rel, bytes: readCorpus(p.rel), engine: p.release }));
  for (const rel of [...corpusFiles('.uasset'), ...corpusFiles('.umap')].filter((f) => f.startsWith('zen-assets/'))) {
    const bytes = readCorpus(rel);
    if (new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) === 0x9e2a83c1) out.push({ name: rel, bytes });
  }
  for (const engine of ['ue5.8', 'ue6.0'] as const) {
    for (const variant of LEGACY_PAK_VARIANTS) {
      for (const [path, bytes] of pakFiles(legacyPak(engine, variant))) if (/\.(uasset|umap)$/.test(path)) out.push({ name: `${engine}/${variant}/${path}`, bytes });
    }
  }
  return out;
}

const all = hasCorpus ? cases() : [];
const parsed = new Map<Case, LegacyPackage>();
const parse = (c: Case): LegacyPackage => {
  let p = parsed.get(c);
  if (!p) parsed.set(c, (p = parseLegacyPackage(c.bytes, { source: c.name, ...(c.engine ? { engine: c.engine } : {}) })));
  return p;
};

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

describe.skipIf(!hasCorpus)('legacy identity: parse, spec, write gives back every corpus package', () => {
  it('covers every folder of legacy-games, the zen-assets pairs and the Legacy-Tagged paks', () => {
    expect(all.filter((c) => c.name.startsWith('legacy-games/')).length).toBeGreaterThanOrEqual(69);
    expect(all.filter((c) => c.name.startsWith('zen-assets/')).length).toBeGreaterThanOrEqual(5);
    expect(all.filter((c) => /^ue(5\.8|6\.0)\//.test(c.name)).length).toBe(40);
  });

  it('byte for byte, every one', () => {
    const differ: string[] = [];
    for (const c of all) {
      const out = writeLegacyPackage(legacyPackageSpec(parse(c))).uasset;
      const at = firstDifference(out, c.bytes);
      if (at >= 0) differ.push(`${c.name}: ${out.length} bytes written for ${c.bytes.length}, first difference at ${at}`);
    }
    expect(differ).toEqual([]);
  });

  it('the duplicate-name and wrong-hash edge cases keep their names and stored hashes', () => {
    for (const dir of ['duplicate-names/BIOME_AzureWeald', 'improper-name-hashes/OC_Gatling_DamageB_B']) {
      const c = all.find((x) => x.name === `legacy-games/ue4.25-edge-cases/${dir}.uasset`)!;
      const p = parse(c);
      const back = parseLegacyPackage(writeLegacyPackage(legacyPackageSpec(p)).uasset, { engine: 'UE4_25' });
      expect(back.names).toEqual(p.names);
      expect(back.names.some((n) => n.nonCasePreservingHash === 0)).toBe(true);
    }
  });

  it('an edited spec writes a package that reads back with the edit, the kept tables moved along', () => {
    const c = all.find((x) => x.name === 'legacy-games/ue5.7-editor/Blueprints/BP_FirstPersonGameMode.uasset')!;
    const p = parse(c);
    const spec = legacyPackageSpec(p);
    const renamed = 'BP_FirstPersonGameMode_RenamedForTheTest';
    const at = p.names.findIndex((n) => n.name === 'BP_FirstPersonGameMode');
    spec.names = p.names.map((n, i) => (i === at ? renamed : n));
    const out = writeLegacyPackage(spec);
    const back = parseLegacyPackage(out.uasset, { engine: 'UE5_7' });
    const grow = renamed.length - 'BP_FirstPersonGameMode'.length;
    expect(back.names[at]!.name).toBe(renamed);
    expect(out.totalHeaderSize).toBe(p.summary.totalHeaderSize + grow);
    expect(back.exports.map((e) => e.serialOffset)).toEqual(p.exports.map((e) => e.serialOffset + grow));
    // Each table kept as bytes has the same bytes at its new place.
    const before = legacyRegionSpans(p).filter((r) => !r.written && r.size > 0);
    const after = legacyRegionSpans(back).filter((r) => !r.written && r.size > 0);
    expect(after.map((r) => [r.table, r.size])).toEqual(before.map((r) => [r.table, r.size]));
    before.forEach((r, i) => {
      expect(Buffer.compare(Buffer.from(out.uasset.subarray(after[i]!.offset, after[i]!.offset + r.size)), Buffer.from(c.bytes.subarray(r.offset, r.offset + r.size))), r.table).toBe(0);
      expect(after[i]!.offset).toBe(r.offset + grow);
    });
  });

  it('figures: the tables kept as bytes, by table, and what the cooked layout alone would lose', () => {
    const kept = new Map<string, { packages: number; bytes: number }>();
    for (const c of all) {
      for (const r of legacyRegionSpans(parse(c))) {
        if (r.written || r.size === 0) continue;
        const k = kept.get(r.table) ?? { packages: 0, bytes: 0 };
        kept.set(r.table, { packages: k.packages + 1, bytes: k.bytes + r.size });
      }
    }
    const lines = [...kept].sort((a, b) => b[1].bytes - a[1].bytes).map(([t, k]) => `${t}: ${k.bytes} bytes in ${k.packages} packages`);
    console.log(`legacy identity, ${all.length} packages; kept as bytes: ${lines.join('; ')}`);
    // Editor packages hold tables a cooked package has not: the writer makes each from its values (#30); what it
    // keeps as bytes is what follows the header (export data, the closing tag).
    const editor = parse(all.find((x) => x.name === 'legacy-games/ue4.27-editor/TestActorBP.uasset')!);
    const spans = legacyRegionSpans(editor).filter((r) => r.size > 0);
    expect(spans.filter((r) => !r.written).map((r) => `${r.table} ${r.size}`)).toEqual(['exportData 5805', 'bulkData 4']);
    expect(spans.filter((r) => r.written && !['names', 'imports', 'exports'].includes(r.table)).map((r) => `${r.table} ${r.size}`)).toEqual([
      'gatherableText 143', 'depends 136', 'softPackageReferences 8', 'searchableNames 4', 'thumbnailImages 24', 'thumbnails 88', 'assetRegistryData 8674',
    ]);
    for (const t of ['thumbnails', 'gatherableText', 'assetRegistryData', 'payloadToc', 'metaData', 'softObjectPaths', 'depends', 'worldTileInfo']) expect(kept.has(t), t).toBe(false);
    expect(kept.has('exportData')).toBe(true);
  });
});
