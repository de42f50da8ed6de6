import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  pakPathHash,
  readPak,
  readPakEntryBlocks,
  readPakEntryData,
  readPakEntryHeader,
  type PakFile,
} from '../../src/pak/index.js';
import { readFullDirectoryIndex } from '../../src/pak/full-directory.js';
import { readPathHashIndex } from '../../src/pak/path-hash.js';
import { aesCtrCrypt, aesEcbDecrypt } from '../../src/crypto/aes.js';
import { corpusFiles, hasCorpus } from '../corpus.js';
import { REPAK_PAKS } from './repak-fixtures.js';
import { KEY, P51, P51P, P58, P60, WRONG_KEY, bytesOf, expectIoStoreError } from './pak-helpers.js';

const sha1hex = (b: Uint8Array) => createHash('sha1').update(b).digest('hex');
const MOUNT_FIXTURES = '../../../CUE4ParseFixtures/Content/Fixtures/';
const MOUNT_ANDROID = '../../../CUE4ParseFixtures/Content/PlatformFixtures/Android/';
const MOUNT_PATCH = '../../../CUE4ParseFixtures/Content/PatchFixtures/';
const MOUNT_MINIMAL = '../../../CUE4ParseFixtures/';
const LEGACY_PATHS = [
  'DataTables/DT_AllProperties.uasset',
  'DataTables/DT_AllProperties.uexp',
  'Maps/Empty.uexp',
  'Maps/Empty.umap',
  'Properties/DA_AllProperties.uasset',
  'Properties/DA_AllProperties.uexp',
  'Textures/T_BC6H.uasset',
  'Textures/T_BC6H.uexp',
  'Textures/T_Streaming.uasset',
  'Textures/T_Streaming.ubulk',
  'Textures/T_Streaming.uexp',
];
const MINIMAL_PATHS = [
  'AssetRegistry.bin',
  'Config/DefaultGame.ini',
  'Content/Localization/CUE4ParseFixtures/de/CUE4ParseFixtures.locres',
  'Content/Localization/CUE4ParseFixtures/en/CUE4ParseFixtures.locres',
];

interface Expect {
  version: number;
  mount: string;
  count: number;
  methods: string[];
  encrypted?: boolean;
  index: [number, number];
  paths?: string[];
  first?: string;
  seed?: bigint;
}

