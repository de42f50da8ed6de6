import { describe, expect, it } from 'vitest';
import { cli } from '../cli-helper.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';

const NINJA = corpusPath('ue5-wayoftheninja/WayOfTheNinja-Windows.utoc');
const FIX = corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
const ENC = corpusPath('ue6.0-cue4parse/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc');

interface Row { index: number; id: string; type: string; path: string; size: number; storedSize: number; blocks: number; hash: string }
const json = async (...args: string[]) => {
  const r = await cli(...args, '--json');
  expect(r.code).toBe(0);
  return JSON.parse(r.out);
};

describe('iostore list', () => {
  it('a folder lists every container in mount order, each row naming its container', async () => {
    const folder = corpusPath('ue5.8-cue4parse');
    const j = await json('list', folder, '--aes-key', CORPUS_AES_KEY_HEX);
    // 8 containers, then the 9 paks of paks/ (their rows in pakFiles).
    expect(j.files).toHaveLength(8 + 9);
    expect(j.files[7]).toMatch(/CUE4ParseFixtures-PatchBase_0_P\.utoc$/);
    expect(j.files.at(-1)).toMatch(/CUE4ParseFixtures-PatchBase_0_P\.pak$/);
    expect(j.pakFiles).toHaveLength(20 + 4 * 11 + 4 + 4 + 4 + 2);
    // 5 variants of 112 chunks, the patch base (3) and patch (2), global (1); count: every row, chunks and pak files.
    expect(j.chunks).toHaveLength(5 * 112 + 3 + 2 + 1);
    expect(j.count).toBe(j.chunks.length + j.pakFiles.length);
    expect(j.inputs).toEqual(j.files);
    expect(new Set(j.chunks.map((r: Row & { container: string }) => r.container)).size).toBe(8);
    const bulk = await json('list', folder, corpusPath('ue6.0-cue4parse/zlib'), '--filter', '**/SW_Streaming.ubulk');
    expect(bulk.chunks.map((r: Row & { container: string }) => `${r.container} ${r.size}`)).toEqual([
      ...['Oodle', 'OodlePartitioned', 'Uncompressed', 'Zlib', 'Zlib'].map((v) => `CUE4ParseFixtures-Minimal-${v}-Windows 264600`),
    ]);
    const table = await cli('list', folder, '--type', 'ContainerHeader');
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^container +# +chunk id/);
    expect(table.out.trim().split('\n').at(-1)).toBe('7 of 566 chunks in 8 containers');
    // Without the key, the encrypted container is listed without paths and named in a warning.
    expect(table.err).toMatch(/^warning: .*OodleEncrypted-Windows\.utoc at offset 0x[0-9a-f]+: the directory index is encrypted/);
    const csv = await cli('list', folder, '--csv', '--type', 'ContainerHeader');
    expect(csv.out.split('\n')[0]).toBe('container,index,id,type,path,size,storedSize,blocks,hash');
  });

  it('--json lists every chunk with the public fields', async () => {
    const j = await json('list', NINJA);
    expect(j.chunks).toHaveLength(5370);
    const c: Row = j.chunks[0];
    for (const k of ['index', 'id', 'type', 'path', 'size', 'storedSize', 'hash']) expect(c).toHaveProperty(k);
    expect(c).toMatchObject({ index: 0, id: expect.stringMatching(/^[0-9a-f]{24}$/), type: 'ExportBundleData', hash: '26bd4fe31d96dbd2347e30eb20b9f4e4193aa60e' });
    expect(c.path).toBe('WayOfTheNinja/Content/MetaHumans/Common/Male/Medium/NormalWeight/Poses/m_med_nrw_ring_01_r_pose.uasset');
    expect(j.chunks.filter((r: Row) => r.path !== '').length).toBe(3818);
    expect(j.chunks.reduce((a: number, r: Row) => a + r.blocks, 0)).toBe(74138);
    expect(j.chunks.reduce((a: number, r: Row) => a + r.size, 0)).toBe(4602229481);
  });

  it('--json writes each chunk row on one line, the same text for one container as for the string form of several', async () => {
    const r = await cli('list', NINJA, '--json');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    const rows = JSON.parse(r.out).chunks as Row[];
    // {, file, mountPoint, inputs (3 lines), count, "chunks": [, 5,370 rows, ], "pakFiles": [], } and the end.
    expect(lines).toHaveLength(8 + 5370 + 4);
    const first = lines.indexOf('  "chunks": [') + 1;
    rows.forEach((row, k) => expect(JSON.parse(lines[first + k]!.replace(/,$/, ''))).toEqual(row));
    expect(lines[first]).toMatch(/^ {4}\{"index":0,"id":"[0-9a-f]{24}","type":"ExportBundleData","path":"WayOfTheNinja\/Content\/MetaHumans\//);
    // The rows' bytes (the head and tail name the .utoc's path, which depends on where the corpus is): 2,196,746
    // indented a member a line.
    expect(Buffer.byteLength(`${lines.slice(first, first + 5370).join('\n')}\n`)).toBe(1_697_336);
    // Two containers (rows made as objects, renderJson): the same row text with the container's name first.
    const two = await cli('list', NINJA, FIX, '--json');
    const line = two.out.split('\n').find((l) => l.startsWith('    {"container":"WayOfTheNinja-Windows","index":0,'))!;
    expect(JSON.parse(line.replace(/,$/, ''))).toEqual(rows[0]);
  });

  it('--type filters by chunk type name, case-insensitively', async () => {
    expect((await json('list', NINJA, '--type', 'ShaderCode')).chunks).toHaveLength(1551);
    expect((await json('list', NINJA, '--type', 'bulkdata')).chunks).toHaveLength(844);
    const bad = await cli('list', NINJA, '--type', 'Nope');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown chunk type "Nope"/);
  });

  it('--filter globs on the path', async () => {
    const j = await json('list', FIX, '--filter', '**/*.ubulk');
    expect(j.chunks).toHaveLength(14);
    expect(j.chunks.every((r: Row) => r.type === 'BulkData')).toBe(true);
    const maps = await json('list', FIX, '--filter', 'CUE4ParseFixtures/Content/Fixtures/Maps/*');
    expect(maps.chunks.length).toBeGreaterThan(0);
    expect(maps.chunks.every((r: Row) => r.path.includes('/Maps/'))).toBe(true);
  });

  it('--sort size|path|type orders the rows', async () => {
    const bySize = (await json('list', FIX, '--sort', 'size')).chunks as Row[];
    for (let i = 1; i < bySize.length; i++) expect(bySize[i - 1]!.size).toBeGreaterThanOrEqual(bySize[i]!.size);
    const byPath = (await json('list', FIX, '--sort', 'path')).chunks as Row[];
    const paths = byPath.map((r) => r.path);
    expect(paths).toEqual([...paths].sort());
    const byType = (await json('list', FIX, '--sort', 'type')).chunks as Row[];
    expect(byType[0]!.type).toBe('BulkData');
    expect(byType[byType.length - 1]!.type).toBe('ExportBundleData');
  });

  it('--by-type summarises count, raw and stored bytes', async () => {
    const j = await json('list', NINJA, '--by-type');
    const shader = j.byType.find((t: { type: string }) => t.type === 'ShaderCode');
    expect(shader.count).toBe(1551);
    expect(j.byType.reduce((a: number, t: { count: number }) => a + t.count, 0)).toBe(5370);
    expect(j.byType.reduce((a: number, t: { size: number }) => a + t.size, 0)).toBe(4602229481);
    const text = await cli('list', NINJA, '--by-type');
    expect(text.out).toMatch(/ShaderCode\s+1551/);
  });

  it('--csv writes a header and one row per chunk', async () => {
    const r = await cli('list', FIX, '--csv');
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toBe('index,id,type,path,size,storedSize,blocks,hash');
    expect(lines).toHaveLength(113);
    expect(lines[1]).toBe('0,915ddb99070a4f0400000001,ExportBundleData,CUE4ParseFixtures/Content/Fixtures/Blueprints/S_Fixture.uasset,1825,1825,1,af1e97aed3c5309c0dbf47f14be1385ac22b03f5');
  });

  it('the table view has a header, one line per chunk and a count', async () => {
    const r = await cli('list', FIX);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toMatch(/^\s*#\s+chunk id\s+type\s+path/);
    expect(lines).toHaveLength(2 + 112 + 1);
    expect(lines.at(-1)).toBe('112 of 112 chunks');
  });

  it('an encrypted container lists paths with --aes-key and warns without it', async () => {
    const withKey = await json('list', ENC, '--aes-key', CORPUS_AES_KEY_HEX);
    expect(withKey.chunks.filter((r: Row) => r.path !== '').length).toBe(111);
    const without = await cli('list', ENC);
    expect(without.code).toBe(0);
    expect(without.err).toMatch(/directory index is encrypted/);
  });
});

describe('iostore info', () => {
  it('folders give one row per container in mount order and a total', async () => {
    const r = await cli('info', corpusPath('ue5.8-cue4parse'), corpusPath('ue5.1-patchtest'));
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toMatch(/^container +toc +chunks +files +raw +stored +compression +encryption +partitions$/);
    // 11 containers and 10 paks (the 9 of ue5.8-cue4parse/paks but the one with an encrypted index, and 2 companions).
    expect(r.err).toMatch(/^warning: .*OodleEncrypted\.pak at offset 0x[0-9a-f]+: the pak index is encrypted/);
    expect(lines).toHaveLength(2 + 11 + 10 + 1);
    expect(lines.find((l) => l.startsWith('CUE4ParseFixtures-Legacy-Tagged-Zlib.pak'))).toMatch(/ pak 12 +- +11 /);
    expect(lines.find((l) => l.startsWith('CUE4ParseFixtures-Minimal-OodlePartitioned-Windows'))).toMatch(/ 8 +112 +111 .* Oodle +5$/);
    expect(lines.find((l) => l.startsWith('pakchunk1001-Windows_0_P'))).toMatch(/ 5 +8 +5 /);
    expect(lines.at(-1)).toMatch(/^11 containers, 585 chunks, 10 paks of 67 files, /);
    const j = JSON.parse((await cli('info', corpusPath('ue5.8-cue4parse'), '--json', '--aes-key', CORPUS_AES_KEY_HEX)).out);
    expect(j.containers.map((c: { name: string; fileCount: number }) => c.fileCount)).toEqual([111, 111, 111, 111, 111, 2, null, 1]);
  });

  it('--json reports header values and totals of the largest corpus container', async () => {
    const j = await json('info', NINJA);
    expect(j).toMatchObject({
      version: 8,
      versionName: 'ReplaceIoChunkHashWithIoHash',
      engineGeneration: 'UE5',
      containerId: '0x3e4c1234b9b452eb',
      flags: 9,
      flagNames: ['Compressed', 'Indexed'],
      encryption: 'None',
      encryptionKeyGuid: '00000000000000000000000000000000',
      blockSize: 65536,
      compressionMethods: ['None', 'Oodle'],
      partitionCount: 1,
      partitionSize: null,
      mountPoint: '../../../',
      chunkCount: 5370,
      blockCount: 74138,
      fileCount: 3818,
      rawSize: 4602229481,
      perfectHashSeeds: 2685,
    });
    expect(j.storedSize).toBeLessThan(j.rawSize);
  });

  it('reports partitions and v10 encryption', async () => {
    const part = await json('info', corpusPath('ue5.8-cue4parse/oodlepartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows.utoc'));
    expect(part).toMatchObject({ partitionCount: 5, partitionSize: 262144 });
    const enc = await json('info', ENC, '--aes-key', CORPUS_AES_KEY_HEX);
    expect(enc).toMatchObject({ version: 10, encryption: 'AES-CTR', directoryIndex: 'decrypted', flagNames: ['Compressed', 'Encrypted', 'Indexed'] });
  });

  it('prints a readable summary', async () => {
    const r = await cli('info', NINJA);
    expect(r.out).toMatch(/TOC version:\s+8 \(ReplaceIoChunkHashWithIoHash\)/);
    expect(r.out).toMatch(/Chunks:\s+5370/);
    expect(r.out).toMatch(/Compression:\s+None, Oodle/);
  });

  it('--engine overrides the chunk-type numbering', async () => {
    const j = await json('list', corpusPath('ue5.8-cue4parse/patch/CUE4ParseFixtures-PatchBase.utoc'), '--engine', 'UE4_27');
    expect(j.chunks.map((r: Row) => r.type).sort()).toEqual(['InstallManifest', 'InstallManifest', 'LoaderGlobalMeta']);
    expect((await cli('info', FIX, '--engine', 'UE9')).code).toBe(2);
  });

  it('--help works on every command', async () => {
    for (const [c, usage] of [['info', 'info <input..>'], ['list', 'list <input..>'], ['verify', 'verify <input..>'], ['unpack', 'unpack <input..> <outdir>'], ['pack', 'pack <folder> <output>']]) {
      const r = await cli(c!, '--help');
      expect(r.code).toBe(0);
      expect(r.out).toContain(`iostore ${usage}`);
      expect(r.out).toContain('--json');
    }
    const top = await cli('--help');
    expect(top.out).toMatch(/Commands:/);
    expect((await cli()).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
  });

  it('--version prints the package version without loading any command', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const r = await cli(flag);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`${pkg.version}\n`);
    }
  });
});
