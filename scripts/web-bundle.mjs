// How the browser page is bundled (esbuild options and the Node seams), and the check that no Node global reaches
// it. build-web.mjs runs both; test/web/bundle.test.ts checks that the check catches a planted global.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const webSource = join(root, 'src', 'web');
const seams = { crypto: join(webSource, 'platform', 'node-crypto.ts'), zlib: join(webSource, 'platform', 'node-zlib.ts') };

/**
 * Maps `node:x` (and bare `x`) to a seam, or to a module whose every export throws when used. Node-only modules the
 * library imports are replaced by the browser seams in src/web/platform (AES, SHA-1, Zlib) or by these stubs: the
 * page never reaches those calls (files come in as Blobs, codecs from the page's registry).
 */
export const nodeSeams = {
  name: 'node-seams',
  setup(b) {
    const builtin = /^(node:)?(fs|fs\/promises|path|os|worker_threads|module|crypto|zlib|url|child_process|stream|util|events)$/;
    b.onResolve({ filter: builtin }, (a) => {
      const name = a.path.replace(/^node:/, '');
      if (seams[name]) return { path: seams[name] };
      return { path: name, namespace: 'node-stub' };
    });
    // The page hashes with BLAKE3 only: its single-algorithm build rather than the whole hash-wasm bundle.
    b.onResolve({ filter: /^hash-wasm$/ }, () => ({ path: join(root, 'node_modules', 'hash-wasm', 'dist', 'blake3.umd.min.js') }));
    b.onLoad({ filter: /.*/, namespace: 'node-stub' }, async (a) => {
      const mod = await import(/* @vite-ignore */ `node:${a.path}`);
      const names = Object.keys(mod).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
      const fail = `function unavailable(n){return function(){throw new Error('node:${a.path} '+n+' is not available in the browser');};}`;
      const lines = names.map((k) => `export const ${k} = unavailable(${JSON.stringify(k)});`);
      return { contents: `${fail}\n${lines.join('\n')}\nexport default {};\n`, loader: 'js' };
    });
  },
};

/** The options both the page build and the check use. */
export const webBuildOptions = {
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome100', 'firefox100', 'safari15'],
  legalComments: 'none',
  plugins: [nodeSeams],
  define: { 'import.meta.url': '"file:///iostore-web/"', 'process.platform': '"browser"' },
  // A require esbuild cannot bundle would look for Node's `require` at run time.
  logOverride: { 'unsupported-require-call': 'error' },
};

/** Globals Node has and browsers do not. `require` is caught through esbuild's `__require` shim instead. */
export const NODE_GLOBALS = ['Buffer', 'process', '__dirname', '__filename', 'global', 'setImmediate', 'clearImmediate'];

/** Third-party uses that are safe: each only behind a `typeof` test, with a browser alternative first. */
const ALLOWED = [
  { module: 'node_modules/hash-wasm/', global: 'global' },
  { module: 'node_modules/picomatch/', global: 'process' },
];

/**
 * Every free reference to a Node global in the bundle of `entry`, as `module: name in <code>` lines. esbuild's
 * `define` replaces only free identifiers (not locals or properties of that name), so each one left is marked and
 * found in an unminified build, under the `// path` comment that esbuild writes at the start of each module.
 */
export async function nodeGlobalsIn(entry) {
  const define = { ...webBuildOptions.define };
  for (const g of NODE_GLOBALS) define[g] = `__NODE_GLOBAL_${g}__`;
  const result = await build({ ...webBuildOptions, entryPoints: [entry], write: false, minify: false, define, logLevel: 'silent' });
  const found = [];
  let module = '';
  let inShim = true;
  for (const line of result.outputFiles[0].text.split('\n')) {
    const m = /^ {2}\/\/ (\S.*)$/.exec(line);
    if (m) {
      module = m[1];
      inShim = false;
      continue;
    }
    const names = [...line.matchAll(/__NODE_GLOBAL_(\w+?)__/g)].map((x) => x[1]);
    // The shim itself (before the first module) tests `typeof require`; a module calling it is what counts.
    if (!inShim && /\b__require\b/.test(line)) names.push('require');
    for (const name of new Set(names)) {
      if (ALLOWED.some((a) => module.includes(a.module) && a.global === name)) continue;
      found.push(`${module}: ${name} in ${line.trim().replace(/__NODE_GLOBAL_(\w+?)__/g, '$1').slice(0, 120)}`);
    }
  }
  return found;
}
