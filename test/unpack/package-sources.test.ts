import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContainerReader, unpack, type Manifest } from '../../src/index.js';
import { writeCompanionPak } from '../../src/pak/write.js';
import { cli } from '../cli-helper.js';
import { corpusPath } from '../corpus.js';
import { freshPaths, listFiles, tempDir } from '../tmp.js';

const tmp = tempDir('i23-sources-');
const fresh = freshPaths(tmp);
const UE58 = corpusPath('ue5.8-cue4parse');
const PATCH = 'CUE4ParseFixtures/Content/PatchFixtures';

/** A Paks folder of links to corpus files (never copies). */
function paksFolder(files: string[]): string {
  const dir = fresh('Paks');
  mkdirSync(dir);
  for (const f of files) symlinkSync(join(UE58, f), join(dir, f.split('/').pop()!));
  return dir;
}
const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'iostore-manifest.json'), 'utf8'));

async function chunkBytes(utoc: string, path: string): Promise<Buffer> {
  const r = await ContainerReader.open(utoc);
  try {
    const i = Array.from({ length: r.toc.chunkCount }, (_, k) => k).find((k) => r.toc.chunkPath(k) === path)!;
    return Buffer.from(await r.readChunk(i));
  } finally {
    await r.close();
  }
}

describe('a package held by a container (zen) and by a .pak (legacy) comes whole from one of them (issue 23, item 1)', () => {
  it('ue5.8 patch/ + paks/ PatchBase pair: the containers win at equal priority, no legacy .uexp beside a zen .uasset', async () => {
    const dir = paksFolder([
      'patch/CUE4ParseFixtures-PatchBase.utoc', 'patch/CUE4ParseFixtures-PatchBase.ucas',
      'patch/CUE4ParseFixtures-PatchBase_0_P.utoc', 'patch/CUE4ParseFixtures-PatchBase_0_P.ucas',
      'paks/CUE4ParseFixtures-PatchBase.pak', 'paks/CUE4ParseFixtures-PatchBase_0_P.pak',
    ]);
    const out = fresh('out');
    const r = await cli('unpack', dir, out, '--json');
    expect(r.code, r.err).toBe(0);
    expect(listFiles(out).filter((f) => f.startsWith(PATCH))).toEqual([`${PATCH}/DA_PatchReferencer.uasset`, `${PATCH}/DA_PatchTarget.uasset`]);
    // Each file is the zen package of the mount-order winner: the patch container's DA_PatchTarget.
    expect(readFileSync(join(out, PATCH, 'DA_PatchTarget.uasset')).equals(await chunkBytes(join(dir, 'CUE4ParseFixtures-PatchBase_0_P.utoc'), `${PATCH}/DA_PatchTarget.uasset`))).toBe(true);
    expect(readFileSync(join(out, PATCH, 'DA_PatchReferencer.uasset')).equals(await chunkBytes(join(dir, 'CUE4ParseFixtures-PatchBase.utoc'), `${PATCH}/DA_PatchReferencer.uasset`))).toBe(true);
    // The paks' files are reported as overridden, by whom, in --json and in the manifest.
    const j = JSON.parse(r.out);
    const row = (name: string) => j.containers.find((c: { name: string }) => c.name === name);
    expect(row('CUE4ParseFixtures-PatchBase.pak')).toMatchObject({ chunks: 4, written: 0, overridden: 4 });
    expect(row('CUE4ParseFixtures-PatchBase.pak').overriddenBy.sort()).toEqual(['CUE4ParseFixtures-PatchBase', 'CUE4ParseFixtures-PatchBase_0_P']);
    expect(row('CUE4ParseFixtures-PatchBase_0_P.pak')).toMatchObject({ chunks: 2, written: 0, overridden: 2, overriddenBy: ['CUE4ParseFixtures-PatchBase_0_P'] });
    const m = manifestOf(out);
    const basePak = m.paks!.find((p) => p.name === 'CUE4ParseFixtures-PatchBase.pak')!;
    expect(basePak.files.find((f) => f.pakPath === 'DA_PatchReferencer.uexp')!.overriddenBy).toBe('CUE4ParseFixtures-PatchBase');
    expect(basePak.files.find((f) => f.pakPath === 'DA_PatchTarget.uexp')!.overriddenBy).toBe('CUE4ParseFixtures-PatchBase_0_P');
    expect(j.warnings.filter((w: string) => /DA_PatchTarget: the package comes from CUE4ParseFixtures-PatchBase_0_P \(zen\)/.test(w))).toHaveLength(2);
    // The text summary names who overrode each source.
    const text = await cli('unpack', dir, fresh('out'));
    expect(text.out).toMatch(/CUE4ParseFixtures-PatchBase\.pak: 0 written, 4 overridden by CUE4ParseFixtures-PatchBase, CUE4ParseFixtures-PatchBase_0_P\n/);
  });

  it('a legacy patch pak over a zen base container: the package\'s .uasset and .uexp both come from the pak', async () => {
    const dir = paksFolder(['patch/CUE4ParseFixtures-PatchBase.utoc', 'patch/CUE4ParseFixtures-PatchBase.ucas', 'paks/CUE4ParseFixtures-PatchBase_0_P.pak']);
    const out = fresh('out');
    const r = await unpack([dir], out);
    expect(r.failures).toEqual([]);
    expect(listFiles(out).filter((f) => f.startsWith(PATCH))).toEqual([`${PATCH}/DA_PatchReferencer.uasset`, `${PATCH}/DA_PatchTarget.uasset`, `${PATCH}/DA_PatchTarget.uexp`]);
    // The pak's legacy pair (937 + 194 bytes), not the container's 704-byte zen package.
    expect(readFileSync(join(out, PATCH, 'DA_PatchTarget.uasset')).length).toBe(937);
    expect(readFileSync(join(out, PATCH, 'DA_PatchTarget.uexp')).length).toBe(194);
    expect(r.containers.find((c) => c.name === 'CUE4ParseFixtures-PatchBase')).toMatchObject({ written: 2, overridden: 1, overriddenBy: ['CUE4ParseFixtures-PatchBase_0_P.pak'] });
    const chunk = manifestOf(out).containers[0]!.chunks.find((c) => c.path === `${PATCH}/DA_PatchTarget.uasset`)!;
    expect(chunk.overriddenBy).toBe('CUE4ParseFixtures-PatchBase_0_P.pak');
    expect(r.warnings).toEqual([`${PATCH}/DA_PatchTarget: the package comes from CUE4ParseFixtures-PatchBase_0_P.pak (legacy); CUE4ParseFixtures-PatchBase's zen files are left out`]);
  });

  it('within the winning form the engine\'s own rule stays: a patch pak holding only a .uexp takes the .uasset from the base pak', async () => {
    const dir = paksFolder(['patch/CUE4ParseFixtures-PatchBase.utoc', 'patch/CUE4ParseFixtures-PatchBase.ucas', 'paks/CUE4ParseFixtures-PatchBase.pak']);
    const uexp = new TextEncoder().encode('changed export data');
    const patch = writeCompanionPak({ version: 11, mountPoint: `../../../${PATCH}/`, files: [{ path: 'DA_PatchTarget.uexp', data: uexp }] });
    writeFileSync(join(dir, 'CUE4ParseFixtures-PatchBase_1_P.pak'), patch);
    const out = fresh('out');
    const r = await unpack([dir], out);
    expect(r.failures).toEqual([]);
    // DA_PatchTarget's winner is the legacy patch pak: the container's zen chunk is left out, the base pak supplies
    // the .uasset the patch does not hold. DA_PatchReferencer stays the container's (equal priority: zen).
    expect(readFileSync(join(out, PATCH, 'DA_PatchTarget.uasset')).length).toBe(936);
    expect(readFileSync(join(out, PATCH, 'DA_PatchTarget.uexp')).equals(Buffer.from(uexp))).toBe(true);
    expect(readFileSync(join(out, PATCH, 'DA_PatchReferencer.uasset')).equals(await chunkBytes(join(dir, 'CUE4ParseFixtures-PatchBase.utoc'), `${PATCH}/DA_PatchReferencer.uasset`))).toBe(true);
    expect(listFiles(out).filter((f) => f.startsWith(PATCH))).toEqual([`${PATCH}/DA_PatchReferencer.uasset`, `${PATCH}/DA_PatchTarget.uasset`, `${PATCH}/DA_PatchTarget.uexp`]);
    const m = manifestOf(out);
    expect(m.containers[0]!.chunks.find((c) => c.path === `${PATCH}/DA_PatchTarget.uasset`)!.overriddenBy).toBe('CUE4ParseFixtures-PatchBase_1_P.pak');
    expect(m.paks!.find((p) => p.name === 'CUE4ParseFixtures-PatchBase.pak')!.files.find((f) => f.pakPath === 'DA_PatchTarget.uexp')!.overriddenBy).toBe('CUE4ParseFixtures-PatchBase_1_P.pak');
  });
});

