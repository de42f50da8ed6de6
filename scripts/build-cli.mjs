#!/usr/bin/env node
// Bundles the `iostore` CLI, so a run loads a few files instead of dozens of ES modules (Node resolves, reads and
// links each ES module on its own, and an ES import of a built-in builds a facade over all of its exports: for a
// short run that was most of its time, and each worker thread paid it again):
// - dist/cli/main.bundle.cjs, which bin/iostore.js loads: the argument parser and the short commands `list` and
//   `info`, which scripts call hundreds of times, with only what they use on every run;
// - one bundle per other command, and one for what list and info need only for a .pak or a folder (LAZY), loaded
//   when a run first imports them: a bundle is parsed whole, and unpack's or pack's code in the main bundle cost
//   list 20 ms and 5 MB;
// - one bundle per worker entry point (dist/**/*-worker.js -> *-worker.cjs beside it), which the bundled code
//   starts (util/worker-pool.ts: runnableUrl).
// The modules whose identity matters across bundles (SHARED: the IoStoreError class, the registry of temporary files
// that bin/iostore.js's interrupt handler removes) exist once, in the main bundle; the other bundles take them
// from it. The library (dist/index.js) stays ES modules, unchanged.
import { build, version as esbuildVersion } from 'esbuild';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isCurrent, markCurrent, signature } from './up-to-date.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/**
 * Built-in modules that load when first called rather than at start-up: node:crypto (several milliseconds: only an
 * encrypted container or a pak's SHA-1 needs it), node:module (its load brings Node's ESM loader, ~0.35 ms of
 * every run: createRequire is called only on rare paths, such as output to a terminal), node:fs/promises (~1.2
 * ms, on the calling thread before a short unpack's loop worker is created and again in the worker: a .utoc's
 * unpack and verify read and write with blocking calls, only pack, paks and the other commands call it) and
 * node:zlib (~0.7 ms on each thread of a stored container's unpack, which decodes nothing). Each of its functions is
 * replaced by one that loads the module on its first call.
 */
/** Exports of lazy built-ins that older releases lack, and the first major release that may have each. */
const OPTIONAL_EXPORTS = { zlib: { zstdCompressSync: 22, zstdDecompressSync: 22, zstdCompress: 22, zstdDecompress: 22, createZstdCompress: 22, createZstdDecompress: 22 } };

const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(crypto|module|fs\/promises|zlib)$/ }, (a) => {
      const name = a.path.replace(/^node:/, '');
      // The lazy module's own require is of the real one.
      return a.namespace === 'lazy-builtin' ? { path: `node:${name}`, external: true } : { path: name, namespace: 'lazy-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (a) => {
      const mod = await import(`node:${a.path}`);
      const optional = OPTIONAL_EXPORTS[a.path] ?? {};
      const exported = Object.keys(mod).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
      const names = exported.filter((k) => typeof mod[k] === 'function' && !(k in optional));
      const lines = names.map((k) => `export function ${k}(...a) { const f = load().${k}; return new.target ? new f(...a) : f.apply(this, a); }`);
      // A function some releases lack is looked up (the module loaded) only on releases that may have it, so that
      // code testing for it finds it exactly where the running Node.js has it, whichever release built the bundle.
      for (const [k, major] of Object.entries(optional)) lines.push(`export const ${k} = Number(process.versions.node.split('.')[0]) >= ${major} ? load().${k} : undefined;`);
      // Tables of values (node:zlib's constants) are read through a proxy that loads the module on the first read.
      const tables = exported.filter((k) => mod[k] !== null && typeof mod[k] === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(mod[k])));
      lines.push(...tables.map((k) => `export const ${k} = new Proxy({}, { get: (_, p) => load().${k}[p] });`));
      return { contents: `let m;\nconst load = () => (m ??= require('node:${a.path}'));\n${lines.join('\n')}\n`, loader: 'js' };
    });
  },
};

/** picomatch (a glob compiler, a quarter of list's bundle) loads from node_modules when --filter first needs it. */
const lazyPicomatch = {
  name: 'lazy-picomatch',
  setup(b) {
    b.onResolve({ filter: /^picomatch$/ }, (a) =>
      a.namespace === 'lazy-picomatch' ? { path: 'picomatch', external: true } : { path: 'picomatch', namespace: 'lazy-picomatch' },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-picomatch' }, () => ({
      contents: "let m;\nexport default function picomatch(...a) { return (m ??= require('picomatch'))(...a); }\n",
      loader: 'js',
    }));
  },
};

