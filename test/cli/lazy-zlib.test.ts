import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin', 'iostore.js');

/** A preload that writes, at each thread's exit, whether that thread had loaded node:zlib. */
const PRELOAD = `
const fs = require('node:fs');
process.on('exit', () => {
  const loaded = process.moduleLoadList.includes('NativeModule zlib');
  const { isMainThread } = require('node:worker_threads');
  fs.writeSync(2, (isMainThread ? 'main' : 'worker') + ' zlib: ' + loaded + '\\n');
});
`;

describe.skipIf(!hasCorpus)('the CLI loads node:zlib only for blocks it decodes (scripts/build-cli.mjs, lazy built-ins)', () => {
  const dir = tempDir('iostore-lazy-zlib-');
  const preload = join(dir, 'preload.cjs');
  writeFileSync(preload, PRELOAD);
  const run = (utoc: string, out: string) => spawnSync(process.execPath, ['-r', preload, bin, 'unpack', utoc, out, '--threads', '1', '--quiet'], { encoding: 'utf8' });

  it('a stored container is unpacked, on both threads, without it; a Zlib one with it, to the same files', () => {
    const stored = join(dir, 'stored');
    const r = run(corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'), stored);
    expect(r.status, r.stderr).toBe(0);
    // A worker stopped before it took a chunk (the calling thread did them all) may not get to say.
    expect(r.stderr).toMatch(/^main zlib: false$/m);
    expect(r.stderr).not.toMatch(/zlib: true/);
    const zlib = join(dir, 'zlib');
    const z = run(corpusPath('ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc'), zlib);
    expect(z.status, z.stderr).toBe(0);
    expect(z.stderr).toMatch(/zlib: true/);
    const files = (d: string) => readdirSync(d, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && !e.name.endsWith('manifest.json'));
    // The packages and bulk data (unnamed chunks are named by the container's id, which differs).
    const got = files(stored).map((e) => join(e.parentPath ?? e.path, e.name).slice(stored.length)).filter((f) => !f.startsWith('/_chunks/'));
    expect(got.length).toBeGreaterThan(10);
    for (const f of got) expect(readFileSync(join(zlib, f)).equals(readFileSync(join(stored, f))), f).toBe(true);
  });
});
