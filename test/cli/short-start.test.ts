import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin', 'iostore.js');
const utoc = join(root, 'samples', 'demo', 'DemoMod-Windows.utoc');

/**
 * A preload that records the calls of a short run which compile more of Node's own source on their first call:
 * readFileSync other than UTF-8 (its generic path and helpers; UTF-8 is Node's native fast path, which Node itself
 * takes for the main file) and a Buffer made from or into text with an encoding named (getEncodingOps).
 */
const PRELOAD = `
const fs = require('node:fs');
const seen = [];
const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, options) {
  const enc = typeof options === 'string' ? options : options?.encoding;
  if (enc !== 'utf8' && enc !== 'utf-8') seen.push('readFileSync ' + String(path).split(/[\\\\/]/).pop());
  return readFileSync.apply(this, arguments);
};
const from = Buffer.from;
Buffer.from = function (value, encoding) {
  if (typeof value === 'string' && typeof encoding === 'string') seen.push('Buffer.from ' + encoding);
  return from.apply(this, arguments);
};
const toString = Buffer.prototype.toString;
Buffer.prototype.toString = function (encoding) {
  if (typeof encoding === 'string') seen.push('toString ' + encoding);
  return toString.apply(this, arguments);
};
process.on('exit', () => fs.writeSync(2, 'seen: ' + JSON.stringify(seen) + '\\n'));
`;

describe("a short list or info compiles no more of Node's source than it needs", () => {
  it('reads its bundle and code cache without readFileSync, and makes no Buffer from text with an encoding named', () => {
    const preload = join(tempDir('iostore-short-start-'), 'preload.cjs');
    writeFileSync(preload, PRELOAD);
    for (const args of [['list'], ['list', '--json'], ['list', '--csv'], ['info'], ['info', '--json']]) {
      const r = spawnSync(process.execPath, ['-r', preload, bin, ...args, utoc], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr, args.join(' ')).toBe('seen: []\n');
    }
  });
});

/**
 * A preload that records every stat Node's fs is asked for (a Stats object: its class compiled on first use), every
 * resolution of the main bundle's path by Node, whether node:module loaded, and the signal handlers the run leaves.
 */
const STAT_PRELOAD = `
const fs = require('node:fs');
const Module = module.constructor;
const seen = [];
for (const name of ['statSync', 'fstatSync', 'lstatSync', 'stat', 'fstat', 'lstat']) {
  const call = fs[name];
  fs[name] = function () { seen.push(name); return call.apply(this, arguments); };
}
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request) {
  if (/main\\.bundle\\.cjs$/.test(request)) seen.push('resolve main.bundle.cjs');
  return resolveFilename.apply(this, arguments);
};
// node:module (the public module) brings Node's ESM loader with it.
process.on('exit', () => process.moduleLoadList.includes('NativeModule module') && seen.push('node:module'));
process.on('exit', () => fs.writeSync(2, 'seen: ' + JSON.stringify(seen) + ', signal handlers: ' + (process.listenerCount('SIGINT') + process.listenerCount('SIGTERM')) + '\\n'));
`;

describe('a short list or info starts without a Stats object, Node resolving its bundle, node:module or signal handlers', () => {
  const preload = join(tempDir('iostore-short-start-'), 'stat-preload.cjs');
  writeFileSync(preload, STAT_PRELOAD);
  const run = (...args: string[]) => spawnSync(process.execPath, ['-r', preload, bin, ...args], { encoding: 'utf8' });

  it('list and info of a .utoc in every form', () => {
    for (const args of [['list'], ['list', '--json'], ['list', '--csv'], ['info'], ['info', '--json']]) {
      const r = run(...args, utoc);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr, args.join(' ')).toBe('seen: [], signal handlers: 0\n');
    }
  });

  it('--help writes no file either; a command that writes keeps its handlers (its temporary files removed on Ctrl-C)', () => {
    expect(run('--help').stderr).toMatch(/signal handlers: 0\n$/);
    const out = join(tempDir('iostore-short-start-'), 'out');
    const r = run('unpack', utoc, out);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/signal handlers: 2\n$/);
  });

  it('an interrupted list ends by the signal, as any reader does', async () => {
    // A preload that holds the run at its start (3 s at most): the signal arrives while the command is under way.
    const hold = join(tempDir('iostore-short-start-'), 'hold.cjs');
    writeFileSync(hold, 'process.nextTick(() => { const end = Date.now() + 3000; while (Date.now() < end); });\n');
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-r', hold, bin, 'list', utoc], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGINT');
    const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.on('exit', (c, s) => r([c, s])));
    expect([code, signal, err]).toEqual([null, 'SIGINT', '']);
  });
});

/**
 * A preload that counts the opens of a file named by IOSTORE_TEST_COUNT_OPENS and the reads of what they opened, at
 * Node's fs binding (which node:fs and the loader's own fs calls reach alike), and the descriptors still open on it at
 * the exit.
 */
