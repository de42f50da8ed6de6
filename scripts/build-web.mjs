#!/usr/bin/env node
// Builds the browser page (src/web) into dist/web: one classic script (so the page also works opened from file://,
// where module scripts are refused), its stylesheet and index.html. The build fails when a Node global (Buffer,
// process, require, __dirname...) reaches the bundle: in the page it would throw only when that line runs.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCurrent, markCurrent, signature } from './up-to-date.mjs';
import { nodeGlobalsIn, webBuildOptions, webSource } from './web-bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
const entry = join(webSource, 'app.ts');

// Nothing to do when the sources (the page bundles library modules too), these scripts and the dependencies are
// those the page was built from.
const stamp = join(root, 'dist', 'web.stamp');
const scripts = dirname(fileURLToPath(import.meta.url));
const inputs = signature([join(root, 'src'), join(scripts, 'build-web.mjs'), join(scripts, 'web-bundle.mjs'), join(root, 'package-lock.json')].map((path) => ({ path })));
if (!process.argv.includes('--verbose') && isCurrent(stamp, inputs, ['app.js', 'index.html', 'style.css'].map((f) => join(out, f)))) process.exit(0);

const leaks = await nodeGlobalsIn(entry);
if (leaks.length > 0) {
  console.error(`build-web: ${leaks.length} Node global(s) reach the page bundle (the page has no Node):\n${leaks.map((l) => `  ${l}`).join('\n')}`);
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  ...webBuildOptions,
  entryPoints: [entry],
  outfile: join(out, 'app.js'),
  minify: true,
  sourcemap: false,
  logLevel: 'warning',
  metafile: true,
});
copyFileSync(join(webSource, 'index.html'), join(out, 'index.html'));
copyFileSync(join(webSource, 'style.css'), join(out, 'style.css'));
const bytes = Object.values(result.metafile.outputs).reduce((a, o) => a + o.bytes, 0);
if (process.argv.includes('--verbose')) console.log(`dist/web: app.js ${(bytes / 1024).toFixed(0)} KiB`);
markCurrent(stamp, inputs);
