import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, MANIFEST_NAME, packFolder, parseAesKey, parseContainerHeader, readToc, unpack, verifyContainer, KeyRing, type IoStoreToc } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';
import { freshPaths, listFiles, tempDir } from '../tmp.js';

const tmp = tempDir();
const fresh = freshPaths(tmp);
const KEY = parseAesKey(CORPUS_AES_KEY_HEX);

/** Named files and their bytes (the container header differs when the container id does). */
function tree(dir: string): Map<string, Buffer> {
  return new Map(listFiles(dir).filter((f) => f !== MANIFEST_NAME && !f.startsWith('_chunks/ContainerHeader/')).map((f) => [f, readFileSync(join(dir, f))]));
}
function expectSameTree(a: string, b: string) {
  const ta = tree(a);
  const tb = tree(b);
  expect([...tb.keys()]).toEqual([...ta.keys()]);
  for (const [k, v] of ta) expect(tb.get(k)!.equals(v)).toBe(true);
}
/** Chunk id, type, path and hash of every chunk, order-independent. */
function listing(toc: IoStoreToc): string[] {
  return Array.from({ length: toc.chunkCount }, (_, i) => `${toc.chunkType(i) === 6 ? 'header' : toc.chunkIdHex(i)} ${toc.chunkTypeName(i)} ${toc.chunkPath(i) ?? ''} ${toc.chunkType(i) === 6 ? '' : toc.chunkHashHex(i)}`).sort();
}
async function verifyOk(utoc: string, aesKey?: Uint8Array) {
  const r = await ContainerReader.open(utoc, aesKey ? { aesKey } : {});
  try {
    const v = await verifyContainer(r);
    expect(v.mismatches).toEqual([]);
    expect(v.errors).toEqual([]);
    expect(v.ok).toBe(true);
  } finally {
    await r.close();
  }
}

describe.each(['ue5.8-cue4parse', 'ue6.0-cue4parse'])('%s', (project) => {
  const name = 'CUE4ParseFixtures-Minimal-Uncompressed-Windows';

  it('repacking uncompressed/ with its own settings reproduces the .utoc and .ucas byte for byte', async () => {
    const src = fresh('unpacked');
    await unpack([corpusPath(`${project}/uncompressed`)], src);
    const out = fresh(`${name}.utoc`);
    const r = await packFolder(src, out);
    expect(r.warnings).toEqual([]);
    expect(readFileSync(out).equals(readFileSync(corpusPath(`${project}/uncompressed/${name}.utoc`)))).toBe(true);
    expect(readFileSync(out.replace('.utoc', '.ucas')).equals(readFileSync(corpusPath(`${project}/uncompressed/${name}.ucas`)))).toBe(true);
  });

  it('zlib/: unpack -> pack -> unpack gives the same tree; the repack lists the same chunks and verifies', async () => {
    const a = fresh('a');
    await unpack([corpusPath(`${project}/zlib`)], a);
    const out = fresh('Repacked-Zlib.utoc');
    const r = await packFolder(a, out);
    expect(r.compression).toBe('Zlib');
    const b = fresh('b');
    const u = await unpack([out], b);
    expect(u.failures).toEqual([]);
    expectSameTree(a, b);
    const orig = readToc(new Uint8Array(readFileSync(corpusPath(`${project}/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc`))));
    const re = readToc(new Uint8Array(readFileSync(out)));
    expect(listing(re)).toEqual(listing(orig));
    expect(re.compressionMethods).toEqual(['None', 'Zlib']);
    await verifyOk(out);
  });

  it('encrypts with --aes-key (AES-ECB for v8, AES-CTR for v10) and round-trips with the key', async () => {
    const a = fresh('a');
    await unpack([corpusPath(`${project}/uncompressed`)], a);
    const out = fresh('Repacked-Encrypted.utoc');
    await packFolder(a, out, { aesKey: KEY, compression: 'zlib' });
    const toc = readToc(new Uint8Array(readFileSync(out)), { aesKey: KEY });
    expect(toc.isEncrypted).toBe(true);
    expect(toc.encryption).toBe(project.startsWith('ue6') ? 2 : 1);
    expect(toc.files()).toHaveLength(111);
    await expect(unpack([out], fresh('nokey'))).rejects.toMatchObject({ code: 'NEEDS_KEY' });
    const b = fresh('b');
    const u = await unpack([out], b, { keys: new KeyRing().add(KEY) });
    expect(u.failures).toEqual([]);
    expectSameTree(a, b);
    await verifyOk(out, KEY);
  });
});