const OPEN_PRELOAD = `
const fs = require('node:fs');
const binding = process.binding('fs');
const name = process.env.IOSTORE_TEST_COUNT_OPENS;
const open = binding.open;
const read = binding.read;
let opens = 0;
let reads = 0;
const fds = new Set();
binding.open = function (path) {
  const fd = open.apply(this, arguments);
  if (String(path).endsWith(name)) {
    opens++;
    fds.add(fd);
  }
  return fd;
};
binding.read = function (fd) {
  if (fds.has(fd)) reads++;
  return read.apply(this, arguments);
};
process.on('exit', () => {
  const left = fs.readdirSync('/proc/self/fd').filter((fd) => { try { return fs.readlinkSync('/proc/self/fd/' + fd).endsWith(name); } catch { return false; } });
  fs.writeSync(2, 'opens: ' + opens + ', reads: ' + reads + ', left open: ' + left.length + '\\n');
});
`;

describe.runIf(process.platform === 'linux')('a short list or info opens its .utoc once', () => {
  // Three reads: the probe's byte at the short-run bound, the header (its magic checked before the rest is read),
  // the file at its size (no read at its end to find it).
  it('in every form, and reads it three times; a .pak and a folder too; no descriptor is left open', () => {
    const preload = join(tempDir('iostore-short-start-'), 'open-preload.cjs');
    writeFileSync(preload, OPEN_PRELOAD);
    const count = (file: string, ...args: string[]) => {
      const r = spawnSync(process.execPath, ['-r', preload, bin, ...args, file], { encoding: 'utf8', env: { ...process.env, IOSTORE_TEST_COUNT_OPENS: file.split(/[\\/]/).pop() } });
      expect(r.status, r.stderr).toBe(0);
      return r.stderr.split('\n').filter((l) => l.startsWith('opens: ')).join();
    };
    for (const args of [['list'], ['list', '--json'], ['list', '--csv'], ['list', '--by-type'], ['info'], ['info', '--json']]) {
      expect(count(utoc, ...args), args.join(' ')).toBe('opens: 1, reads: 3, left open: 0');
    }
    const pak = join(root, 'samples', 'demo', 'DemoMod-Windows.pak');
    for (const command of ['list', 'info']) expect(count(pak, command), command).toMatch(/^opens: [12], reads: \d+, left open: 0$/);
    for (const command of ['list', 'info']) expect(count(join(root, 'samples', 'demo'), command), command).toMatch(/^opens: 1, reads: \d+, left open: 0$/);
  });
});

/**
 * A runner that loads a copy of bin/ and the main bundle with a command's own cache (the copy's cache is the one
 * written over), runs bin/iostore.js there as `node bin/iostore.js` would, and at its exit writes the bundle's cache
 * again with what the run compiled: the bytes it grew by are the functions the run compiled from source.
 */
const GROW_RUNNER = `
const { statSync, writeSync } = require('node:fs');
const [copy, ...args] = process.argv.slice(2);
const cache = copy + '/dist/cli/main.bundle.cjs.' + args[0] + '.cache';
const loaded = statSync(cache).size;
const loader = require(copy + '/bin/bundle-loader.js');
process.on('exit', () => {
  loader.writeCodeCache(null, args[0]);
  writeSync(2, 'grew: ' + (statSync(cache).size - loaded) + '\\n');
});
process.argv = [process.argv[0], copy + '/bin/iostore.js', ...args];
require(copy + '/bin/iostore.js');
`;