// Read from the raw bytes with an independent script (footer magic position, version, index offset/size,
// compression name slots, the index's mount point FString, entry count and seed), not with this reader.
const EXPECTED: Record<string, Expect> = {
  [P51]: { version: 11, mount: '/', count: 0, methods: [], index: [0, 106], seed: 0x9c41b893n },
  [P51P]: { version: 11, mount: '/', count: 0, methods: [], index: [0, 106], seed: 0x7df52624n },
  [`${P58}Android-Textures.pak`]: { version: 12, mount: MOUNT_ANDROID, count: 20, methods: [], index: [36815, 405], first: 'T_ASTC_10x10.uasset', seed: 0x07fd88b9n },
  [`${P58}Legacy-Tagged-Oodle.pak`]: { version: 12, mount: MOUNT_FIXTURES, count: 11, methods: ['Oodle'], index: [17836, 333], paths: LEGACY_PATHS },
  [`${P58}Legacy-Tagged-OodleEncrypted.pak`]: { version: 12, mount: MOUNT_FIXTURES, count: 11, methods: ['Oodle'], index: [17919, 384], encrypted: true, paths: LEGACY_PATHS },
  [`${P58}Legacy-Tagged-Uncompressed.pak`]: { version: 12, mount: MOUNT_FIXTURES, count: 11, methods: [], index: [201194, 281], paths: LEGACY_PATHS, seed: 0x13480062n },
  [`${P58}Legacy-Tagged-Zlib.pak`]: { version: 12, mount: MOUNT_FIXTURES, count: 11, methods: ['Zlib'], index: [19854, 321], paths: LEGACY_PATHS },
  [`${P58}Minimal-Oodle.pak`]: { version: 12, mount: MOUNT_MINIMAL, count: 4, methods: ['Oodle'], index: [57332, 208], paths: MINIMAL_PATHS },
  [`${P58}Minimal-Uncompressed.pak`]: { version: 12, mount: MOUNT_MINIMAL, count: 4, methods: [], index: [240010, 180], paths: MINIMAL_PATHS, seed: 0x00fb7d82n },
  [`${P58}PatchBase.pak`]: { version: 12, mount: MOUNT_PATCH, count: 4, methods: [], index: [2879, 202], first: 'DA_PatchReferencer.uasset', seed: 0xe685dc3bn },
  [`${P58}PatchBase_0_P.pak`]: { version: 12, mount: MOUNT_PATCH, count: 2, methods: [], index: [1237, 178], paths: ['DA_PatchTarget.uasset', 'DA_PatchTarget.uexp'], seed: 0xd7bc70f9n },
  [`${P60}Android-Textures.pak`]: { version: 15, mount: MOUNT_ANDROID, count: 20, methods: [], index: [36815, 405], first: 'T_ASTC_10x10.uasset', seed: 0x37a0c5d8n },
  [`${P60}Legacy-Tagged-Oodle.pak`]: { version: 15, mount: MOUNT_FIXTURES, count: 11, methods: ['Oodle'], index: [17786, 333], paths: LEGACY_PATHS },
  [`${P60}Legacy-Tagged-OodleEncrypted.pak`]: { version: 15, mount: MOUNT_FIXTURES, count: 11, methods: ['Oodle'], index: [17871, 512], encrypted: true, paths: LEGACY_PATHS },
  [`${P60}Legacy-Tagged-Uncompressed.pak`]: { version: 15, mount: MOUNT_FIXTURES, count: 11, methods: [], index: [201194, 281], paths: LEGACY_PATHS, seed: 0x6c88bbe3n },
  [`${P60}Legacy-Tagged-Zlib.pak`]: { version: 15, mount: MOUNT_FIXTURES, count: 11, methods: ['Zlib'], index: [19849, 321], paths: LEGACY_PATHS },
  [`${P60}Minimal-Oodle.pak`]: { version: 15, mount: MOUNT_MINIMAL, count: 4, methods: ['Oodle'], index: [59323, 208], paths: MINIMAL_PATHS },
  [`${P60}Minimal-Uncompressed.pak`]: { version: 15, mount: MOUNT_MINIMAL, count: 4, methods: [], index: [249846, 180], paths: MINIMAL_PATHS, seed: 0xf83c58b8n },
  [`${P60}PatchBase.pak`]: { version: 15, mount: MOUNT_PATCH, count: 4, methods: [], index: [2879, 202], first: 'DA_PatchReferencer.uasset', seed: 0x5cdff800n },
  [`${P60}PatchBase_0_P.pak`]: { version: 15, mount: MOUNT_PATCH, count: 2, methods: [], index: [1237, 178], paths: ['DA_PatchTarget.uasset', 'DA_PatchTarget.uexp'], seed: 0x16b6fa42n },
};

const load = (rel: string): { bytes: Uint8Array; pak: PakFile } => {
  const bytes = bytesOf(rel);
  return { bytes, pak: readPak(bytes, { source: rel, aesKey: KEY }) };
};

