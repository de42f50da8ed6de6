import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  IoStoreError,
  encodeFString,
  parseAesKey,
  readToc,
  serializeToc,
  type DirectoryIndex,
} from '../../src/index.js';
import { concatBytes } from '../../src/toc/directory-index.js';
import { cli } from '../cli-helper.js';
import { tempDir } from '../tmp.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';

const PLAIN = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc';
const CTR = 'ue6.0-cue4parse/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc';
const V5 = 'ue5.1-patchtest/jh-patchtest-chunk1001-p/pakchunk1001-Windows_0_P.utoc';
const bytesOf = (rel: string) => new Uint8Array(readFileSync(corpusPath(rel)));
const KEY = parseAesKey(CORPUS_AES_KEY_HEX);

const tmp = tempDir('iostore-bad-');
let fileNo = 0;
const writeTmp = (bytes: Uint8Array) => {
  const p = join(tmp, `case${fileNo++}.utoc`);
  writeFileSync(p, bytes);
  return p;
};

/** Parses and also walks the directory index, as `list` does. */
function parseFully(bytes: Uint8Array, aesKey?: Uint8Array) {
  const toc = readToc(bytes, aesKey ? { source: 'x.utoc', aesKey } : { source: 'x.utoc' });
  toc.files();
  for (let i = 0; i < toc.chunkCount; i++) toc.chunkStoredSize(i);
  return toc;
}

function expectIoStoreError(f: () => unknown, code?: string): IoStoreError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(IoStoreError);
    const err = e as IoStoreError;
    if (code) expect(err.code).toBe(code);
    expect(err.message).toContain('x.utoc');
    expect(err.message).not.toContain('\n');
    return err;
  }
  throw new Error('expected an IoStoreError');
}

describe('truncated files', () => {
  it.each([PLAIN, CTR, V5])('%s: cut at every section boundary and inside each section', (rel) => {
    const full = bytesOf(rel);
    const toc = readToc(full, { aesKey: KEY });
    const cuts = new Set<number>([0, 1, 15, 16, 100, 143]);
    for (const s of toc.sections) {
      cuts.add(s.offset);
      cuts.add(s.offset + 1);
      cuts.add(s.offset + Math.floor(s.size / 2));
      cuts.add(s.offset + s.size - 1);
    }
    cuts.delete(full.length);
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      const err = expectIoStoreError(() => parseFully(full.subarray(0, cut), KEY));
      expect(['TRUNCATED', 'BAD_MAGIC', 'SIZE_MISMATCH']).toContain(err.code);
      expect(err.offset).toBeDefined();
      expect(err.offset!).toBeLessThanOrEqual(cut);
    }
  });

  it('names the section and the offset where the data ran out', () => {
    const full = bytesOf(PLAIN);
    const toc = readToc(full);
    const metas = toc.sections.find((s) => s.name === 'chunk metas')!;
    const err = expectIoStoreError(() => readToc(full.subarray(0, metas.offset + 10), { source: 'x.utoc' }), 'TRUNCATED');
    expect(err.message).toContain('chunk metas');
    expect(err.offset).toBe(metas.offset);
  });

  it('reports bytes left over after the last section', () => {
    const full = concatBytes([bytesOf(PLAIN), new Uint8Array(7)]);
    const err = expectIoStoreError(() => readToc(full, { source: 'x.utoc' }), 'SIZE_MISMATCH');
    expect(err.message).toContain('7 bytes left over after the chunk metas');
    expect(err.offset).toBe(full.length - 7);
  });
});

