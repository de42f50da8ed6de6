import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_NAME, containerIdFromName, packFolder, readToc, unpack, type Manifest } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { corpusFiles, corpusPath, hasCorpus } from '../corpus.js';
import { freshPaths, tempDir } from '../tmp.js';

const fresh = freshPaths(tempDir());

// Every global container of the corpus that has its .ucas. The engine writes the global container with the
// invalid container id 0xFFFFFFFFFFFFFFFF, not the hash of "global": a rebuild must keep it.
const GLOBALS = [
  'ue5.8-cue4parse/global/global.utoc',
  'ue6.0-cue4parse/global/global.utoc',
  'ue5.1-templeofgiants/global.utoc',
  'ue5-wayoftheninja/global.utoc',
  'ue5.1-mirage3d/global.utoc',
];
const ALL_ONES = 0xffffffffffffffffn;

describe.skipIf(!hasCorpus)('pack keeps the container id of the unpacked container', () => {
  for (const rel of GLOBALS) {
    it(`${rel}: unpack -> pack reproduces the .utoc and .ucas byte for byte`, async () => {
      const utoc = corpusPath(rel);
      const orig = readToc(new Uint8Array(readFileSync(utoc)));
      expect(orig.header.containerId).toBe(ALL_ONES);
      expect(containerIdFromName('global')).not.toBe(ALL_ONES);
      const dir = fresh('unpacked');
      const u = await unpack([utoc], dir);
      expect(u.failures).toEqual([]);
      const m = JSON.parse(readFileSync(`${dir}/${MANIFEST_NAME}`, 'utf8')) as Manifest;
      expect(m.containers[0]!.containerId).toBe('0xffffffffffffffff');
      const out = fresh('global.utoc');
      const r = await packFolder(dir, out, { noPak: true });
      expect(r.containerId).toBe('0xffffffffffffffff');
      expect(r.containerIdFrom).toBe('manifest');
      expect(r.warnings).toEqual([]);
      expect(readFileSync(out).equals(readFileSync(utoc))).toBe(true);
      expect(readFileSync(out.replace(/\.utoc$/, '.ucas')).equals(readFileSync(utoc.replace(/\.utoc$/, '.ucas')))).toBe(true);
    });
  }

  it('the engine derives every other container id from the container name (patches included)', () => {
    const others = corpusFiles('.utoc').filter((f) => !f.endsWith('/global.utoc'));
    expect(others.length).toBeGreaterThanOrEqual(15);
    for (const rel of others) {
      const toc = readToc(new Uint8Array(readFileSync(corpusPath(rel))));
      expect(toc.header.containerId, rel).toBe(containerIdFromName(rel.replace(/.*\//, '').replace(/\.utoc$/, '')));
    }
  });

  it('pack --json reports the id and where it came from; --container-id name derives one from the new name', async () => {
    const dir = fresh('unpacked');
    await unpack([corpusPath(GLOBALS[0]!)], dir);
    const out = fresh('global.utoc');
    const a = await cli('pack', dir, out, '--json', '--no-pak');
    expect(a.code).toBe(0);
    const ja = JSON.parse(a.out);
    expect([ja.containerId, ja.containerIdFrom]).toEqual(['0xffffffffffffffff', 'manifest']);

    // A different output name keeps the manifest's id, with a warning that says how to get a new one.
    const renamed = fresh('MyGlobal.utoc');
    const b = await cli('pack', dir, renamed, '--json', '--no-pak');
    expect(b.code).toBe(0);
    expect(JSON.parse(b.out).containerId).toBe('0xffffffffffffffff');
    expect(b.err).toMatch(/--container-id name/);
    expect(b.err.trim().split('\n')).toHaveLength(1);

    const c = await cli('pack', dir, fresh('MyGlobal.utoc'), '--json', '--no-pak', '--container-id', 'name');
    const jc = JSON.parse(c.out);
    expect(jc.containerId).toBe(`0x${containerIdFromName('MyGlobal').toString(16).padStart(16, '0')}`);
    expect(jc.containerIdFrom).toBe('name');
    expect(readToc(new Uint8Array(readFileSync(jc.utoc))).header.containerId).toBe(containerIdFromName('MyGlobal'));

    const d = await cli('pack', dir, fresh('x.utoc'), '--json', '--no-pak', '--container-id', '0x1234');
    expect(JSON.parse(d.out).containerIdFrom).toBe('option');
    expect(readToc(new Uint8Array(readFileSync(JSON.parse(d.out).utoc))).header.containerId).toBe(0x1234n);

    const bad = await cli('pack', dir, fresh('x.utoc'), '--container-id', '12\u001b[31m');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('\\u001b');
    expect(bad.err).not.toContain('\u001b');
  });
});

describe('pack of a mod with no packages', () => {
  it('says the container header lists no packages (no dangling colon), and ids come from the new name', async () => {
    const mod = fresh('mod');
    mkdirSync(join(mod, 'Game', 'Content'), { recursive: true });
    writeFileSync(join(mod, 'Game', 'Content', 'Thing.ubulk'), new Uint8Array(1000).fill(7));
    const out = fresh('Mod_P.utoc');
    const r = await cli('pack', mod, out, '--version', 'UE5_4');
    expect(r.code).toBe(0);
    expect(r.out).toContain('container header lists no packages\n');
    expect(r.out).not.toMatch(/package\(s\): *$/m);
    const j = JSON.parse((await cli('pack', mod, fresh('Mod_P.utoc'), '--version', 'UE5_4', '--json')).out);
    expect(j.packages).toEqual([]);
    expect([j.containerId, j.containerIdFrom]).toEqual([`0x${containerIdFromName('Mod_P').toString(16).padStart(16, '0')}`, 'name']);
  });
});
