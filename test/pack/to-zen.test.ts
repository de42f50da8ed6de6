import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader } from '../../src/cas/container-reader.js';
import { fileSource, partitionPaths } from '../../src/cas/source.js';
import { fromHex } from '../../src/util/bytes.js';
import { parseContainerHeader } from '../../src/zen/container-header.js';
import { parseZenPackage } from '../../src/zen/zen-package.js';
import { openToc } from '../../src/toc/read-file.js';
import { packFolder } from '../../src/pack/pack.js';
import { toZen } from '../../src/pack/to-zen.js';
import { verifyContainer } from '../../src/verify/verify.js';
import { IoStoreError } from '../../src/errors.js';
import { cli } from '../cli-helper.js';
import { ScriptObjectIndex, ZenResolver, zenToLegacy } from '../../src/convert/index.js';
import { legacyObjectPath, parseLegacyPackage, type LegacyPackage } from '../../src/legacy/index.js';
import { parseScriptObjects } from '../../src/zen/script-objects.js';
import { CORPUS_AES_KEY_HEX, corpusPath, hasCorpus } from '../corpus.js';
import { pakFiles, legacyPak } from '../legacy/helpers.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir('iostore-to-zen-');

/** Every chunk of a container by its hex chunk id, and its container header. */
async function readAll(utoc: string, aesKey?: Uint8Array) {
  const toc = await openToc(utoc, aesKey ? { aesKey } : {});
  const reader = new ContainerReader(toc, partitionPaths(utoc, toc.partitionCount).map(fileSource), aesKey ? { aesKey } : {});
  const chunks = new Map<string, Uint8Array>();
  let header;
  try {
    for (let i = 0; i < toc.chunkCount; i++) {
      const bytes = await reader.readChunk(i);
      if (toc.chunkTypeName(i) === 'ContainerHeader') header = parseContainerHeader(bytes, { source: utoc });
      else chunks.set(`${toc.chunkId(i).id.toString(16)}:${toc.chunkTypeName(i)}`, bytes);
    }
    const verified = await verifyContainer(reader);
    return { chunks, header: header!, verified };
  } finally {
    await reader.close();
  }
}

async function expectIoError(p: Promise<unknown>, pattern: RegExp): Promise<IoStoreError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(IoStoreError);
    expect((e as IoStoreError).message).toMatch(pattern);
    expect((e as IoStoreError).message).not.toContain('\n');
    return e as IoStoreError;
  }
  throw new Error('expected an IoStoreError');
}

