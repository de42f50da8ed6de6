import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildContainer, encodeChunkId, IoStoreError, loadNativeOodle, packageIdFromName } from '../../src/index.js';
import { cli } from '../cli-helper.js';
import { tempDir } from '../tmp.js';

const tmp = tempDir();
const hasCompiler = (() => {
  try {
    execFileSync('cc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Builds the stand-in Oodle library from C source, as the binding's users build nothing: they point at theirs. */
function buildFakeOodle(): string {
  const lib = join(tmp, process.platform === 'win32' ? 'fake-oodle.dll' : 'libfake-oodle.so');
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', lib, resolve(__dirname, '../../native-stubs/test/fake-oodle.c')]);
  return lib;
}

const fakeEncode = (period: Uint8Array) => period.map((b) => b ^ 0x5a);

describe.skipIf(!hasCompiler)('native Oodle binding (koffi)', () => {
  const lib = hasCompiler ? buildFakeOodle() : '';

  it('calls OodleLZ_Decompress in the loaded library and checks the decoded size', async () => {
    const codec = await loadNativeOodle(lib);
    expect(codec.name).toBe('Oodle');
    const out = codec.decompress(fakeEncode(new Uint8Array([1, 2, 3])), 7);
    expect(Array.from(out)).toEqual([1, 2, 3, 1, 2, 3, 1]);
    expect(() => codec.decompress(new Uint8Array([0xff, 1]), 10)).toThrow(IoStoreError);
    expect(() => codec.decompress(new Uint8Array([0xff, 1]), 10)).toThrow(/decoded to 0 bytes, expected 10/);
  });

  it('a missing library is a clear error', async () => {
    await expect(loadNativeOodle(join(tmp, 'nope.so'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('unpack --oodle-lib decodes a container\'s Oodle blocks through the library', async () => {
    // Periodic chunk data, so the stand-in "compresses" it to one period.
    const period = new TextEncoder().encode('sixteen bytes!!!');
    const data = new Uint8Array(100_000).map((_, i) => period[i % 16]!);
    const compressor = { name: 'Oodle', compress: (b: Uint8Array) => fakeEncode(b.subarray(0, 16)) };
    const id = encodeChunkId({ id: packageIdFromName('/Game/Native'), index: 0, pad: 0, type: 2 }, 'UE5');
    const { utoc, ucas } = await buildContainer([{ id, data, path: 'Game/Content/Native.ubulk' }], { name: 'Native-Windows', compressor });
    const dir = join(tmp, 'container');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'Native-Windows.utoc'), utoc);
    writeFileSync(join(dir, 'Native-Windows.ucas'), ucas);

    const withLib = await cli('unpack', join(dir, 'Native-Windows.utoc'), join(tmp, 'out'), '--oodle-lib', lib);
    expect(withLib.err).toBe('');
    expect(withLib.code).toBe(0);
    expect(readFileSync(join(tmp, 'out', 'Game/Content/Native.ubulk')).equals(Buffer.from(data))).toBe(true);
    // Worker threads load the same library from the codec's recipe.
    const workers = await cli('unpack', join(dir, 'Native-Windows.utoc'), join(tmp, 'out-workers'), '--oodle-lib', lib, '--threads', '2');
    expect(workers.err).toBe('');
    expect(workers.code).toBe(0);
    expect(readFileSync(join(tmp, 'out-workers', 'Game/Content/Native.ubulk')).equals(Buffer.from(data))).toBe(true);
    // The built-in decoder cannot read the stand-in's format: the library really did the work.
    const builtIn = await cli('unpack', join(dir, 'Native-Windows.utoc'), join(tmp, 'out2'));
    expect(builtIn.code).toBe(1);
    const env = await cli('verify', join(dir, 'Native-Windows.utoc'), '--threads', '0', '--oodle-lib', lib);
    expect(env.code).toBe(0);
    expect((await cli('verify', join(dir, 'Native-Windows.utoc'), '--threads', '2', '--oodle-lib', lib)).code).toBe(0);
  });
});
