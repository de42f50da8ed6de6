import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ContainerReader } from '../../src/cas/container-reader.js';
import { scriptObjectsFromReader } from '../../src/inspect/context.js';
import { packageNameFromContentPath } from '../../src/legacy/paths.js';
import { applyLegacyProps, applyZenProps, propsStats, readLegacyProps, readZenProps, type PackagePropsJson, type PropsStats } from '../../src/props/index.js';
import type { EngineVersion } from '../../src/toc/engine.js';
import { parseUsmap, type Usmap } from '../../src/usmap/index.js';
import { corpusFiles, corpusPath } from '../corpus.js';
import { legacyPak, pakFiles } from '../legacy/helpers.js';

/**
 * Every export of every legacy and zen package of the corpus reads to JSON and, written back from that JSON (as text,
 * parsed again), gives the package's bytes. The totals say how much is typed and how much keeps bytes.
 */
const totals: PropsStats & { packages: number; bytes: number; unreadable: string[] } = { exports: 0, typed: 0, withRaw: 0, raw: 0, packages: 0, bytes: 0, unreadable: [] };
const add = (json: PackagePropsJson, bytes: number) => {
  const s = propsStats(json);
  totals.exports += s.exports;
  totals.typed += s.typed;
  totals.withRaw += s.withRaw;
  totals.raw += s.raw;
  totals.packages++;
  totals.bytes += bytes;
};
/** Byte equality without the test runner's element-by-element diff (slow on megabytes). */
const same = (a: Uint8Array | undefined, b: Uint8Array | undefined) => a !== undefined && b !== undefined && Buffer.compare(a, b) === 0;
const again = (json: PackagePropsJson): PackagePropsJson => JSON.parse(JSON.stringify(json));

/** Engine release of a legacy-games folder (ue5.4-joy -> UE5_4), for unversioned summaries. */
function engineOf(dir: string): EngineVersion | undefined {
  const m = /^ue(\d)\.(\d+)/.exec(dir);
  if (!m) return undefined;
  const e = `UE${m[1]}_${m[2]}`;
  return ['UE4_25', 'UE4_26', 'UE4_27', 'UE5_0', 'UE5_1', 'UE5_2', 'UE5_3', 'UE5_4', 'UE5_5', 'UE5_6', 'UE5_7', 'UE5_8', 'UE6_0'].includes(e) ? (e as EngineVersion) : undefined;
}

describe('props round trip over the corpus', () => {
  afterAll(() => {
    console.log(
      `props round trip: ${totals.packages} packages, ${totals.exports} exports (${(totals.bytes / 1e6).toFixed(2)} MB): ` +
        `${totals.typed} fully typed, ${totals.withRaw} typed with a raw tail or value, ${totals.raw} raw; ` +
        `${totals.unreadable.length} package headers this release does not read (${totals.unreadable.join(', ')})`,
    );
  });

  it('legacy-games packages (with their .usmap files)', { timeout: 120_000 }, () => {
    const maps = new Map<string, Usmap>();
    for (const f of corpusFiles('.usmap').filter((f) => f.startsWith('legacy-games/'))) maps.set(f.split('/')[1]!, parseUsmap(readFileSync(corpusPath(f)), { source: f }));
    const files = corpusFiles('').filter((f) => f.startsWith('legacy-games/') && /\.(uasset|umap)$/.test(f));
    expect(files.length).toBeGreaterThan(60);
    for (const f of files) {
      const dir = f.split('/')[1]!;
      const uasset = new Uint8Array(readFileSync(corpusPath(f)));
      const uexpPath = corpusPath(f.replace(/\.(uasset|umap)$/, '.uexp'));
      const uexp = existsSync(uexpPath) ? new Uint8Array(readFileSync(uexpPath)) : undefined;
      const engine = engineOf(dir);
      const packageName = packageNameFromContentPath(f);
      const o = { source: f, ...(maps.get(dir) ? { mappings: maps.get(dir)! } : {}), ...(engine ? { engine } : {}), ...(packageName ? { packageName } : {}) };
      let r;
      try {
        r = readLegacyProps(uasset, uexp, o);
      } catch (e) {
        // The package header itself (not its properties) is outside what src/legacy reads in this release.
        totals.unreadable.push(`${f.split('/').pop()}: ${(e as Error).message.split(': ').pop()}`.slice(0, 60));
        continue;
      }
      const back = applyLegacyProps(uasset, uexp, again(r.json), o);
      expect(same(back.uasset, uasset), f).toBe(true);
      if (uexp) expect(same(back.uexp, uexp), f).toBe(true);
      expect(back.addedNames).toEqual([]);
      add(r.json, r.bytes);
    }
  });

  it.each(['ue5.8', 'ue6.0'] as const)('%s Legacy-Tagged pak packages', (engine) => {
    const files = pakFiles(legacyPak(engine));
    let n = 0;
    for (const [path, uasset] of files) {
      if (!/\.(uasset|umap)$/.test(path)) continue;
      const uexp = files.get(path.replace(/\.(uasset|umap)$/, '.uexp'));
      const r = readLegacyProps(uasset, uexp, { source: path });
      expect(r.warnings, path).toEqual([]);
      const back = applyLegacyProps(uasset, uexp, again(r.json), { source: path });
      expect(same(back.uasset, uasset), path).toBe(true);
      expect(same(back.uexp, uexp), path).toBe(true);
      add(r.json, r.bytes);
      n++;
    }
    expect(n).toBe(5);
  });

  it.each(['ue5.8', 'ue6.0'] as const)('%s container packages (zen)', async (engine) => {
    const reader = await ContainerReader.open(corpusPath(`${engine}-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc`));
    const global = await ContainerReader.open(corpusPath(`${engine}-cue4parse/global/global.utoc`));
    const scriptObjects = await scriptObjectsFromReader(global);
    let n = 0;
    try {
      for (let i = 0; i < reader.toc.chunkCount; i++) {
        if (reader.toc.chunkTypeName(i) !== 'ExportBundleData') continue;
        const bytes = await reader.readChunk(i);
        const source = reader.toc.chunkPath(i) ?? String(i);
        const r = readZenProps(bytes, { source, ...(scriptObjects ? { scriptObjects } : {}) });
        const back = applyZenProps(bytes, again(r.json), { source, ...(scriptObjects ? { scriptObjects } : {}) });
        expect(same(back.bytes, bytes), source).toBe(true);
        add(r.json, r.bytes);
        n++;
      }
    } finally {
      await reader.close();
      await global.close();
    }
    expect(n).toBeGreaterThan(90);
  });

  it('zen-assets packages', () => {
    const files = corpusFiles('.uzenasset');
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const bytes = new Uint8Array(readFileSync(corpusPath(f)));
      const r = readZenProps(bytes, { source: f });
      const back = applyZenProps(bytes, again(r.json), { source: f });
      expect(same(back.bytes, bytes), f).toBe(true);
      add(r.json, r.bytes);
    }
  });
});