describe('same-named containers from different folders (issue 23, item 9)', () => {
  it('are refused by unpack and to-legacy, naming both paths; only _N_P names make patches', async () => {
    const a = fresh('A');
    const b = fresh('B');
    mkdirSync(a);
    mkdirSync(b);
    const name = 'CUE4ParseFixtures-PatchBase';
    for (const d of [a, b]) for (const ext of ['utoc', 'ucas']) symlinkSync(join(UE58, 'patch', `${name}.${ext}`), join(d, `${name}.${ext}`));
    const out = fresh('out');
    const r = await cli('unpack', a, b, out);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(`two .utoc files named ${name}.utoc in different folders: ${join(a, `${name}.utoc`)} and ${join(b, `${name}.utoc`)}`);
    expect(r.err).not.toMatch(/overridden/);
    const t = await cli('to-legacy', a, b, fresh('legacy'));
    expect(t.code).toBe(2);
    expect(t.err).toContain(`two .utoc files named ${name}.utoc in different folders`);
    // Same-named paks likewise.
    const pa = fresh('PA');
    const pb = fresh('PB');
    mkdirSync(pa);
    mkdirSync(pb);
    for (const d of [pa, pb]) symlinkSync(join(UE58, 'paks', `${name}.pak`), join(d, `${name}.pak`));
    expect((await cli('unpack', pa, pb, fresh('out'))).err).toContain(`two .pak files named ${name}.pak in different folders`);
    // One file given twice (as itself and through its folder) is one container, not a clash.
    const twice = await unpack([a, join(a, `${name}.utoc`)], fresh('out'));
    expect(twice.containers.map((c) => c.name)).toEqual([name]);
  });
});
