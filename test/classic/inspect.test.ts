import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { corpusPath } from '../corpus.js';
import { tempDir } from '../tmp.js';
import { readUe1 } from './helpers.js';

const MUTATOR = corpusPath('ue1-packages/DeveloperMutator.u');

describe('iostore inspect of a classic package', () => {
  it('--json prints exactly the documented fields, with real values', async () => {
    const r = await cli('inspect', MUTATOR, '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const v = JSON.parse(r.out);
    expect(Object.keys(v)).toEqual(['format', 'version', 'licenseeVersion', 'packageFlags', 'names', 'imports', 'exports']);
    expect([v.format, v.version, v.licenseeVersion, v.packageFlags]).toEqual(['classic', 69, 0, '0x00000001']);
    expect(v.names).toHaveLength(63);
    expect(v.names[1]).toEqual({ name: 'DeveloperMutator', flags: '0x00070010' });
    expect(v.imports).toHaveLength(29);
    expect(v.imports[14]).toEqual({ classPackage: 'Core', className: 'ObjectProperty', outer: 'Engine.PlayerPawn', name: 'myHUD', path: 'Engine.PlayerPawn.myHUD' });
    expect(v.exports).toHaveLength(34);
    expect(v.exports[32]).toEqual({
      className: 'Core.Class', superName: 'Engine.Mutator', outer: null, name: 'DeveloperMutator', flags: '0x000f0004',
      serialSize: 235, serialOffset: 4850, path: 'DeveloperMutator.DeveloperMutator',
    });
    expect(Object.keys(v.exports[0])).toEqual(['className', 'superName', 'outer', 'name', 'flags', 'serialSize', 'serialOffset', 'path']);
    expect(v.exports[0]).toMatchObject({ className: 'Core.IntProperty', outer: 'DeveloperMutator.DeveloperMutator.MutatorTakeDamage', serialSize: 12 });
  });

  it('prints the header, then imports, exports and names as tables', async () => {
    const r = await cli('inspect', corpusPath('ue1-packages/XC_Orb.utx'));
    expect(r.code).toBe(0);
    expect(r.out).toContain('Format:           classic Unreal package, file version 69, licensee 0, header 64 bytes');
    expect(r.out).toContain('Names:            60 at 0x40-0x391');
    expect(r.out).toMatch(/^ 9 {2}Engine\.Texture +genfluid\.lava\.SHlava3$/m);
    expect(r.out).toMatch(/^15 {2}Core\.Package +XC_Orb\.XC_Orb +0x00070004 +11449 +1$/m);
    expect(r.out).toContain('Exports (16):');
  });

  it('a damaged package: exit 2 and one line naming the file, the offset and the table', async () => {
    const dir = tempDir();
    const b = readUe1('DeveloperMutator.u');
    const file = join(dir, 'Damaged.u');
    writeFileSync(file, b.subarray(0, b.length - 10));
    const r = await cli('inspect', file);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/Damaged\.u at offset 0x[0-9a-f]+: export table/);
  });
});