describe('pack options', () => {
  it('--partition-size splits the .ucas into _sN files that unpack to the same tree', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], a);
    const out = fresh('Parted-Windows.utoc');
    const r = await packFolder(a, out, { partitionSize: 262144, compression: 'lz4' });
    expect(r.ucas.length).toBeGreaterThan(3);
    expect(r.compression).toBe('LZ4');
    for (const p of r.ucas) expect(readFileSync(p).length).toBeLessThanOrEqual(262144);
    const toc = readToc(new Uint8Array(readFileSync(out)));
    expect(toc.partitionCount).toBe(r.ucas.length);
    const b = fresh('b');
    expect((await unpack([out], b)).failures).toEqual([]);
    expectSameTree(a, b);
    await verifyOk(out);
  });

  it('patch containers round-trip separately and together', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/patch')], a);
    const base = fresh('PatchBase.utoc');
    const patch = join(base, '..', 'PatchBase_0_P.utoc');
    await packFolder(a, base, { container: 'CUE4ParseFixtures-PatchBase' });
    await packFolder(a, patch, { container: 'CUE4ParseFixtures-PatchBase_0_P' });
    const b = fresh('b');
    const u = await unpack([join(base, '..')], b);
    expect(u.failures).toEqual([]);
    expectSameTree(a, b);
    await expect(packFolder(a, fresh('x.utoc'))).rejects.toThrow(/choose one with --container/);
  });

  it('TOC v5 output from a v8 source (32-byte meta slots, perfect hash rebuilt)', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], a);
    const out = fresh('V5-Windows.utoc');
    await packFolder(a, out, { version: 5 });
    const toc = readToc(new Uint8Array(readFileSync(out)));
    expect(toc.version).toBe(5);
    expect(toc.metaHashSize).toBe(32);
    for (let i = 0; i < toc.chunkCount; i++) expect(toc.findChunk(toc.chunkIdBytes(i))).toBe(i);
    const b = fresh('b');
    await unpack([out], b);
    expectSameTree(a, b);
  });
});

describe('pack safety', () => {
  it('refuses to overwrite the container the folder came from, and its own inputs', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc')], a);
    await expect(packFolder(a, corpusPath('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc'))).rejects.toThrow(/overwrite the container/);
  });

  it('a missing or malformed input is a clear error and leaves no output behind', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], a);
    rmSync(join(a, 'CUE4ParseFixtures/Content/Fixtures/Blueprints/S_Fixture.uasset'));
    const out = fresh('Broken-Windows.utoc');
    const r = await cli('pack', a, out);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/S_Fixture\.uasset.*file is missing/);
    expect(listFiles(join(out, '..'))).toEqual([]);
    writeFileSync(join(a, MANIFEST_NAME), '{ not json');
    expect((await cli('pack', a, out)).err).toMatch(/not valid JSON/);
    expect((await cli('pack', fresh('empty'), out)).err).toMatch(/no iostore-manifest.json/);
  });

  it('a failure in the middle of writing leaves neither final nor temporary files', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], a);
    // A chunk file replaced by a folder passes the listing check but fails when read.
    const victim = join(a, 'CUE4ParseFixtures/Content/Fixtures/Textures');
    const files = listFiles(victim);
    const target = join(victim, files[files.length - 1]!);
    rmSync(target);
    mkdirSync(target);
    const out = fresh('Mid-Windows.utoc');
    await expect(packFolder(a, out)).rejects.toBeDefined();
    expect(listFiles(join(out, '..'))).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('the CLI packs with a summary, --json and --help', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc')], a);
    const r = await cli('pack', a, fresh('Cli-Windows.utoc'), '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ chunks: 3, version: 8 });
    expect((await cli('pack', '--help')).out).toMatch(/--partition-size/);
    expect((await cli('pack', a, fresh('Bad.utoc'), '--compression', 'lzma')).err).toMatch(/cannot compress with "lzma" \(this build encodes: .*Oodle/);
  });
});

describe('companion .pak', () => {
  it('is written beside the container, readable, with the version the engine generation reads', async () => {
    const { readPak } = await import('../../src/index.js');
    for (const [project, version] of [['ue5.8-cue4parse', 11], ['ue6.0-cue4parse', 15]] as const) {
      const a = fresh('a');
      await unpack([corpusPath(`${project}/patch/CUE4ParseFixtures-PatchBase.utoc`)], a);
      const out = fresh('Mod_P.utoc');
      const r = await packFolder(a, out);
      expect(r.pak).toBe(out.replace(/\.utoc$/, '.pak'));
      const pak = readPak(new Uint8Array(readFileSync(r.pak!)), { source: r.pak! });
      expect(pak.version).toBe(version);
      expect(pak.mountPoint).toBe('../../../');
      expect(pak.entries).toEqual([]);
    }
  });

  it('--no-pak skips it; a .pak beside no container is kept, not replaced; --pak-version picks another', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc')], a);
    const out = fresh('NoPak.utoc');
    expect((await packFolder(a, out, { noPak: true })).pak).toBeNull();
    expect(existsSync(out.replace(/\.utoc$/, '.pak'))).toBe(false);
    // A .pak of the user's with no container beside it: not a companion this pack replaces.
    const mine = fresh('Mine.utoc');
    writeFileSync(mine.replace(/\.utoc$/, '.pak'), 'precious');
    const again = await packFolder(a, mine, { pakVersion: 12 });
    expect(again.warnings.some((w) => /kept the existing/.test(w))).toBe(true);
    expect(readFileSync(mine.replace(/\.utoc$/, '.pak'), 'utf8')).toBe('precious');
    const v12 = fresh('V12.utoc');
    await packFolder(a, v12, { pakVersion: 12 });
    const { readPak } = await import('../../src/index.js');
    expect(readPak(new Uint8Array(readFileSync(v12.replace(/\.utoc$/, '.pak')))).version).toBe(12);
  });
});

