import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodecRegistry, zlibNode, chunkHash, containerIdFromName, encodeChunkId, packageIdFromName, safeOutputPath, unpack, writeFileAtomic, MANIFEST_NAME, KeyRing, parseAesKey, type Manifest } from '../../src/index.js';
import { buildContainer } from '../../src/pack/container-builder.js';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const tmp = tempDir();
let n = 0;
const out = () => join(tmp, `out${n++}`);
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe.each(['ue5.8-cue4parse', 'ue6.0-cue4parse'])('%s: unpack', (project) => {
  it('uncompressed/ and zlib/ give identical trees, file for file and byte for byte', async () => {
    const a = out();
    const b = out();
    const ra = await unpack([corpusPath(`${project}/uncompressed`)], a);
    const rb = await unpack([corpusPath(`${project}/zlib`)], b);
    expect(ra.failures).toEqual([]);
    expect(rb.failures).toEqual([]);
    expect(ra.chunksWritten).toBe(112);
    const fa = listFiles(a);
    const fb = listFiles(b);
    // 97 packages + 14 bulk files + the container header + the manifest.
    expect(fa.filter((f) => f.endsWith('.uasset') || f.endsWith('.umap'))).toHaveLength(97);
    expect(fa.filter((f) => f.endsWith('.ubulk'))).toHaveLength(14);
    const named = (fs: string[]) => fs.filter((f) => !f.startsWith('_chunks/') && f !== MANIFEST_NAME);
    expect(named(fa)).toEqual(named(fb));
    expect(named(fa)).toHaveLength(111);
    for (const f of named(fa)) expect(readFileSync(join(a, f)).equals(readFileSync(join(b, f)))).toBe(true);
    // The container header is the one chunk that differs: it embeds its own container id (bytes 8-15).
    const ha = fa.filter((f) => f.startsWith('_chunks/ContainerHeader/'));
    const hb = fb.filter((f) => f.startsWith('_chunks/ContainerHeader/'));
    expect(ha).toHaveLength(1);
    const [xa, xb] = [readFileSync(join(a, ha[0]!)), readFileSync(join(b, hb[0]!))];
    expect(xa.readBigUInt64LE(8)).toBe(containerIdFromName(ra.containers[0]!.name));
    expect(xb.readBigUInt64LE(8)).toBe(containerIdFromName(rb.containers[0]!.name));
    expect(Buffer.concat([xa.subarray(0, 8), xa.subarray(16)]).equals(Buffer.concat([xb.subarray(0, 8), xb.subarray(16)]))).toBe(true);
  });

  it('oodle/, oodlepartitioned/ and oodleencrypted/ unpack to the same tree as uncompressed/', async () => {
    const ref = out();
    await unpack([corpusPath(`${project}/uncompressed`)], ref);
    const named = (d: string) => listFiles(d).filter((f) => !f.startsWith('_chunks/') && f !== MANIFEST_NAME);
    for (const v of ['oodle', 'oodlepartitioned', 'oodleencrypted']) {
      const dir = out();
      const r = await unpack([corpusPath(`${project}/${v}`)], dir, { keys: new KeyRing().add(parseAesKey(CORPUS_AES_KEY_HEX)), threads: v === 'oodle' ? 2 : 0 });
      expect(r.failures).toEqual([]);
      expect(named(dir)).toEqual(named(ref));
      for (const f of named(ref)) expect(readFileSync(join(dir, f)).equals(readFileSync(join(ref, f)))).toBe(true);
    }
  });

  it('writes each chunk with the hash its meta records, and a manifest with what pack needs', async () => {
    const dir = out();
    await unpack([corpusPath(`${project}/zlib`)], dir);
    const m = JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8')) as Manifest;
    expect(m.containers).toHaveLength(1);
    const c = m.containers[0]!;
    expect(c).toMatchObject({ tocVersion: project.startsWith('ue5') ? 8 : 10, blockSize: 65536, compressionMethods: ['None', 'Zlib'], mountPoint: '../../../CUE4ParseFixtures/Content/Fixtures/', perfectHash: true, flags: 9 });
    expect(c.chunks).toHaveLength(112);
    expect(new Set(c.chunks.map((x) => x.order))).toEqual(new Set(Array.from({ length: 112 }, (_, i) => i)));
    for (const chunk of c.chunks) {
      const data = readFileSync(join(dir, chunk.path));
      expect(data.length).toBe(chunk.size);
      expect(toHex(await chunkHash('blake3', data))).toBe(chunk.hash);
    }
    expect(c.chunks.some((x) => x.compression === 'Zlib')).toBe(true);
  });

  it('base + _0_P patch: the patch\'s version of overridden chunks wins', async () => {
    const dir = out();
    const r = await unpack([corpusPath(`${project}/patch`)], dir);
    expect(r.failures).toEqual([]);
    expect(r.containers.map((c) => [c.name, c.priority, c.overridden])).toEqual([
      ['CUE4ParseFixtures-PatchBase', 0, 1],
      ['CUE4ParseFixtures-PatchBase_0_P', 100, 0],
    ]);
    const target = readFileSync(join(dir, 'CUE4ParseFixtures/Content/PatchFixtures/DA_PatchTarget.uasset'));
    expect(target.length).toBe(714);
    expect(toHex(await chunkHash('blake3', target))).toBe('b124396186f90a4e3ea976292f35856aa0371905');
    // The base's own version is 704 bytes.
    const base = out();
    await unpack([corpusPath(`${project}/patch/CUE4ParseFixtures-PatchBase.utoc`)], base);
    expect(readFileSync(join(base, 'CUE4ParseFixtures/Content/PatchFixtures/DA_PatchTarget.uasset')).length).toBe(704);
    const m = JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8')) as Manifest;
    expect(m.containers[0]!.chunks.find((x) => x.path.endsWith('DA_PatchTarget.uasset'))!.overriddenBy).toBe('CUE4ParseFixtures-PatchBase_0_P');
  });
});

