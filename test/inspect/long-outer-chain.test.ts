import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildUexp, writeLegacyPackage, type LegacyPackageSpec } from '../../src/legacy/write.js';
import { SHOWN_OUTER_LEVELS } from '../../src/legacy/describe.js';
import { cli } from '../cli-helper.js';
import { tempDir } from '../tmp.js';

const n = (index: number, number = 0) => ({ index, number });

/** A legacy package of `count` exports, each the outer of the next: one chain `count` levels deep. */
function chainPackage(count: number): { uasset: Uint8Array; uexp: Uint8Array } {
  const imp = (classPackage: number, className: number, outerIndex: number, objectName: number) => ({ classPackage: n(classPackage), className: n(className), outerIndex, objectName: n(objectName), importOptional: false });
  const spec: LegacyPackageSpec = {
    fileVersionUE4: 522,
    fileVersionUE5: 1012,
    unversioned: false,
    packageName: '/Game/Chain',
    packageFlags: 0x80000000,
    names: ['/Game/Chain', 'Obj', '/Script/CoreUObject', 'Package', 'Class', 'Object'],
    imports: [imp(2, 3, 0, 2), imp(2, 4, -1, 5)],
    exports: Array.from({ length: count }, (_, i) => ({
      classIndex: -2, superIndex: 0, templateIndex: 0, outerIndex: i, objectName: n(1, i + 1), objectFlags: 0x1, serialSize: 0, serialOffset: 0,
      forcedExport: false, notForClient: false, notForServer: false, isInheritedInstance: false, packageFlags: 0, notAlwaysLoadedForEditorGame: false,
      isAsset: i === 0, generatePublicHash: false, firstExportDependency: -1, serializationBeforeSerializationDependencies: 0,
      createBeforeSerializationDependencies: 0, serializationBeforeCreateDependencies: 0, createBeforeCreateDependencies: 0,
    })),
    preloadDependencies: [],
  };
  return { uasset: writeLegacyPackage(spec).uasset, uexp: buildUexp(Array.from({ length: count }, () => new Uint8Array(0))) };
}

describe('inspect of a package whose exports form one long outer chain (issue #24 item 3)', () => {
  // 3,003 exports printed 130 MB (every path written out in full) and took 1.7 GB and 12 s; 5,000 took 70 s.
  it('prints each path at most SHOWN_OUTER_LEVELS levels deep, in linear time', async () => {
    const dir = tempDir();
    const { uasset, uexp } = chainPackage(3003);
    writeFileSync(join(dir, 'Chain.uasset'), uasset);
    writeFileSync(join(dir, 'Chain.uexp'), uexp);
    // The command's modules load first (the test runner compiles them): the time measured is the inspection's.
    const small = chainPackage(3);
    writeFileSync(join(dir, 'Small.uasset'), small.uasset);
    expect((await cli('inspect', join(dir, 'Small.uasset'))).code).toBe(0);
    for (const json of [false, true]) {
      // CPU time, not wall time: on a loaded machine the wall time of a linear run passed 2 s (2.4 s at load 10).
      const t0 = process.cpuUsage();
      const r = await cli('inspect', join(dir, 'Chain.uasset'), ...(json ? ['--json'] : []));
      expect(r.code, r.err).toBe(0);
      const cpu = process.cpuUsage(t0);
      expect((cpu.user + cpu.system) / 1000).toBeLessThan(2000);
      // ~3,000 rows of at most 32 short names each, not 3,000 x 1,500 names.
      expect(r.out.length).toBeLessThan(4 << 20);
      if (!json) continue;
      const view = JSON.parse(r.out) as { exports: Array<{ path: string; outer: string }> };
      expect(view.exports).toHaveLength(3003);
      // Shallow objects keep their whole path, as the engine prints it.
      expect(view.exports[0]!.path).toBe('/Game/Chain.Obj_0');
      expect(view.exports[2]!.path).toBe('/Game/Chain.Obj_0:Obj_1.Obj_2');
      expect(view.exports[SHOWN_OUTER_LEVELS - 1]!.path.split(/[.:]/).length).toBe(SHOWN_OUTER_LEVELS + 1);
      // A deep one: the package, how many levels were left out, and the innermost ones.
      const deep = view.exports[3002]!.path;
      expect(deep).toBe(`/Game/Chain:…(${3003 - (SHOWN_OUTER_LEVELS - 1)} levels)….${Array.from({ length: SHOWN_OUTER_LEVELS - 1 }, (_, k) => `Obj_${3003 - SHOWN_OUTER_LEVELS + 1 + k}`).join('.')}`);
      expect(view.exports[3002]!.outer).toMatch(/^\/Game\/Chain:…\(2971 levels\)….*\.Obj_3001$/);
    }
  });

  it('an outer chain that loops is still a one-line error', async () => {
    const dir = tempDir();
    const { uasset, uexp } = chainPackage(3);
    // Export 0's outer (the first export's outerIndex field) made export 3: 1 -> 3 -> 2 -> 1.
    const patched = Buffer.from(uasset);
    const pkg = (await import('../../src/legacy/package.js')).parseLegacyPackage(uasset, { source: 'x' });
    patched.writeInt32LE(3, pkg.summary.exportOffset + 12);
    writeFileSync(join(dir, 'Loop.uasset'), patched);
    writeFileSync(join(dir, 'Loop.uexp'), uexp);
    const r = await cli('inspect', join(dir, 'Loop.uasset'));
    expect(r.code).toBe(2);
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/the outer chain of export \d+ loops/);
  });
});
