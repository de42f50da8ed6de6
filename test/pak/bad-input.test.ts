import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IoStoreError } from '../../src/errors.js';
import {
  assertSafePakPath,
  isSafePakPath,
  pakMountRelative,
  readPak,
  readPakEntryBlocks,
  readPakEntryData,
  writeCompanionPak,
  type PakFile,
} from '../../src/pak/index.js';
import { hasCorpus } from '../corpus.js';
import { KEY, P51, P58, P60, bytesOf, expectIoStoreError } from './pak-helpers.js';

const SRC = 'x.pak';
const enc = (s: string) => new TextEncoder().encode(s);
const sha1 = (b: Uint8Array) => new Uint8Array(createHash('sha1').update(b).digest());

/** Parses and reads every entry's bytes, as an extractor would. */
function parseFully(bytes: Uint8Array, opts: { verifyHashes?: boolean; aesKey?: Uint8Array } = {}): PakFile {
  const pak = readPak(bytes, { source: SRC, ...opts });
  for (const e of pak.entries) {
    const o = opts.aesKey ? { aesKey: opts.aesKey } : {};
    if (e.compressionMethodIndex === 0) readPakEntryData(bytes, pak, e, o);
    else readPakEntryBlocks(bytes, pak, e, o);
  }
  return pak;
}

/** Any failure must be a one-line IoStoreError naming the file; success is fine too (e.g. a flipped data byte). */
function mustFailCleanly(f: () => unknown): 'ok' | 'error' {
  try {
    f();
    return 'ok';
  } catch (e) {
    // Plain checks: this runs tens of thousands of times.
    if (!(e instanceof IoStoreError)) throw new Error(`not an IoStoreError: ${String(e)}`);
    if (!e.message.includes(SRC) || e.message.includes('\n')) throw new Error(`badly formed message: ${e.message}`);
    return 'error';
  }
}

const sample = [
  { path: 'AssetRegistry.bin', data: enc('registry') },
  { path: 'Config/DefaultGame.ini', data: enc('[A]\nB=1\n') },
  { path: 'Content/Paks/xx/evil.txt', data: enc('payload') },
];

/**
 * Puts valid SHA-1s back after a same-length patch of a pak laid out as the writer does (ASCII mount point), so a
 * hostile but well-formed pak reaches the parsers with hash checks on.
 */
function rehash(b: Uint8Array, pak: PakFile): void {
  const m = 4 + pak.mountPoint.length + 1;
  const io = pak.indexOffset;
  if (pak.version >= 10) {
    const ph = pak.pathHashIndex!;
    const fd = pak.fullDirectoryIndex!;
    b.set(sha1(b.subarray(ph.offset, ph.offset + ph.size)), io + m + 32);
    b.set(sha1(b.subarray(fd.offset, fd.offset + fd.size)), io + m + 72);
  }
  const before = pak.version >= 7 ? 17 : pak.version >= 4 ? 1 : 0;
  b.set(sha1(b.subarray(io, io + pak.indexSize)), pak.footer.offset + before + 24);
}

function patchAscii(b: Uint8Array, from: string, to: string, start = 0): void {
  expect(to.length).toBe(from.length);
  const at = Buffer.from(b).indexOf(Buffer.from(from, 'latin1'), start);
  expect(at).toBeGreaterThanOrEqual(0);
  b.set(Buffer.from(to, 'latin1'), at);
}

function setI32(b: Uint8Array, at: number, v: number): void {
  new DataView(b.buffer, b.byteOffset).setInt32(at, v, true);
}

