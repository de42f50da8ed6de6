import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPakFooter } from '../../src/pak/footer.js';
import { writeCompanionPak } from '../../src/pak/write.js';
import { writePakBytes } from '../../src/pak/pak-writer.js';
import { defaultCodecs } from '../../src/codecs/registry.js';
import { unpack } from '../../src/unpack/unpack.js';
import type { Manifest } from '../../src/layout/manifest.js';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusPath, hasCorpus } from '../corpus.js';
import { KeyRing } from '../../src/mount/keys.js';
import { parseAesKey } from '../../src/crypto/aes.js';
import { freshPaths, listFiles, tempDir } from '../tmp.js';

const REPAK_KEY = '0x94D25BC3AEB420E0BE914EDC9D5435A1EAAB5F2864E09E94019AC205B727A7DE';
const root = tempDir('i13-pak-unpack-');
const freshPath = freshPaths(root);
/** A new empty folder. */
const fresh = (name: string): string => {
  const d = freshPath(name);
  mkdirSync(d);
  return d;
};
const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'iostore-manifest.json'), 'utf8'));

/** Recomputes the index SHA-1 in the footer after a test edited the index (v8 and v9 legacy indexes). */
function rehashIndex(bytes: Uint8Array): void {
  const f = readPakFooter(bytes, 'x.pak');
  const h = createHash('sha1').update(bytes.subarray(f.indexOffset, f.indexOffset + f.indexSize)).digest();
  bytes.set(h, f.offset + 16 + 1 + 8 + 16);
}

