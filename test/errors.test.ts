import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportError } from '../src/cli/main.js';
import { IoStoreError, buildDirectoryIndex, defaultCodecs, encodeFString, fromHex, packFolder, readToc, safeOutputPath, serializeToc, unpack, MANIFEST_NAME, type Manifest } from '../src/index.js';
import { assertSafePakPath, pakMountRelative, readPak, readPakEntryBlocks, writeCompanionPak } from '../src/pak/index.js';
import { concatBytes } from '../src/toc/directory-index.js';
import { cli } from './cli-helper.js';
import { corpusPath, hasCorpus } from './corpus.js';
import { freshPaths, tempDir } from './tmp.js';

const tmp = tempDir('iostore-quote-');
const fresh = freshPaths(tmp);
const PLAIN = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc';

// Names a hostile or corrupt file may hold: a newline, terminal escape sequences, and a very long name.
const HOSTILE = {
  newline: 'evil\nname.uasset',
  escapes: '\u001b[2J\u001b[31mred\u001b]0;title\u0007',
  long: `${'N'.repeat(100_000)}.uasset`,
};

/** The one-line rule: a single line, no raw controls, bounded length, and the name shown escaped and cut. */
function expectOneLine(message: string, name: string): void {
  expect(message.split('\n')).toHaveLength(1);
  // eslint-disable-next-line no-control-regex
  expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect(message.length).toBeLessThan(1200);
  if (name.length > 80) expect(message).toMatch(/…" \(\d{6} characters\)/);
  if (name.includes('\n')) expect(message).toContain('\\n');
  if (name.includes('\u001b')) expect(message).toContain('\\u001b[2J');
}

function thrown(f: () => unknown): IoStoreError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(IoStoreError);
    return e as IoStoreError;
  }
  throw new Error('expected an IoStoreError');
}

/** A TOC whose directory index holds `name` as a raw string (the writer itself refuses such names). */
function tocWithName(mountPoint: string, dirName: string, fileName: string): Uint8Array {
  const toc = readToc(new Uint8Array(readFileSync(corpusPath(PLAIN))));
  const N = 0xffffffff;
  const u32 = (v: number) => new Uint8Array(new Uint32Array([v]).buffer);
  const index = concatBytes([
    encodeFString(mountPoint),
    u32(2), new Uint8Array(new Uint32Array([N, 1, N, N, 0, N, N, 0]).buffer),
    u32(1), new Uint8Array(new Uint32Array([1, N, 0]).buffer),
    u32(2), encodeFString(dirName), encodeFString(fileName),
  ]);
  return serializeToc({ ...toc, directoryIndexBytes: index });
}

describe('IoStoreError', () => {
  it('escapes whatever reaches it unquoted: the message and the file name stay one line', () => {
    const e = new IoStoreError('BAD_VALUE', 'first\nsecond\u001b[2J', { file: 'a\nb.utoc', offset: 16 });
    expect(e.message).toBe('a\\nb.utoc at offset 0x10: first\\nsecond\\u001b[2J');
    expect(e.file).toBe('a\nb.utoc');
  });

  it('the CLI prints an unexpected error on one line too', () => {
    let err = '';
    const code = reportError(new Error('boom\nat line two'), { out: () => {}, err: (t) => (err += t), isTTY: false }, false);
    expect(code).toBe(2);
    expect(err).toBe('iostore: internal error: boom\\nat line two\n');
  });
});