describe('unpack options', () => {
  it('global containers unpack to their ScriptObjects chunk with a matching hash', async () => {
    for (const g of ['ue5.1-templeofgiants/global.utoc', 'ue5-wayoftheninja/global.utoc', 'ue5.8-cue4parse/global/global.utoc', 'ue6.0-cue4parse/global/global.utoc', 'ue5.1-mirage3d/global.utoc']) {
      const dir = out();
      const r = await unpack([corpusPath(g)], dir);
      expect(r.failures).toEqual([]);
      const files = listFiles(dir);
      expect(files).toEqual(['_chunks/ScriptObjects/000000000000000000000005.bin', MANIFEST_NAME]);
      const m = JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8')) as Manifest;
      const data = readFileSync(join(dir, files[0]!));
      expect(toHex(await chunkHash('blake3', data))).toBe(m.containers[0]!.chunks[0]!.hash);
    }
  });

  it('--filter, --type and --dry-run', async () => {
    const dir = out();
    const dry = await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], dir, { dryRun: true, filter: '**/*.ubulk' });
    expect(dry.planned).toHaveLength(14);
    expect(existsSync(dir)).toBe(false);
    const typed = await unpack([corpusPath('ue5.8-cue4parse/uncompressed')], dir, { type: 'ContainerHeader' });
    expect(listFiles(dir)).toEqual(['_chunks/ContainerHeader/f284deb7f0e2318e00000006.bin', MANIFEST_NAME]);
    expect(typed.chunksWritten).toBe(1);
  });

  it('encrypted containers take their key from --aes-key or a keys file', async () => {
    const ring = new KeyRing().add(parseAesKey(CORPUS_AES_KEY_HEX));
    const r = await unpack([corpusPath('ue6.0-cue4parse/oodleencrypted')], out(), { keys: ring, type: 'ContainerHeader' });
    expect(r.failures).toEqual([]);
    const keysFile = join(tmp, 'keys.json');
    writeFileSync(keysFile, JSON.stringify({ '00000000-00000000-00000000-00000000': `0x${CORPUS_AES_KEY_HEX}` }));
    const ring2 = await KeyRing.fromFile(keysFile);
    expect(ring2.get('00000000000000000000000000000000')).toEqual(parseAesKey(CORPUS_AES_KEY_HEX));
    const noKey = await cli('unpack', corpusPath('ue6.0-cue4parse/oodleencrypted'), out());
    expect(noKey.code).toBe(2);
    expect(noKey.err).toMatch(/encrypted.*--aes-key or --keys/);
  });

  it('the CLI prints a summary, --json a machine-readable one, and exits 1 when chunks fail', async () => {
    const r = await cli('unpack', corpusPath('ue5.8-cue4parse/uncompressed'), out(), '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ chunksWritten: 112, failures: [] });
    // Without a codec for its blocks a container's chunks fail as one clear error per container; the rest is written.
    const o = await unpack([corpusPath('ue5.8-cue4parse/oodle')], out(), { codecs: new CodecRegistry([zlibNode]) });
    expect(o.chunksWritten).toBe(1);
    expect(o.failures.map((f) => f.message)).toEqual([expect.stringMatching(/111 chunks need the Oodle codec/)]);
  });
});

