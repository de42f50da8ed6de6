import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin', 'iostore.js');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

describe('the CLI bundles load with the V8 code cache written at build time', () => {
  it('uses the cache of every bundle a command loads, and loads without it when told to', () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, [bin, 'inspect', join(root, 'samples', 'demo', 'mod', 'DemoMod', 'Content', 'Demo', 'Hello.uasset')], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1', ...env } });
    // `--version` alone is answered before any bundle loads (bin/iostore.js); with another option it is the bundle's.
    const bare = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1' } });
    expect(bare.stdout).toBe(`${version}\n`);
    expect(bare.stderr).toBe('');
    const cached = spawnSync(process.execPath, [bin, '--verbose', '--version'], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1' } });
    expect(cached.stdout.trim()).toBe(version);
    expect(cached.stderr).toMatch(/code cache: main\.bundle\.cjs used/);
    const off = spawnSync(process.execPath, [bin, '--verbose', '--version'], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1', IOSTORE_CODE_CACHE: '0' } });
    expect(off.stdout.trim()).toBe(version);
    expect(off.stderr).toMatch(/code cache: main\.bundle\.cjs none/);
    // A command that loads more bundles: each one's cache is used.
    const more = run({});
    const report = more.stderr.match(/code cache: (.*)/)![1]!.split(', ');
    expect(report.length).toBeGreaterThan(1);
    for (const entry of report) expect(entry).toMatch(/ used$/);
  });

  it('list and info load a main-bundle cache of their own, without the other commands\' functions', () => {
    const utoc = join(root, 'samples', 'demo', 'DemoMod-Windows.utoc');
    const report = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1' } }).stderr;
    expect(report(['list', utoc, '--csv'])).toMatch(/code cache: main\.bundle\.cjs used \(list\)\n/);
    expect(report(['info', utoc, '--json'])).toMatch(/code cache: main\.bundle\.cjs used \(info\)\n/);
    // Named after an option, the command takes the shared cache (only slower to start).
    expect(report(['--verbose', 'info', utoc])).toMatch(/code cache: main\.bundle\.cjs used\n/);
    const dir = join(root, 'dist', 'cli');
    const size = (f: string) => readFileSync(join(dir, f)).length;
    for (const c of ['list', 'info']) expect(size(`main.bundle.cjs.${c}.cache`)).toBeLessThan(size('main.bundle.cjs.cache'));
  });

  it('the bundles are ASCII (bin/bundle-loader.js reads them as one-byte text, without decoding UTF-8)', () => {
    const dir = join(root, 'dist', 'cli');
    const bundles = [...readdirSync(dir).filter((f) => f.endsWith('.bundle.cjs')).map((f) => join(dir, f)), join(root, 'dist', 'chunks', 'chunk-loop-worker.cjs')];
    expect(bundles.filter((b) => !isAscii(readFileSync(b)))).toEqual([]);
  });

  it('the bundles are minified, each with a source map beside it that names the functions of src/ (for --verbose traces)', () => {
    const main = join(root, 'dist', 'cli', 'main.bundle.cjs');
    const text = readFileSync(main, 'latin1');
    // Names minified: the TOC reader's entry point is not there under its own name (main's build: `function readToc(`).
    expect(text).not.toContain('function readToc(');
    expect(text.length).toBeLessThan(110_000);
    // No comment pointing at the map: Node does not read it at run time.
    expect(text).not.toContain('sourceMappingURL');
    const map = JSON.parse(readFileSync(`${main}.map`, 'utf8')) as { sources: string[]; names: string[] };
    expect(map.names).toContain('readToc');
    expect(map.sources.some((s) => s.endsWith('src/toc/toc.ts'))).toBe(true);
  });

  it('the build writes a cache for every command bundle (a bundle no warm-up step loads starts cold)', () => {
    const dir = join(root, 'dist', 'cli');
    const bundles = readdirSync(dir).filter((f) => f.endsWith('.bundle.cjs'));
    expect(bundles).toContain('pak.bundle.cjs');
    expect(bundles.filter((b) => !existsSync(join(dir, `${b}.cache`)))).toEqual([]);
  });

  it.skipIf(!hasCorpus)('imports what the bundles do not hold (a native Oodle binding) with the cache and without it', () => {
    const out = tempDir('iostore-code-cache-oodle-');
    for (const cache of ['1', '0']) {
      const r = spawnSync(process.execPath, [bin, 'unpack', corpusPath('ue5.8-cue4parse/oodle'), join(out, cache), '--oodle-lib', '/nonexistent/liboo2core.so', '--quiet'], {
        encoding: 'utf8',
        env: { ...process.env, IOSTORE_CODE_CACHE: cache },
      });
      expect(r.status).toBe(2);
      // The binding module loaded and reported the missing library: one line, no warning from Node.
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/cannot load the Oodle library \/nonexistent\/liboo2core\.so/);
    }
  });

  it("a worker thread's bundle loads with its cache too (unpack, verify), also after unpack changed a V8 flag", () => {
    const dir = tempDir('iostore-code-cache-worker-');
    const utoc = join(root, 'samples', 'demo', 'DemoMod-Windows.utoc');
    const env = { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1' };
    const iostore = (args: string[], more: Record<string, string> = {}) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...env, ...more } });
    const verify = iostore(['verify', utoc, '--threads', '1', '--quiet']);
    expect(verify.status).toBe(0);
    expect(verify.stderr).toMatch(/code cache \(worker\): chunk-loop-worker\.cjs used\n/);
    // unpack keeps V8's young generation small with a flag set at run time, before its worker starts.
    const unpack = iostore(['unpack', utoc, join(dir, 'out'), '--threads', '1', '--quiet']);
    expect(unpack.status).toBe(0);
    expect(unpack.stderr).toMatch(/code cache \(worker\): chunk-loop-worker\.cjs used\n/);
    const off = iostore(['verify', utoc, '--threads', '1', '--quiet'], { IOSTORE_CODE_CACHE: '0' });
    expect(off.status).toBe(0);
    expect(off.stderr).toMatch(/code cache \(worker\): chunk-loop-worker\.cjs none\n/);
    // Without --threads the demo's few chunks start no worker, and nothing is reported for one.
    expect(iostore(['verify', utoc, '--quiet']).stderr).not.toMatch(/worker/);
  });

  it.skipIf(!process.versions.node.startsWith('20.20.') || process.platform === 'win32')('compiles the loader itself from its own cache, and from source when the loader is not the one the cache was made from', () => {
    const utoc = join(root, 'samples', 'demo', 'DemoMod-Windows.utoc');
    const report = (dir: string, env: Record<string, string> = {}) => {
      const r = spawnSync(process.execPath, [join(dir, 'bin', 'iostore.js'), 'list', utoc, '--json'], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1', ...env } });
      expect(r.status, r.stderr).toBe(0);
      return { out: r.stdout, loader: /code cache \(loader\): bundle-loader\.js (\w+)/.exec(r.stderr)?.[1] };
    };
    const built = report(root);
    // main's build: the loader was required (no such line).
    expect(built.loader).toBe('used');
    expect(report(root, { IOSTORE_CODE_CACHE: '0' })).toEqual({ out: built.out, loader: 'none' });
    // A copy: the loader's modification time is not the one the cache's header names (an edited loader).
    const dir = tempDir('iostore-loader-cache-');
    cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
    for (const f of ['main.bundle.cjs', 'main.bundle.cjs.list.cache', 'bundle-loader.cache']) copyFileSync(join(root, 'dist', 'cli', f), join(dir, 'dist', 'cli', f));
    expect(report(dir)).toEqual({ out: built.out, loader: 'none' });
    // Its header made to name the copy (as if built from it), its V8 data damaged: V8 refuses it, the loader compiles.
    const loaderFile = join(dir, 'bin', 'bundle-loader.js');
    const cache = readFileSync(join(dir, 'dist', 'cli', 'bundle-loader.cache'));
    const st = statSync(loaderFile, { bigint: true });
    new Float64Array(cache.buffer, cache.byteOffset, 3).set([Number(st.size), Number(st.mtimeNs / 1_000_000_000n), Number(st.mtimeNs % 1_000_000_000n)]);
    cache.fill(7, 32);
    writeFileSync(join(dir, 'dist', 'cli', 'bundle-loader.cache'), cache);
    expect(report(dir)).toEqual({ out: built.out, loader: 'rejected' });
  });

  it('runs as without one when the cache is not V8 data (another Node, a damaged file)', () => {
    const dir = tempDir('iostore-code-cache-');
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    for (const f of ['iostore.js', 'bundle-loader.js', 'package.json']) copyFileSync(join(root, 'bin', f), join(dir, 'bin', f));
    copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
    copyFileSync(join(root, 'dist', 'cli', 'main.bundle.cjs'), join(dir, 'dist', 'cli', 'main.bundle.cjs'));
    writeFileSync(join(dir, 'dist', 'cli', 'main.bundle.cjs.cache'), Buffer.alloc(4096, 7));
    const r = spawnSync(process.execPath, [join(dir, 'bin', 'iostore.js'), '--verbose', '--version'], { encoding: 'utf8', env: { ...process.env, IOSTORE_CODE_CACHE_REPORT: '1' } });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(version);
    expect(r.stderr).toMatch(/code cache: main\.bundle\.cjs rejected/);
  });
});