describe('corrupt headers', () => {
  const patch = (rel: string, f: (v: DataView, b: Uint8Array) => void) => {
    const b = bytesOf(rel).slice();
    f(new DataView(b.buffer), b);
    return b;
  };

  it('rejects a wrong magic', () => {
    expectIoStoreError(() => readToc(patch(PLAIN, (_v, b) => (b[3] = 0x41)), { source: 'x.utoc' }), 'BAD_MAGIC');
  });

  it('rejects unknown versions, header sizes and block entry sizes', () => {
    expectIoStoreError(() => readToc(patch(PLAIN, (v) => v.setUint8(0x10, 11)), { source: 'x.utoc' }), 'UNSUPPORTED');
    expectIoStoreError(() => readToc(patch(PLAIN, (v) => v.setUint8(0x10, 0)), { source: 'x.utoc' }), 'UNSUPPORTED');
    expectIoStoreError(() => readToc(patch(PLAIN, (v) => v.setUint32(0x14, 145, true)), { source: 'x.utoc' }), 'BAD_VALUE');
    expectIoStoreError(() => readToc(patch(PLAIN, (v) => v.setUint32(0x20, 16, true)), { source: 'x.utoc' }), 'BAD_VALUE');
  });

  it.each([
    ['entry count', 0x18],
    ['block count', 0x1c],
    ['method name count', 0x24],
    ['directory index size', 0x30],
    ['perfect-hash seed count', 0x54],
    ['overflow count', 0x60],
    ['source-hash count', 0x64],
    ['IV count', 0x68],
  ])('a %s that would need gigabytes fails before allocating', (_name, at) => {
    const b = patch(CTR, (v) => v.setUint32(at, 0xfffffff0, true));
    const before = process.memoryUsage().arrayBuffers;
    const t0 = performance.now();
    const err = expectIoStoreError(() => readToc(b, { source: 'x.utoc', aesKey: KEY }));
    expect(['TRUNCATED', 'BAD_VALUE']).toContain(err.code);
    expect(performance.now() - t0).toBeLessThan(200);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
  });

  it('rejects a block whose method index names no method', () => {
    const full = bytesOf('ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc');
    const toc = readToc(full);
    const blocks = toc.sections.find((s) => s.name === 'compression blocks')!;
    const b = full.slice();
    b[blocks.offset + 11] = 9;
    const err = expectIoStoreError(() => readToc(b, { source: 'x.utoc' }), 'BAD_VALUE');
    expect(err.offset).toBe(blocks.offset + 11);
  });

  it('rejects a chunk whose blocks lie past the block table', () => {
    const full = bytesOf(PLAIN);
    const b = full.slice();
    b[144 + 112 * 12] = 0x7f; // first chunk's offset, high byte
    expectIoStoreError(() => readToc(b, { source: 'x.utoc' }), 'BAD_VALUE');
  });
});

describe('encryption', () => {
  it('a wrong AES key is reported as such (ECB and CTR)', () => {
    const wrong = parseAesKey('00'.repeat(32));
    for (const rel of [CTR, 'ue5.8-cue4parse/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc']) {
      const err = expectIoStoreError(() => readToc(bytesOf(rel), { source: 'x.utoc', aesKey: wrong }), 'BAD_KEY');
      expect(err.message).toMatch(/wrong key/);
    }
  });

  it('malformed keys are refused', () => {
    expect(() => parseAesKey('abcd')).toThrow(/64 hex digits/);
    expect(parseAesKey(Buffer.from(KEY).toString('base64'))).toEqual(KEY);
    expect(parseAesKey(CORPUS_AES_KEY_HEX.toLowerCase())).toEqual(KEY);
  });
});

/** Replaces the directory index of a plain corpus TOC. */
function withDirectoryIndex(index: DirectoryIndex | Uint8Array): Uint8Array {
  const toc = readToc(bytesOf(PLAIN));
  const bytes = index instanceof Uint8Array ? index : serializeIndexUnchecked(index);
  return serializeToc({ ...toc, header: toc.header, directoryIndexBytes: bytes });
}

function serializeIndexUnchecked(ix: DirectoryIndex): Uint8Array {
  const u32 = (v: number) => new Uint8Array(new Uint32Array([v]).buffer);
  return concatBytes([
    encodeFString(ix.mountPoint),
    u32(ix.directories.length / 4), new Uint8Array(ix.directories.buffer),
    u32(ix.files.length / 3), new Uint8Array(ix.files.buffer),
    u32(ix.strings.length), ...ix.strings.map(encodeFString),
  ]);
}

const N = 0xffffffff;
const oneFile = (mountPoint: string, dirName: string, fileName: string): DirectoryIndex => ({
  mountPoint,
  directories: new Uint32Array([N, 1, N, N, 0, N, N, 0]),
  files: new Uint32Array([1, N, 0]),
  strings: [dirName, fileName],
});

