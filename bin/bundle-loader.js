// Loads the CLI's bundles (dist/cli/*.bundle.cjs) and its worker threads' bundles (dist/**/*-worker.cjs) with V8's
// code cache: a short command spends a good part of its
// run compiling the functions it calls for the first time, and the cache (dist/cli/*.bundle.cjs.cache, written at
// build time by scripts/warm-code-cache.cjs, which runs the commands on a sample) holds their bytecode. A cache that
// is missing, or that V8 rejects (another Node or V8 version, other V8 flags), only costs that compilation: the
// bundle loads as it would without one. V8 checks a cache against little more than its source's length, so
// scripts/build-cli.mjs removes the caches whenever it writes new bundles.
'use strict';
// The functions every run calls are parenthesized function expressions: V8 compiles those with the file (a hint
// that they are called soon) instead of pre-parsing them there and parsing them again at their first call, which
// is how it compiles a function declaration. This file has no code cache of its own (list of the bench's 3,000
// chunks: -0.44M instructions; test/cli/short-start.test.ts). The others stay declarations: most runs never call them.
// The class of this very module: require('node:module') would load Node's ESM loader with it (~0.35 ms of a run).
const Module = module.constructor;
const nodeFs = require('node:fs');
const { fstatSync, renameSync, writeFileSync } = nodeFs;
const { isAscii } = require('node:buffer');
const { basename, dirname, sep } = require('node:path');

/** One of Node's bindings (fs, contextify), its deprecation warning held back as src/util/process-binding.ts does. */
const processBinding = (function processBinding(name) {
  const own = Object.getOwnPropertyDescriptor(process, 'emitWarning');
  try {
    process.emitWarning = () => {};
    return process.binding(name);
  } catch {
    return undefined;
  } finally {
    if (own) Object.defineProperty(process, 'emitWarning', own);
    else delete process.emitWarning;
  }
});

// Blocking open, read, write and close for this file and the bundles (src/util/sync-fs.ts says why): Node's fs
// binding called as node:fs calls it, on releases whose binding this file knows; else, and for other arguments, node:fs.
const RAW_FS_NODES = ['20.20'];
/** Where a file's size is in the array the fs binding's stat fills (node:fs's getStatsFromBinding reads it there). */
const STAT_SIZE = 8;
const syncFs = (function syncFs() {
  const { openSync, readSync, writeSync, closeSync, statSync } = nodeFs;
  const v = process.versions.node.split('.');
  const raw = RAW_FS_NODES.includes(`${v[0]}.${v[1]}`) && process.platform !== 'win32' && process.env.IOSTORE_NODE_FS !== '1' ? processBinding('fs') : undefined;
  const sizeOf = (function (path) {
    return statSync(path).size;
  });
  const fsizeOf = (function (fd) {
    return fstatSync(fd).size;
  });
  if (typeof raw?.writeBuffer !== 'function') return { openSync, readSync, writeSync, closeSync, sizeSync: sizeOf, fsizeSync: fsizeOf };
  const fd1 = (function fd1(fd) {
    return fd === (fd | 0) && fd >= 0;
  });
  const fits = (function fits(b, at, n) {
    return ArrayBuffer.isView(b) && at === (at | 0) && n === (n | 0) && at >= 0 && n >= 0 && at + n <= b.byteLength;
  });
  // A path as text or as its bytes (the chunk loop's files: src/chunks/chunk-loop.ts), with no NUL (node:fs's check).
  const bytesInclude = Uint8Array.prototype.includes;
  const plainPath = (function plainPath(p) {
    return typeof p === 'string' ? p !== '' && !p.includes('\0') : p instanceof Uint8Array && p.length > 0 && !bytesInclude.call(p, 0);
  });
  return {
    // Flags 'r', or as a number (the binding's own), mode 0o666 as node:fs's default.
    openSync: (function (path, flags) {
      return arguments.length === 2 && (flags === 'r' || flags === (flags | 0)) && plainPath(path) ? raw.open(path, flags === 'r' ? 0 : flags, 0o666) : openSync.apply(nodeFs, arguments);
    }),
    readSync: (function (fd, b, at, n, position) {
      return arguments.length === 5 && fd1(fd) && fits(b, at, n) && n > 0 && Number.isSafeInteger(position) && position >= 0 ? raw.read(fd, b, at, n, position) : readSync.apply(nodeFs, arguments);
    }),
    writeSync: (function (fd, b, at = 0, n = ArrayBuffer.isView(b) ? b.byteLength - at : 0) {
      const ctx = {};
      const done = arguments.length <= 4 && fd1(fd) && fits(b, at, n) ? raw.writeBuffer(fd, b, at, n, null, undefined, ctx) : -1;
      return done >= 0 && ctx.errno === undefined ? done : writeSync.apply(nodeFs, arguments);
    }),
    closeSync: (function (fd) {
      return arguments.length === 1 && fd1(fd) ? raw.close(fd) : closeSync.apply(nodeFs, arguments);
    }),
    // A file's size without the Stats object and its four Dates that statSync makes (the binding's array holds the
    // numbers; the size is its ninth, as node:fs reads it): pack stats every file of a mod folder.
    sizeSync: typeof raw.stat !== 'function' ? sizeOf : (function (path) {
      return typeof path === 'string' && path !== '' && !path.includes('\0') ? raw.stat(path, false, undefined, true)[STAT_SIZE] : sizeOf(path);
    }),
    // An open file's size, the same way (the .utoc of a short `list` or `info`, read whole at once).
    fsizeSync: typeof raw.fstat !== 'function' ? fsizeOf : (function (fd) {
      return fd1(fd) ? raw.fstat(fd, false, undefined, false)[STAT_SIZE] : fsizeOf(fd);
    }),
  };
})();
const { closeSync, openSync, readSync, writeSync } = syncFs;