describe.skipIf(!hasCorpus)('unpack of .pak archives', () => {
  it('a container folder and its companion pak: the pak files land beside the packages', async () => {
    const dir = fresh('paks');
    const src = corpusPath('ue5.8-cue4parse/uncompressed');
    for (const f of ['CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc', 'CUE4ParseFixtures-Minimal-Uncompressed-Windows.ucas']) symlinkSync(join(src, f), join(dir, f));
    symlinkSync(corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Minimal-Uncompressed.pak'), join(dir, 'CUE4ParseFixtures-Minimal-Uncompressed-Windows.pak'));
    const out = fresh('out');
    const r = await unpack([dir], out, { threads: 0 });
    expect(r.failures).toEqual([]);
    const files = listFiles(out);
    expect(files).toContain('CUE4ParseFixtures/AssetRegistry.bin');
    expect(files).toContain('CUE4ParseFixtures/Config/DefaultGame.ini');
    expect(files.filter((f) => f.startsWith('CUE4ParseFixtures/Content/') && f.endsWith('.uasset')).length).toBeGreaterThan(10);
    expect(readFileSync(join(out, 'CUE4ParseFixtures/AssetRegistry.bin')).length).toBe(219539);
    const m = manifestOf(out);
    expect(m.paks?.length).toBe(1);
    expect(m.paks![0]!.files.map((f) => f.pakPath).sort()).toEqual([
      'AssetRegistry.bin',
      'Config/DefaultGame.ini',
      'Content/Localization/CUE4ParseFixtures/de/CUE4ParseFixtures.locres',
      'Content/Localization/CUE4ParseFixtures/en/CUE4ParseFixtures.locres',
    ]);
    expect(m.paks![0]!.version).toBe(12);
  });

  it('a patch pak (_0_P) wins over its base: one file per path, the newest', async () => {
    const out = fresh('out');
    const base = corpusPath('ue6.0-cue4parse/paks/CUE4ParseFixtures-PatchBase.pak');
    const patch = corpusPath('ue6.0-cue4parse/paks/CUE4ParseFixtures-PatchBase_0_P.pak');
    // The patch is given first: mount order, not argument order, decides.
    const r = await unpack([patch, base], out);
    expect(r.failures).toEqual([]);
    const dir = join(out, 'CUE4ParseFixtures/Content/PatchFixtures');
    expect(readFileSync(join(dir, 'DA_PatchTarget.uasset')).length).toBe(937);
    expect(readFileSync(join(dir, 'DA_PatchTarget.uexp')).length).toBe(194);
    expect(readFileSync(join(dir, 'DA_PatchReferencer.uasset')).length).toBe(1228);
    expect(r.chunksWritten).toBe(4);
    const m = manifestOf(out);
    expect(m.paks!.map((p) => p.name)).toEqual(['CUE4ParseFixtures-PatchBase.pak', 'CUE4ParseFixtures-PatchBase_0_P.pak']);
    expect(m.paks![0]!.files.find((f) => f.pakPath === 'DA_PatchTarget.uasset')!.overriddenBy).toBe('CUE4ParseFixtures-PatchBase_0_P.pak');
  });

  it('--threads 2 (pak files are written on this thread) writes the same files: UE 6.0 Oodle + AES-CTR pak against the uncompressed one', async () => {
    const ref = fresh('ref');
    const viaWorkers = fresh('workers');
    const dir = 'ue6.0-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-';
    const keys = new KeyRing().add(parseAesKey(`0x${CORPUS_AES_KEY_HEX}`));
    expect((await unpack([corpusPath(`${dir}Uncompressed.pak`)], ref, { threads: 0 })).failures).toEqual([]);
    const r = await unpack([corpusPath(`${dir}OodleEncrypted.pak`)], viaWorkers, { threads: 2, keys, verify: true });
    expect(r.failures).toEqual([]);
    expect(r.threads).toBe(0);
    expect(r.chunksWritten).toBe(11);
    const files = listFiles(ref).filter((f) => f !== 'iostore-manifest.json');
    expect(listFiles(viaWorkers).filter((f) => f !== 'iostore-manifest.json')).toEqual(files);
    for (const f of files) expect(Buffer.compare(readFileSync(join(viaWorkers, f)), readFileSync(join(ref, f))), f).toBe(0);
  });

  it('the 40 pak-repak paks as one folder: the four files of root/ (CLI, --aes-key)', async () => {
    const out = fresh('out');
    const r = await cli('unpack', corpusPath('pak-repak/packs'), out, '--aes-key', REPAK_KEY, '--json');
    expect(r.code, r.err).toBe(0);
    expect(listFiles(out)).toEqual(['iostore-manifest.json', 'mount/point/root/directory/nested.txt', 'mount/point/root/test.png', 'mount/point/root/test.txt', 'mount/point/root/zeros.bin']);
    for (const f of ['directory/nested.txt', 'test.png', 'test.txt', 'zeros.bin']) {
      expect(Buffer.compare(readFileSync(join(out, 'mount/point/root', f)), readFileSync(corpusPath('pak-repak/root', f)))).toBe(0);
    }
  });

  it('bad entries (unsafe path, size past the end) fail one line each; the others are written (exit 1)', async () => {
    const enc = new TextEncoder();
    const pak = writeCompanionPak({ version: 8, mountPoint: '../../../Game/', files: [
      { path: 'ok/a.txt', data: enc.encode('alpha') },
      { path: 'aa/bb/evil.txt', data: enc.encode('evil') },
      { path: 'ok/big.bin', data: enc.encode('big') },
      { path: 'ok/c.txt', data: enc.encode('gamma') },
    ] });
    const f = readPakFooter(pak, 'x.pak');
    const index = pak.subarray(f.indexOffset, f.indexOffset + f.indexSize);
    const at = Buffer.from(index).indexOf('aa/bb/evil.txt');
    index.set(enc.encode('../bb/evil.txt'), at);
    const big = Buffer.from(index).indexOf('ok/big.bin') + 'ok/big.bin'.length + 1 + 8;
    new DataView(index.buffer, index.byteOffset).setBigInt64(big, 1n << 40n, true);
    new DataView(index.buffer, index.byteOffset).setBigInt64(big + 8, 1n << 40n, true);
    rehashIndex(pak);
    const file = join(fresh('bad'), 'bad.pak');
    writeFileSync(file, pak);
    const out = fresh('out');
    const r = await cli('unpack', file, out);
    expect(r.code).toBe(1);
    expect(listFiles(out)).toEqual(['Game/ok/a.txt', 'Game/ok/c.txt', 'iostore-manifest.json']);
    const lines = r.err.trim().split('\n').filter((l) => l.startsWith('error:'));
    expect(lines.length).toBe(2);
    expect(lines.find((l) => l.includes('evil'))).toMatch(/bad\.pak at offset 0x[0-9a-f]+: pak path "\.\.\/bb\/evil\.txt" has a "\.\." component/);
    expect(lines.find((l) => l.includes('big.bin'))).toMatch(/bad\.pak at offset 0x[0-9a-f]+: .*runs past the data area/);
  });

  it('a method this build cannot decode, and one the footer does not name: one line each (exit 1)', async () => {
    // A pak naming "Mystery" (written with a stand-in encoder); the other file is stored and still comes out.
    const mystery = { name: 'Mystery', decompress: (s: Uint8Array) => s, compress: (s: Uint8Array) => s.slice(0, 100) };
    const codecs = defaultCodecs().register(mystery);
    const enc = new TextEncoder();
    const files = [{ path: 'a.txt', data: enc.encode('x'.repeat(5000)) }, { path: 'b.bin', data: new Uint8Array(0) }];
    const pak = await writePakBytes(files, { version: 11, compression: 'Mystery', codecs });
    const dir = fresh('m');
    writeFileSync(join(dir, 'm.pak'), pak);
    let out = fresh('out');
    let r = await cli('unpack', join(dir, 'm.pak'), out);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: .*m\.pak at offset 0x[0-9a-f]+: "a\.txt" is compressed with Mystery, which this build cannot decode/m);
    expect(listFiles(out)).toEqual(['b.bin', 'iostore-manifest.json']);
    // The same entry pointing at footer slot 2, which is empty.
    const f = readPakFooter(pak, 'x.pak');
    const v8 = await writePakBytes(files, { version: 8, compression: 'Mystery', codecs });
    const g = readPakFooter(v8, 'x.pak');
    const idx = v8.subarray(g.indexOffset, g.indexOffset + g.indexSize);
    const method = Buffer.from(idx).indexOf('a.txt') + 6 + 24;
    expect(new DataView(idx.buffer, idx.byteOffset).getUint32(method, true)).toBe(1);
    new DataView(idx.buffer, idx.byteOffset).setUint32(method, 2, true);
    rehashIndex(v8);
    writeFileSync(join(dir, 'slot.pak'), v8);
    out = fresh('out');
    r = await cli('unpack', join(dir, 'slot.pak'), out);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/slot\.pak at offset 0x[0-9a-f]+: entry "a\.txt" uses compression method 2 but the footer names 1/);
    expect(f.version).toBe(11);
  });

  it('a file that is not a pak, and an index offset past the end: one line naming file and offset (exit 2)', async () => {
    const dir = fresh('bad');
    writeFileSync(join(dir, 'none.pak'), new Uint8Array(300));
    let r = await cli('unpack', join(dir, 'none.pak'), fresh('out'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/none\.pak at offset 0x[0-9a-f]+: not a pak file/);
    const pak = writeCompanionPak({ version: 11, files: [{ path: 'a.txt', data: new Uint8Array(10) }] });
    const f = readPakFooter(pak, 'x.pak');
    new DataView(pak.buffer).setBigInt64(f.offset + 17 + 8, BigInt(pak.length + 100), true);
    writeFileSync(join(dir, 'far.pak'), pak);
    r = await cli('unpack', join(dir, 'far.pak'), fresh('out'));
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n').length).toBe(1);
    expect(r.err).toMatch(/far\.pak at offset 0x[0-9a-f]+: index at \d+ of \d+ bytes does not lie before the footer/);
  });
});
