#!/usr/bin/env node
// Bundles the `iostore` CLI into one CommonJS file, dist/cli/main.bundle.cjs, which bin/iostore.js loads, and each
// worker thread's entry point (dist/**/*-worker.js) into one file beside it (*-worker.cjs), which the bundled code
// starts instead (util/worker-pool.ts: runnableUrl). Node resolves, reads and links each ES module on its own, and
// an ES import of a built-in (node:fs, node:crypto) builds a facade over all of its exports: loading the ~60 modules
// of unpack from dist/ cost more than a short run's own work, and each worker paid it again.
//
// Every command is in the one bundle, so a run loads one file and there is one copy of each module (one
// IoStoreError class, one set of temporary files for bin/iostore.js's interrupt cleanup). The library (dist/index.js)
// stays ES modules, unchanged. What only a .pak or the help needs is bundled too: a module is compiled when first
// called, so code a run does not reach costs little beyond its parse.
import { build } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/**
 * node:crypto loads when first called rather than at start-up (several milliseconds): only an encrypted container
 * or a pak's SHA-1 needs it. Each of its functions is replaced by one that loads the module on its first call.
 */
const lazyCrypto = {
  name: 'lazy-crypto',
  setup(b) {
    b.onResolve({ filter: /^(node:)?crypto$/ }, (a) =>
      // The lazy module's own require is of the real one.
      a.namespace === 'lazy-builtin' ? { path: 'node:crypto', external: true } : { path: 'crypto', namespace: 'lazy-builtin' },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async () => {
      const mod = await import('node:crypto');
      const names = Object.keys(mod).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k) && typeof mod[k] === 'function');
      const lines = names.map((k) => `export function ${k}(...a) { const f = load().${k}; return new.target ? new f(...a) : f.apply(this, a); }`);
      return { contents: `let m;\nconst load = () => (m ??= require('node:crypto'));\n${lines.join('\n')}\n`, loader: 'js' };
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
 * Each module keeps its own `import.meta.url` (the address of its file in dist/): modules find package.json, the
 * web folder, native stubs and worker scripts relative to themselves. The bundle computes it from its own place.
 */
const moduleUrls = {
  name: 'module-urls',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (a) => {
      if (!a.path.startsWith(dist + sep)) return undefined;
      const text = readFileSync(a.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const rel = relative(dist, a.path).split(sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `__iostoreModuleUrl(${JSON.stringify(rel)})`), loader: 'js' };
    });
  },
};

/** A bundle at `outfile`, with `__iostoreModuleUrl(rel)` giving the file URL of dist/<rel>. */
function bundle(entry, outfile) {
  const up = relative(dirname(outfile), dist).split(sep).join('/') || '.';
  return build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    plugins: [lazyCrypto, lazyPicomatch, moduleUrls],
    // Read by util/worker-pool.ts: worker scripts are the bundles beside their modules.
    define: { 'globalThis.__iostoreBundled': 'true' },
    banner: {
      js: `var __iostoreModuleUrl = (rel) => require("node:url").pathToFileURL(require("node:path").join(__dirname, ${JSON.stringify(up)}, rel)).href;`,
    },
    logLevel: 'warning',
    legalComments: 'none',
  });
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

await Promise.all([
  bundle(join(dist, 'cli', 'main.js'), join(dist, 'cli', 'main.bundle.cjs')),
  ...workerEntries(dist).map((w) => bundle(w, w.replace(/\.js$/, '.cjs'))),
]);
