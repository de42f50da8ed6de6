import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, MANIFEST_NAME, packageIdFromName, parseAesKey, parseContainerHeader, parseZenPackage, readPak, readToc, unpack, verifyContainer, KeyRing, type Manifest } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';
import { freshPaths, listFiles, tempDir } from '../tmp.js';

const tmp = tempDir('i23-repack-');
const fresh = freshPaths(tmp);
const RETOC = join(__dirname, '../../../shared/tools/retoc/retoc');
const UE58 = corpusPath('ue5.8-cue4parse');
const MINIMAL = join(UE58, 'uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
const PATCH_BASE = join(UE58, 'patch/CUE4ParseFixtures-PatchBase.utoc');
const KEY_HEX = `0x${CORPUS_AES_KEY_HEX}`;
const FIXTURES = 'CUE4ParseFixtures/Content/Fixtures';
const PATCH_DIR = 'CUE4ParseFixtures/Content/PatchFixtures';

const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8'));
const named = (dir: string) => listFiles(dir).filter((f) => !f.startsWith('_chunks/') && f !== MANIFEST_NAME);

/** The container's chunks and its header's package ids; verify must pass, and retoc's too when it is at hand. */
async function openChecked(utoc: string, aesKey?: Uint8Array) {
  const r = await ContainerReader.open(utoc, aesKey ? { aesKey } : {});
  try {
    const v = await verifyContainer(r);
    expect(v.mismatches).toEqual([]);
    expect(v.ok).toBe(true);
    const toc = r.toc;
    const hi = Array.from({ length: toc.chunkCount }, (_, i) => i).find((i) => toc.chunkTypeName(i) === 'ContainerHeader');
    const header = hi === undefined ? undefined : parseContainerHeader(await r.readChunk(hi));
    const chunks = Array.from({ length: toc.chunkCount }, (_, i) => ({ type: toc.chunkTypeName(i), path: toc.chunkPath(i), id: toc.chunkId(i).id, i }));
    // retoc (built here without Oodle) cannot open a container with Oodle blocks.
    if (existsSync(RETOC) && !toc.compressionMethods.some((m) => /oodle/i.test(m))) {
      const out = execFileSync(RETOC, [...(aesKey ? ['--aes-key', `0x${Buffer.from(aesKey).toString('hex')}`] : []), 'verify', utoc], { encoding: 'utf8', stdio: 'pipe' });
      expect(out).toMatch(/verified/i);
    }
    return { toc, header, chunks, read: (i: number) => r.readChunk(i), close: () => r.close() };
  } catch (e) {
    await r.close();
    throw e;
  }
}

describe('pack of a partial unpack (issue 23, item 2)', () => {
  it("--filter '**/Textures/*.uasset': packs the folder's packages with a header listing exactly them (the source's entries)", async () => {
    const dir = fresh('part');
    await unpack([MINIMAL], dir, { filter: '**/Textures/*.uasset' });
    const out = fresh('Part_P.utoc');
    const r = await cli('pack', dir, out, '--json');
    expect(r.code, r.err).toBe(0);
    const c = await openChecked(out);
    try {
      const packages = c.chunks.filter((x) => x.type === 'ExportBundleData');
      expect(packages.length).toBe(named(dir).length);
      expect(packages.every((x) => x.path!.endsWith('.uasset'))).toBe(true);
      expect(c.chunks.length).toBe(packages.length + 1);
      // The header lists exactly the packed packages, each with the entry the engine wrote for it.
      const engine = await engineHeader();
      expect(c.header!.packages.map((p) => p.packageId).sort()).toEqual(packages.map((x) => x.id).sort());
      for (const p of c.header!.packages) expect(p).toEqual(engine.packages.find((e) => e.packageId === p.packageId));
    } finally {
      await c.close();
    }
    const back = fresh('back');
    expect((await unpack([out], back)).failures).toEqual([]);
    expect(named(back)).toEqual(named(dir));
    for (const f of named(dir)) expect(readFileSync(join(back, f)).equals(readFileSync(join(dir, f)))).toBe(true);
  });

  it('--type BulkData: a container of the bulk files alone, no header; without the source container, a header is built from the packages', async () => {
    const dir = fresh('bulk');
    await unpack([MINIMAL], dir, { type: 'BulkData' });
    const out = fresh('Bulk_P.utoc');
    expect((await cli('pack', dir, out)).code).toBe(0);
    const c = await openChecked(out);
    try {
      expect(c.chunks.map((x) => x.type)).toEqual(Array(14).fill('BulkData'));
      expect(c.header).toBeUndefined();
    } finally {
      await c.close();
    }
    const back = fresh('back');
    await unpack([out], back);
    for (const f of named(dir)) expect(readFileSync(join(back, f)).equals(readFileSync(join(dir, f)))).toBe(true);

    // Packages of a partial unpack whose source container is gone: their entries come from their own headers.
    const pkgs = fresh('pkgs');
    await unpack([MINIMAL], pkgs, { filter: `${FIXTURES}/DataTables/**` });
    const m = manifestOf(pkgs);
    m.containers[0]!.utoc = join(tmp, 'gone.utoc');
    writeFileSync(join(pkgs, MANIFEST_NAME), JSON.stringify(m));
    const refused = await cli('pack', pkgs, fresh('Gone_P.utoc'));
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/no container header .* pass --container-header-version/);
    const gone = fresh('Gone_P.utoc');
    const ok = await cli('pack', pkgs, gone, '--container-header-version', 'SoftPackageReferencesOffset');
    expect(ok.code, ok.err).toBe(0);
    const g = await openChecked(gone);
    try {
      const engine = await engineHeader();
      expect(g.header!.packages).toHaveLength(3);
      for (const p of g.header!.packages) expect(p.importedPackages).toEqual(engine.packages.find((e) => e.packageId === p.packageId)!.importedPackages);
    } finally {
      await g.close();
    }
  });
});

