#!/usr/bin/env node
// Writes the CLI bundles' V8 code caches (bin/bundle-loader.js): runs the commands, in this one process, on a
// container packed from the demo sample, then saves each loaded bundle's cache with every function those runs
// compiled. Part of `npm run build`; a failure here leaves the CLI without a cache (slower to start, still correct)
// and is reported, not fatal.
'use strict';
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const loader = require(join(root, 'bin', 'bundle-loader.js'));
// The commands leave V8's flags as they are while the caches are written (src/cli/young-generation.ts).
process.env.IOSTORE_WRITING_CODE_CACHE = '1';
loader.prepare();

/**
 * A command's own main-bundle cache (bin/bundle-loader.js, COMMAND_CACHES), written by a child process of the
 * warm-up that loads the bundle without a cache and runs only that command, with the CLI's own output (its writes
 * to a pipe, as scripts and the bench read it): the cache then holds what a run of it compiles, and nothing of the
 * other commands, which V8 would deserialize on every run.
 */
async function commandCacheChild(command, utoc) {
  // What bin/iostore.js takes of the bundle and calls around a run, as it does: the export getters and those
  // functions are otherwise compiled from source on every run (they are not in the cache).
  const { run, abortWrites, removeDetached, ownProcessFlags, stdWritesPending } = require(join(root, 'dist', 'cli', 'main.bundle.cjs'));
  if (typeof abortWrites !== 'function' || typeof removeDetached !== 'function') throw new Error('the main bundle lacks what bin/iostore.js takes');
  ownProcessFlags();
  for (const extra of COMMAND_RUNS[command]) {
    const code = await run([command, utoc, ...extra]);
    if (code !== 0) throw new Error(`iostore ${command} ${utoc} ${extra.join(' ')} exited with ${code}`);
    stdWritesPending();
  }
  loader.writeCodeCache((filename) => filename.endsWith(`${require('node:path').sep}main.bundle.cjs`), command);
}

/** The runs each command's own cache is written from: every output form of one .utoc. */
const COMMAND_RUNS = { list: [[], ['--json'], ['--csv']], info: [[], ['--json']] };

function writeCommandCaches(utoc) {
  const { spawnSync } = require('node:child_process');
  for (const command of loader.COMMAND_CACHES) {
    const r = spawnSync(process.execPath, [...process.execArgv, __filename, '--command-cache', command, utoc], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
      env: { ...process.env, IOSTORE_CODE_CACHE: '0' },
    });
    if (r.status !== 0) throw new Error(`${command}'s cache: ${r.stderr.trim().split('\n').pop()}`);
  }
}

/**
 * The loader's own cache (dist/cli/bundle-loader.cache, bin/iostore.js loadLoader), written by a run of the CLI that
 * compiles the loader as every run does, before anything else is loaded or any V8 flag is set.
 */
function writeLoaderCache() {
  const { spawnSync } = require('node:child_process');
  const r = spawnSync(process.execPath, [...process.execArgv, join(root, 'bin', 'iostore.js'), '--help'], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, IOSTORE_WRITING_LOADER_CACHE: '1', IOSTORE_CODE_CACHE: '1' },
  });
  if (r.status !== 0) throw new Error(`the loader's cache: ${r.stderr.trim().split('\n').pop()}`);
}