describe.skipIf(!hasCorpus)('to-zen of the cue4parse Legacy-Tagged paks against the engine zen cook', () => {
  for (const engine of ['ue5.8', 'ue6.0'] as const) {
    it(`${engine}: same package ids, export and import counts, imported packages; verify passes`, async () => {
      const like = corpusPath(`${engine}-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc`);
      const out = join(tmp, engine, 'Legacy_P.utoc');
      const r = await toZen([corpusPath(legacyPak(engine, 'Zlib'))], out, { like });
      expect(r.converted).toBe(5);
      const mine = await readAll(out);
      const game = await readAll(like);
      expect(mine.verified.mismatches).toEqual([]);
      expect(mine.verified.verified).toBe(7);
      expect(mine.header.packages).toHaveLength(5);
      let compared = 0;
      for (const [key, chunk] of mine.chunks) {
        const theirs = game.chunks.get(key);
        expect(theirs, key).toBeDefined();
        if (!key.endsWith(':ExportBundleData')) {
          // Bulk data: the .ubulk bytes, as in the engine's container.
          expect(Buffer.compare(Buffer.from(chunk), Buffer.from(theirs!))).toBe(0);
          continue;
        }
        const a = parseZenPackage(chunk, { engine: engine === 'ue5.8' ? 'UE5_8' : 'UE6_0' });
        const b = parseZenPackage(theirs!, { engine: engine === 'ue5.8' ? 'UE5_8' : 'UE6_0' });
        expect(a.exports.length).toBe(b.exports.length);
        expect(a.imports.length).toBe(b.imports.length);
        expect(a.imports).toEqual(b.imports);
        // Everything but CookedHeaderSize (the zen cook counts a smaller legacy header) is the engine's bytes.
        const x = Buffer.from(chunk);
        const y = Buffer.from(theirs!);
        expect(x.length).toBe(y.length);
        expect(Buffer.compare(x.subarray(24), y.subarray(24))).toBe(0);
        expect(Buffer.compare(x.subarray(0, 20), y.subarray(0, 20))).toBe(0);
        const id = BigInt(`0x${key.split(':')[0]}`);
        const ours = mine.header.packages.find((p) => p.packageId === id)!;
        const engines = game.header.packages.find((p) => p.packageId === id)!;
        expect(ours.importedPackages).toEqual(engines.importedPackages);
        compared++;
      }
      expect(compared).toBe(5);

      // to-legacy of the converted packages gives back the imports and exports of the legacy cook.
      const scripts = [...(await readAll(corpusPath(`${engine}-cue4parse/global/global.utoc`))).chunks].find(([k]) => k.endsWith(':ScriptObjects'))![1];
      const ev = engine === 'ue5.8' ? 'UE5_8' : 'UE6_0';
      const zenById = new Map([...mine.chunks].filter(([k]) => k.endsWith(':ExportBundleData')).map(([k, v]) => [BigInt(`0x${k.split(':')[0]}`), parseZenPackage(v, { engine: ev })]));
      const idOf = new Map([...zenById].map(([id, p]) => [p, id]));
      const resolver = new ZenResolver(new ScriptObjectIndex(parseScriptObjects(scripts)), {
        get: (id) => zenById.get(id),
        importedPackageIds: (p) => mine.header.packages.find((e) => e.packageId === idOf.get(p))?.importedPackages,
      });
      const files = pakFiles(legacyPak(engine, 'Uncompressed'));
      let roundTrips = 0;
      for (const [id, z] of zenById) {
        const chunk = mine.chunks.get(`${id.toString(16)}:ExportBundleData`)!;
        const back = zenToLegacy(chunk, { engine: ev, resolver, parsed: z });
        const rel = [...files.keys()].find((p) => /\.(uasset|umap)$/.test(p) && z.packageName.endsWith(p.replace(/\.[^.]+$/, '')))!;
        const original = parseLegacyPackage(files.get(rel)!, { engine: ev });
        const again = parseLegacyPackage(back.uasset, { engine: ev });
        const paths = (p: LegacyPackage) => [p.imports.map((_, i) => legacyObjectPath(p, -i - 1)).sort(), p.exports.map((_, i) => legacyObjectPath(p, i + 1))];
        expect(paths(again)).toEqual(paths(original));
        roundTrips++;
      }
      expect(roundTrips).toBe(5);
    });
  }

  it('decrypts an encrypted legacy pak with --aes-key; a folder of the extracted files gives the same chunks', async () => {
    const aesKey = fromHex(CORPUS_AES_KEY_HEX);
    const like = corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
    const a = join(tmp, 'enc', 'A_P.utoc');
    await toZen([corpusPath(legacyPak('ue5.8', 'OodleEncrypted'))], a, { like, aesKey });
    const folder = join(tmp, 'extracted');
    for (const [p, bytes] of pakFiles(legacyPak('ue5.8', 'Uncompressed'))) {
      const f = join(folder, 'CUE4ParseFixtures/Content/Fixtures', p);
      mkdirSync(join(f, '..'), { recursive: true });
      writeFileSync(f, bytes);
    }
    const b = join(tmp, 'folder', 'B_P.utoc');
    await toZen([folder], b, { like });
    const ca = (await readAll(a, aesKey)).chunks;
    const cb = (await readAll(b)).chunks;
    expect([...ca.keys()].sort()).toEqual([...cb.keys()].sort());
    for (const [k, v] of ca) expect(Buffer.compare(Buffer.from(v), Buffer.from(cb.get(k)!)), k).toBe(0);
  });
});

