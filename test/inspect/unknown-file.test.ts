import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir('iostore-inspect-');

describe.skipIf(!hasCorpus)('inspect of a file it does not read', () => {
  it.each([
    ['README.md', /: not a zen or legacy package, a container header, a \.utoc container, a classic UE1\/UE2 package, a shader library or a \.locres \(starts with 0x23205265616c2049 "# Real I"\)$/],
    ['pak-repak/root/test.png', /: this is a PNG image, not/],
    ['zen-assets/UE5.4/BP_Table_Lamp.uexp', /: not a zen or legacy package, a container header, a \.utoc container, a classic UE1\/UE2 package, a shader library or a \.locres \(starts with 0x/],
  ])('%s: says what it is or how it starts, not a parse error', async (rel, want) => {
    const r = await cli('inspect', corpusPath(rel), '--json');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err.trim()).toMatch(want);
    expect(r.err).not.toMatch(/container names/);
  });

  it('an empty file and a file of control characters', async () => {
    const empty = join(tmp, 'empty.bin');
    writeFileSync(empty, new Uint8Array(0));
    expect((await cli('inspect', empty)).err).toMatch(/the file is empty\)\n$/);
    const esc = join(tmp, 'esc.bin');
    writeFileSync(esc, Buffer.from('\u001b[2J\u001b[31m\n\n\n', 'latin1'));
    const r = await cli('inspect', esc);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/starts with 0x1b5b324a1b5b3331 "\.\[2J\.\[31"\)\n$/);
  });

  it('a .pak under another name is named as one (a .pak by its name lists its packages)', async () => {
    const p = join(tmp, 'pak.bin');
    writeFileSync(p, readFileSync(corpusPath('pak-repak/packs/pack_v9.pak')));
    const r = await cli('inspect', p);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/: this is a \.pak file, not a zen or legacy package/);
    expect((await cli('inspect', corpusPath('pak-repak/packs/pack_v9.pak'))).out).toContain('0 packages; name one to show it');
  });

  it('a .utoc under another name is pointed at its .utoc path', async () => {
    const p = join(tmp, 'renamed.bin');
    writeFileSync(p, Buffer.from('-==--==--==--==-\u0008\u0000\u0000\u0000', 'latin1'));
    const r = await cli('inspect', p);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/this is a \.utoc container table of contents/);
  });
});