describe('--threads', () => {
  it('must be a whole number from 0 to 64 (exit code 2, one line)', async () => {
    for (const cmd of [['unpack', corpusPath('ue5.8-cue4parse/zlib'), out()], ['verify', corpusPath('ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc')], ['pack', tmp, join(out(), 'X.utoc')]]) {
      for (const bad of ['-1', '1.5', '65']) {
        const r = await cli(...cmd, '--threads', bad);
        expect(r.code).toBe(2);
        expect(r.err.trim()).toBe(`iostore: --threads must be a whole number from 0 to 64, not ${Number(bad)}`);
      }
    }
  });
});

describe('--verify', () => {
  it.each(['0', '2'])('keeps chunks whose hash matches, and leaves out (and reports) the one that does not (--threads %s)', async (threads) => {
    const name = 'CUE4ParseFixtures-Minimal-Uncompressed-Windows';
    const dir = join(tmp, `verify-src${threads}`);
    mkdirSync(dir, { recursive: true });
    copyFileSync(corpusPath(`ue5.8-cue4parse/uncompressed/${name}.utoc`), join(dir, `${name}.utoc`));
    const { readToc } = await import('../../src/index.js');
    const toc = readToc(new Uint8Array(readFileSync(join(dir, `${name}.utoc`))));
    const i = toc.findChunk('915ddb99070a4f0400000001');
    const ucas = readFileSync(corpusPath(`ue5.8-cue4parse/uncompressed/${name}.ucas`));
    ucas[toc.blocks.offset(toc.chunkFirstBlock(i)) + 100] ^= 1;
    writeFileSync(join(dir, `${name}.ucas`), ucas);

    const clean = await unpack([corpusPath('ue5.8-cue4parse/zlib')], out(), { verify: true });
    expect(clean.failures).toEqual([]);
    expect(clean.chunksWritten).toBe(112);

    const dst = out();
    const r = await cli('unpack', dir, dst, '--verify', '--threads', threads);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/chunk 915ddb99070a4f0400000001 hashes to [0-9a-f]{40}, its meta says af1e97aed3c5309c0dbf47f14be1385ac22b03f5/);
    const files = listFiles(dst);
    expect(files).not.toContain(toc.chunkPath(i));
    expect(files.filter((f) => f !== MANIFEST_NAME)).toHaveLength(111);
    expect(files.filter((f) => f.includes('iostore-tmp'))).toEqual([]);
  });
});

describe('missing data', () => {
  it('an output path that is a file is refused before anything is read', async () => {
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'x');
    const r = await cli('unpack', corpusPath('ue5.8-cue4parse/uncompressed'), file);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toMatch(/a-file: the output exists and is not a folder$/);
  });

  it('a container whose .ucas is missing fails once, by name; the other containers are written', async () => {
    // The corpus holds WayOfTheNinja's .utoc without its .ucas, beside a complete global container.
    const r = await cli('unpack', corpusPath('ue5-wayoftheninja'), out());
    expect(r.code).toBe(1);
    const errors = r.err.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/WayOfTheNinja-Windows\.ucas: the container's data file is missing \(5370 chunks/);
    expect(r.out).toMatch(/global: 1 written/);
  });
});