describe('pak reader on bad input', () => {
  it('refuses empty, tiny and non-pak files with BAD_MAGIC or TRUNCATED', () => {
    expectIoStoreError(() => readPak(new Uint8Array(0), { source: SRC }), 'TRUNCATED');
    expectIoStoreError(() => readPak(new Uint8Array(10), { source: SRC }), 'TRUNCATED');
    expectIoStoreError(() => readPak(new Uint8Array(4096).fill(0x41), { source: SRC }), 'BAD_MAGIC');
    const err = expectIoStoreError(() => readPak(enc('PK\x03\x04 this is a zip file, not a pak'.repeat(20)), { source: SRC }), 'BAD_MAGIC');
    expect(err.message).toMatch(/offset 0x/);
  });

  it('refuses a wrong magic and an unknown version', () => {
    for (const version of [11, 12, 15]) {
      const good = writeCompanionPak({ version, files: sample });
      const pak = readPak(good, { source: SRC });
      const magicAt = pak.footer.offset + 17;
      const bad = Uint8Array.from(good);
      bad[magicAt] ^= 0xff;
      expectIoStoreError(() => readPak(bad, { source: SRC }), 'BAD_MAGIC');
      const future = Uint8Array.from(good);
      setI32(future, magicAt + 4, 99);
      expect(expectIoStoreError(() => readPak(future, { source: SRC }), 'UNSUPPORTED').message).toContain('99');
      const zero = Uint8Array.from(good);
      setI32(zero, magicAt + 4, 0);
      expectIoStoreError(() => readPak(zero, { source: SRC }), 'BAD_VALUE');
    }
  });

  it('refuses a footer whose index lies outside the file', () => {
    const good = writeCompanionPak({ version: 11, files: sample });
    const pak = readPak(good, { source: SRC });
    const bad = Uint8Array.from(good);
    new DataView(bad.buffer).setBigInt64(pak.footer.offset + 17 + 16, 1n << 40n, true);
    const err = expectIoStoreError(() => readPak(bad, { source: SRC }), 'BAD_VALUE');
    expect(err.message).toMatch(/index at .* lie before the footer/);
  });

  it('notices a corrupted index through its SHA-1', () => {
    const good = writeCompanionPak({ version: 12, files: sample });
    const pak = readPak(good, { source: SRC });
    const bad = Uint8Array.from(good);
    bad[pak.indexOffset + 2] ^= 1;
    expectIoStoreError(() => readPak(bad, { source: SRC }), 'HASH_MISMATCH');
    const badFd = Uint8Array.from(good);
    badFd[pak.fullDirectoryIndex!.offset + 5] ^= 1;
    expect(expectIoStoreError(() => readPak(badFd, { source: SRC }), 'HASH_MISMATCH').message).toContain('full directory index');
    const badData = Uint8Array.from(good);
    badData[pak.entries[0]!.offset + 60] ^= 1;
    const p2 = readPak(badData, { source: SRC });
    expectIoStoreError(() => readPakEntryData(badData, p2, p2.entries[0]!), 'HASH_MISMATCH');
  });

  it('refuses absurd counts without allocating for them', () => {
    const cases: { version: number; patch: (b: Uint8Array, p: PakFile) => void; code: string }[] = [
      // primary index: non-encoded entry count (last i32 of the primary index)
      { version: 11, patch: (b, p) => setI32(b, p.indexOffset + p.indexSize - 4, 0x7fffffff), code: 'TRUNCATED' },
      // primary index: encoded entries size
      { version: 11, patch: (b, p) => setI32(b, p.indexOffset + 4 + p.mountPoint.length + 1 + 92, 0x7fffffff), code: 'TRUNCATED' },
      // primary index: entry count is only declared, but must not be negative
      { version: 11, patch: (b, p) => setI32(b, p.indexOffset + 4 + p.mountPoint.length + 1, -5), code: 'BAD_VALUE' },
      // mount point FString length
      { version: 12, patch: (b, p) => setI32(b, p.indexOffset, 0x7fffffff), code: 'TRUNCATED' },
      { version: 12, patch: (b, p) => setI32(b, p.indexOffset, -0x7fffffff), code: 'TRUNCATED' },
      // path-hash index count
      { version: 12, patch: (b, p) => setI32(b, p.pathHashIndex!.offset, 0x7fffffff), code: 'TRUNCATED' },
      // tree directory index: directory count, then the first directory's file count
      { version: 12, patch: (b, p) => setI32(b, p.fullDirectoryIndex!.offset, 0x7fffffff), code: 'TRUNCATED' },
      { version: 12, patch: (b, p) => setI32(b, p.fullDirectoryIndex!.offset + 4 + 6, 0x7fffffff), code: 'TRUNCATED' },
      // flat directory index: directory count, file count, restart interval, blob sizes, hash count
      ...[4, 8, 16, 20, 24].map((off) => ({ version: 15, patch: (b: Uint8Array, p: PakFile) => setI32(b, p.fullDirectoryIndex!.offset + off, 0x7fffffff), code: 'TRUNCATED' })),
      { version: 15, patch: (b, p) => setI32(b, p.fullDirectoryIndex!.offset + 12, 0), code: 'BAD_VALUE' },
      { version: 15, patch: (b, p) => setI32(b, p.fullDirectoryIndex!.offset + 8, -1), code: 'BAD_VALUE' },
      // legacy (v8) index: entry count
      { version: 8, patch: (b, p) => setI32(b, p.indexOffset + 4 + p.mountPoint.length + 1, 0x7fffffff), code: 'TRUNCATED' },
      { version: 3, patch: (b, p) => setI32(b, p.indexOffset + 4 + p.mountPoint.length + 1, 0x40000000), code: 'TRUNCATED' },
    ];
    for (const c of cases) {
      const good = writeCompanionPak({ version: c.version, files: sample });
      const pak = readPak(good, { source: SRC });
      const bad = Uint8Array.from(good);
      c.patch(bad, pak);
      const started = performance.now();
      expectIoStoreError(() => readPak(bad, { source: SRC, verifyHashes: false }), c.code);
      // Same patch with valid hashes: the parser, not the hash check, must catch it.
      rehash(bad, pak);
      expectIoStoreError(() => readPak(bad, { source: SRC }), c.code);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });

  it('refuses encoded-entry locations and block counts that point outside their tables', () => {
    const good = writeCompanionPak({ version: 12, files: sample });
    const pak = readPak(good, { source: SRC });
    // First file location in the tree directory index -> far past the encoded entries.
    const fd = Uint8Array.from(good);
    patchAscii(fd, 'AssetRegistry.bin', 'AssetRegistry.bin', pak.fullDirectoryIndex!.offset);
    const nameAt = Buffer.from(fd).indexOf(Buffer.from('AssetRegistry.bin'), pak.fullDirectoryIndex!.offset);
    setI32(fd, nameAt + 17, 100000);
    rehash(fd, pak);
    expect(expectIoStoreError(() => readPak(fd, { source: SRC }), 'BAD_VALUE').message).toContain('encoded entry offset');
    setI32(fd, nameAt + 17, -50);
    rehash(fd, pak);
    expect(expectIoStoreError(() => readPak(fd, { source: SRC }), 'BAD_VALUE').message).toContain('non-encoded entry');
    // Encoded bitfield claiming 65535 blocks: the block sizes cannot fit.
    const eb = Uint8Array.from(good);
    const encodedAt = pak.indexOffset + 4 + pak.mountPoint.length + 1 + 96;
    new DataView(eb.buffer).setUint32(encodedAt, (0xffff << 6) | (1 << 23) | (7 << 29), true);
    rehash(eb, pak);
    expectIoStoreError(() => readPak(eb, { source: SRC }), undefined);
  });

  it('flags hostile paths: the reader returns them marked unsafe, extraction checks refuse them', () => {
    const hostile: [number, string, string][] = [
      [12, 'Content/Paks/xx/evil.txt', 'Content/Paks/../evil.txt'],
      [11, 'Content/Paks/xx/evil.txt', 'Content/Paks/..\\evil.txt'],
      [15, 'Content/Paks/xx/evil.txt', 'Content/Paks/xx/evil.txt'],
      [8, 'Content/Paks/xx/evil.txt', '../../../../../../ev.txt'],
      [8, 'Content/Paks/xx/evil.txt', 'C:/Windows/Paks/evil.txt'],
      [5, 'Content/Paks/xx/evil.txt', '/etc/Content/xx/evil.txt'],
    ];
    for (const [version, from, to] of hostile) {
      const good = writeCompanionPak({ version, files: sample });
      const pak = readPak(good, { source: SRC });
      const bad = Uint8Array.from(good);
      if (version >= 13) {
        // The flat index stores file names apart from directories: turn the "xx/" directory into "../".
        // The flat index front-codes directory names: "Content/Paks/xx/" is stored as a shared prefix plus "xx/".
        patchAscii(bad, 'xx/', '../', pak.fullDirectoryIndex!.offset);
      } else if (version >= 10) {
        patchAscii(bad, 'Content/Paks/xx/', to.slice(0, 16), pak.fullDirectoryIndex!.offset);
      } else {
        patchAscii(bad, from, to, pak.indexOffset);
      }
      rehash(bad, pak);
      let read: PakFile | undefined;
      try {
        read = readPak(bad, { source: SRC });
      } catch (e) {
        // A NUL inside an FString is refused outright; that is fine too.
        expect(e).toBeInstanceOf(IoStoreError);
        continue;
      }
      const evil = read.entries.find((e) => !e.safe);
      expect(evil, `v${version} ${to}`).toBeDefined();
      expect(isSafePakPath(evil!.path)).toBe(false);
      expectIoStoreError(() => assertSafePakPath(evil!.path, SRC), 'UNSAFE_PATH');
      expect(read.entries.filter((e) => e.safe).length).toBe(2);
    }
  });

  it('checks mount points before they are used as folders', () => {
    expect(pakMountRelative('../../../')).toBe('');
    expect(pakMountRelative('/')).toBe('');
    expect(pakMountRelative('../../../Game/Content/')).toBe('Game/Content/');
    expect(pakMountRelative('../../../CUE4ParseFixtures')).toBe('CUE4ParseFixtures/');
    for (const m of ['../../../Game/../../x/', 'C:/Game/', '../../..//etc/', '../../../a/./b/']) {
      expectIoStoreError(() => pakMountRelative(m, SRC), 'UNSAFE_PATH');
    }
  });

  describe.skipIf(!hasCorpus)('engine-made paks', () => {
    const engine = [P51, `${P58}PatchBase_0_P.pak`, `${P60}PatchBase_0_P.pak`, `${P58}Legacy-Tagged-OodleEncrypted.pak`, `${P60}Legacy-Tagged-OodleEncrypted.pak`];

    it('fails cleanly when cut short at every length', () => {
      for (const rel of engine) {
        const full = bytesOf(rel);
        // Every length through the index and footer; a stride through the file data before them.
        const indexAt = readPak(full, { source: SRC, aesKey: KEY }).indexOffset;
        for (let len = 0; len < full.length; len += len < indexAt - 64 ? 13 : 1) {
          if (mustFailCleanly(() => parseFully(full.subarray(0, len), { aesKey: KEY })) !== 'error') throw new Error(`${rel} cut at ${len} parsed`);
        }
      }
    });

    it('fails cleanly when the middle is cut out but the footer kept', () => {
      for (const rel of engine) {
        const full = bytesOf(rel);
        const pak = readPak(full, { source: SRC, aesKey: KEY });
        const footer = full.subarray(pak.footer.offset);
        for (let keep = 0; keep < pak.footer.offset; keep += 7) {
          const cut = new Uint8Array(keep + footer.length);
          cut.set(full.subarray(0, keep));
          cut.set(footer, keep);
          if (mustFailCleanly(() => parseFully(cut, { aesKey: KEY })) !== 'error') throw new Error(`${rel} with ${keep} bytes kept parsed`);
        }
      }
    });

    it('never throws anything but IoStoreError when index bytes are flipped (hash checks off)', () => {
      let errors = 0;
      for (const rel of [P51, `${P58}PatchBase.pak`, `${P60}PatchBase.pak`, `${P60}Android-Textures.pak`]) {
        // One copy per pak, each byte flipped in it and back (a copy per case was a third of the test's time).
        const bad = bytesOf(rel);
        const pak = readPak(bad, { source: SRC });
        for (let at = pak.indexOffset; at < bad.length; at++) {
          for (const mask of [0x01, 0xff]) {
            bad[at] ^= mask;
            if (mustFailCleanly(() => parseFully(bad, { verifyHashes: false })) === 'error') errors++;
            bad[at] ^= mask;
          }
        }
      }
      expect(errors).toBeGreaterThan(1000);
    });
  });

  it('never throws anything but IoStoreError on random mutations of written paks', () => {
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (const version of [3, 7, 8, 9, 10, 11, 12, 13, 14, 15]) {
      const good = writeCompanionPak({ version, files: sample });
      for (let k = 0; k < 300; k++) {
        const bad = Uint8Array.from(good);
        const n = 1 + Math.floor(rnd() * 4);
        for (let j = 0; j < n; j++) bad[Math.floor(rnd() * bad.length)] = Math.floor(rnd() * 256);
        mustFailCleanly(() => parseFully(bad, { verifyHashes: false }));
      }
    }
  });
});
