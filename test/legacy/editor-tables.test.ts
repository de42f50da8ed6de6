import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  describeLegacyPackage,
  legacyPackageSpec,
  legacyRegionSpans,
  parseLegacyPackage,
  thumbnailFileNames,
  writeLegacyPackage,
  type LegacyPackage,
  type LegacyThumbnail,
} from '../../src/legacy/index.js';
import { cli } from '../cli-helper.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { prng } from '../fuzz/mutate.js';
import { tempDir } from '../tmp.js';
import { legacyGamesPackages, readCorpus } from './helpers.js';

/**
 * The editor tables (#30) of every editor package of legacy-games (the `ue*-editor` folders, enumerated), checked
 * against their summaries; the thumbnails decoded by this test's own reading of the PNG and JPEG headers (and the
 * PNG's chunks inflated); inspect --json and --thumbnails; the writer keeping the tables when a header grows.
 */
const editor = hasCorpus ? legacyGamesPackages().filter((p) => /-editor$/.test(p.folder)) : [];
const parsed = new Map<string, LegacyPackage>();
const read = (rel: string): LegacyPackage => {
  let p = parsed.get(rel);
  if (!p) {
    const info = editor.find((e) => e.rel === rel)!;
    parsed.set(rel, (p = parseLegacyPackage(readCorpus(rel), { source: rel, engine: info.release })));
  }
  return p;
};
const rel = (tail: string) => editor.find((e) => e.rel.endsWith(tail))!.rel;