describe.skipIf(!hasCorpus)('error messages that quote names from a file', () => {
  for (const [what, name] of Object.entries(HOSTILE)) {
    it(`directory index name (${what}): list and info print one escaped line`, async () => {
      const p = join(tmp, `dir-${what}.utoc`);
      // A trailing control character makes even the long name invalid.
      writeFileSync(p, tocWithName('../../../', `${name}\u0001`, 'x.uasset'));
      const e = thrown(() => readToc(new Uint8Array(readFileSync(p)), { source: p }).files());
      expect(e.code).toBe('UNSAFE_PATH');
      expectOneLine(e.message, name);
      for (const cmd of ['list', 'info']) {
        const r = await cli(cmd, p);
        expect(r.code).toBe(2);
        expect(r.err.endsWith('\n')).toBe(true);
        expectOneLine(r.err.slice(0, -1), name);
      }
    });

    it(`directory index mount point (${what})`, async () => {
      const p = join(tmp, `mount-${what}.utoc`);
      writeFileSync(p, tocWithName(`/${name}/`, 'Game', 'x.uasset'));
      const r = await cli('list', p, '--json');
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/mount point .* is not a relative engine path/);
      expectOneLine(r.err.slice(0, -1), name);
    });

    it(`paths built into an index or an output folder (${what})`, () => {
      expectOneLine(thrown(() => buildDirectoryIndex('../../../', [{ path: `Game/${name}/..`, tocIndex: 0 }])).message, name);
      expectOneLine(thrown(() => safeOutputPath(tmp, `${name}/../../x`)).message, name);
    });

    it(`pak paths and mount points (${what})`, () => {
      expectOneLine(thrown(() => assertSafePakPath(`/${name}`, 'x.pak')).message, name);
      expectOneLine(thrown(() => pakMountRelative(`/abs/${name}/`, 'x.pak')).message, name);
      expectOneLine(thrown(() => writeCompanionPak({ version: 11, files: [{ path: `../${name}`, data: new Uint8Array(1) }] })).message, name);
    });

    it(`codec names, hex strings and --package queries (${what})`, async () => {
      expectOneLine(thrown(() => defaultCodecs().require(name)).message, name);
      expectOneLine(thrown(() => fromHex(`zz${name}`)).message, name);
      const r = await cli('inspect', corpusPath(PLAIN), name);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/no package/);
      expectOneLine(r.err.slice(0, -1), name);
      const v = await cli('inspect', corpusPath('zen-assets/UE5.0/ContainerHeader_1.bin'), '--container-header-version', name);
      expect(v.code).toBe(2);
      expectOneLine(v.err.slice(0, -1), name);
    });
  }

  it('a pak entry path read from the file (an index patched to hold control characters)', () => {
    const clean = 'ab12345678.txt';
    const bytes = writeCompanionPak({ version: 8, mountPoint: '../../../', files: [{ path: clean, data: new Uint8Array(100) }] });
    const at = Buffer.from(bytes).indexOf(clean);
    expect(at).toBeGreaterThan(0);
    const evil = 'ab\n\u001b[2J\u000778.txt';
    expect(evil.length).toBe(clean.length);
    bytes.set(Buffer.from(evil, 'latin1'), at);
    const pak = readPak(bytes, { source: 'x.pak', verifyHashes: false });
    expect(pak.entries[0]!.path).toBe(evil);
    expect(pak.entries[0]!.safe).toBe(false);
    const e = thrown(() => readPakEntryBlocks(bytes, pak, pak.entries[0]!));
    expectOneLine(e.message, evil);
    expect(e.message).toContain('"ab\\n\\u001b[2J\\u000778.txt"');
  });

  it('pack: a manifest path outside the mount point', async () => {
    const dir = fresh('unpacked');
    await unpack([corpusPath(PLAIN)], dir);
    const mpath = join(dir, MANIFEST_NAME);
    const m = JSON.parse(readFileSync(mpath, 'utf8')) as Manifest;
    const named = m.containers[0]!.chunks.find((c) => c.tocPath !== undefined)!;
    named.tocPath = `Elsewhere/${HOSTILE.escapes}${HOSTILE.long}`;
    writeFileSync(mpath, JSON.stringify(m));
    const r = await cli('pack', dir, fresh('out.utoc'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/is not below the mount point/);
    expectOneLine(r.err.slice(0, -1), `${HOSTILE.escapes}${HOSTILE.long}`);
    await expect(packFolder(dir, fresh('out.utoc'))).rejects.toMatchObject({ code: 'BAD_VALUE' });
  });
});
