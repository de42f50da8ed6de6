import { describe, expect, it } from 'vitest';
import {
  ENGINE_PAK_VERSIONS,
  PakVersion,
  pakFooterSize,
  pakPathHash,
  pakVersionForEngine,
  readPak,
  readPakEntryData,
  writeCompanionPak,
  type PakFile,
} from '../../src/pak/index.js';
import { readPathHashIndex } from '../../src/pak/path-hash.js';
import { hasCorpus } from '../corpus.js';
import { P51, P51P, P58, P60, bytesOf, expectIoStoreError } from './pak-helpers.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** The files of an engine-made pak, in the order they are stored, to feed back into the writer. */
function filesOf(bytes: Uint8Array, pak: PakFile) {
  return [...pak.entries].sort((a, b) => a.offset - b.offset).map((e) => ({ path: e.path, data: readPakEntryData(bytes, pak, e) }));
}

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

describe.skipIf(!hasCorpus)('companion pak writer against engine-made paks', () => {
  it('reproduces the UE 5.1 empty companion paks byte for byte (mount "/", the engine seed)', () => {
    for (const rel of [P51, P51P]) {
      const engine = bytesOf(rel);
      const pak = readPak(engine, { source: rel });
      const ours = writeCompanionPak({ version: 11, mountPoint: '/', pathHashSeed: pak.pathHashSeed! });
      expect(ours.length).toBe(339);
      expect(firstDifference(ours, engine)).toBe(-1);
    }
  });

  // Uncompressed engine paks: the writer, given the same files, mount point and seed, must produce the same bytes.
  // That covers the in-place headers, encoded entries, both directory index forms and both footer sizes.
  const uncompressed = ['Android-Textures.pak', 'PatchBase.pak', 'PatchBase_0_P.pak', 'Legacy-Tagged-Uncompressed.pak', 'Minimal-Uncompressed.pak'];
  for (const prefix of [P58, P60]) {
    for (const name of uncompressed) {
      const rel = prefix + name;
      it(`reproduces ${rel} byte for byte`, () => {
        const engine = bytesOf(rel);
        const pak = readPak(engine, { source: rel });
        const ours = writeCompanionPak({
          version: pak.version,
          mountPoint: pak.mountPoint,
          files: filesOf(engine, pak),
          pathHashSeed: pak.pathHashSeed!,
          // The corpus project keeps config and localization files in the pruned index (DirectoryIndexKeepFiles).
          keepInPrunedIndex: (p) => p.endsWith('.ini') || p.includes('/Localization/'),
        });
        expect(firstDifference(ours, engine)).toBe(-1);
      });
    }
  }

  it('writes a default empty v11 pak that differs from the UE 5.1 one only in mount point and seed', () => {
    const engine = bytesOf(P51);
    const e = readPak(engine, { source: 'engine.pak' });
    const ours = writeCompanionPak({ version: 11 });
    const o = readPak(ours, { source: 'ours.pak' });
    // Same: footer layout and every flag, entry counts, and the secondary indexes' contents.
    expect(o.version).toBe(e.version);
    expect(o.footer.size).toBe(e.footer.size);
    expect(o.footer.compressionSlots).toBe(e.footer.compressionSlots);
    expect(o.compressionMethods).toEqual(e.compressionMethods);
    expect(o.encryptionKeyGuid).toBe(e.encryptionKeyGuid);
    expect(o.encryptedIndex).toBe(e.encryptedIndex);
    expect(o.indexOffset).toBe(e.indexOffset);
    expect(o.entries).toEqual(e.entries);
    expect(o.declaredEntryCount).toBe(0);
    expect(o.pathHashIndex!.size).toBe(e.pathHashIndex!.size);
    expect(o.pathHashIndex!.hash).toEqual(e.pathHashIndex!.hash);
    expect(o.fullDirectoryIndex!.size).toBe(e.fullDirectoryIndex!.size);
    expect(o.fullDirectoryIndex!.hash).toEqual(e.fullDirectoryIndex!.hash);
    // Different, and why: UnrealPak wrote mount "/" for a pak with no files; we write the engine root
    // "../../../" (8 more bytes of FString, so the index and everything after it shift by 8). The seed is the
    // CRC32 of UnrealPak's output file name; ours is 0 (as repak/retoc). Both change the primary index hash.
    expect([e.mountPoint, o.mountPoint]).toEqual(['/', '../../../']);
    expect(o.indexSize - e.indexSize).toBe(8);
    expect(o.pathHashIndex!.offset - e.pathHashIndex!.offset).toBe(8);
    expect(ours.length - engine.length).toBe(8);
    expect([e.pathHashSeed, o.pathHashSeed]).toEqual([0x9c41b893n, 0n]);
    expect(o.indexHash).not.toBe(e.indexHash);
    // And with the engine's mount point and seed nothing differs at all.
    expect(firstDifference(writeCompanionPak({ version: 11, mountPoint: '/', pathHashSeed: e.pathHashSeed! }), engine)).toBe(-1);
  });

  for (const [prefix, version] of [
    [P58, 12],
    [P60, 15],
  ] as const) {
    it(`writes an empty v${version} pak with the footer and index layout of the engine's ${prefix} companion paks`, () => {
      // No engine-made *empty* pak of these versions exists in the corpus; compare with the companion pak of
      // the same engine instead (same footer shape, same index parts), which the writer reproduces exactly above.
      const e = readPak(bytesOf(`${prefix}Minimal-Uncompressed.pak`), { source: 'engine.pak' });
      expect(pakVersionForEngine(prefix === P58 ? '5.8.1' : '6.0')).toBe(e.version);
      const o = readPak(writeCompanionPak({ version }), { source: 'ours.pak' });
      expect(o.version).toBe(e.version);
      expect(o.footer.size).toBe(e.footer.size);
      expect(o.footer.compressionSlots).toBe(5);
      expect(o.compressionMethods).toEqual(e.compressionMethods);
      expect(o.footer.pakchunkIndex).toBe(e.footer.pakchunkIndex);
      expect(o.footer.encryptionMethod).toBe(e.footer.encryptionMethod);
      expect(o.footer.indexIvs).toEqual(e.footer.indexIvs);
      expect(o.encryptedIndex).toBe(false);
      expect(o.fullDirectoryIndex!.flat).toBe(e.fullDirectoryIndex!.flat);
      expect(o.pathHashIndex!.offset).toBe(o.indexOffset + o.indexSize);
      expect(o.fullDirectoryIndex!.offset).toBe(o.pathHashIndex!.offset + o.pathHashIndex!.size);
      expect(o.footer.offset).toBe(o.fullDirectoryIndex!.offset + o.fullDirectoryIndex!.size);
      expect(e.footer.offset).toBe(e.fullDirectoryIndex!.offset + e.fullDirectoryIndex!.size);
      expect(o.entries).toEqual([]);
    });
  }
});

