import { describe, expect, it } from 'vitest';
import {
  casePreservingNameHash,
  legacyObjectPath,
  legacyRegionSpans,
  nonCasePreservingNameHash,
  objectVersionsOfEngine,
  parseLegacyPackage,
  UE4_OBJECT_VERSION,
  type LegacyPackage,
} from '../../src/legacy/index.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { legacyGamesPackages, readCorpus } from './helpers.js';

/**
 * The real-game and editor packages of legacy-games/ (UE 4.14 to 5.7), each read with the release its folder names:
 * `inspect --json` reads every one, and the tables they are made of tile the header as the engine lays it out.
 */
const packages = hasCorpus ? legacyGamesPackages() : [];

/** Checks that hold for every engine-written header, whatever its version. */
function checkTiles(p: LegacyPackage): void {
  const s = p.summary;
  expect(s.nameOffset, 'names follow the summary').toBe(s.summarySize);
  if (s.importCount > 0 && s.exportCount > 0) expect(s.exportOffset - s.importOffset).toBe(s.importCount * p.layout.importEntrySize);
  if (s.exportCount > 0 && s.dependsOffset > 0) expect(s.dependsOffset - s.exportOffset).toBe(s.exportCount * p.layout.exportEntrySize);
  // The name map, read entry by entry, ends where the next table starts (no part the reader makes overlaps the next).
  const spans = legacyRegionSpans(p);
  const names = spans.find((r) => r.table === 'names')!;
  const after = spans[spans.indexOf(names) + 1];
  if (after) expect(names.offset + names.size).toBe(after.offset);
}