describe.skipIf(!hasCorpus)('pak reader on the corpus', () => {
  it('covers every .pak of the corpus (pak-repak/ in repak-corpus.test.ts)', () => {
    expect(corpusFiles('.pak').sort()).toEqual([...Object.keys(EXPECTED), ...REPAK_PAKS].sort());
  });

  for (const [rel, x] of Object.entries(EXPECTED)) {
    it(`parses ${rel}`, () => {
      const { pak } = load(rel);
      expect(pak.version).toBe(x.version);
      expect(pak.mountPoint).toBe(x.mount);
      expect(pak.entries.length).toBe(x.count);
      expect(pak.declaredEntryCount).toBe(x.count);
      expect(pak.deleted).toEqual([]);
      expect(pak.compressionMethods).toEqual(x.methods);
      expect(pak.encryptedIndex).toBe(x.encrypted ?? false);
      expect(pak.encryptionKeyGuid).toBe('0'.repeat(32));
      expect([pak.indexOffset, pak.indexSize]).toEqual(x.index);
      if (x.paths) expect(pak.entries.map((e) => e.path)).toEqual(x.paths);
      if (x.first) expect(pak.entries[0]!.path).toBe(x.first);
      if (x.seed !== undefined) expect(pak.pathHashSeed).toBe(x.seed);
      expect(pak.entries.every((e) => e.safe)).toBe(true);
      // Both secondary indexes are present in every engine-made pak of the corpus; v15 uses the flat form.
      expect(pak.pathHashIndex?.count).toBe(x.count);
      expect(pak.fullDirectoryIndex?.flat).toBe(x.version >= 13);
      if (x.version === 15) {
        expect(pak.footer.pakchunkIndex).toBe(-1);
        expect(pak.footer.encryptionMethod).toBe(x.encrypted ? 2 : 1);
        expect(pak.footer.size).toBe(262);
      } else {
        expect(pak.footer.size).toBe(221);
        expect(pak.footer.compressionSlots).toBe(5);
      }
    });
  }

  it('recomputes the engine path hashes (FNV-64 of the lower-cased UTF-16 path, seeded) for every pak', () => {
    for (const rel of Object.keys(EXPECTED)) {
      const { bytes, pak } = load(rel);
      const ph = pak.pathHashIndex!;
      let phBytes = bytes.subarray(ph.offset, ph.offset + ph.size);
      let fdBytes = bytes.subarray(pak.fullDirectoryIndex!.offset, pak.fullDirectoryIndex!.offset + pak.fullDirectoryIndex!.size);
      if (pak.encryptedIndex) {
        const ivs = pak.footer.indexIvs;
        phBytes = ivs && pak.footer.encryptionMethod === 2 ? aesCtrCrypt(KEY, ivs.pathHash, phBytes) : aesEcbDecrypt(KEY, phBytes);
        fdBytes = ivs && pak.footer.encryptionMethod === 2 ? aesCtrCrypt(KEY, ivs.fullDirectory, fdBytes) : aesEcbDecrypt(KEY, fdBytes);
      }
      const stored = readPathHashIndex(phBytes, pak.version, rel, ph.offset, pak.encryptedIndex).entries;
      const mine = pak.entries.map((e) => pakPathHash(e.path, pak.pathHashSeed!, pak.version));
      expect(new Set(stored.map((s) => s.hash))).toEqual(new Set(mine));
      const flat = readFullDirectoryIndex(fdBytes, pak.version, rel, 0, pak.encryptedIndex);
      if (flat.flat) expect(new Set(flat.pathHashes!.map((s) => s.hash))).toEqual(new Set(mine));
    }
  });

  it('reads uncompressed entries: sizes and the SHA-1 of each in-place header match', () => {
    let checked = 0;
    for (const rel of Object.keys(EXPECTED)) {
      const { bytes, pak } = load(rel);
      for (const e of pak.entries) {
        if (e.compressionMethodIndex !== 0 || e.encrypted) continue;
        const data = readPakEntryData(bytes, pak, e);
        expect(data.length).toBe(e.size);
        expect(data.length).toBe(e.uncompressedSize);
        const { header } = readPakEntryHeader(bytes, pak, e);
        expect(header.offset).toBe(0);
        expect(sha1hex(data)).toBe(Buffer.from(header.hash!).toString('hex'));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(70);
  });

  it('reads real file contents (the config file of the companion pak)', () => {
    const { bytes, pak } = load(`${P58}Minimal-Uncompressed.pak`);
    const ini = pak.entries.find((e) => e.path === 'Config/DefaultGame.ini')!;
    const raw = readPakEntryData(bytes, pak, ini);
    expect(raw.length).toBe(335);
    const text = Buffer.from(raw).toString('utf8');
    expect(text.startsWith('[/Script/UnrealEd.ProjectPackagingSettings]')).toBe(true);
    expect(text).toContain('String=Deterministic fixture value');
    expect(text).toContain('Integer=305419896');
  });

  for (const prefix of [P58, P60]) {
    it(`inflates the Zlib blocks of ${prefix}Legacy-Tagged-Zlib.pak to the bytes of the uncompressed pak`, () => {
      const z = load(`${prefix}Legacy-Tagged-Zlib.pak`);
      const u = load(`${prefix}Legacy-Tagged-Uncompressed.pak`);
      let compressed = 0;
      for (const e of z.pak.entries) {
        const plain = readPakEntryData(u.bytes, u.pak, u.pak.entries.find((x) => x.path === e.path)!);
        let got: Uint8Array;
        if (e.compressionMethod === 'Zlib') {
          const blocks = readPakEntryBlocks(z.bytes, z.pak, e);
          expect(blocks.length).toBe(Math.ceil(e.uncompressedSize / e.compressionBlockSize));
          got = new Uint8Array(Buffer.concat(blocks.map((b) => inflateSync(b))));
          compressed++;
        } else {
          got = readPakEntryData(z.bytes, z.pak, e);
        }
        expect(sha1hex(got)).toBe(sha1hex(plain));
      }
      expect(compressed).toBe(7);
    });

    it(`decrypts ${prefix}Legacy-Tagged-OodleEncrypted.pak to the stored bytes of the unencrypted Oodle pak`, () => {
      const enc = load(`${prefix}Legacy-Tagged-OodleEncrypted.pak`);
      const plain = load(`${prefix}Legacy-Tagged-Oodle.pak`);
      expect(enc.pak.entries.every((e) => e.encrypted)).toBe(true);
      for (const e of enc.pak.entries) {
        const twin = plain.pak.entries.find((x) => x.path === e.path)!;
        if (e.compressionMethodIndex === 0) {
          expect(sha1hex(readPakEntryData(enc.bytes, enc.pak, e, { aesKey: KEY }))).toBe(sha1hex(readPakEntryData(plain.bytes, plain.pak, twin)));
          expectIoStoreError(() => readPakEntryData(enc.bytes, enc.pak, e), 'NEEDS_KEY', enc.pak.source);
        } else {
          const a = readPakEntryBlocks(enc.bytes, enc.pak, e, { aesKey: KEY }).map(sha1hex);
          const b = readPakEntryBlocks(plain.bytes, plain.pak, twin).map(sha1hex);
          expect(a).toEqual(b);
        }
      }
    });
  }

  for (const rel of [`${P58}Legacy-Tagged-OodleEncrypted.pak`, `${P60}Legacy-Tagged-OodleEncrypted.pak`]) {
    it(`refuses ${rel} without a key (NEEDS_KEY) and with a wrong one (BAD_KEY)`, () => {
      const bytes = bytesOf(rel);
      const e1 = expectIoStoreError(() => readPak(bytes, { source: rel }), 'NEEDS_KEY', rel);
      expect(e1.message).toMatch(/AES key/);
      const e2 = expectIoStoreError(() => readPak(bytes, { source: rel, aesKey: WRONG_KEY }), 'BAD_KEY', rel);
      expect(e2.message).toMatch(/does not decrypt/);
      expectIoStoreError(() => readPak(bytes, { source: rel, aesKey: new Uint8Array(16) }), 'BAD_KEY', rel);
    });
  }

  it('refuses to return compressed bytes as data, and names the method', () => {
    const { bytes, pak } = load(`${P58}Minimal-Oodle.pak`);
    const ar = pak.entries.find((e) => e.path === 'AssetRegistry.bin')!;
    expect(ar.compressionMethod).toBe('Oodle');
    expect(ar.blocks!.length).toBe(4);
    expect(ar.uncompressedSize).toBe(219539);
    const err = expectIoStoreError(() => readPakEntryData(bytes, pak, ar), 'UNSUPPORTED', pak.source);
    expect(err.message).toContain('Oodle');
  });
});
