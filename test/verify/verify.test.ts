import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, parseAesKey, readToc, verifyContainer } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusFiles, corpusPath } from '../corpus.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir();

// Every corpus container whose .ucas is present and whose blocks use codecs this build has.
const verifiable = corpusFiles('.utoc').filter((f) => existsSync(corpusPath(f.replace(/\.utoc$/, '.ucas'))));
const KEY = parseAesKey(CORPUS_AES_KEY_HEX);

describe('verify', () => {
  it('covers every corpus container that has its .ucas: plain, Zlib, Oodle, partitioned, encrypted, patch, global', () => {
    expect(verifiable.length).toBe(22);
  });

  it.each(verifiable)('%s: every chunk matches its BLAKE3 meta hash', async (rel) => {
    const r = await ContainerReader.open(corpusPath(rel), { aesKey: KEY });
    try {
      const v = await verifyContainer(r);
      expect(v.algorithm).toBe('blake3');
      expect(v.errors).toEqual([]);
      expect(v.mismatches).toEqual([]);
      expect(v.verified).toBe(r.toc.chunkCount);
      expect(v.ok).toBe(true);
    } finally {
      await r.close();
    }
  });

  it('on worker threads, a container of each kind verifies too, with the same counts', async () => {
    // One per kind (plain, Zlib, Oodle, partitioned, ECB, CTR, patch, TOC v5, global): each start costs two workers.
    const kinds = ['ue5.8-cue4parse/uncompressed/', 'ue5.8-cue4parse/zlib/', 'ue5.8-cue4parse/oodle/', 'ue5.8-cue4parse/oodlepartitioned/', 'ue5.8-cue4parse/oodleencrypted/', 'ue6.0-cue4parse/oodleencrypted/', 'ue6.0-cue4parse/patch/', 'ue5.1-patchtest/', 'global.utoc'];
    const picked = kinds.map((k) => verifiable.find((f) => f.includes(k)));
    expect(picked.every((f) => f !== undefined)).toBe(true);
    for (const rel of picked as string[]) {
      const r = await ContainerReader.open(corpusPath(rel), { aesKey: KEY });
      try {
        const v = await verifyContainer(r, { threads: 2 });
        expect({ rel, errors: v.errors, mismatches: v.mismatches, verified: v.verified }).toEqual({ rel, errors: [], mismatches: [], verified: r.toc.chunkCount });
        expect(v.bytes).toBe(r.toc.totals().rawSize);
      } finally {
        await r.close();
      }
    }
  });

  it.each([
    ['uncompressed', 'CUE4ParseFixtures-Minimal-Uncompressed-Windows', '0'],
    ['zlib', 'CUE4ParseFixtures-Minimal-Zlib-Windows', '0'],
    ['uncompressed', 'CUE4ParseFixtures-Minimal-Uncompressed-Windows', '2'],
    ['zlib', 'CUE4ParseFixtures-Minimal-Zlib-Windows', '2'],
  ])('one flipped byte in a %s .ucas copy (%s) fails, naming the chunk; --threads %s', async (variant, name, threads) => {
    const dir = join(tmp, `${variant}${threads}`);
    mkdirSync(dir, { recursive: true });
    copyFileSync(corpusPath(`ue5.8-cue4parse/${variant}/${name}.utoc`), join(dir, `${name}.utoc`));
    const toc = readToc(new Uint8Array(readFileSync(join(dir, `${name}.utoc`))));
    const i = toc.findChunk('915ddb99070a4f0400000001');
    const path = toc.chunkPath(i)!;
    const ucas = readFileSync(corpusPath(`ue5.8-cue4parse/${variant}/${name}.ucas`));
    const at = toc.blocks.offset(toc.chunkFirstBlock(i)) + Math.floor(toc.blocks.compressedSize(toc.chunkFirstBlock(i)) / 2);
    ucas[at] ^= 0x10;
    writeFileSync(join(dir, `${name}.ucas`), ucas);
    const r = await cli('verify', join(dir, `${name}.utoc`), '--threads', threads);
    expect(r.code).toBe(1);
    expect(r.out).toContain(path);
    expect(r.out).toMatch(/FAILED: 111\/112 chunks/);
    const j = JSON.parse((await cli('verify', join(dir, `${name}.utoc`), '--json', '--threads', threads)).out);
    expect([...j.mismatches, ...j.errors].map((m: { index: number }) => m.index)).toEqual([i]);
  });

  it('the CLI reports success with exit code 0', async () => {
    const r = await cli('verify', corpusPath('ue5.8-cue4parse/global/global.utoc'));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/OK: 1\/1 chunks match their blake3 hashes/);
  });

  it('a folder verifies every container in it: one line each and a total; one it cannot open is named, exit 1', async () => {
    const folder = corpusPath('ue5.8-cue4parse');
    const noKey = await cli('verify', folder);
    expect(noKey.code).toBe(1);
    expect(noKey.out).toMatch(/^ERROR {4}.*CUE4ParseFixtures-Minimal-OodleEncrypted-Windows\.utoc: the container is encrypted/m);
    expect(noKey.out).toContain('OK: CUE4ParseFixtures-Minimal-Zlib-Windows: 112/112 chunks match their blake3 hashes');
    // 8 containers and the 9 paks of paks/ (one with an encrypted index).
    expect(noKey.out).toMatch(/^ERROR {4}.*CUE4ParseFixtures-Legacy-Tagged-OodleEncrypted\.pak at offset 0x[0-9a-f]+: the pak index is encrypted/m);
    expect(noKey.out.trim().split('\n').at(-1)).toBe('FAILED: 7/8 containers and 8/9 paks verified');
    const withKey = await cli('verify', folder, '--aes-key', CORPUS_AES_KEY_HEX, '--json');
    expect(withKey.code).toBe(0);
    const j = JSON.parse(withKey.out);
    expect(j.ok).toBe(true);
    expect(j.containers.filter((c: { kind?: string }) => c.kind === 'pak').map((c: { verified: number }) => c.verified)).toEqual([20, 11, 11, 11, 11, 4, 4, 4, 2]);
    expect(j.containers.filter((c: { kind?: string }) => c.kind !== 'pak').map((c: { file: string; verified: number }) => [c.file.split('/').at(-1), c.verified])).toEqual([
      ['CUE4ParseFixtures-Minimal-Oodle-Windows.utoc', 112],
      ['CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc', 112],
      ['CUE4ParseFixtures-Minimal-OodlePartitioned-Windows.utoc', 112],
      ['CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc', 112],
      ['CUE4ParseFixtures-Minimal-Zlib-Windows.utoc', 112],
      ['CUE4ParseFixtures-PatchBase.utoc', 3],
      ['global.utoc', 1],
      ['CUE4ParseFixtures-PatchBase_0_P.utoc', 2],
    ]);
  });
});