async function chunkOf(utoc: string, path: string): Promise<Uint8Array> {
  const r = await ContainerReader.open(utoc);
  try {
    return await r.readChunk(Array.from({ length: r.toc.chunkCount }, (_, i) => i).find((i) => r.toc.chunkPath(i) === path)!);
  } finally {
    await r.close();
  }
}

async function engineHeader() {
  const r = await ContainerReader.open(MINIMAL);
  try {
    const hi = Array.from({ length: r.toc.chunkCount }, (_, i) => i).find((i) => r.toc.chunkTypeName(i) === 'ContainerHeader')!;
    return parseContainerHeader(await r.readChunk(hi));
  } finally {
    await r.close();
  }
}

describe('files added to an unpacked folder (issue 23, item 3)', () => {
  it('a new legacy package is converted and listed in the header, a .txt goes into the companion pak, both named in warnings', async () => {
    const dir = fresh('base');
    await unpack([PATCH_BASE], dir);
    // A legacy package of the same project (from its Legacy-Tagged pak) and a text file, added by hand.
    const legacy = fresh('legacy');
    await unpack([join(UE58, 'paks/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak')], legacy);
    mkdirSync(join(dir, FIXTURES, 'DataTables'), { recursive: true });
    for (const ext of ['uasset', 'uexp']) copyFileSync(join(legacy, FIXTURES, `DataTables/DT_AllProperties.${ext}`), join(dir, FIXTURES, `DataTables/DT_AllProperties.${ext}`));
    writeFileSync(join(dir, PATCH_DIR, 'notes.txt'), 'hello');
    const out = fresh('Added_P.utoc');
    const r = await cli('pack', dir, out, '--json');
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.warnings.find((w: string) => w.startsWith('packed 3 files the manifest does not list'))).toContain(`${FIXTURES}/DataTables/DT_AllProperties.uasset`);
    const c = await openChecked(out);
    try {
      const id = packageIdFromName('/Game/Fixtures/DataTables/DT_AllProperties');
      const added = c.chunks.find((x) => x.id === id)!;
      expect(added.path).toBe(`${FIXTURES}/DataTables/DT_AllProperties.uasset`);
      expect(parseZenPackage(await c.read(added.i)).packageName).toBe('/Game/Fixtures/DataTables/DT_AllProperties');
      expect(c.header!.packages.map((p) => p.packageId).sort()).toEqual([...c.chunks.filter((x) => x.type === 'ExportBundleData').map((x) => x.id)].sort());
      expect(c.toc.directoryIndex!.mountPoint).toBe('../../../CUE4ParseFixtures/Content/');
    } finally {
      await c.close();
    }
    const pak = readPak(new Uint8Array(readFileSync(out.replace(/\.utoc$/, '.pak'))));
    expect(pak.entries.map((e) => pak.mountPoint + e.path)).toEqual([`../../../${PATCH_DIR}/notes.txt`]);
  });

  it('an added copy of a package already listed is refused, naming both files', async () => {
    const dir = fresh('base');
    await unpack([PATCH_BASE], dir);
    copyFileSync(join(dir, PATCH_DIR, 'DA_PatchTarget.uasset'), join(dir, PATCH_DIR, 'DA_Copy.uasset'));
    const out = fresh('Copy_P.utoc');
    const r = await cli('pack', dir, out);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/DA_Copy\.uasset" and ".*DA_PatchTarget\.uasset" are one package/);
    expect(listFiles(dirname(out))).toEqual([]);
  });

  it('a package the folder holds in legacy form (a patch pak won it at unpack) is converted, not shipped as a broken zen chunk', async () => {
    const paks = fresh('Paks');
    mkdirSync(paks);
    for (const f of ['patch/CUE4ParseFixtures-PatchBase.utoc', 'patch/CUE4ParseFixtures-PatchBase.ucas', 'paks/CUE4ParseFixtures-PatchBase_0_P.pak']) symlinkSync(join(UE58, f), join(paks, f.split('/')[1]!));
    const dir = fresh('mixed');
    await unpack([paks], dir);
    expect(readFileSync(join(dir, PATCH_DIR, 'DA_PatchTarget.uasset')).length).toBe(937);
    const out = fresh('Mixed.utoc');
    const r = await cli('pack', dir, out, '--container', 'CUE4ParseFixtures-PatchBase', '--json');
    expect(r.code, r.err).toBe(0);
    const c = await openChecked(out);
    try {
      const target = c.chunks.find((x) => x.path === `${PATCH_DIR}/DA_PatchTarget.uasset`)!;
      expect(target.id).toBe(packageIdFromName('/Game/PatchFixtures/DA_PatchTarget'));
      const zen = parseZenPackage(await c.read(target.i));
      expect(zen.packageName).toBe('/Game/PatchFixtures/DA_PatchTarget');
      // The export data is the pak's .uexp, and the package is the engine's own zen form of it (the patch
      // container's) but for CookedHeaderSize (bytes 20-23 of the summary).
      const uexp = readFileSync(join(dir, PATCH_DIR, 'DA_PatchTarget.uexp'));
      const bytes = Buffer.from(await c.read(target.i));
      expect(bytes.subarray(bytes.length - uexp.length).equals(uexp)).toBe(true);
      const engine = Buffer.from(await chunkOf(join(UE58, 'patch/CUE4ParseFixtures-PatchBase_0_P.utoc'), `${PATCH_DIR}/DA_PatchTarget.uasset`));
      expect(bytes.length).toBe(engine.length);
      bytes.fill(0, 20, 24);
      engine.fill(0, 20, 24);
      expect(bytes.equals(engine)).toBe(true);
      expect(c.header!.packages.map((p) => p.packageId).sort()).toEqual(c.chunks.filter((x) => x.type === 'ExportBundleData').map((x) => x.id).sort());
    } finally {
      await c.close();
    }
  });
});

