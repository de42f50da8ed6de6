#!/usr/bin/env node
// The `iostore` command: a thin shell over the compiled library (npm install builds dist/). This file is CommonJS
// (bin/package.json) and loads the bundled CLI (scripts/build-cli.mjs): an ES module entry point and ES imports of
// built-ins cost a short command a good part of its run.
'use strict';
// `iostore --version` (scripts ask it to check the tool is there): package.json's version, before anything else
// loads (the bundle and its code cache were ~10 ms of its run). src/cli/main.ts answers the same for other forms.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const fs = require('node:fs');
  try {
    fs.writeSync(1, `${JSON.parse(fs.readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
  } catch (e) {
    if (e?.code !== 'EPIPE') throw e;
  }
  return;
}
// The loader required by an absolute path: a relative one first looks for a package "exports" entry (Node compiles
// its resolveExports, ~0.8 KB of source, for that alone); the main bundle by the loader, without Node's resolution.
const { resolve } = require('node:path');
const loader = require(resolve(__dirname, 'bundle-loader.js'));
loader.prepare(process.argv[2]);
const { run, abortWrites, removeDetached, ownProcessFlags, stdWritesPending } = loader.loadMain();
// This process is the command's own: it may tune V8 for its run (src/util/v8-flags.ts). In-process runs do not.
ownProcessFlags();

// An interrupted run must not leave temporary files behind (final names are only ever complete files). A staged
// output folder (hidden, the output folder itself not made) goes to a detached process to remove, so that the
// prompt comes back at once however many files it holds (src/cli/detached-removal.ts). Runs that write no file
// keep the signals' default, which ends them as it ends any reader: installing the handlers loads Node's signal
// binding (~0.1 ms of a short `list`). Told by the first argument, as the loader's prepare takes it.
const READ_ONLY_COMMANDS = ['list', 'info', '--help', '-h'];
/** An interrupt came: its handler ends the process (130 or 143) once the temporary files are gone, not the run's end. */
let interrupted = false;
if (!READ_ONLY_COMMANDS.includes(process.argv[2])) for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\niostore: interrupted\n`);
    // The bundle's own output module: the one whose temporary files the command registered.
    abortWrites(require('node:fs').unlinkSync, { removeTree: removeDetached }).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

// Commands write to the standard streams' descriptors (src/cli/io.ts, which also ends the process quietly when a
// reader such as `head` closes the pipe early): process.stdout and process.stderr are not touched here, as creating
// them costs a short command more than its own work.

// For tests and for checking a build: which bundles loaded with their code cache.
if (process.env.IOSTORE_CODE_CACHE_REPORT) {
  process.on('exit', () => process.stderr.write(`code cache: ${loader.codeCacheReport().map(([n, c]) => `${n} ${c}`).join(', ')}\n`));
}

// Parenthesized function expressions (`finished`, exitNow): compiled with this file, not parsed twice
// (bin/bundle-loader.js says why).
run(process.argv.slice(2)).then(
  (function finished(code) {
    // An interrupted run fails as its files are refused (exit 2): the interrupt's own code is the one to end with.
    if (interrupted) return;
    process.exitCode = code;
    // The command is done (its output written with blocking calls, its files closed): end now. Left to end by
    // itself, the process freed its heap and environment first (FreeEnvironment, the isolate's disposal): ~20-25 ms
    // of an unpack of the bench's 3,000 files at load ~13 (its 'exit' event to exit_group: 26-60 ms against the Node
    // floor's 7-21; 7-24 ms this way). On Windows a pipe's writes are asynchronous, and elsewhere a non-blocking
    // pipe's text may wait in its stream (src/cli/io.ts): then it ends as before, once that is out. The code cache
    // warm-up lets its worker threads end by themselves (each writes its cache at its exit).
    if (process.platform !== 'win32' && !process.env.IOSTORE_WRITING_CODE_CACHE && !stdWritesPending()) exitNow(code);
  }),
  (e) => {
    if (interrupted) return;
    process.stderr.write(`iostore: ${e?.message ?? e}\n`);
    process.exitCode = 2;
  },
);

/**
 * What process.exit(code) does for a CommonJS main module ('exit' emitted once, then Node's reallyExit), without
 * its JavaScript: process.exit and the EventEmitter's removeListener it calls are ~2.4 KB of Node's source compiled
 * on first use, ~0.4M instructions of every short command. reallyExit is the call process.exit ends with; a Node
 * without it takes process.exit.
 */
const exitNow = (function exitNow(code) {
  if (typeof process.reallyExit !== 'function') return process.exit(code);
  // As process.exit: 'exit' listeners see the code the run ends with.
  process.exitCode = code;
  if (!process._exiting) {
    process._exiting = true;
    process.emit('exit', code);
  }
  process.reallyExit(code);
});