describe('companion pak writer round trips', () => {
  const files = [
    { path: 'AssetRegistry.bin', data: enc('asset registry bytes') },
    { path: 'Config/DefaultGame.ini', data: enc('[Fixture]\nValue=1\n') },
    { path: 'Content/Über/ß.txt', data: enc('non-ASCII path') },
    { path: 'Content/Empty.bin', data: new Uint8Array(0) },
  ];
  const versions: { version: number; compressionSlots?: 4 | 5 }[] = [];
  for (let v = 1; v <= 15; v++) versions.push({ version: v });
  versions.push({ version: 8, compressionSlots: 4 });

  for (const opts of versions) {
    const label = `v${opts.version}${opts.compressionSlots ? ` with ${opts.compressionSlots} slots` : ''}`;
    it(`${label}: an empty pak parses back`, () => {
      const bytes = writeCompanionPak(opts);
      const pak = readPak(bytes, { source: 'ours.pak' });
      expect(pak.version).toBe(opts.version);
      expect(pak.mountPoint).toBe('../../../');
      expect(pak.entries).toEqual([]);
      expect(pak.footer.size).toBe(pakFooterSize(opts.version, opts.compressionSlots ?? (opts.version >= 8 ? 5 : 0)));
      expect(pak.footer.offset + pak.footer.size).toBe(bytes.length);
    });

    it(`${label}: files parse back with their bytes, paths and hashes`, () => {
      const bytes = writeCompanionPak({ ...opts, mountPoint: '../../../Game/', files, pathHashSeed: 0x1234abcdn });
      const pak = readPak(bytes, { source: 'ours.pak' });
      expect(pak.mountPoint).toBe('../../../Game/');
      expect(pak.entries.map((e) => e.path).sort()).toEqual(files.map((f) => f.path).sort());
      for (const f of files) {
        const e = pak.entries.find((x) => x.path === f.path)!;
        expect(e.compressionMethod).toBe('None');
        expect(e.encrypted).toBe(false);
        expect(Buffer.from(readPakEntryData(bytes, pak, e)).equals(Buffer.from(f.data))).toBe(true);
      }
      if (opts.version >= PakVersion.PathHashIndex) {
        expect(pak.pathHashSeed).toBe(0x1234abcdn);
        const ph = pak.pathHashIndex!;
        const stored = readPathHashIndex(bytes.subarray(ph.offset, ph.offset + ph.size), pak.version, 'ours.pak', ph.offset).entries;
        expect(stored.map((s) => s.hash)).toEqual(files.map((f) => pakPathHash(f.path, 0x1234abcdn, opts.version)));
      }
    });
  }

  it('writes pakchunk index into v14+ footers', () => {
    const pak = readPak(writeCompanionPak({ version: 15, pakchunkIndex: 7 }), { source: 'x.pak' });
    expect(pak.footer.pakchunkIndex).toBe(7);
  });

  it('refuses unsafe or duplicate paths and bad options', () => {
    for (const path of ['../evil.txt', 'a/../../evil', '/etc/passwd', 'C:/Windows/x', 'a\\..\\b', 'a//b', 'nul\0x']) {
      expectIoStoreError(() => writeCompanionPak({ version: 11, files: [{ path, data: new Uint8Array(1) }] }), 'UNSAFE_PATH', 'pak path');
    }
    expectIoStoreError(
      () => writeCompanionPak({ version: 11, files: [{ path: 'A.txt', data: new Uint8Array(1) }, { path: 'a.TXT', data: new Uint8Array(1) }] }),
      'USAGE',
      'twice',
    );
    expectIoStoreError(() => writeCompanionPak({ version: 0 }), 'USAGE', 'version');
    expectIoStoreError(() => writeCompanionPak({ version: 16 }), 'USAGE', 'version');
    expectIoStoreError(() => writeCompanionPak({ version: 11, compressionSlots: 4 }), 'USAGE', 'compressionSlots');
    expectIoStoreError(() => writeCompanionPak({ version: 11, pathHashSeed: -1 }), 'USAGE', 'seed');
  });
});