describe('encryption of an unpacked container is kept (issue 23, item 4)', () => {
  it('without --aes-key: one line naming the key GUID, nothing written; --no-encrypt writes it plain, --aes-key encrypted', async () => {
    const key = parseAesKey(KEY_HEX);
    const dir = fresh('enc');
    // The data tables and the header are enough (and keep the test fast).
    await unpack([join(UE58, 'oodleencrypted')], dir, { keys: new KeyRing().add(key), filter: '{**/DataTables/**,_chunks/**}' });
    const out = fresh('Enc.utoc');
    const r = await cli('pack', dir, out);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`iostore: ${dir}: the container was encrypted (key GUID 00000000000000000000000000000000): give --aes-key, or --no-encrypt to write it plain\n`);
    expect(listFiles(dirname(out))).toEqual([]);
    expect((await cli('pack', dir, out, '--no-encrypt')).code).toBe(0);
    expect(readToc(new Uint8Array(readFileSync(out))).isEncrypted).toBe(false);
    const enc = fresh('Enc.utoc');
    expect((await cli('pack', dir, enc, '--aes-key', KEY_HEX)).code).toBe(0);
    expect(readToc(new Uint8Array(readFileSync(enc)), { aesKey: key }).isEncrypted).toBe(true);
    await (await openChecked(enc, key)).close();
    expect((await cli('pack', dir, fresh('Both.utoc'), '--aes-key', KEY_HEX, '--no-encrypt')).err).toMatch(/--no-encrypt and --aes-key exclude each other/);
  });

  it('an unpacked encrypted .pak likewise', async () => {
    const dir = fresh('encpak');
    await unpack([join(UE58, 'paks/CUE4ParseFixtures-Legacy-Tagged-OodleEncrypted.pak')], dir, { keys: new KeyRing().add(parseAesKey(KEY_HEX)) });
    const r = await cli('pack', dir, fresh('Enc.pak'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the pak was encrypted \(key GUID 0+\): give --aes-key, or --no-encrypt to write it plain/);
    const plain = fresh('Plain.pak');
    expect((await cli('pack', dir, plain, '--no-encrypt', '--compression', 'zlib')).code).toBe(0);
    expect(readPak(new Uint8Array(readFileSync(plain))).entries.some((e) => e.encrypted)).toBe(false);
  });
});

describe('gzip is refused for containers (issue 23, item 8)', () => {
  it('pack X.utoc --compression gzip: one line, exit 2, nothing written; a .pak output still takes gzip', async () => {
    const dir = fresh('src');
    await unpack([PATCH_BASE], dir);
    const out = fresh('Gz.utoc');
    const r = await cli('pack', dir, out, '--compression', 'gzip');
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/--compression gzip is for \.pak outputs: a container \(\.utoc\) takes none, Zlib, LZ4/);
    expect(listFiles(dirname(out))).toEqual([]);
    expect((await cli('to-zen', join(UE58, 'paks/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak'), fresh('Z.utoc'), '--like', MINIMAL, '--compression', 'GZIP')).err).toMatch(/--compression GZIP is for \.pak outputs/);
    const pak = fresh('Gz.pak');
    expect((await cli('pack', dir, pak, '--compression', 'gzip', '--version', 'UE5_8')).code).toBe(0);
  });
});
