#!/usr/bin/env node
// Builds the browser page (src/web) into dist/web: one classic script (so the page also works opened from file://,
// where module scripts are refused), its stylesheet and index.html. Node-only modules the library imports are
// replaced by the browser seams in src/web/platform (AES, SHA-1, Zlib) or by stubs that fail when called: the page
// never reaches those calls (files come in as Blobs, codecs from the page's registry).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'src', 'web');
const out = join(root, 'dist', 'web');
const seams = { crypto: join(web, 'platform', 'node-crypto.ts'), zlib: join(web, 'platform', 'node-zlib.ts') };

/** Maps `node:x` (and bare `x`) to a seam, or to a module whose every export throws when used. */
const nodeSeams = {
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
      const mod = await import(`node:${a.path}`);
      const names = Object.keys(mod).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
      const fail = `function unavailable(n){return function(){throw new Error('node:${a.path} '+n+' is not available in the browser');};}`;
      const lines = names.map((k) => `export const ${k} = unavailable(${JSON.stringify(k)});`);
      return { contents: `${fail}\n${lines.join('\n')}\nexport default {};\n`, loader: 'js' };
    });
  },
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  entryPoints: [join(web, 'app.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome100', 'firefox100', 'safari15'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  plugins: [nodeSeams],
  define: { 'import.meta.url': '"file:///iostore-web/"', 'process.platform': '"browser"' },
  logLevel: 'warning',
  metafile: true,
});
copyFileSync(join(web, 'index.html'), join(out, 'index.html'));
copyFileSync(join(web, 'style.css'), join(out, 'style.css'));
const bytes = Object.values(result.metafile.outputs).reduce((a, o) => a + o.bytes, 0);
if (process.argv.includes('--verbose')) console.log(`dist/web: app.js ${(bytes / 1024).toFixed(0)} KiB`);