async function main() {
  // Nothing to do when the caches were written from these bundles, this script and the loader by this Node (V8
  // rejects a cache another version made). scripts/build-cli.mjs removes the caches when it writes new bundles.
  const { isCurrent, markCurrent, signature } = await import('./up-to-date.mjs');
  const cli = join(root, 'dist', 'cli');
  const stamp = join(root, 'dist', 'code-cache.stamp');
  const inputs = signature(
    [{ path: cli, keep: (p) => p.endsWith('.bundle.cjs') }, { path: join(root, 'dist'), keep: (p) => p.endsWith('-worker.cjs') }, { path: __filename }, { path: join(root, 'bin', 'bundle-loader.js') }, { path: join(root, 'samples', 'demo', 'mod') }],
    [process.version, process.arch, process.execArgv],
  );
  const commandCaches = loader.COMMAND_CACHES.map((c) => join(cli, `main.bundle.cjs.${c}.cache`));
  if (isCurrent(stamp, inputs, [join(cli, 'main.bundle.cjs.cache'), ...commandCaches, join(cli, 'bundle-loader.cache'), join(root, 'dist', 'chunks', 'chunk-loop-worker.cjs.cache')])) return;
  const { run, removeHandedOver } = require(join(root, 'dist', 'cli', 'main.bundle.cjs'));
  const io = { out: () => {}, err: () => {}, isTTY: false };
  const work = mkdtempSync(join(tmpdir(), 'iostore-warm-'));
  const mod = join(root, 'samples', 'demo', 'mod');
  const stored = join(work, 'stored', 'Warm-Windows.utoc');
  const zlib = join(work, 'zlib', 'Warm-Windows.utoc');
  const legacy = join(work, 'legacy');
  const pak = join(work, 'stored', 'Warm-Windows.pak');
  // The main bundle's cache holds what `list` and `info` of one .utoc run (and the parser), written before the other
  // steps: V8 deserializes a whole cache as the bundle loads, so functions only other runs call (help, errors, --by-type,
  // paks, folders) would cost every short run its share (info of the bench's 3,000 chunks: 184 KB of cache against
  // 153 KB, ~2M instructions); those compile when first called.
  const packs = [
    ['pack', mod, stored, '--version', 'UE5_4', '--quiet'],
    ['pack', mod, zlib, '--version', 'UE5_4', '--compression', 'zlib', '--quiet'],
  ];
  const short = [
    ['info', zlib],
    ['info', zlib, '--json'],
    ['list', zlib],
    ['list', zlib, '--json'],
    ['list', zlib, '--csv'],
  ];
  const mainBundle = (filename) => filename.endsWith(`${require('node:path').sep}main.bundle.cjs`);
  const steps = [
    ['--version'],
    ['--help'],
    ['unpack', '--help'],
    ['list', stored, '--by-type'],
    ['inspect', zlib, 'Demo/Noise.uasset'],
    ['props', zlib, 'Demo/Noise.uasset', '--json'],
    ['unpack', zlib, join(work, 'unpacked'), '--quiet'],
    ['unpack', stored, join(work, 'dry'), '--dry-run', '--quiet'],
    ['verify', zlib, '--quiet'],
    ['verify', stored, '--quiet'],
    // With a worker thread each (the sample is too small to start one by default): the workers write their bundle's
    // cache (bin/bundle-loader.js), each run adding what it compiled.
    ['verify', zlib, '--threads', '1', '--quiet'],
    ['verify', stored, '--threads', '1', '--quiet'],
    ['unpack', zlib, join(work, 'unpacked-1'), '--threads', '1', '--quiet'],
    ['unpack', stored, join(work, 'unpacked-2'), '--threads', '1', '--quiet'],
    ['to-legacy', stored, legacy, '--quiet'],
    ['to-zen', legacy, join(work, 'zen', 'Warm-Windows.utoc'), '--version', 'UE5_4', '--quiet'],
    // The companion .pak that pack wrote: list and info of a pak load their own bundle.
    ['list', pak],
    ['list', pak, '--json'],
    ['info', pak],
    ['unpack', pak, join(work, 'pak-unpacked'), '--quiet'],
    ['verify', pak, '--quiet'],
  ];
  const runAll = async (list) => {
    for (const args of list) {
      const code = await run(args, io);
      if (code !== 0) throw new Error(`iostore ${args.join(' ')} exited with ${code}`);
    }
  };
  try {
    writeLoaderCache();
    await runAll(packs);
    writeCommandCaches(zlib);
    await runAll(short);
    loader.writeCodeCache(mainBundle);
    await runAll(steps);
    // The removal bundle (an interrupt's staged folder, src/cli/detached-removal.ts): a folder that is not there.
    removeHandedOver(join(work, '.none.1-0-0.iostore-tmp'));
    loader.writeCodeCache((filename) => !mainBundle(filename));
    markCurrent(stamp, inputs);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const child = process.argv[2] === '--command-cache';
(child ? commandCacheChild(process.argv[3], process.argv[4]) : main()).then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`warm-code-cache: no code cache written (${e?.message ?? e})\n`);
    // A child's failure is its parent's to report (main's catch): the build goes on without the caches.
    process.exit(child ? 1 : 0);
  },
);
