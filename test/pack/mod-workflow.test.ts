import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, packageIdFromName, parseContainerHeader, unpack, verifyContainer, packFolder } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { corpusPath } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const tmp = tempDir();
const BASE_DIR = corpusPath('ue5.8-cue4parse/uncompressed');
const BASE = join(BASE_DIR, 'CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');

describe('mod workflow: unpack, change a package and a bulk file, pack only those as a _P patch with --like', () => {
  it('base + patch unpack to the changed bytes, and the patch header lists exactly the changed package', async () => {
    const original = join(tmp, 'original');
    await unpack([BASE_DIR], original);
    // A texture package with bulk data: change one byte of its export data and one of its bulk data.
    const bulk = listFiles(original).find((f) => f.endsWith('.ubulk') && f.includes('/Textures/'))!;
    const asset = bulk.replace(/\.ubulk$/, '.uasset');
    const mod = join(tmp, 'mod');
    for (const f of [asset, bulk]) {
      mkdirSync(dirname(join(mod, f)), { recursive: true });
      copyFileSync(join(original, f), join(mod, f));
    }
    const a = readFileSync(join(mod, asset));
    a[a.length - 8] ^= 0xff; // inside the last export, before the package tag
    writeFileSync(join(mod, asset), a);
    const b = readFileSync(join(mod, bulk));
    b[100] ^= 0xff;
    writeFileSync(join(mod, bulk), b);

    // The mod folder is laid out below the game's mount point (CUE4ParseFixtures/Content/Fixtures/).
    const modRoot = join(mod, 'CUE4ParseFixtures/Content/Fixtures');
    const patchDir = join(tmp, 'paks');
    mkdirSync(patchDir);
    for (const ext of ['utoc', 'ucas']) copyFileSync(BASE.replace(/utoc$/, ext), join(patchDir, `CUE4ParseFixtures-Minimal-Uncompressed-Windows.${ext}`));
    const patch = join(patchDir, 'CUE4ParseFixtures-Minimal-Uncompressed-Windows_0_P.utoc');
    const r = await cli('pack', modRoot, patch, '--like', BASE);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);

    // The patch's container header lists exactly the changed package, with the imports the game gave it.
    const packageName = `/Game/Fixtures/${asset.split('/Fixtures/')[1]!.replace(/\.uasset$/, '')}`;
    const reader = await ContainerReader.open(patch);
    try {
      const v = await verifyContainer(reader);
      expect(v.ok).toBe(true);
      const toc = reader.toc;
      expect(toc.chunkCount).toBe(3);
      expect(toc.version).toBe(8);
      expect(toc.directoryIndex!.mountPoint).toBe('../../../CUE4ParseFixtures/Content/Fixtures/');
      const hi = Array.from({ length: 3 }, (_, i) => i).find((i) => toc.chunkTypeName(i) === 'ContainerHeader')!;
      const header = parseContainerHeader(await reader.readChunk(hi));
      expect(header.version).toBe('SoftPackageReferencesOffset');
      expect(header.packages.map((p) => p.packageId)).toEqual([packageIdFromName(packageName)]);
      expect(header.containerId).toBe(toc.header.containerId);
      // The entry built from the package's own header equals the one the engine wrote for it.
      const base = await ContainerReader.open(BASE);
      try {
        const bi = Array.from({ length: base.toc.chunkCount }, (_, i) => i).find((i) => base.toc.chunkTypeName(i) === 'ContainerHeader')!;
        const engine = parseContainerHeader(await base.readChunk(bi)).packages.find((p) => p.packageId === packageIdFromName(packageName))!;
        expect(header.packages[0]!.importedPackages).toEqual(engine.importedPackages);
        expect(header.packages[0]!.shaderMapHashes).toEqual(engine.shaderMapHashes);
      } finally {
        await base.close();
      }
    } finally {
      await reader.close();
    }

    // Mounted together, the patch wins for both changed chunks; everything else is the base's.
    const merged = join(tmp, 'merged');
    const u = await unpack([patchDir], merged);
    expect(u.failures).toEqual([]);
    expect(readFileSync(join(merged, asset)).equals(a)).toBe(true);
    expect(readFileSync(join(merged, bulk)).equals(b)).toBe(true);
    const untouched = listFiles(original).filter((f) => f.endsWith('.uasset') && f !== asset);
    for (const f of untouched) expect(readFileSync(join(merged, f)).equals(readFileSync(join(original, f)))).toBe(true);
  });

  it('rejects a lone .uexp, naming it; other files go into the companion .pak', async () => {
    const dir = join(tmp, 'bad');
    mkdirSync(join(dir, 'Game/Content'), { recursive: true });
    writeFileSync(join(dir, 'Game/Content/A.uexp'), 'x');
    await expect(packFolder(dir, join(tmp, 'x', 'Bad_P.utoc'), { like: BASE })).rejects.toThrow(/A\.uexp.*without its \.uasset/);
    writeFileSync(join(dir, 'Game/Content/A.uexp'), 'x');
    const dir2 = join(tmp, 'bad2');
    mkdirSync(join(dir2, 'Game/Content'), { recursive: true });
    writeFileSync(join(dir2, 'Game/Content/readme.txt'), 'x');
    expect(listFiles(tmp).filter((f) => f.startsWith('x/'))).toEqual([]);
    // Files that are not packages no longer stop the pack: they go into the companion .pak (issue 13).
    const r = await packFolder(dir2, join(tmp, 'y', 'Txt_P.utoc'), { like: BASE });
    expect(r.pak).toBe(join(tmp, 'y', 'Txt_P.pak'));
    expect(r.chunks).toBe(1);
  });
});