describe("a short list or info finds what it runs of the main bundle in the command's code cache", () => {
  it("bin/iostore.js's exports and the flag setter are in it: the run compiles (almost) nothing of the bundle", () => {
    const dir = tempDir('iostore-short-start-');
    const runner = join(dir, 'grow.cjs');
    writeFileSync(runner, GROW_RUNNER);
    const copy = join(dir, 'copy');
    cpSync(join(root, 'bin'), join(copy, 'bin'), { recursive: true });
    mkdirSync(join(copy, 'dist', 'cli'), { recursive: true });
    copyFileSync(join(root, 'package.json'), join(copy, 'package.json'));
    copyFileSync(join(root, 'dist', 'cli', 'main.bundle.cjs'), join(copy, 'dist', 'cli', 'main.bundle.cjs'));
    for (const args of [['list'], ['list', '--json'], ['list', '--csv'], ['info'], ['info', '--json']]) {
      const cache = `main.bundle.cjs.${args[0]}.cache`;
      copyFileSync(join(root, 'dist', 'cli', cache), join(copy, 'dist', 'cli', cache));
      const r = spawnSync(process.execPath, [runner, copy, args[0], utoc, ...args.slice(1)], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      // main's build: 1.5-2 KB (the export getters, setV8Flags and its binding's, compiled from source on every run).
      const grew = Number(/grew: (-?\d+)/.exec(r.stderr)?.[1]);
      expect(grew, `${args.join(' ')}: ${r.stderr}`).toBeLessThan(256);
      expect(statSync(join(copy, 'dist', 'cli', cache)).size).toBeGreaterThan(0);
    }
  });
});

describe("a short list or info parses bin/'s functions once", () => {
  it('the launcher and the loader functions a run calls are compiled with their file, not again at their first call', () => {
    const log = join(tempDir('iostore-short-start-'), 'v8.log');
    for (const args of [['list'], ['info', '--json']]) {
      // V8's function events: a `parse-function` is a function compiled on its first call (lazily). The flag makes
      // V8 refuse the bundle's code cache, which is not what this looks at.
      const r = spawnSync(process.execPath, ['--log-function-events', `--logfile=${log}`, '--no-logfile-per-isolate', bin, ...args, utoc], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const lines = readFileSync(log, 'latin1').split('\n');
      const binScripts = new Set(lines.filter((l) => /^script-details,\d+,.*[\\/]bin[\\/][^\\/]+\.js,/.test(l)).map((l) => l.split(',')[1]));
      expect(binScripts.size, args.join(' ')).toBe(2);
      // main's build: prepare, hookBundles, compileBundle, readToEnd, readAll, tagOf, cacheFile, loadMain, exitNow...
      const lazy = lines.filter((l) => l.startsWith('function,parse-function,') && binScripts.has(l.split(',')[2]));
      expect(lazy.map((l) => l.split(',').pop()), args.join(' ')).toEqual([]);
    }
  });
});

/**
 * A preload that records every regular expression a run executes (each is compiled on its first use: ~50K
 * instructions). With `exec` replaced, V8 leaves its fast paths and calls it for test, split and replace too.
 */
const REGEXP_PRELOAD = `
const exec = RegExp.prototype.exec;
const seen = new Set();
RegExp.prototype.exec = function (s) { seen.add(String(this)); return exec.call(this, s); };
process.on('exit', () => require('node:fs').writeSync(2, 'regexps: ' + JSON.stringify([...seen]) + '\\n'));
`;

describe('a short list or info runs no regular expression of its own', () => {
  it('in every form (info, for a terminal, checks the names it quotes for control characters)', () => {
    const preload = join(tempDir('iostore-short-start-'), 'regexp.cjs');
    writeFileSync(preload, REGEXP_PRELOAD);
    for (const args of [['list'], ['list', '--json'], ['list', '--csv'], ['info', '--json'], ['info']]) {
      const r = spawnSync(process.execPath, ['-r', preload, bin, ...args, utoc], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      // main's build: /\s+/ (the parser's command strings), /\.pak$/i, /\.ucas$/i, /\\/g, /^[a-zA-Z]:/ (the mount
      // point), the plural's, /\.utoc$/i (--json's container name).
      const seen = JSON.parse(/regexps: (.*)/.exec(r.stderr)![1]!) as string[];
      expect(seen.length, `${args.join(' ')}: ${seen.join(' ')}`).toBe(args.join(' ') === 'info' ? 1 : 0);
    }
  });
});

describe("a short run compiles its bundle by Node's native script class where that class's arguments are known", () => {
  const loader = require(join(root, 'bin', 'bundle-loader.js')) as { compilesNatively(): boolean };
  const [major, minor] = process.versions.node.split('.');
  const known = `${major}.${minor}` === '20.20';

  it('on Node 20.20, list and info compile none of node:vm JavaScript (vm.Script checks options the loader always gives alike)', () => {
    expect(loader.compilesNatively()).toBe(known);
    if (!known) return;
    const log = join(tempDir('iostore-short-start-'), 'v8.log');
    for (const args of [['list'], ['info', '--json']]) {
      const r = spawnSync(process.execPath, ['--log-function-events', `--logfile=${log}`, '--no-logfile-per-isolate', bin, ...args, utoc], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const lines = readFileSync(log, 'latin1').split('\n');
      const vmScripts = new Set(lines.filter((l) => /^script-details,\d+,node:(internal\/)?vm,/.test(l)).map((l) => l.split(',')[1]));
      // main's build: Script, getHostDefinedOptionId, registerImportModuleDynamically, runInThisContext, getRunInContextArgs.
      const lazy = lines.filter((l) => l.startsWith('function,parse-function,') && vmScripts.has(l.split(',')[2]));
      expect(lazy.map((l) => l.split(',').pop()), args.join(' ')).toEqual([]);
    }
  });

  it('loads the bundle with its code cache and writes the same bytes either way (IOSTORE_VM_SCRIPT=1: vm.Script)', () => {
    const outputs = ['0', '1'].map((vm) => {
      const r = spawnSync(process.execPath, [bin, 'list', utoc, '--json'], { encoding: 'utf8', env: { ...process.env, IOSTORE_VM_SCRIPT: vm, IOSTORE_CODE_CACHE_REPORT: '1' } });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain('main.bundle.cjs used (list)');
      return r.stdout;
    });
    expect(outputs[0]).toBe(outputs[1]);
    expect(JSON.parse(outputs[0]!).count).toBeGreaterThan(0);
  });
});
