#!/usr/bin/env node
// Bundles the start of the `iostore` CLI (dist/cli/main.js, the argument parser and the short commands `list` and
// `info` with the library code they use) into one CommonJS file, dist/cli/main.bundle.cjs, which bin/iostore.js
// loads. Node resolves, reads and links each ES module on its own, and an ES import of a built-in (node:fs,
// node:crypto) builds a facade over all of its exports; for these commands that was most of the start-up time
// (about 40 modules, picomatch among them), while their work is a few milliseconds.
//
// The other commands stay outside the bundle and load from dist/ with import() as before: they start workers and
// native libraries from paths relative to their own files, and their run time dwarfs their start. Their errors are
// dist/errors.js's IoStoreError, not the bundle's copy: main.ts recognises both (by name and code).
import { build } from 'esbuild';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli');
const BUNDLED_COMMANDS = new Set(['list.js', 'info.js']);
// What list and info import only for a .pak or a folder, and the help texts: loaded from dist/ when asked for, they
// stay out of the file every run compiles.
const ON_DEMAND = [join(root, 'dist', 'pak'), join(root, 'dist', 'unpack', 'mount.js'), join(cli, 'pak-open.js'), join(cli, 'help.js')];

/** Keeps every command but the bundled ones, and ON_DEMAND, as imports of their dist/ files. */
const keepOutside = {
  name: 'keep-outside',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (a) => {
      const target = resolve(a.resolveDir, a.path);
      const command = dirname(target) === join(cli, 'commands') && !BUNDLED_COMMANDS.has(target.slice(target.lastIndexOf(sep) + 1));
      if (!command && !ON_DEMAND.some((m) => target === m || target.startsWith(`${m}${sep}`))) return undefined;
      // The bundle sits in dist/cli/: the import is rewritten relative to it.
      const path = relative(cli, target).split(sep).join('/');
      return { path: path.startsWith('.') ? path : `./${path}`, external: true };
    });
  },
};

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

/** picomatch (a glob compiler, a quarter of the bundle) loads from node_modules when --filter first needs it. */
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

await build({
  entryPoints: [join(cli, 'main.js')],
  outfile: join(cli, 'main.bundle.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  plugins: [keepOutside, lazyCrypto, lazyPicomatch],
  // main.ts finds package.json relative to its own file.
  define: { 'import.meta.url': '__iostoreModuleUrl' },
  banner: { js: 'var __iostoreModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
  legalComments: 'none',
});
