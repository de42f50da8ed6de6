import { copyFileSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, packFolder, packageIdFromName, parseContainerHeader, parseZenPackage, unpack, verifyContainer } from '../../src/index.js';
import { corpusPath } from '../corpus.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir();
const UE427 = corpusPath('zen-assets/UE4.27');

// Real UE 4.27 zen packages with the store entries the engine wrote for them (their *.metadata.json): a container
// packed for UE 4.27 from them must carry the same entries, SHA-1 chunk hashes and UE4 chunk-type numbering.
describe('pack --version UE4_27 from real 4.27 zen packages', () => {
  it('writes TOC v3, SHA-1 hashes, UE4 chunk types and store entries equal to the engine\'s', async () => {
    const mod = join(tmp, 'mod');
    const expected = new Map<bigint, { export_bundles_size: number; export_count: number; export_bundle_count: number; imported_packages: string[] }>();
    for (const meta of readdirSync(UE427).filter((f) => f.endsWith('.metadata.json'))) {
      const stem = meta.replace('.metadata.json', '');
      const zen = readdirSync(UE427).includes(`${stem}.uzenasset`) ? `${stem}.uzenasset` : `${stem}.uasset`;
      const bytes = new Uint8Array(readFileSync(join(UE427, zen)));
      const pkg = parseZenPackage(bytes, { source: zen });
      // Laid out where the package name says: /Game/X -> <Project>/Content/X.uasset, /Engine/X -> Engine/Content/X.
      const [, root, rest] = /^\/(Game|Engine)\/(.*)$/.exec(pkg.packageName)!;
      const path = join(mod, root === 'Game' ? 'Project/Content' : 'Engine/Content', `${rest}.uasset`);
      mkdirSync(dirname(path), { recursive: true });
      copyFileSync(join(UE427, zen), path);
      // JSON numbers lose 64-bit precision: read the imported ids from the text.
      const text = readFileSync(join(UE427, meta), 'utf8');
      const entry = JSON.parse(text.replace(/(\d{16,})/g, '"$1"')).store_entry;
      expected.set(packageIdFromName(pkg.packageName), entry);
    }
    expect(expected.size).toBe(7);

    const out = join(tmp, 'Paks', 'Mod427-WindowsNoEditor_P.utoc');
    const r = await packFolder(mod, out, { engine: 'UE4_27' });
    expect(r.warnings).toEqual([]);
    const reader = await ContainerReader.open(out);
    try {
      const toc = reader.toc;
      expect(toc.version).toBe(3);
      expect(toc.generation).toBe('UE4');
      expect(new Set(Array.from({ length: toc.chunkCount }, (_, i) => toc.chunkType(i)))).toEqual(new Set([2, 10])); // ExportBundleData, ContainerHeader (UE4 numbers)
      const v = await verifyContainer(reader);
      expect(v.algorithm).toBe('sha1');
      expect(v.ok).toBe(true);
      const hi = Array.from({ length: toc.chunkCount }, (_, i) => i).find((i) => toc.chunkTypeName(i) === 'ContainerHeader')!;
      const header = parseContainerHeader(await reader.readChunk(hi), { version: 'Initial' });
      expect(header.version).toBe('Initial');
      expect(header.packages).toHaveLength(7);
      let supersets = 0;
      for (const p of header.packages) {
        const e = expected.get(p.packageId)!;
        expect(p.exportBundlesSize).toBe(e.export_bundles_size);
        expect(p.exportCount).toBe(e.export_count);
        expect(p.exportBundleCount).toBe(e.export_bundle_count);
        // UE4 imports are global object hashes, so the entry's package order is not tied to the import map: the
        // graph data names the packages in its own order. It names the same set, except for one package whose graph
        // references 91 packages where the engine's entry lists 7 (a superset).
        const ours = p.importedPackages.map(String).sort();
        const engine = e.imported_packages.map(String).sort();
        if (ours.length === engine.length) expect(ours).toEqual(engine);
        else {
          expect(ours).toEqual(expect.arrayContaining(engine));
          supersets++;
        }
      }
      expect(supersets).toBe(1);
    } finally {
      await reader.close();
    }
    // And the files come back byte for byte.
    const back = join(tmp, 'back');
    expect((await unpack([out], back)).failures).toEqual([]);
    for (const f of readdirSync(mod, { recursive: true }) as string[]) {
      if (!f.endsWith('.uasset')) continue;
      expect(readFileSync(join(back, f)).equals(readFileSync(join(mod, f)))).toBe(true);
    }
  });
});