// Without path.join (Node compiles it and its normalize on first use: ~1 KB of source for every short run).
const DIST = dirname(__dirname) + sep + 'dist' + sep;
const BUNDLES = DIST + 'cli' + sep;
const BUNDLE = /\.bundle\.cjs$/;
/** Worker entry points' bundles (scripts/build-cli.mjs), anywhere under dist/. */
const WORKER_BUNDLE = /-worker\.cjs$/;
const MAIN = BUNDLES + 'main.bundle.cjs';
/** Bytes read for a bundle or cache before its size is asked (readToEnd): the main bundle and its caches fit (120-180 KB). */
const READ_ROOM = 256 << 10;
/**
 * Commands with a main-bundle cache of their own (`main.bundle.cjs.<command>.cache`, written by
 * scripts/warm-code-cache.cjs from runs of that command alone). V8 deserializes a whole cache as the bundle loads:
 * the shared cache (list and info together) cost `info` of the bench's 3,000 chunks ~1.9M instructions of `list`'s
 * functions, and `list` ~1.7M of `info`'s.
 */
const COMMAND_CACHES = ['list', 'info'];
/** The command whose own main-bundle cache this run loads (prepare's `command`), if it has one. */
let commandCache;
/** Bundles loaded by this process: { filename, script, cache: 'used' | 'rejected' | 'none', tag }. */
const loaded = [];

/**
 * Sets the process up as every run of the CLI needs (thread pool) and routes the bundles' loading through the code
 * cache. Whatever V8 flags are set must be the same when the cache is written and read (V8 rejects a cache made
 * under other flags), so this one function serves both.
 */
const prepare = (function prepare(command) {
  // The command named first (bin/iostore.js passes its first argument; a run that names it later takes the shared
  // cache: only slower to start).
  if (COMMAND_CACHES.includes(command)) commandCache = command;
  // pack and pak unpack keep several asynchronous writes in flight through libuv's thread pool (unpack and verify
  // of containers use blocking calls): give the pool room for them. Set before the first file operation.
  process.env.UV_THREADPOOL_SIZE ??= '16';
  // No V8 flag is set here (e.g. --semi-space-growth-factor=1, which had kept unpack's young generation small):
  // any change of V8's flags makes it reject the code cache built into Node for its own modules, and every
  // built-in module this process or a worker thread then loads is compiled from source (the bench's unpack: ~40 ms
  // on the main thread, ~60 ms on its worker).
  // A script compiled here (and one deserialized from a cache) has no import() of its own: the bundles import what
  // they do not hold (a user's native Oodle binding or codec module, hash-wasm) through this one (scripts/build-cli.mjs).
  hookBundles();
});

