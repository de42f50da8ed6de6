import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const json = async (...args: string[]) => {
  const r = await cli(...args, '--json');
  expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
  return JSON.parse(r.out) as Record<string, unknown> & { [k: string]: any };
};

const C = (p: string) => corpusPath(`ue5.8-cue4parse/${p}`);
const ONE = C('uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');

describe.skipIf(!hasCorpus)('JSON: one shape per command, the same names for the same counts', () => {
  it('info: one container and a folder share containers, paks, chunks, files, bytes; one keeps its own fields', async () => {
    const one = await json('info', ONE);
    const many = await json('info', C('patch'), C('paks/CUE4ParseFixtures-PatchBase.pak'));
    for (const k of ['containers', 'paks', 'chunks', 'files', 'bytes', 'storedBytes']) {
      expect(one, k).toHaveProperty(k);
      expect(many, k).toHaveProperty(k);
    }
    expect(one).toMatchObject({ chunks: 112, files: 111, version: 8, chunkCount: 112, containerId: expect.any(String) });
    expect(one.containers).toHaveLength(1);
    expect(one.containers[0]).toMatchObject({ kind: 'container', name: 'CUE4ParseFixtures-Minimal-Uncompressed-Windows', chunks: 112, bytes: one.rawSize });
    expect(many.containers.map((c: { name: string }) => c.name)).toEqual(['CUE4ParseFixtures-PatchBase', 'CUE4ParseFixtures-PatchBase_0_P']);
    expect(many.paks).toHaveLength(1);
    expect(many.paks[0]).toMatchObject({ kind: 'pak', files: 4 });
    expect(many.chunks).toBe(5);
    expect(many.files).toBe(many.containers.reduce((a: number, c: { files: number }) => a + c.files, 0) + 4);
  });

  it('list: inputs, count, chunks and pakFiles rows naming their container, for one input or several', async () => {
    const one = await json('list', ONE);
    const many = await json('list', C('patch'), C('paks/CUE4ParseFixtures-PatchBase.pak'));
    for (const j of [one, many]) {
      expect(Object.keys(j)).toEqual(expect.arrayContaining(['inputs', 'count', 'chunks', 'pakFiles']));
      expect(j.count).toBe(j.chunks.length + j.pakFiles.length);
      for (const r of [...j.chunks, ...j.pakFiles]) expect(r.container).toEqual(expect.any(String));
    }
    expect(one).toMatchObject({ inputs: [ONE], file: ONE, mountPoint: '../../../CUE4ParseFixtures/Content/Fixtures/', count: 112 });
    expect(one.chunks[0].container).toBe('CUE4ParseFixtures-Minimal-Uncompressed-Windows');
    expect(many.files).toEqual(many.inputs);
    expect(many.pakFiles.map((r: { container: string }) => r.container)).toEqual(Array(4).fill('CUE4ParseFixtures-PatchBase.pak'));
  });

  it('verify: containers (each with its kind), ok, chunks, files, bytes, for one input or several', async () => {
    const one = await json('verify', ONE);
    const many = await json('verify', C('patch'), C('paks/CUE4ParseFixtures-PatchBase.pak'));
    for (const j of [one, many]) for (const k of ['containers', 'ok', 'chunks', 'files', 'bytes']) expect(j, k).toHaveProperty(k);
    expect(one).toMatchObject({ ok: true, chunks: 112, files: 0, verified: 112, file: ONE });
    expect(one.containers).toEqual([expect.objectContaining({ kind: 'container', chunks: 112 })]);
    expect(many.containers.map((r: { kind: string }) => r.kind)).toEqual(['container', 'container', 'pak']);
    expect(many).toMatchObject({ ok: true, chunks: 5, files: 4 });
  });

  it('unpack, to-legacy, pack and to-zen name their counts files/chunks, bytes and ok', async () => {
    const root = tempDir();
    const u = await json('unpack', C('patch'), join(root, 'u'));
    expect(u).toMatchObject({ ok: true, chunks: u.chunksWritten, bytes: u.bytesWritten });
    expect(u.containers.map((c: { kind: string }) => c.kind)).toEqual(['container', 'container']);
    const l = await json('to-legacy', join(root, 'u'), join(root, 'l'));
    expect(l).toMatchObject({ ok: true, files: l.filesWritten, bytes: l.bytesWritten, packages: 2 });
    const p = await json('pack', join(root, 'l'), join(root, 'p', 'Mod_P.utoc'), '--like', C('patch/CUE4ParseFixtures-PatchBase.utoc'));
    expect(p).toMatchObject({ ok: true, files: 3, chunks: expect.any(Number), bytes: expect.any(Number) });
  }, 30_000);
});