describe('pakVersionForEngine', () => {
  it('maps engine releases to pak versions', () => {
    const cases: [string, number][] = [
      ['UE4.22', 8],
      ['4.24', 8],
      ['UE4.25', 9],
      ['UE4.26', 11],
      ['4.27.2', 11],
      ['UE5.0', 11],
      ['UE5.1', 11],
      ['UE 5.3', 11],
      ['5.6', 11],
      ['UE5.7', 12],
      ['5.8.1', 12],
      ['UE6.0', 15],
    ];
    for (const [engine, v] of cases) expect(pakVersionForEngine(engine), engine).toBe(v);
  });

  it('marks which rows were verified on corpus bytes', () => {
    expect(ENGINE_PAK_VERSIONS.filter((r) => r.evidence === 'corpus').map((r) => [r.from, r.version])).toEqual([
      ['5.1', 11],
      ['5.8', 12],
      ['6.0', 15],
    ]);
  });

  it('refuses what it cannot map', () => {
    expectIoStoreError(() => pakVersionForEngine('UE5'), 'USAGE', 'UE5');
    expectIoStoreError(() => pakVersionForEngine('banana'), 'USAGE', 'banana');
    expectIoStoreError(() => pakVersionForEngine('UE5.9'), 'UNSUPPORTED', 'UE5.9');
    expectIoStoreError(() => pakVersionForEngine('UE3.0'), 'UNSUPPORTED', 'UE3.0');
  });
});