/** Routes the bundles' loading (a CLI bundle on the main thread, a worker's bundle in a worker) through the cache. */
const hookBundles = (function hookBundles() {
  // Set already by bin/iostore.js when it compiled this file itself: an import() here would then have no callback.
  globalThis.__iostoreDynamicImport ??= (specifier) => import(specifier);
  // Read by src/util/worker-pool.ts (newWorker): workers of the bundled code start through this file.
  globalThis.__iostoreWorkerLoader = __filename;
  globalThis.__iostoreSyncFs = syncFs;
  const plain = Module._extensions['.js'];
  Module._extensions['.js'] = function (module, filename) {
    if (!isBundle(filename)) return plain(module, filename);
    compileBundle(module, filename);
  };
});

function isBundle(filename) {
  return (filename.startsWith(BUNDLES) && BUNDLE.test(filename)) || (filename.startsWith(DIST) && WORKER_BUNDLE.test(filename));
}

const compileBundle = (function compileBundle(module, filename) {
  // The cache (IOSTORE_CODE_CACHE=0 loads without it: to measure what it saves, or to rule it out) is read into the
  // bundle's bytes once they are text: one buffer, whose pages are written once (a page first written costs a
  // fault: ~40 for a file of 150 KB). Read with the calls the TOC reader makes anyway: readFileSync's
  // own helpers are more of Node's source to compile on their first call (~1 KB).
  let cacheFd;
  try {
    if (process.env.IOSTORE_CODE_CACHE !== '0') cacheFd = openSync(cacheFile(filename, tagOf(filename)), 'r');
  } catch {
    // not built (or removed): compiled as usual
  }
  let source;
  let cachedData;
  try {
    const fd = openSync(filename, 'r');
    let read;
    try {
      read = readToEnd(fd, Buffer.allocUnsafe(READ_ROOM));
    } finally {
      closeSync(fd);
    }
    const { buffer, size } = read;
    // esbuild writes ASCII (non-ASCII characters as escapes), which reads as one-byte text without UTF-8 decoding
    // (~1.5M instructions for the main bundle); a bundle that is not ASCII is decoded as UTF-8. Views made without
    // Buffer's subarray (more of Node's source to compile).
    source = isAscii?.(new Uint8Array(buffer.buffer, buffer.byteOffset, size)) ? buffer.latin1Slice(0, size) : buffer.utf8Slice(0, size);
    if (cacheFd !== undefined) {
      // The source is text now: its buffer takes the cache.
      const cache = readToEnd(cacheFd, buffer);
      cachedData = new Uint8Array(cache.buffer.buffer, cache.buffer.byteOffset, cache.size);
    }
  } finally {
    if (cacheFd !== undefined) closeSync(cacheFd);
  }
  const script = newScript(Module.wrap(source), filename, cachedData);
  loaded.push({ filename, script, cache: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used', tag: tagOf(filename) });
  const require = (function require(id) {
    return module.require(id);
  });
  require.resolve = (id, options) => Module._resolveFilename(id, module, false, options);
  require.cache = Module._cache;
  runScript(script).call(module.exports, module.exports, require, module, filename, dirname(filename));
});

/**
 * vm.Script is Node's JavaScript subclass of its native ContextifyScript: its constructor's and runInThisContext's
 * checks and helpers (~5.4 KB of Node's source, compiled from source by the first script of every process: ~0.17 ms
 * of a short `list`) only check options this file always gives the same way, then call the native class. On the Node
 * releases whose native arguments this file knows (NATIVE_SCRIPT_NODES: the native side CHECKs them and ends the
 * process on a mismatch), a bundle is compiled by the native class with those arguments: its source, file name, line
 * and column offsets, cache, whether to produce one, the parsing context and the host-defined option id (a symbol of
 * this file's own: the bundles' import() go through __iostoreDynamicImport, and a script without a registered
 * callback fails an import() either way); run by its native runInContext (no context object: this one; no timeout;
 * errors displayed; no SIGINT break; no first-line break). Elsewhere, and with IOSTORE_VM_SCRIPT=1, vm.Script.
 */
const NATIVE_SCRIPT_NODES = ['20.20'];
const nativeScript = (function nativeScript() {
  const [major, minor] = process.versions.node.split('.');
  if (!NATIVE_SCRIPT_NODES.includes(`${major}.${minor}`) || process.env.IOSTORE_VM_SCRIPT === '1') return undefined;
  // The class vm.Script extends, from the binding vm takes it from (node:vm itself is one more module to load).
  const Native = processBinding('contextify')?.ContextifyScript;
  return typeof Native === 'function' && typeof Native.prototype.runInContext === 'function' ? Native : undefined;
})();
const BUNDLE_OPTION_ID = Symbol('iostore bundle');

const newScript = (function newScript(code, filename, cachedData) {
  if (nativeScript === undefined) return new (require('node:vm').Script)(code, { filename, cachedData });
  return new nativeScript(code, filename, 0, 0, cachedData, false, undefined, BUNDLE_OPTION_ID);
});

const runScript = (function runScript(script) {
  if (nativeScript === undefined) return script.runInThisContext();
  return nativeScript.prototype.runInContext.call(script, null, -1, true, false, false);
});

/** Whether bundles are compiled by Node's native script class (newScript): for tests. */
function compilesNatively() {
  return nativeScript !== undefined;
}

/**
 * Reads `fd` to its end into `buffer`, or into a buffer of the file's size when it does not fit; returns that buffer
 * and how many bytes it holds. Sized by reading, not by fstat: Node makes a Stats object of an fstat, and its class
 * is compiled on first use (~0.2 ms), which `list` and `info` need nowhere else.
 */
const readToEnd = (function readToEnd(fd, buffer) {
  let done = readAll(fd, buffer, 0, buffer.length);
  if (done < buffer.length) return { buffer, size: done };
  const larger = Buffer.allocUnsafe(fstatSync(fd).size + 1);
  larger.set(buffer);
  done = readAll(fd, larger, done, larger.length - done);
  // Still full: the file grew since its fstat (a build writing it): its size asked again.
  return done < larger.length ? { buffer: larger, size: done } : readToEnd(fd, larger);
});

/** Reads `fd` into `into` from `at` (the file's same offset) until `into` is full or the file ends; returns the bytes it then holds. */
const readAll = (function readAll(fd, into, at, length) {
  let done = at;
  const end = at + length;
  while (done < end) {
    const n = readSync(fd, into, done, end - done, done);
    if (n === 0) break;
    done += n;
  }
  return done;
});

/** The command cache the main bundle loads with in this run, if any. */
const tagOf = (function tagOf(filename) {
  return filename === MAIN ? commandCache : undefined;
});

const cacheFile = (function cacheFile(filename, tag) {
  return tag === undefined ? `${filename}.cache` : `${filename}.${tag}.cache`;
});

/**
 * Writes each loaded bundle's cache with every function compiled so far (temporary name, then rename); `only`, if
 * given, chooses the bundles by file name; `tag`, the main bundle's cache of that command (COMMAND_CACHES).
 */
function writeCodeCache(only, tag) {
  for (const { filename, script } of loaded) {
    if (only && !only(filename)) continue;
    const file = cacheFile(filename, filename === MAIN ? tag : undefined);
    const tmp = `${file}.${process.pid}-${require('node:worker_threads').threadId}.tmp`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, file);
  }
}

/** What happened to this file's own cache (bin/iostore.js loadLoader): 'none' when it was required as usual. */
let ownCacheState = 'none';

/**
 * Told by bin/iostore.js which compiled this file from its cache (`compiled`: the script, the cache's state, the
 * source's stamp and the cache's path): kept for the report, and, while scripts/warm-code-cache.cjs asks for it
 * (IOSTORE_WRITING_LOADER_CACHE), the cache written, headed by the stamp (temporary name, then rename).
 */
const ownCache = (function ownCache(compiled) {
  ownCacheState = compiled.state;
  if (process.env.IOSTORE_WRITING_LOADER_CACHE !== '1') return;
  const data = compiled.script.createCachedData();
  const out = Buffer.alloc(compiled.header + data.length);
  new Float64Array(out.buffer, out.byteOffset, compiled.stamp.length).set(compiled.stamp);
  out.set(data, compiled.header);
  const tmp = `${compiled.cacheFile}.${process.pid}.tmp`;
  writeFileSync(tmp, out);
  renameSync(tmp, compiled.cacheFile);
});

/** What happened to this file's own cache in this process (ownCache). */
function ownCacheReport() {
  return ownCacheState;
}

/** What happened to each bundle's cache in this process: [name, 'used' | 'rejected' | 'none' (and which command's)]. */
function codeCacheReport() {
  return loaded.map((l) => [basename(l.filename), l.tag ? `${l.cache} (${l.tag})` : l.cache]);
}

/**
 * A worker thread started by newWorker: loads its bundle (the last argument) through the cache. While
 * scripts/warm-code-cache.cjs runs, the worker writes its bundle's cache before each message it sends (the pools
 * may end a worker once they have its reply), and when it exits: each warm-up run adds the functions it compiled,
 * as the bundle was loaded from the cache the run before wrote.
 */
function runWorker() {
  directStdio();
  hookBundles();
  const { parentPort } = require('node:worker_threads');
  const bundle = process.argv[process.argv.length - 1];
  if (process.env.IOSTORE_WRITING_CODE_CACHE && parentPort) {
    const post = parentPort.postMessage;
    parentPort.postMessage = function (...a) {
      writeCodeCache();
      return post.apply(this, a);
    };
    process.on('exit', writeCodeCache);
  }
  require(bundle);
  // Written at once, straight to the descriptor: a worker's process.stderr is relayed by the main thread, and may
  // be lost when the process ends.
  if (process.env.IOSTORE_CODE_CACHE_REPORT) writeSync(2, `code cache (worker): ${codeCacheReport().map(([n, c]) => `${n} ${c}`).join(', ')}\n`);
}

/**
 * The worker's process.stdout and process.stderr (Node's warnings, a stray log) write to the process's descriptors 1
 * and 2 as they come: the calling thread gives the worker no pipe to its own streams (src/util/worker-pool.ts,
 * newWorker). Made on first use, as Node's are.
 */
function directStdio() {
  for (const [name, fd] of [['stdout', 1], ['stderr', 2]]) {
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: true,
      get() {
        const stream = new (require('node:stream').Writable)({
          write(chunk, encoding, done) {
            try {
              for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at);
            } catch {
              // a closed or full descriptor: the text is dropped, as a worker's write after its process's end
            }
            done();
          },
        });
        stream.fd = fd;
        Object.defineProperty(process, name, { configurable: true, enumerable: true, writable: true, value: stream });
        return stream;
      },
    });
  }
}

/**
 * The main bundle's exports, loaded as require() would load it without Node's resolution of its path (the stats and
 * realpath of Module._findPath, its lookups of the package scope: ~0.1 ms). It is cached under the same name
 * require() finds it by, so that the lazy bundles' require('./main.bundle.cjs') gets this module: this file's own
 * name is the real one (Node resolved it), and dist/ lies beside it.
 */
const loadMain = (function loadMain() {
  const cached = Module._cache[MAIN];
  if (cached !== undefined) return cached.exports;
  const main = new Module(MAIN, module);
  main.filename = MAIN;
  main.paths = Module._nodeModulePaths(BUNDLES);
  Module._cache[MAIN] = main;
  try {
    compileBundle(main, MAIN);
  } catch (e) {
    delete Module._cache[MAIN];
    throw e;
  }
  main.loaded = true;
  return main.exports;
});

module.exports = { loadMain, prepare, writeCodeCache, codeCacheReport, ownCache, ownCacheReport, compilesNatively, syncFs, COMMAND_CACHES };

// (bin/iostore.js is the main thread's main module; node:worker_threads is not loaded there for this.)
if (require.main === module && !require('node:worker_threads').isMainThread) runWorker();