/**
 * lz4js allocates a 5 MiB buffer and its hash table when loaded, and only LZ4 containers (rare) use it: it loads on
 * the first call of one of its functions.
 */
const lazyLz4 = {
  name: 'lazy-lz4',
  setup(b) {
    b.onResolve({ filter: /^lz4js$/ }, (a) => (a.namespace === 'lazy-lz4' ? { path: 'lz4js', external: true } : { path: 'lz4js', namespace: 'lazy-lz4' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-lz4' }, () => ({
      contents: ['let m;', "const load = () => (m ??= require('lz4js'));", ...['decompressBlock', 'compressBlock', 'compressBound'].map((f) => `export function ${f}(...a) { return load().${f}(...a); }`)].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * The Oodle decoders and encoders (a large module with static tables) load on the first Oodle block: the codec
 * registry, which every unpack and verify builds, gets a stand-in with the same name and methods (and oodleEncoder). Only the registry's import is
 * replaced; modules that call the decoders directly import them as usual.
 */
const lazyOodle = {
  name: 'lazy-oodle',
  setup(b) {
    const registry = join(dist, 'codecs', 'registry.js');
    b.onResolve({ filter: /\/oodle\/index\.js$/ }, (a) => (a.importer === registry ? { path: 'oodle', namespace: 'lazy-oodle' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-oodle' }, async () => {
      const { oodleCodec } = await import(pathToFileURL(join(dist, 'codecs', 'oodle', 'index.js')).href);
      const methods = Object.keys(oodleCodec).filter((k) => typeof oodleCodec[k] === 'function');
      return {
        contents: [
          'let m;',
          "const real = () => (m ??= require('./oodle/index.js')).oodleCodec;",
          `export const oodleCodec = { name: ${JSON.stringify(oodleCodec.name)}, ${methods.map((k) => `${k}: (...a) => real().${k}(...a)`).join(', ')} };`,
          // An encoder with settings (level, codec) is made when a pack asks for one: the module loads then.
          "export const oodleEncoder = (...a) => (m ??= require('./oodle/index.js')).oodleEncoder(...a);",
        ].join('\n'),
        resolveDir: join(dist, 'codecs'),
        loader: 'js',
      };
    });
  },
};

/**
 * Each module keeps its own `import.meta.url` (the address of its file in dist/): modules find package.json, the
 * web folder, native stubs and worker scripts relative to themselves. The bundle computes it from its own place.
 */
const moduleUrls = {
  name: 'module-urls',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (a) => {
      if (!a.path.startsWith(dist + sep)) return undefined;
      const text = readFileSync(a.path, 'utf8');
      const rel = relative(dist, a.path).split(sep).join('/');
      const out = text
        .replaceAll('import.meta.url', `__iostoreModuleUrl(${JSON.stringify(rel)})`)
        // Imports of modules that are not bundled (a user's native binding or codec, hash-wasm) go through
        // __iostoreImport (the banner): a bundle compiled from V8's code cache (bin/bundle-loader.js) has no
        // import() of its own. Relative imports are bundled, and picomatch has its plugin.
        .replace(/\bimport\((?!\s*['"](\.|picomatch['"]))/g, '__iostoreImport(');
      return out === text ? undefined : { contents: out, loader: 'js' };
    });
  },
};

/**
 * Modules (relative to dist/) that exist once, in the bundle named here; the other bundles require them from it. The
 * registry of temporary files has a bundle of its own: list and info, in the main one, write no files. The V8 flags
 * kept for the process (and whether bin/iostore.js owns it) are one state for every command bundle.
 */
const SHARED = { 'errors.js': 'main', 'layout/output.js': 'output', 'util/v8-flags.js': 'main' };

/** Lazy bundles of the main one: name -> the modules (relative to dist/) it holds, each imported with import(). */
const LAZY = {
  ...Object.fromEntries(['unpack', 'verify', 'pack', 'inspect', 'to-zen', 'to-legacy', 'props', 'decompress', 'web', 'completion'].map((c) => [c, [`cli/commands/${c}.js`]])),
  help: ['cli/help.js'],
  // list and info of a .pak or a folder
  pak: ['cli/pak-open.js', 'mount/mount.js', 'pak/listing.js', 'pak/archive.js', 'pak/pak-file.js', 'pak/version.js'],
  output: ['layout/output.js'],
  // an interrupted command's staged folder, removed by a detached process (bin/iostore.js, bin/remove-tree.js)
  removal: ['cli/detached-removal.js'],
};
const lazyOf = new Map(Object.entries(LAZY).flatMap(([name, mods]) => mods.map((m) => [m, name])));
const cli = join(dist, 'cli');
const bundleFile = (name) => join(cli, `${name}.bundle.cjs`);

/** `module.exports = require(<bundle>)<key>`, the bundle's path relative to the bundle being built (in dist/cli/). */
const redirect = (bundle, key) => ({ contents: `module.exports = require(${JSON.stringify(`./${bundle}.bundle.cjs`)})${key};`, loader: 'js' });

/**
 * Resolves `from` (the bundle's own group: 'main' or a LAZY name) imports: SHARED modules from the main bundle (in
 * other bundles), LAZY modules from their bundles (in the main one), everything else bundled.
 */
function groups(from) {
  return {
    name: 'groups',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (a) => {
        if (a.namespace !== 'file') return undefined;
        const rel = relative(dist, resolve(a.resolveDir, a.path)).split(sep).join('/');
        if (SHARED[rel] !== undefined && SHARED[rel] !== from) return { path: rel, namespace: 'shared' };
        if (from === 'main' && lazyOf.has(rel)) return { path: rel, namespace: 'lazy' };
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'shared' }, (a) => redirect(SHARED[a.path], `.modules[${JSON.stringify(a.path)}]`));
      b.onLoad({ filter: /.*/, namespace: 'lazy' }, (a) => redirect(lazyOf.get(a.path), `.modules[${JSON.stringify(a.path)}]`));
      b.onResolve({ filter: /\.bundle\.cjs$/ }, (a) => ({ path: a.path, external: true }));
    },
  };
}

/** An entry that exports `modules[rel]` for each module of `rels` (and what `extra` adds), as a namespace. */
function entryOf(rels, extra = '') {
  const lines = rels.map((r, k) => `import * as m${k} from ${JSON.stringify(`./${r}`)};`);
  lines.push(`export const modules = { ${rels.map((r, k) => `${JSON.stringify(r)}: m${k}`).join(', ')} };`, extra);
  return { contents: lines.join('\n'), resolveDir: dist, sourcefile: 'entry.js', loader: 'js' };
}

/** A bundle at `outfile`, with `__iostoreModuleUrl(rel)` giving the file URL of dist/<rel>. */
function bundle(outfile, entry, group) {
  const up = relative(dirname(outfile), dist).split(sep).join('/') || '.';
  return build({
    ...(typeof entry === 'string' ? { entryPoints: [entry] } : { stdin: entry }),
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    plugins: [...(group ? [groups(group)] : []), lazyBuiltins, lazyPicomatch, lazyLz4, lazyOodle, moduleUrls],
    // Read by util/worker-pool.ts: worker scripts are the bundles beside their modules.
    define: { 'globalThis.__iostoreBundled': 'true' },
    banner: {
      js: [
        `var __iostoreModuleUrl = (rel) => require("node:url").pathToFileURL(require("node:path").join(__dirname, ${JSON.stringify(up)}, rel)).href;`,
        // bin/bundle-loader.js provides it on the main thread; a worker loads its bundle as Node does, with import().
        'var __iostoreImport = globalThis.__iostoreDynamicImport ?? ((specifier) => import(specifier));',
      ].join('\n'),
    },
    // hash-wasm (BLAKE3 where the native addon is missing; 270 KB with its WebAssembly) loads from node_modules when
    // first asked for: it had been most of each worker's bundle, parsed by every worker at its start.
    external: ['hash-wasm'],
    logLevel: 'warning',
    legalComments: 'none',
    // Minified (whitespace, syntax and names): a short command reads, copies and hashes its bundle's source and
    // deserializes the names its code cache holds on every run (main bundle 128 -> 95 KB, its list cache 165 -> 155
    // KB: `list` of the bench's 3,000 chunks -0.6M instructions). A stack trace (--verbose) then names minified
    // functions: the source map beside each bundle (not read at run time) maps its positions back to src/ (through tsc's maps).
    minify: true,
    sourcemap: 'external',
    sourcesContent: false,
  });
}

/**
 * esbuild escapes non-ASCII characters in strings and identifiers but keeps the comments it keeps as they are: any
 * left (a `Σ` in a doc comment) become escapes too, so every bundle is ASCII, which bin/bundle-loader.js reads as
 * one-byte text without decoding UTF-8 (~1.5M instructions of each short run for the main bundle).
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  // eslint-disable-next-line no-control-regex
  const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) writeFileSync(file, ascii);
}

/** Worker entry points: every dist/**\/*-worker.js (the name is the convention runnableUrl relies on). */
function workerEntries(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...workerEntries(p));
    else if (e.name.endsWith('-worker.js')) out.push(p);
  }
  return out;
}

// The main bundle's entry: the CLI's run, its shared modules (loaded when first asked for: a require of a bundled
// module is a lazy, synchronous call), abortWrites for bin/iostore.js from the output bundle, whose temporary
// files are those the command registered, and the detached removal of a staged folder (removal bundle: node:child_process
// loads only when an interrupt needs it).
const mainShared = Object.keys(SHARED).filter((r) => SHARED[r] === 'main');
const main = {
  contents: [
    "export { run, ownProcessFlags, stdWritesPending } from './cli/main.js';",
    "export const abortWrites = (...a) => require('./output.bundle.cjs').modules['layout/output.js'].abortWrites(...a);",
    "export const removeDetached = (...a) => require('./removal.bundle.cjs').modules['cli/detached-removal.js'].removeDetached(...a);",
    "export const removeHandedOver = (...a) => require('./removal.bundle.cjs').modules['cli/detached-removal.js'].removeHandedOver(...a);",
    `export const modules = { ${mainShared.map((r) => `get ${JSON.stringify(r)}() { return require(${JSON.stringify(`./${r}`)}); }`).join(', ')} };`,
  ].join('\n'),
  resolveDir: dist,
  sourcefile: 'main-entry.js',
  loader: 'js',
};
// Nothing to do when dist's modules (the page's aside), this script and the dependencies are those the bundles were
// made from (scripts/up-to-date.mjs).
const stamp = join(dist, 'cli-bundles.stamp');
const inputs = signature(
  [{ path: dist, keep: (p) => p.endsWith('.js') && !p.startsWith(join(dist, 'web') + sep) }, { path: fileURLToPath(import.meta.url) }, { path: join(root, 'package-lock.json') }],
  [esbuildVersion],
);
const outputs = [bundleFile('main'), ...Object.keys(LAZY).map(bundleFile), ...workerEntries(dist).map((w) => w.replace(/\.js$/, '.cjs'))];
if (isCurrent(stamp, inputs, outputs)) process.exit(0);
// The bundles' V8 code caches (bin/bundle-loader.js) belong to the bundles they were made from, and V8 checks little
// more than a source's length: they go with the old bundles, and scripts/warm-code-cache.cjs writes new ones.
const cliDir = join(dist, 'cli');
// (A command's own cache of the main bundle is main.bundle.cjs.<command>.cache.)
if (existsSync(cliDir)) for (const f of readdirSync(cliDir)) if (/\.bundle\.cjs(\.[a-z-]+)?\.cache$/.test(f)) rmSync(join(cliDir, f));
// The worker bundles' caches (beside them) likewise.
for (const w of workerEntries(dist)) rmSync(`${w.replace(/\.js$/, '.cjs')}.cache`, { force: true });
await Promise.all([
  bundle(bundleFile('main'), main, 'main'),
  ...Object.entries(LAZY).map(([name, rels]) => bundle(bundleFile(name), entryOf(rels), name)),
  ...workerEntries(dist).map((w) => bundle(w.replace(/\.js$/, '.cjs'), w)),
]);
for (const file of outputs) asciiOnly(file);
markCurrent(stamp, inputs);
