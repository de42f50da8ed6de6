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
/**
 * The loader (bin/bundle-loader.js), which loads the bundles. Node's require() compiles its source on every run (parsed
 * whole, its parenthesized functions compiled with it: ~1.5M instructions of a short `list` more than this way, ~0.4
 * ms); on the Node releases whose native classes it knows (NATIVE_NODES), it is compiled from its own V8 code cache
 * instead (dist/cli/bundle-loader.cache, written at build time by scripts/warm-code-cache.cjs), read with the fs
 * binding and compiled by the native script class as the loader compiles the bundles. The cache begins with the size
 * and modification time of the source it was made from: an edited loader compiles from source until the next build (V8
 * itself checks little more than the source's length). Anywhere else, or without a cache, require() as before. The
 * loader's functions must not depend on how it was loaded: worker threads and scripts require it as usual.
 */
const loadLoader = (function loadLoader() {
  const { resolve } = require('node:path');
  // Required by an absolute path: a relative one first looks for a package "exports" entry (Node compiles its
  // resolveExports, ~0.8 KB of source, for that alone).
  const file = resolve(__dirname, 'bundle-loader.js');
  const [major, minor] = process.versions.node.split('.');
  const native = NATIVE_NODES.includes(`${major}.${minor}`) && process.platform !== 'win32' && process.env.IOSTORE_CODE_CACHE !== '0' ? nativeBindings() : undefined;
  const compiled = native && compileLoader(native, file, resolve(__dirname, '..', 'dist', 'cli', 'bundle-loader.cache'));
  if (!compiled) return require(file);
  // The bundles' import() (a user's native Oodle binding, hash-wasm) go through this (scripts/build-cli.mjs): made
  // here, as Node compiled this file; an import() in a script compiled by the native class has no callback.
  globalThis.__iostoreDynamicImport = (function dynamicImport(specifier) {
    return import(specifier);
  });
  const Module = module.constructor;
  const own = new Module(file, module);
  own.filename = file;
  own.paths = module.paths;
  Module._cache[file] = own;
  compiled.run().call(own.exports, own.exports, (function require(id) {
    return own.require(id);
  }), own, file, __dirname);
  own.loaded = true;
  own.exports.ownCache(compiled);
  return own.exports;
});

/** Releases whose fs binding and native script class bin/bundle-loader.js calls directly (its RAW_FS_NODES, NATIVE_SCRIPT_NODES). */
const NATIVE_NODES = ['20.20'];

/** The fs and contextify bindings, a deprecation warning (--pending-deprecation) held back; undefined where refused. */
const nativeBindings = (function nativeBindings() {
  const own = Object.getOwnPropertyDescriptor(process, 'emitWarning');
  try {
    process.emitWarning = () => {};
    const fs = process.binding('fs');
    const { ContextifyScript } = process.binding('contextify');
    return typeof fs.open === 'function' && typeof fs.fstat === 'function' && typeof ContextifyScript === 'function' ? { fs, ContextifyScript } : undefined;
  } catch {
    return undefined;
  } finally {
    if (own) Object.defineProperty(process, 'emitWarning', own);
    else delete process.emitWarning;
  }
});

/** Where the cache's header keeps the source's size and modification time (seconds, nanoseconds), in doubles. */
const LOADER_CACHE_HEADER = 32;

/**
 * The loader compiled with its cache when one was made from this very source: { run, state, stamp, script }, or
 * undefined (no cache, or one of another source: require() compiles it).
 */
const compileLoader = (function compileLoader({ fs, ContextifyScript }, file, cacheFile) {
  const read = (function read(path) {
    const fd = fs.open(path, 0, 0o666);
    try {
      const stat = fs.fstat(fd, false, undefined, false);
      const bytes = Buffer.allocUnsafe(stat[8]);
      for (let at = 0, n; at < bytes.length; at += n) if ((n = fs.read(fd, bytes, at, bytes.length - at, at)) === 0) throw new Error(`${path} shrank`);
      return { bytes, stamp: [stat[8], stat[12], stat[13]] };
    } finally {
      fs.close(fd);
    }
  });
  const writing = process.env.IOSTORE_WRITING_LOADER_CACHE === '1';
  let source, cache;
  try {
    source = read(file);
    cache = writing ? undefined : read(cacheFile).bytes;
  } catch {
    return undefined;
  }
  const header = cache !== undefined && cache.length > LOADER_CACHE_HEADER ? new Float64Array(cache.buffer, cache.byteOffset, 3) : undefined;
  if (!writing && !(header && header[0] === source.stamp[0] && header[1] === source.stamp[1] && header[2] === source.stamp[2])) return undefined;
  // ASCII as it is written is read as one-byte text without decoding UTF-8 (as the loader reads the bundles).
  const text = require('node:buffer').isAscii(source.bytes) ? source.bytes.latin1Slice(0, source.bytes.length) : source.bytes.utf8Slice(0, source.bytes.length);
  const code = module.constructor.wrap(text);
  const cachedData = writing ? undefined : cache.subarray(LOADER_CACHE_HEADER);
  const script = new ContextifyScript(code, file, 0, 0, cachedData, false, undefined, Symbol('iostore loader'));
  const state = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  return { script, state, stamp: source.stamp, header: LOADER_CACHE_HEADER, cacheFile, run: (function run() {
    return script.runInContext(null, -1, true, false, false);
  }) };
});

const loader = loadLoader();
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
  process.on('exit', () => process.stderr.write(`code cache: ${loader.codeCacheReport().map(([n, c]) => `${n} ${c}`).join(', ')}\ncode cache (loader): bundle-loader.js ${loader.ownCacheReport()}\n`));
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