describe('round trips of the encrypted and patchtest containers', () => {
  it.each(['ue5.8-cue4parse', 'ue6.0-cue4parse'])('%s/oodleencrypted: unpack -> pack --aes-key -> unpack gives the same tree and chunks', async (project) => {
    const keys = new KeyRing().add(KEY);
    const a = fresh('a');
    await unpack([corpusPath(`${project}/oodleencrypted`)], a, { keys });
    const out = fresh('Re-Encrypted-Windows.utoc');
    const r = await packFolder(a, out, { aesKey: KEY });
    // The repack keeps the source's method: Oodle (Kraken at the default level), then AES, within 10% of the engine's.
    expect(r.compression).toBe('Oodle');
    expect(r.warnings.some((w) => /cannot encode/.test(w))).toBe(false);
    const ucas = (f: string) => readFileSync(f.replace(/\.utoc$/, '.ucas')).length;
    expect(ucas(out)).toBeLessThan(1.1 * ucas(corpusPath(`${project}/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc`)));
    const b = fresh('b');
    expect((await unpack([out], b, { keys })).failures).toEqual([]);
    expectSameTree(a, b);
    const orig = readToc(new Uint8Array(readFileSync(corpusPath(`${project}/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc`))), { aesKey: KEY });
    expect(listing(readToc(new Uint8Array(readFileSync(out)), { aesKey: KEY }))).toEqual(listing(orig));
    await verifyOk(out, KEY);
  });

  it.each([
    'ue5.1-patchtest/jh-patchtest-chunk1/pakchunk1-Windows.utoc',
    'ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.utoc',
    'ue5.1-patchtest/jh-patchtest-chunk1001-p/pakchunk1001-Windows_0_P.utoc',
  ])('%s: unpack -> pack (TOC v5, Zlib) -> unpack gives the same tree; the repack verifies', async (rel) => {
    const a = fresh('a');
    await unpack([corpusPath(rel)], a);
    const out = fresh(rel.split('/').pop()!);
    await packFolder(a, out, { compression: 'zlib' });
    const b = fresh('b');
    expect((await unpack([out], b)).failures).toEqual([]);
    expectSameTree(a, b);
    const re = readToc(new Uint8Array(readFileSync(out)));
    expect(re.version).toBe(5);
    expect(listing(re)).toEqual(listing(readToc(new Uint8Array(readFileSync(corpusPath(rel))))));
    await verifyOk(out);
  });
});

describe('partition limits', () => {
  it('a chunk larger than a partition is refused by name, with the way out, and leaves nothing behind', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/oodlepartitioned')], a);
    // Stored raw, the largest map outgrows 256 KiB partitions.
    const out = fresh('Parts-Windows.utoc');
    const r = await cli('pack', a, out, '--compression', 'none');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/chunk Maps\/Landscape\.umap takes \d+ bytes stored, more than a partition of 262144: pass --partition-size/);
    expect(listFiles(join(out, '..'))).toEqual([]);
    const ok = await packFolder(a, out, { compression: 'zlib' });
    expect(ok.ucas.length).toBeGreaterThan(1);
  });
});

describe('edited packages in a manifest folder', () => {
  it('their store entries are rebuilt from their new headers; the others stay as the engine wrote them', async () => {
    const a = fresh('a');
    await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], a);
    const m = JSON.parse(readFileSync(join(a, MANIFEST_NAME), 'utf8'));
    const headerFile = join(a, m.containers[0].chunks.find((c: { type: string }) => c.type === 'ContainerHeader').path);
    const before = parseContainerHeader(readFileSync(headerFile));
    const noImports = before.packages.find((p) => p.importedPackages.length === 0)!;
    const withImports = before.packages.find((p) => p.importedPackages.length > 1)!;
    const fileOf = (id: bigint) => join(a, m.containers[0].chunks.find((c: { id: string }) => c.id.startsWith(Buffer.from(new BigUint64Array([id]).buffer).toString('hex'))).path);
    // The edit: the package that imported nothing now holds a package that imports several.
    copyFileSync(fileOf(withImports.packageId), fileOf(noImports.packageId));
    const out = fresh('Edited-Windows.utoc');
    await packFolder(a, out);
    const r = await ContainerReader.open(out);
    try {
      const hi = Array.from({ length: r.toc.chunkCount }, (_, i) => i).find((i) => r.toc.chunkTypeName(i) === 'ContainerHeader')!;
      const after = parseContainerHeader(await r.readChunk(hi));
      expect(after.packages.find((p) => p.packageId === noImports.packageId)!.importedPackages).toEqual(withImports.importedPackages);
      for (const p of after.packages.filter((x) => x.packageId !== noImports.packageId)) {
        expect(p).toEqual(before.packages.find((x) => x.packageId === p.packageId));
      }
    } finally {
      await r.close();
    }
  });
});