describe.skipIf(!hasCorpus)('to-zen and pack of the zen-assets pairs', () => {
  const dir = corpusPath('zen-assets/UE5.5');

  it('single files: the package chunk is the engine .uzenasset, the bulk chunk the .ubulk', async () => {
    const out = join(tmp, 'single', 'Cube_P.utoc');
    const r = await toZen([join(dir, 'SM_Cube.uasset'), join(dir, 'T_Test.uasset')], out, { engine: 'UE5_5' });
    expect(r.converted).toBe(2);
    expect(r.packages).toEqual(['/Game/Meshes/SM_Cube', '/Game/Textures/T_Test']);
    const { chunks, verified } = await readAll(out);
    expect(verified.mismatches).toEqual([]);
    const byType = (t: string) => [...chunks].filter(([k]) => k.endsWith(`:${t}`)).map(([, v]) => Buffer.from(v));
    const zen = byType('ExportBundleData');
    const bulk = byType('BulkData');
    const { readFileSync } = await import('node:fs');
    for (const name of ['SM_Cube', 'T_Test']) {
      expect(zen.some((c) => c.equals(readFileSync(join(dir, `${name}.uzenasset`))))).toBe(true);
      expect(bulk.some((c) => c.equals(readFileSync(join(dir, `${name}.ubulk`))))).toBe(true);
    }
  });

  it('pack takes a mixed folder: a legacy package and a zen package', async () => {
    const folder = join(tmp, 'mixed');
    mkdirSync(join(folder, 'Game/Content/Meshes'), { recursive: true });
    mkdirSync(join(folder, 'Game/Content/Textures'), { recursive: true });
    for (const e of ['uasset', 'uexp', 'ubulk']) copyFileSync(join(dir, `SM_Cube.${e}`), join(folder, `Game/Content/Meshes/SM_Cube.${e}`));
    copyFileSync(join(dir, 'T_Test.uzenasset'), join(folder, 'Game/Content/Textures/T_Test.uasset'));
    copyFileSync(join(dir, 'T_Test.ubulk'), join(folder, 'Game/Content/Textures/T_Test.ubulk'));
    const out = join(tmp, 'mixed-out', 'Mixed_P.utoc');
    const r = await packFolder(folder, out, { engine: 'UE5_5' });
    expect(r.packages).toEqual(['/Game/Meshes/SM_Cube', '/Game/Textures/T_Test']);
    expect(r.chunks).toBe(5);
    const { chunks, verified } = await readAll(out);
    expect(verified.mismatches).toEqual([]);
    const { readFileSync } = await import('node:fs');
    const cube = [...chunks.values()].map((c) => Buffer.from(c)).filter((c) => c.equals(readFileSync(join(dir, 'SM_Cube.uzenasset'))));
    expect(cube).toHaveLength(1);
  });
});