describe('hostile directory indexes', () => {
  it.each([
    ['a ".." name', oneFile('../../../', '..', 'x.uasset')],
    ['a name with a slash', oneFile('../../../', 'a/../../b', 'x.uasset')],
    ['a name with a backslash', oneFile('../../../', 'Game', '..\\..\\x.uasset')],
    ['a drive letter', oneFile('../../../', 'C:', 'x.uasset')],
    ['an absolute mount point', oneFile('/etc/', 'Game', 'x.uasset')],
    ['a drive-letter mount point', oneFile('C:/Windows/', 'Game', 'x.uasset')],
    ['a mount point that climbs after a folder', oneFile('../../../Game/../../../', 'Game', 'x.uasset')],
  ])('%s is rejected with UNSAFE_PATH', (_name, index) => {
    const err = expectIoStoreError(() => parseFully(withDirectoryIndex(index)), 'UNSAFE_PATH');
    expect(err.offset).toBeDefined();
  });

  it("refuses '/', '\\', ':' and control characters wherever they are in a name (names are checked 16 bytes a step, the last ones masked)", () => {
    for (const bad of ['/', '\\', ':', '\x01', '\x1f']) {
      for (let at = 0; at < 41; at++) {
        const name = `${'a'.repeat(at)}${bad}${'b'.repeat(40 - at)}.uasset`;
        expectIoStoreError(() => parseFully(withDirectoryIndex(oneFile('../../../', 'Game', name))), 'UNSAFE_PATH');
      }
    }
    // Names of every length to past two steps, each byte's neighbours the masked lanes of a last step: all taken.
    for (let n = 1; n <= 40; n++) expect(() => parseFully(withDirectoryIndex(oneFile('../../../', 'Game', `${'~ '.repeat(n).slice(0, n)}x`)))).not.toThrow();
  });

  it('a looping directory tree fails instead of hanging', () => {
    const loop: DirectoryIndex = {
      mountPoint: '../../../',
      directories: new Uint32Array([N, 1, N, N, 0, 1, N, N]), // directory 1 is its own first child
      files: new Uint32Array([1, N, 0]),
      strings: ['Game', 'x.uasset'],
    };
    const err = expectIoStoreError(() => parseFully(withDirectoryIndex(loop)), 'BAD_VALUE');
    expect(err.message).toMatch(/loop/);
    const fileLoop: DirectoryIndex = { ...oneFile('../../../', 'Game', 'x.uasset'), files: new Uint32Array([1, 0, 0]) };
    expectIoStoreError(() => parseFully(withDirectoryIndex(fileLoop)), 'BAD_VALUE');
  });

  it('a file pointing past the chunk table is rejected', () => {
    const ix = { ...oneFile('../../../', 'Game', 'x.uasset'), files: new Uint32Array([1, N, 5000]) };
    expectIoStoreError(() => parseFully(withDirectoryIndex(ix)), 'BAD_VALUE');
  });

  it('a string table count of billions fails before allocating', () => {
    const ix = serializeIndexUnchecked(oneFile('../../../', 'Game', 'x.uasset'));
    const dv = new DataView(ix.buffer);
    const countAt = 4 + 10 + 4 + 32 + 4 + 12;
    expect(dv.getUint32(countAt, true)).toBe(2);
    dv.setUint32(countAt, 0x40000000, true);
    expectIoStoreError(() => parseFully(withDirectoryIndex(ix)), 'TRUNCATED');
  });
});

describe('the CLI on bad input', () => {
  it.each([
    ['truncated', () => bytesOf(PLAIN).subarray(0, 5000)],
    ['wrong magic', () => new Uint8Array(200)],
    ['hostile name', () => withDirectoryIndex(oneFile('../../../', '..', 'x.uasset'))],
    ['huge count', () => { const b = bytesOf(PLAIN).slice(); new DataView(b.buffer).setUint32(0x18, 0x7fffffff, true); return b; }],
  ])('%s: one line on stderr naming the file and offset, exit code 2', async (_name, make) => {
    const p = writeTmp(make());
    for (const cmd of ['list', 'info']) {
      const r = await cli(cmd, p);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain(p);
      expect(r.err).toMatch(/offset 0x[0-9a-f]+/);
      expect(r.err).not.toMatch(/\bat .*\.js:\d+/);
    }
  });

  it('a wrong key: exit code 2 and a clear message', async () => {
    const r = await cli('list', corpusPath(CTR), '--aes-key', '11'.repeat(32));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/AES key does not decrypt the directory index/);
  });

  it('--verbose adds the stack trace', async () => {
    const r = await cli('info', writeTmp(new Uint8Array(200)), '--verbose');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/IoStoreError/);
    expect(r.err.split('\n').length).toBeGreaterThan(2);
  });
});

describe('fuzz', () => {
  it('thousands of corrupted TOCs give IoStoreErrors or valid parses, never a crash or hang', () => {
    const sources = [bytesOf(PLAIN), bytesOf(CTR), bytesOf(V5)];
    let seed = 12345;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let errors = 0;
    const t0 = performance.now();
    for (let iter = 0; iter < 3000; iter++) {
      const src = sources[iter % sources.length]!;
      const b = src.slice();
      const flips = 1 + rand(8);
      for (let k = 0; k < flips; k++) {
        // Bias towards the header and the directory index, where counts and names live.
        const at = rand(3) === 0 ? rand(144) : rand(b.length);
        b[at] = rand(3) === 0 ? 0xff : b[at]! ^ (1 << rand(8));
      }
      const cut = rand(10) === 0 ? rand(b.length) : b.length;
      try {
        parseFully(b.subarray(0, cut), KEY);
      } catch (e) {
        if (!(e instanceof IoStoreError)) throw new Error(`iteration ${iter}: ${String(e)}`);
        errors++;
      }
    }
    expect(errors).toBeGreaterThan(500);
    expect(performance.now() - t0).toBeLessThan(30_000);
  });
});
