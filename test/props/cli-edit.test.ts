import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyLegacyProps, readLegacyProps, readZenProps, type PackagePropsJson, type PropsJsonValue as Json } from '../../src/props/index.js';
import { cli } from '../cli-helper.js';
import { legacyPak, pakFiles } from '../legacy/helpers.js';
import { listFiles, tempDir } from '../tmp.js';
import { exportOf, plain, prop } from './helpers.js';

/** The two edits: a row value and a string of another row. */
function edit(json: PackagePropsJson): PackagePropsJson {
  const out = JSON.parse(JSON.stringify(json)) as PackagePropsJson;
  const rows = exportOf(out, 'DT_AllProperties').data!.rows as { name: string; value: { name: string; value: Json }[] }[];
  prop(rows.find((r) => r.name === 'Alpha')!.value as never, 'Number')!.value = 777;
  prop(rows.find((r) => r.name === 'Beta')!.value as never, 'Message')!.value = 'Edited through iostore props ✓';
  return out;
}

describe('props edit through the CLI', () => {
  it('props --json, edit, props --apply, to-zen, unpack, pack, unpack, props: the edits are there and nothing else moved', async () => {
    const dir = tempDir();
    const pak = pakFiles(legacyPak('ue5.8'));
    const src = join(dir, 'src/CUE4ParseFixtures/Content/Fixtures/DataTables');
    mkdirSync(src, { recursive: true });
    const uasset = pak.get('DataTables/DT_AllProperties.uasset')!;
    const uexp = pak.get('DataTables/DT_AllProperties.uexp')!;
    writeFileSync(join(src, 'DT_AllProperties.uasset'), uasset);
    writeFileSync(join(src, 'DT_AllProperties.uexp'), uexp);

    const shown = await cli('props', join(src, 'DT_AllProperties.uasset'), '--json');
    expect(shown.code, shown.err).toBe(0);
    const json = JSON.parse(shown.out) as PackagePropsJson;
    writeFileSync(join(dir, 'edited.json'), JSON.stringify(edit(json), null, 2));
    const modDir = join(dir, 'mod/CUE4ParseFixtures/Content/Fixtures/DataTables');
    const applied = await cli('props', '--apply', join(dir, 'edited.json'), join(src, 'DT_AllProperties.uasset'), join(modDir, 'DT_AllProperties.uasset'));
    expect(applied.code, applied.err).toBe(0);
    expect(applied.err).toMatch(/1 export\(s\) changed/);

    // The edited legacy package is what the library writes for the same edits.
    const expected = applyLegacyProps(uasset, uexp, edit(readLegacyProps(uasset, uexp).json));
    expect(Buffer.compare(readFileSync(join(modDir, 'DT_AllProperties.uexp')), expected.uexp!)).toBe(0);

    const zen = join(dir, 'zen/Mod-Windows.utoc');
    const toZen = await cli('to-zen', join(dir, 'mod'), zen, '--version', 'UE5_8', '--quiet');
    expect(toZen.code, toZen.err).toBe(0);
    const un1 = await cli('unpack', zen, join(dir, 'un1'), '--quiet');
    expect(un1.code, un1.err).toBe(0);
    const repacked = join(dir, 'repacked/Mod-Windows.utoc');
    const packed = await cli('pack', join(dir, 'un1'), repacked, '--quiet');
    expect(packed.code, packed.err).toBe(0);
    const un2 = await cli('unpack', repacked, join(dir, 'un2'), '--quiet');
    expect(un2.code, un2.err).toBe(0);
    const final = listFiles(join(dir, 'un2')).find((f) => f.endsWith('DT_AllProperties.uasset'))!;
    expect(final).toBeDefined();

    const after = await cli('props', join(dir, 'un2', final), '--json');
    expect(after.code, after.err).toBe(0);
    const back = JSON.parse(after.out) as PackagePropsJson;
    expect(back.form).toBe('zen');
    const rows = Object.fromEntries((exportOf(back, 'DT_AllProperties').data!.rows as Json[]).map((r) => [(r as { name: string }).name, plain((r as { value: Json }).value)]));
    expect(rows.Alpha).toMatchObject({ number: 777, message: 'Alpha_CUE4Parse_日本語_äöü' });
    expect(rows.Beta).toMatchObject({ number: -202020, message: 'Edited through iostore props ✓' });
    // Everything else is as it was: the values, and the export's bytes are those of the edited legacy package.
    expect(plain(exportOf(back, 'DT_AllProperties').data as Json)).toEqual(plain(exportOf(edit(json), 'DT_AllProperties').data as Json));
    // Every tag, value and byte kept of the edited legacy package is in the zen package the pipeline made (names
    // and object references read as text, the same in both forms; only the form differs).
    const legacyJson = readLegacyProps(expected.uasset, expected.uexp).json;
    // A lone zen package names its script imports only by hash: the row struct is a stand-in there.
    const rowStruct = prop(exportOf(back, 'DT_AllProperties').properties, 'RowStruct')!;
    expect(rowStruct.value).toMatch(/^#-\d+$/);
    rowStruct.value = prop(exportOf(legacyJson, 'DT_AllProperties').properties, 'RowStruct')!.value!;
    expect({ ...back, form: 'legacy' }).toEqual(legacyJson);
    const zenRead = readZenProps(new Uint8Array(readFileSync(join(dir, 'un2', final))));
    expect(zenRead.bytes).toBe(expected.uexp!.length - 4);
  }, 60_000);
});