describe.skipIf(!hasCorpus)('to-zen bad input: one line naming the file, nothing written', () => {
  const dir = corpusPath('zen-assets/UE5.5');

  it('a .uasset without its .uexp', async () => {
    const folder = join(tmp, 'no-uexp');
    mkdirSync(join(folder, 'Game/Content'), { recursive: true });
    copyFileSync(join(dir, 'T_Test.uasset'), join(folder, 'Game/Content/T_Test.uasset'));
    const outDir = join(tmp, 'no-uexp-out');
    const e = await expectIoError(toZen([folder], join(outDir, 'X_P.utoc'), { engine: 'UE5_5' }), /T_Test\.uasset.*without its \.uexp/);
    expect(e.offset).toBe(0);
    expect(existsSync(outDir) ? readdirSync(outDir) : []).toEqual([]);
    await expectIoError(toZen([join(folder, 'Game/Content/T_Test.uasset')], join(outDir, 'X_P.utoc'), { engine: 'UE5_5' }), /without its \.uexp/);
  });

  it('a summary that does not parse', async () => {
    const folder = join(tmp, 'bad-summary');
    mkdirSync(join(folder, 'Game/Content'), { recursive: true });
    const { readFileSync } = await import('node:fs');
    const bytes = readFileSync(join(dir, 'T_Test.uasset')).subarray(0, 40);
    writeFileSync(join(folder, 'Game/Content/T_Test.uasset'), bytes);
    copyFileSync(join(dir, 'T_Test.uexp'), join(folder, 'Game/Content/T_Test.uexp'));
    const e = await expectIoError(toZen([folder], join(tmp, 'bad-summary-out', 'X_P.utoc'), { engine: 'UE5_5' }), /T_Test\.uasset/);
    expect(e.offset).toBeTypeOf('number');
    expect(existsSync(join(tmp, 'bad-summary-out', 'X_P.utoc'))).toBe(false);
  });

  it('an import pointing outside its table', async () => {
    const folder = join(tmp, 'bad-import');
    mkdirSync(join(folder, 'Game/Content'), { recursive: true });
    const { readFileSync } = await import('node:fs');
    const bytes = new Uint8Array(readFileSync(join(dir, 'T_Test.uasset')));
    const pkg = parseLegacyPackage(bytes, { engine: 'UE5_5' });
    const at = pkg.summary.importOffset + 16; // import 0: class package, class name, then the outer index
    new DataView(bytes.buffer, bytes.byteOffset).setInt32(at, -999, true);
    writeFileSync(join(folder, 'Game/Content/T_Test.uasset'), bytes);
    copyFileSync(join(dir, 'T_Test.uexp'), join(folder, 'Game/Content/T_Test.uexp'));
    const e = await expectIoError(toZen([folder], join(tmp, 'bad-import-out', 'X_P.utoc'), { engine: 'UE5_5' }), /T_Test\.uasset.*import 0 has outer -999/);
    expect(e.offset).toBe(pkg.summary.importOffset);
    expect(existsSync(join(tmp, 'bad-import-out', 'X_P.utoc'))).toBe(false);
  });

  it('no --engine or --like: an unversioned package names the releases that read it', async () => {
    await expectIoError(toZen([join(dir, 'T_Test.uasset')], join(tmp, 'nov', 'X_P.utoc')), /T_Test\.uasset: unversioned package: give --engine \(UE 5\.2, 5\.3, 5\.4 or 5\.5 fit\)$/);
  });

  it('two packages with one package id', async () => {
    const folder = join(tmp, 'dupe');
    for (const sub of ['A', 'B']) {
      mkdirSync(join(folder, `Game/Content/${sub}`), { recursive: true });
      for (const e of ['uasset', 'uexp']) copyFileSync(join(dir, `T_Test.${e}`), join(folder, `Game/Content/${sub}/T_Test.${e}`));
    }
    await expectIoError(toZen([folder], join(tmp, 'dupe-out', 'X_P.utoc'), { engine: 'UE5_5' }), /same chunk id.*\/Game\/Textures\/T_Test/);
    expect(existsSync(join(tmp, 'dupe-out', 'X_P.utoc'))).toBe(false);
  });

  it('CLI: exit 2 with one line, and a JSON summary on success', async () => {
    const bad = await cli('to-zen', join(dir, 'T_Test.uasset'), join(tmp, 'cli', 'X_P.utoc'));
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    const ok = await cli('to-zen', join(dir, 'T_Test.uasset'), join(tmp, 'cli', 'T_P.utoc'), '--version', 'UE5_5', '--json');
    expect(ok.code).toBe(0);
    const j = JSON.parse(ok.out);
    expect(j.converted).toBe(1);
    expect(j.packages).toEqual(['/Game/Textures/T_Test']);
    const help = await cli('to-zen', '--help');
    expect(help.out).toContain('--like');
  });
});

describe.skipIf(!hasCorpus)('the mod loop through the CLI: to-legacy, then pack --like', () => {
  it('ue5.8: every package of the container comes back under its own id, and verify passes', async () => {
    const like = corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
    const legacy = join(tmp, 'loop-legacy');
    const toLegacy = await cli('to-legacy', like, legacy, '--quiet');
    expect(toLegacy.code).toBe(0);
    const out = join(tmp, 'loop-out', 'Loop_P.utoc');
    const pack = await cli('pack', legacy, out, '--like', like, '--json');
    expect(pack.code).toBe(0);
    expect(JSON.parse(pack.out).packages).toHaveLength(97);
    const mine = await readAll(out);
    const game = await readAll(like);
    expect(mine.verified.mismatches).toEqual([]);
    const ids = (m: Map<string, Uint8Array>) => [...m.keys()].filter((k) => !k.endsWith(':ContainerHeader')).sort();
    expect(ids(mine.chunks)).toEqual(ids(game.chunks));
    let sameBytes = 0;
    for (const [k, v] of mine.chunks) {
      const a = Buffer.from(v);
      const b = Buffer.from(game.chunks.get(k)!);
      if (a.length === b.length && a.subarray(0, 20).equals(b.subarray(0, 20)) && a.subarray(24).equals(b.subarray(24))) sameBytes++;
    }
    // 96 of 97 packages and all bulk chunks: the engine's bytes apart from CookedHeaderSize.
    expect(sameBytes).toBeGreaterThanOrEqual(mine.chunks.size - 1);
  });
});