/** PNG: the signature, then chunks (length, type, data, CRC); IHDR's width and height; the IDAT data inflated. */
function decodePng(b: Uint8Array): { width: number; height: number; bitDepth: number; colorType: number; pixels: Buffer } {
  const buf = Buffer.from(b);
  expect(buf.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  let at = 8;
  const idat: Buffer[] = [];
  let ihdr: Buffer | undefined;
  let ended = false;
  while (at < buf.length) {
    const len = buf.readUInt32BE(at);
    const type = buf.subarray(at + 4, at + 8).toString('latin1');
    const data = buf.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') ihdr = data;
    if (type === 'IDAT') idat.push(data);
    at += 12 + len;
    if (type === 'IEND') {
      ended = true;
      break;
    }
  }
  expect(ended && at === buf.length, 'the PNG ends with IEND, at the end of its bytes').toBe(true);
  return { width: ihdr!.readUInt32BE(0), height: ihdr!.readUInt32BE(4), bitDepth: ihdr![8]!, colorType: ihdr![9]!, pixels: inflateSync(Buffer.concat(idat)) };
}

/** JPEG: SOI, segments up to the first start-of-frame (its height and width), and EOI at the end. */
function jpegSize(b: Uint8Array): { width: number; height: number } {
  const buf = Buffer.from(b);
  expect(buf.readUInt16BE(0)).toBe(0xffd8);
  expect(buf.readUInt16BE(buf.length - 2), 'ends with EOI').toBe(0xffd9);
  let at = 2;
  for (;;) {
    expect(buf[at]).toBe(0xff);
    const marker = buf[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xc3) return { height: buf.readUInt16BE(at + 5), width: buf.readUInt16BE(at + 7) };
    at += 2 + buf.readUInt16BE(at + 2);
  }
}

describe.skipIf(!hasCorpus)('editor packages: every table the summary points at', () => {
  it('finds the editor packages of UE 4.27 and 5.7', () => {
    expect(editor.map((e) => e.folder).filter((f, i, all) => all.indexOf(f) === i)).toEqual(['ue4.27-editor', 'ue5.7-editor']);
    expect(editor.length).toBeGreaterThanOrEqual(8);
  });

  it('reads each table of each, its counts and places those of the summary', () => {
    for (const e of editor) {
      const p = read(e.rel);
      const s = p.summary;
      const t = p.editorTables;
      const at = (table: string) => t.places.find((x) => x.table === table);
      expect(t.errors, e.rel).toEqual([]);
      // Counts the summary stores are the tables' lengths, and each table starts where the summary says.
      expect(t.depends!.length).toBe(s.exportCount);
      expect(at('depends')!.offset).toBe(s.dependsOffset);
      expect(t.softPackageReferences!.length).toBe(s.softPackageReferencesCount);
      expect(at('softPackageReferences')!.offset).toBe(s.softPackageReferencesOffset);
      expect(t.gatherableText?.length ?? 0).toBe(s.gatherableTextDataCount);
      expect(at('searchableNames')!.offset).toBe(s.searchableNamesOffset);
      expect(at('thumbnails')!.offset).toBe(s.thumbnailTableOffset);
      expect(at('assetRegistryData')!.offset).toBe(s.assetRegistryDataOffset);
      // The tables tile the header up to where the next one starts: the asset registry data ends the header.
      expect(at('assetRegistryData')!.offset + at('assetRegistryData')!.size).toBe(s.totalHeaderSize);
      // The images lie before the thumbnail index, back to back, the first right after the searchable names.
      expect(at('searchableNames')!.offset + at('searchableNames')!.size).toBe(t.thumbnails!.length > 0 ? t.thumbnails![0]!.offset : s.thumbnailTableOffset);
      const a = t.assetRegistry!;
      expect(a.objects.length, e.rel).toBeGreaterThanOrEqual(1);
      expect(a.objects.every((o) => o.objectPath !== '' && o.objectClass !== '')).toBe(true);
      // Editor packages carry the dependency data: one bit per import and per soft package reference.
      expect(a.dependencies!.importUsedInGame.length).toBe(s.importCount);
      expect(a.dependencies!.softPackageUsedInGame.length).toBe(s.softPackageReferencesCount);
      if (s.fileVersionUE5 > 0) {
        expect(t.softObjectPaths!.length).toBe(s.softObjectPathsCount);
        expect(at('softObjectPaths')!.offset).toBe(s.softObjectPathsOffset);
        expect(at('metaData')!.offset).toBe(s.metaDataOffset);
        // The metadata names soft object paths by index into that list.
        for (const o of t.metaData!.objects) expect(o.object).toBeLessThan(s.softObjectPathsCount);
        expect(a.dependencies!.extraPackageDependencies).toEqual([]);
        // The trailer runs from PayloadTocOffset to the end of the file.
        expect(at('payloadToc')).toEqual({ table: 'payloadToc', offset: s.payloadTocOffset, size: p.uasset.length - s.payloadTocOffset });
        expect([t.trailer!.version, t.trailer!.payloads.length, t.trailer!.payloadData.length]).toEqual([2, 0, 0]);
      } else {
        expect(t.softObjectPaths).toBeUndefined();
        expect(t.trailer).toBeUndefined();
      }
    }
  });

  it('values: TestActorBP text, TestMaterial tags, BP_FirstPersonCharacter paths and metadata', () => {
    const actor = read(rel('TestActorBP.uasset')).editorTables;
    expect(actor.gatherableText).toEqual([
      {
        namespace: 'SCS',
        sourceString: 'Default',
        sourceMetaData: [],
        sites: [{ key: 'Default', siteDescription: '/Game/TestActorBP.TestActorBP_C:SimpleConstructionScript_0.SCS_Node_0.CategoryName', editorOnly: true, optional: false, infoMetaData: [], keyMetaData: [] }],
      },
    ]);
    const material = read(rel('TestMaterial.uasset')).editorTables;
    expect(material.assetRegistry!.objects.map((o) => [o.objectPath, o.objectClass, o.tags.length])).toEqual([['TestMaterial', 'Material', 7]]);
    expect(material.assetRegistry!.objects[0]!.tags[1]).toEqual({ key: 'MaterialDomain', value: 'MD_Surface' });
    expect(material.assetRegistry!.dependencies!.importUsedInGame).toEqual([false, true, true, false, false, true, false]);
    const character = read(rel('BP_FirstPersonCharacter.uasset'));
    const t = character.editorTables;
    expect(t.softObjectPaths!.length).toBe(21);
    // 5.7 stores sub-paths as UTF-8 (FFortniteMainBranchObjectVersion 225 >= 192).
    expect(t.softObjectPaths![5]!.subPath).toBe('Touch Jump Start');
    expect([t.metaData!.objects.length, t.metaData!.root.length]).toEqual([17, 1]);
    expect(t.assetRegistry!.objects.map((o) => o.objectClass)).toEqual(['/Script/Engine.Blueprint', '/Script/Engine.BlueprintGeneratedClass']);
    expect(t.assetRegistry!.objects[0]!.tags.find((x) => x.key === 'BlueprintDescription')!.value).toBe('The character you control in the game, includes firing logic');
  });

  it('thumbnails: TestMaterial one PNG, BP_FirstPersonCharacter its JPEGs, each decoding at the size its table states', () => {
    const [png] = read(rel('TestMaterial.uasset')).editorTables.thumbnails! as [LegacyThumbnail];
    expect(read(rel('TestMaterial.uasset')).editorTables.thumbnails!.length).toBe(1);
    expect([png.objectClass, png.objectPath, png.width, png.height, png.jpeg, png.data.length]).toEqual(['Material', 'TestMaterial', 256, 256, false, 97441]);
    const img = decodePng(png.data);
    expect([img.width, img.height, img.bitDepth, img.colorType]).toEqual([png.width, png.height, 8, 6]);
    // RGBA, 8 bits: each row a filter byte and 4 bytes per pixel.
    expect(img.pixels.length).toBe(png.height * (1 + png.width * 4));
    const jpegs = read(rel('BP_FirstPersonCharacter.uasset')).editorTables.thumbnails!;
    expect(jpegs.map((j) => [j.objectClass, j.objectPath, j.jpeg, j.data.length])).toEqual([
      ['Blueprint', 'BP_FirstPersonCharacter', true, 5312],
      ['BlueprintGeneratedClass', 'BP_FirstPersonCharacter_C', true, 4561],
    ]);
    for (const j of jpegs) expect(jpegSize(j.data)).toEqual({ width: j.width, height: j.height });
    // Every editor package's thumbnails: images where the table says, of the size it says (empty ones have none).
    for (const e of editor) {
      for (const th of read(e.rel).editorTables.thumbnails!) {
        if (th.data.length === 0) continue;
        expect(th.jpeg ? jpegSize(th.data) : { width: decodePng(th.data).width, height: decodePng(th.data).height }, `${e.rel} ${th.objectPath}`).toEqual({ width: th.width, height: th.height });
      }
    }
  });

  it('the bloodstained maps (UE 4.18, cooked): world tile info with 2D positions, the tables read', () => {
    const maps = legacyGamesPackages().filter((p) => p.folder === 'ue4.18-bloodstained' && p.rel.endsWith('.umap'));
    let tiles = 0;
    for (const m of maps) {
      const p = parseLegacyPackage(readCorpus(m.rel), { engine: m.release });
      expect(p.editorTables.errors).toEqual([]);
      const w = p.editorTables.worldTileInfo;
      if (!w) continue;
      tiles++;
      const place = p.editorTables.places.find((x) => x.table === 'worldTileInfo')!;
      expect([place.offset, place.size]).toEqual([p.summary.worldTileInfoDataOffset, 92]);
      expect(w.layer).toEqual({ name: 'Uncategorized', reserved0: 0, reserved1: [0, 0], streamingDistance: 50000, distanceStreamingEnabled: true });
      expect([w.position[2], w.hideInTileView, w.parentTilePackageName, w.lodList, w.zOrder, w.bounds.isValid]).toEqual([0, false, 'None', [], 0, 1]);
    }
    expect(tiles).toBe(4);
    const gimmick = parseLegacyPackage(readCorpus('legacy-games/ue4.18-bloodstained/m02VIL_004_Gimmick.umap'), { engine: 'UE4_18' }).editorTables.worldTileInfo!;
    expect(gimmick.position).toEqual([25200, 0, 0]);
    expect(gimmick.bounds).toEqual({ min: [-25200, -293, 0], max: [2148, 179.38995361328125, 663.06103515625], isValid: 1 });
  });

  it('a header that grows moves the thumbnails and the asset registry dependency data with it', () => {
    const p = read(rel('BP_FirstPersonCharacter.uasset'));
    const spec = legacyPackageSpec(p);
    const at = p.names.findIndex((n) => n.name === 'BP_FirstPersonCharacter');
    const renamed = 'BP_FirstPersonCharacter_WithALongerName';
    spec.names = p.names.map((n, i) => (i === at ? renamed : n));
    const grow = renamed.length - 'BP_FirstPersonCharacter'.length;
    const out = writeLegacyPackage(spec).uasset;
    const back = parseLegacyPackage(out, { engine: 'UE5_7' });
    expect(back.editorTables.errors).toEqual([]);
    // Offsets inside the tables follow: the thumbnail index's file offsets, the asset registry's dependency data.
    expect(back.editorTables.thumbnails!.map((t) => t.offset)).toEqual(p.editorTables.thumbnails!.map((t) => t.offset + grow));
    back.editorTables.thumbnails!.forEach((t, i) => expect(Buffer.from(t.data).equals(Buffer.from(p.editorTables.thumbnails![i]!.data))).toBe(true));
    expect(back.editorTables.assetRegistry).toEqual(p.editorTables.assetRegistry);
    expect(back.editorTables.trailer).toEqual(p.editorTables.trailer);
    expect(back.summary.payloadTocOffset).toBe(p.summary.payloadTocOffset + grow);
    // Kept as bytes, the thumbnail index would still point at the old places: the first image would read from the
    // bytes `grow` earlier (the end of the searchable names), not at its width.
    const oldIndexOffset = p.editorTables.thumbnails![0]!.offset;
    expect(new DataView(out.buffer, out.byteOffset).getInt32(oldIndexOffset, true)).not.toBe(256);
  });

  it('an edited table is written from its values: a tag changed, a thumbnail dropped, a text added', () => {
    const p = read(rel('TestActorBP.uasset'));
    const spec = legacyPackageSpec(p);
    const t = structuredClone({ ...p.editorTables, thumbnails: undefined });
    t.thumbnails = p.editorTables.thumbnails!.slice(1);
    t.assetRegistry!.objects[0]!.tags.push({ key: 'AddedByTheTest', value: 'yes' });
    t.gatherableText!.push({ namespace: 'Test', sourceString: 'Grüße', sourceMetaData: [{ key: 'k', value: { type: 'array', value: [{ type: 'boolean', value: true }, { type: 'string', value: 'x' }] } }], sites: [] });
    spec.editorTables = t;
    const back = parseLegacyPackage(writeLegacyPackage(spec).uasset, { engine: 'UE4_27' });
    expect(back.editorTables.errors).toEqual([]);
    expect(back.summary.gatherableTextDataCount).toBe(2);
    expect(back.editorTables.gatherableText![1]).toEqual(t.gatherableText![1]);
    expect(back.editorTables.thumbnails!.map((x) => x.objectPath)).toEqual(['TestActorBP_C']);
    expect(back.editorTables.assetRegistry!.objects[0]!.tags.at(-1)).toEqual({ key: 'AddedByTheTest', value: 'yes' });
    // The export data after the header is the same bytes, moved.
    const before = legacyRegionSpans(p).find((r) => r.table === 'exportData')!;
    const after = legacyRegionSpans(back).find((r) => r.table === 'exportData')!;
    expect(Buffer.from(back.uasset.subarray(after.offset, after.offset + after.size)).equals(Buffer.from(p.uasset.subarray(before.offset, before.offset + before.size)))).toBe(true);
    expect(back.exports.map((e) => e.serialOffset - after.offset)).toEqual(p.exports.map((e) => e.serialOffset - before.offset));
  });

  it('package metadata with its soft object paths inline (a save with the mapping off) reads by the form that fits', () => {
    const p = read(rel('BP_FirstPersonGameMode.uasset'));
    const t = p.editorTables;
    const spec = legacyPackageSpec(p);
    const inline = t.metaData!.objects.map((o) => ({ ...o, object: t.softObjectPaths![o.object as number]! }));
    spec.editorTables = { ...t, metaData: { ...t.metaData!, objects: inline }, format: { ...t.format, softObjectPathsInline: true } };
    const out = writeLegacyPackage(spec).uasset;
    const back = parseLegacyPackage(out, { engine: 'UE5_7' });
    expect(back.editorTables.errors).toEqual([]);
    expect(back.editorTables.format.softObjectPathsInline).toBe(true);
    expect(back.editorTables.metaData!.objects).toEqual(inline);
    expect(describeLegacyPackage(back).metaData).toEqual(describeLegacyPackage(p).metaData);
    expect(Buffer.from(writeLegacyPackage(legacyPackageSpec(back)).uasset).equals(Buffer.from(out))).toBe(true);
    expect(legacyRegionSpans(back).find((r) => r.table === 'metaData')!.written).toBe(true);
  });

  it('a table that does not parse is reported with its offset; the others read, and the package writes back as read', () => {
    const p = read(rel('TestMaterial.uasset'));
    const bytes = new Uint8Array(p.uasset);
    // The thumbnail count made huge, and the asset registry's first object path length made negative and odd.
    new DataView(bytes.buffer).setInt32(p.summary.thumbnailTableOffset, 0x7fffffff, true);
    new DataView(bytes.buffer).setInt32(p.summary.assetRegistryDataOffset + 12, -0x7fffffff, true);
    const bad = parseLegacyPackage(bytes, { engine: 'UE4_27', source: 'damaged.uasset' });
    expect(bad.editorTables.errors.map((e) => [e.table, e.offset, e.code])).toEqual([
      ['thumbnails', p.summary.thumbnailTableOffset, 'TRUNCATED'],
      ['assetRegistryData', p.summary.assetRegistryDataOffset, 'TRUNCATED'],
    ]);
    expect(bad.editorTables.errors[0]!.message).toMatch(/^damaged\.uasset at offset 0x[0-9a-f]+: thumbnails: 2147483647 entries/);
    expect(bad.editorTables.depends).toEqual(p.editorTables.depends);
    expect(bad.editorTables.searchableNames).toEqual([]);
    expect(bad.names.length).toBe(p.names.length);
    expect(Buffer.from(writeLegacyPackage(legacyPackageSpec(bad)).uasset).equals(Buffer.from(bytes))).toBe(true);
  });

  it('mutated tables: each reads or is one clean error, and the package still writes back byte for byte', () => {
    // Words and bits changed inside the tables after the export map (the summary, names, imports and exports kept),
    // of the three smallest editor packages; fixed seed.
    const sources = editor.map((e) => read(e.rel)).sort((a, b) => a.uasset.length - b.uasset.length).slice(0, 3);
    const rand = prng(0x30);
    let failed = 0;
    let kept = 0;
    for (let i = 0; i < 240; i++) {
      const p = sources[i % sources.length]!;
      const s = p.summary;
      const lo = s.dependsOffset;
      const hi = s.payloadTocOffset > 0 ? p.uasset.length : s.totalHeaderSize;
      const bytes = new Uint8Array(p.uasset);
      for (let k = 1 + rand(3); k > 0; k--) {
        const at = lo + rand(hi - lo);
        if (at >= s.totalHeaderSize && at < Math.max(s.payloadTocOffset, s.totalHeaderSize)) continue;
        if (rand(2) === 0) bytes[at] = bytes[at]! ^ (1 << rand(8));
        else new DataView(bytes.buffer).setInt32(Math.min(at, bytes.length - 4), [0, 1, -1, 0x7fffffff, 255, 1 << 20][rand(6)]!, true);
      }
      const back = parseLegacyPackage(bytes, { engine: p.engine!, source: `case ${i}` });
      failed += back.editorTables.errors.length;
      kept += legacyRegionSpans(back).filter((r) => !r.written && !['exportData', 'bulkData', 'gap'].includes(r.table) && r.size > 0).length;
      for (const e of back.editorTables.errors) expect(e.message, `case ${i}`).toMatch(new RegExp(`^case ${i} at offset 0x[0-9a-f]+: `));
      expect(() => describeLegacyPackage(back), `case ${i}`).not.toThrow();
      const out = writeLegacyPackage(legacyPackageSpec(back)).uasset;
      expect(Buffer.from(out).equals(Buffer.from(bytes)), `case ${i}: identity`).toBe(true);
    }
    // The mutations reach both outcomes: tables that fail, and tables that read but are kept as bytes.
    expect(failed).toBeGreaterThan(20);
    expect(kept).toBeGreaterThan(0);
  });

  it('a table a damaged count makes run into the next keeps its bytes (written from values it would move the images)', () => {
    const p = read(rel('BP_FP_CameraManager.uasset'));
    const bytes = new Uint8Array(p.uasset);
    // One searchable-names entry: it reads an object index and an empty name list from the first (empty) image.
    new DataView(bytes.buffer).setInt32(p.summary.searchableNamesOffset, 1, true);
    const back = parseLegacyPackage(bytes, { engine: 'UE5_7' });
    expect(back.editorTables.searchableNames).toEqual([{ object: 0, names: [] }]);
    const place = back.editorTables.places.find((x) => x.table === 'searchableNames')!;
    expect(place.offset + place.size).toBeGreaterThan(back.editorTables.thumbnails![0]!.offset);
    const spans = legacyRegionSpans(back);
    expect(spans.find((r) => r.table === 'searchableNames')).toMatchObject({ size: 4, written: false });
    expect(spans.find((r) => r.table === 'thumbnails')!.written).toBe(true);
    expect(Buffer.from(writeLegacyPackage(legacyPackageSpec(back)).uasset).equals(Buffer.from(bytes))).toBe(true);
  });

  it('inspect --json: the tables of every editor package, asset registry tags and the trailer of the 5.x ones', async () => {
    for (const e of editor) {
      const r = await cli('inspect', corpusPath(e.rel), '--json');
      expect(r.code, r.err).toBe(0);
      const v = JSON.parse(r.out);
      const p = read(e.rel);
      expect(v.assetRegistry.objects.length).toBe(p.editorTables.assetRegistry!.objects.length);
      expect(v.assetRegistry.objects[0].tags).toEqual(Object.fromEntries(p.editorTables.assetRegistry!.objects[0]!.tags.map((x) => [x.key, x.value])));
      expect(v.thumbnails.length).toBe(p.editorTables.thumbnails!.length);
      for (const th of v.thumbnails) if (th.format !== 'empty') expect(th.image).toEqual({ width: th.width, height: th.height, matchesTable: true });
      expect(v.searchableNames).toEqual([]);
      expect(v.tables.filter((x: { kept: string }) => x.kept === 'bytes').map((x: { table: string }) => x.table)).toEqual(['exportData', 'bulkData']);
      if (p.summary.fileVersionUE5 > 0) {
        expect(v.trailer).toMatchObject({ offset: p.summary.payloadTocOffset, size: 48, version: 2, payloadCount: 0, payloads: [] });
        expect(v.softObjectPaths.length).toBe(p.summary.softObjectPathsCount);
        expect(v.metaData.objects.length).toBeGreaterThan(0);
      } else {
        expect(v.trailer).toBeUndefined();
        expect(v.gatherableText.length).toBe(p.summary.gatherableTextDataCount);
      }
    }
    const text = await cli('inspect', corpusPath(rel('TestActorBP.uasset')));
    expect(text.out).toMatch(/Gatherable text \(1\):\nnamespace\s+key\s+source string\s+site\n[- ]+\nSCS\s+Default\s+Default\s+\/Game\/TestActorBP\.TestActorBP_C:SimpleConstructionScript_0/);
    expect(text.out).toMatch(/Asset registry \(2 objects\):\n {2}TestActorBP \(Blueprint\), 15 tags\n(.*\n){15} {2}TestActorBP_C \(BlueprintGeneratedClass\), 5 tags\n/);
  });

  it('inspect --thumbnails <dir>: each thumbnail as the image file it is', async () => {
    const dir = join(tempDir(), 'thumbs');
    const a = await cli('inspect', corpusPath(rel('TestMaterial.uasset')), '--thumbnails', dir);
    expect(a.code, a.err).toBe(0);
    expect(a.out).toContain(`Thumbnails written to ${dir}: 1 of 1\n  TestMaterial: TestMaterial.png\n`);
    const b = await cli('inspect', corpusPath(rel('BP_FirstPersonCharacter.uasset')), '--thumbnails', dir, '--json');
    expect(JSON.parse(b.out).thumbnailFiles).toEqual([
      { index: 0, objectPath: 'BP_FirstPersonCharacter', file: 'BP_FirstPersonCharacter.jpg' },
      { index: 1, objectPath: 'BP_FirstPersonCharacter_C', file: 'BP_FirstPersonCharacter_C.jpg' },
    ]);
    expect(readdirSync(dir).sort()).toEqual(['BP_FirstPersonCharacter.jpg', 'BP_FirstPersonCharacter_C.jpg', 'TestMaterial.png']);
    const png = decodePng(readFileSync(join(dir, 'TestMaterial.png')));
    expect([png.width, png.height]).toEqual([256, 256]);
    expect(jpegSize(readFileSync(join(dir, 'BP_FirstPersonCharacter_C.jpg')))).toEqual({ width: 256, height: 256 });
    // Empty thumbnails have no image: nothing is written for them.
    const empty = await cli('inspect', corpusPath(rel('TestSoundClass.uasset')), '--thumbnails', dir);
    expect(empty.out).toContain('Thumbnails written to');
    expect(empty.out).toContain(': 0 of 1\n  TestSoundClass: (an empty thumbnail (no image))\n');
    // A file where the folder would be, or where a thumbnail would go: one line, nothing left behind.
    const file = join(dir, 'TestMaterial.png');
    const inTheWay = await cli('inspect', corpusPath(rel('TestMaterial.uasset')), '--thumbnails', file);
    expect([inTheWay.code, inTheWay.err.trim()]).toEqual([2, `iostore: ${file}: a file is in the way: --thumbnails takes a folder (made when missing)`]);
    // Not for containers or cooked zen packages; one line.
    const zen = await cli('inspect', corpusPath('zen-assets/UE5.4/BP_Pickup.uzenasset'), '--thumbnails', dir);
    expect([zen.code, zen.err.trim().split('\n').length]).toEqual([2, 1]);
  });
});

describe('thumbnail file names', () => {
  const thumb = (objectPath: string, data: number[]): LegacyThumbnail => ({ objectClass: 'X', objectPath, width: 1, height: 1, jpeg: false, data: new Uint8Array(data), offset: 0 });
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  it('are single safe components, unique without regard to case, with the extension of the bytes', () => {
    const names = thumbnailFileNames([
      thumb('Hero', png),
      thumb('hero', png),
      thumb('../../etc/passwd', png),
      thumb('Level.Level:PersistentLevel.Actor', [0xff, 0xd8, 0xff, 0xe0]),
      thumb('CON', png),
      thumb('..', png),
      thumb('a\u0000b\\c', [1, 2, 3]),
      thumb('x'.repeat(300), png),
    ]);
    expect(names.slice(0, 7)).toEqual(['Hero.png', 'hero-2.png', '_.._etc_passwd.png', 'Level.Level_PersistentLevel.Actor.jpg', 'thumbnail_4_CON.png', 'thumbnail_5.png', 'a_b_c.bin']);
    expect(names[7]).toBe(`${'x'.repeat(120)}.png`);
    for (const n of names) expect(n).not.toMatch(/[/\\\u0000]|^\./);
  });
});