describe('safety', () => {
  it('output paths cannot leave the output folder', () => {
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'C:/x', 'a//b', 'a/./b', 'a\\..\\b']) {
      expect(() => safeOutputPath(tmp, bad)).toThrow(/UNSAFE|component|leave/i);
    }
    expect(safeOutputPath(tmp, 'Game/Content/A.uasset')).toBe(join(tmp, 'Game/Content/A.uasset'));
    // On Windows, device names and reserved characters would not name a file in the folder.
    for (const bad of ['Game/CON.uasset', 'Game/nul', 'Game/a|b.uasset', 'Game/trailing.']) {
      expect(() => safeOutputPath(tmp, bad, 'win32')).toThrow(/Windows/);
      expect(() => safeOutputPath(tmp, bad, 'linux')).not.toThrow();
    }
  });

  it('a write that fails midway leaves neither the final file nor a temporary one', async () => {
    const dir = join(tmp, 'atomic');
    const target = join(dir, 'file.bin');
    async function* failing() {
      yield new Uint8Array(1000);
      throw new Error('disk on fire');
    }
    await expect(writeFileAtomic(target, failing())).rejects.toThrow('disk on fire');
    expect(existsSync(target)).toBe(false);
    expect(listFiles(dir)).toEqual([]);
  });

  it.each(['0', '2'])('a corrupt block fails its chunk only: the others are written, no partial or temporary file remains (--threads %s)', async (threads) => {
    const dir = join(tmp, `corrupt-src${threads}`);
    const dst = out();
    const name = 'CUE4ParseFixtures-Minimal-Zlib-Windows';
    const src = corpusPath('ue5.8-cue4parse/zlib');
    (await import('node:fs')).mkdirSync(dir, { recursive: true });
    copyFileSync(join(src, `${name}.utoc`), join(dir, `${name}.utoc`));
    const ucas = readFileSync(join(src, `${name}.ucas`));
    // Garbage over the start of the first Zlib block.
    const { readToc } = await import('../../src/index.js');
    const toc = readToc(new Uint8Array(readFileSync(join(dir, `${name}.utoc`))));
    let b = 0;
    while (toc.blocks.method(b) === 0) b++;
    ucas.fill(0xee, toc.blocks.offset(b), toc.blocks.offset(b) + 8);
    writeFileSync(join(dir, `${name}.ucas`), ucas);
    const r = await cli('unpack', dir, dst, '--threads', threads);
    expect(r.code).toBe(1);
    // One line naming the .ucas, the block's offset and what failed.
    expect(r.err).toContain(`error: ${join(dir, `${name}.ucas`)} at offset 0x${toc.blocks.offset(b).toString(16)}: block ${b} (Zlib) could not be decoded`);
    const files = listFiles(dst);
    expect(files.filter((f) => f.includes('iostore-tmp'))).toEqual([]);
    expect(files.filter((f) => f !== MANIFEST_NAME)).toHaveLength(111);
  });
});

describe('the manifest', () => {
  // A chunk named like the manifest is written under a free name, and the manifest under its own: in a new (staged)
  // folder as in place. (A manifest written before the chunks was tried for staged folders, and measured no faster
  // and 3 MB larger.)
  it.each([['a new folder', false], ['a folder that holds a file', true]])('wins over a chunk named like it, into %s', async (_, occupied) => {
    const id = (name: string) => encodeChunkId({ id: packageIdFromName(name), index: 0, pad: 0, type: 2 }, 'UE5');
    const { utoc, ucas } = await buildContainer(
      [
        { id: id('/Game/A'), data: new TextEncoder().encode('a'), path: 'Demo/A.ubulk' },
        { id: id('/Game/B'), data: new TextEncoder().encode('not a manifest'), path: MANIFEST_NAME },
      ],
      { name: 'Clash-Windows' },
    );
    const src = out();
    mkdirSync(src);
    writeFileSync(join(src, 'Clash-Windows.utoc'), utoc);
    writeFileSync(join(src, 'Clash-Windows.ucas'), ucas);
    const dir = out();
    if (occupied) {
      mkdirSync(dir);
      writeFileSync(join(dir, 'keep.txt'), 'x');
    }
    const r = await unpack([join(src, 'Clash-Windows.utoc')], dir);
    expect(r.failures).toEqual([]);
    // The chunk is kept too, under a free name the manifest records (#24 item 11).
    expect(Array.from(r.planned, (p) => p.path)).toContain('iostore-manifest (2).json');
    expect(r.warnings).toContain('"iostore-manifest.json": the output\'s own "iostore-manifest.json" has that name: written as "iostore-manifest (2).json"');
    const m = JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8')) as Manifest;
    expect(m.tool).toBe('iostore-toolkit');
    expect(m.containers[0]!.chunks.find((c) => c.tocPath === MANIFEST_NAME)!.path).toBe('iostore-manifest (2).json');
    expect(readFileSync(join(dir, 'iostore-manifest (2).json'), 'utf8')).toBe('not a manifest');
    expect(readFileSync(join(dir, 'Demo/A.ubulk'), 'utf8')).toBe('a');
  });
});

describe('a container that does not open', () => {
  it('fails the unpack with its own error: the file, the offset and what was wrong, nothing written', async () => {
    const dir = join(tmp, 'cut');
    mkdirSync(dir, { recursive: true });
    const rel = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows';
    // Cut inside the chunk ids (main's build dropped the offset from the message it passed on).
    writeFileSync(join(dir, 'Cut-Windows.utoc'), readFileSync(corpusPath(`${rel}.utoc`)).subarray(0, 300));
    copyFileSync(corpusPath(`${rel}.ucas`), join(dir, 'Cut-Windows.ucas'));
    const target = out();
    await expect(unpack([join(dir, 'Cut-Windows.utoc')], target)).rejects.toThrow(/Cut-Windows\.utoc at offset 0x90: chunk ids: .* need \d+ bytes but only \d+ remain$/);
    expect(existsSync(target)).toBe(false);
  });
});