describe.skipIf(!hasCorpus)('legacy-games: every package reads with its folder\'s release', () => {
  it('finds every release folder (UE 4.14 to 5.7, cooked and editor)', () => {
    const folders = [...new Set(packages.map((p) => p.folder))];
    expect(folders.length).toBeGreaterThanOrEqual(12);
    for (const f of ['ue4.14-tekken', 'ue4.18-bloodstained', 'ue4.25-edge-cases', 'ue4.27-editor', 'ue5.7-nanosworld', 'ue5.7-editor']) expect(folders).toContain(f);
    expect(packages.length).toBeGreaterThanOrEqual(69);
  });

  it('inspect --json --version <release>: 0 failures; versions, export data and object paths as the release lays them out', async () => {
    const failures: string[] = [];
    for (const pkg of packages) {
      const r = await cli('inspect', corpusPath(pkg.rel), '--json', '--version', pkg.release);
      if (r.code !== 0) {
        failures.push(`${pkg.rel}: ${r.err.trim()}`);
        continue;
      }
      const v = JSON.parse(r.out);
      expect(v.engine, pkg.rel).toBe(pkg.release);
      const want = objectVersionsOfEngine(pkg.release);
      // Unversioned packages are read with the release's versions; versioned ones store them (the editor ones).
      expect([v.versioning.fileVersionUE4, v.versioning.fileVersionUE5], pkg.rel).toEqual([want.fileVersionUE4, want.fileVersionUE5]);
      expect(v.exportData, pkg.rel).toMatchObject({ in: pkg.uexp ? 'uexp' : 'uasset', ok: true });
      expect(v.exports.length, pkg.rel).toBeGreaterThan(0);
      if (v.packageName.startsWith('/')) for (const e of v.exports) expect(e.path.startsWith(`${v.packageName}.`), `${pkg.rel}: ${e.path}`).toBe(true);
      // The summary view holds exactly the fields its version stores.
      expect('importTypeHierarchiesCount' in v.summary, pkg.rel).toBe(want.fileVersionUE5 >= 1018);
      expect('searchableNamesOffset' in v.summary, pkg.rel).toBe(want.fileVersionUE4 >= UE4_OBJECT_VERSION.AddedSearchableNames);
    }
    expect(failures).toEqual([]);
  });

  it('the tables tile the header; stored name hashes are the engine\'s or zero (the edge cases: 4 and 2 zero ones)', () => {
    for (const pkg of packages) {
      const p = parseLegacyPackage(readCorpus(pkg.rel), { source: pkg.rel, engine: pkg.release });
      checkTiles(p);
      if (!p.layout.nameHashes) continue;
      // Before UE4 517 (FIX_WIDE_STRING_CRC) the engine hashed non-ASCII names another way: those are kept as stored.
      const oldWide = (n: { name: string }) => p.summary.fileVersionUE4 < 517 && /[^\x00-\x7f]/.test(n.name);
      const wrong = p.names.filter((n) => !oldWide(n) && (nonCasePreservingNameHash(n.name) !== n.nonCasePreservingHash || casePreservingNameHash(n.name) !== n.casePreservingHash));
      // Tools that write packages (the edge cases' editor, the one behind the 5.4 Billiards pair) store zero hashes
      // for the names they add: a stored hash is the engine's or zero, never another value.
      expect(wrong.filter((n) => n.nonCasePreservingHash !== 0 || n.casePreservingHash !== 0).map((n) => n.name), pkg.rel).toEqual([]);
      if (pkg.folder === 'ue4.25-edge-cases') expect(wrong.length, pkg.rel).toBe({ 'duplicate-names': 4, 'improper-name-hashes': 2 }[pkg.rel.split('/')[2]!] ?? 0);
      if (pkg.rel.includes('duplicate-names')) expect(new Set(p.names.map((n) => n.name)).size).toBe(p.names.length - 2);
    }
  });

  it('without the release, the versions the bytes fit give the same tables', () => {
    // The two smallest packages of each folder (every layout; the big maps add time, not cases).
    const sizes = new Map(packages.map((p) => [p, readCorpus(p.rel).length]));
    const sample = [...new Set(packages.map((p) => p.folder))].flatMap((f) => packages.filter((p) => p.folder === f).sort((a, b) => sizes.get(a)! - sizes.get(b)!).slice(0, 2));
    expect(sample.length).toBeGreaterThanOrEqual(19);
    for (const pkg of sample) {
      const bytes = readCorpus(pkg.rel);
      const told = parseLegacyPackage(bytes, { source: pkg.rel, engine: pkg.release });
      const guessed = parseLegacyPackage(bytes, { source: pkg.rel });
      expect(guessed.layout, pkg.rel).toEqual(told.layout);
      expect(guessed.summary.summarySize, pkg.rel).toBe(told.summary.summarySize);
      expect([guessed.names, guessed.imports, guessed.exports], pkg.rel).toEqual([told.names, told.imports, told.exports]);
    }
  });

  it('entry layouts of each version: 4.14 (508: template index, 32-bit sizes), 4.18, 5.7 cooked (1018 without import package names) and editor', () => {
    const read = (rel: string, engine: Parameters<typeof objectVersionsOfEngine>[0]) => parseLegacyPackage(readCorpus(`legacy-games/${rel}`), { source: rel, engine, packageName: '/Game/X' });
    const tekken = read('ue4.14-tekken/BP_TekkenPlayer_Modular.uasset', 'UE4_14');
    expect([tekken.names.length, tekken.imports.length, tekken.exports.length, tekken.layout.importEntrySize, tekken.layout.exportEntrySize]).toEqual([1130, 304, 1127, 28, 96]);
    expect([tekken.summary.totalHeaderSize, tekken.exports[0]!.serialOffset, tekken.exports[0]!.serialSize]).toEqual([170652, 170652, 40]);
    expect(legacyObjectPath(tekken, -1)).toBe('/Game/Character/Item/ItemManagerComponent.ItemManagerComponent_C:VariationOffsets');
    const map = read('ue4.18-bloodstained/m02VIL_004_Gimmick.umap', 'UE4_18');
    expect([map.layout.exportEntrySize, map.summary.summarySize, map.summary.totalHeaderSize, map.exports.length]).toEqual([104, 193, 28118, 143]);
    expect(legacyObjectPath(map, 1)).toBe('/Game/X.m02VIL_004_Gimmick:PersistentLevel.LevelBounds_1.BoxComponent0');
    expect(map.summary.preloadDependencyCount).toBe(-1);
    const cooked = read('ue5.7-nanosworld/Content/NanosWorld/Core/SStructTest.uasset', 'UE5_7');
    expect([cooked.summary.summarySize, cooked.layout.importEntrySize, cooked.layout.exportEntrySize, cooked.summary.importTypeHierarchiesCount]).toEqual([282, 32, 96, 0]);
    expect(legacyObjectPath(cooked, 1)).toBe('/Game/NanosWorld/Core/SStructTest.SStructTest');
    expect(legacyObjectPath(cooked, -1)).toBe('/Script/CoreUObject.UserDefinedStruct');
    const editor = read('ue5.7-editor/Blueprints/BP_FirstPersonGameMode.uasset', 'UE5_7');
    expect([editor.summary.storedFileVersionUE5, editor.layout.importEntrySize, editor.layout.exportEntrySize, editor.summary.summarySize]).toEqual([1018, 40, 112, 609]);
    expect(legacyObjectPath(editor, -1)).toBe('/Game/FirstPerson/Blueprints/BP_FirstPersonCharacter.BP_FirstPersonCharacter_C');
  });

  it('names the release options: --version UE4_18 text output, an unknown release and a zen-only option are one line', async () => {
    const rel = corpusPath('legacy-games/ue4.18-bloodstained/m02VIL_004_Gimmick.umap');
    const text = await cli('inspect', rel, '--version', '4.18');
    expect(text.code).toBe(0);
    expect(text.out).toContain('unversioned, read as UE4_18: UE4 514');
    expect(text.out).toContain('Export data:      in the .uasset, 38450 bytes after the header, exports inside');
    expect(text.out).toMatch(/worldTileInfo\s+28026\s+92\s+read/);
    expect(text.out).toContain('--mount');
    const mounted = await cli('inspect', rel, '--version', 'UE4_18', '--mount', '/Game/Maps/');
    expect(mounted.out).toContain('/Game/Maps/m02VIL_004_Gimmick.m02VIL_004_Gimmick:PersistentLevel.LevelBounds_1.BoxComponent0');
    const bad = await cli('inspect', rel, '--version', 'UE4_31');
    expect([bad.code, bad.err.trim().split('\n').length]).toEqual([2, 1]);
    expect(bad.err).toMatch(/unknown engine version "UE4_31" \(expected one of UE4_0/);
  });
});
