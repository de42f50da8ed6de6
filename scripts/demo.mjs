#!/usr/bin/env node
// The README demo: shows a container the project built itself (samples/demo) through the CLI.
import { spawnSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const utoc = relative(process.cwd(), join(root, 'samples', 'demo', 'DemoMod-Windows.utoc'));
const bin = join(root, 'bin', 'iostore.js');

const steps = [
  ['info', utoc],
  ['list', utoc],
  ['list', utoc, '--by-type'],
  ['list', utoc, '--filter', '**/*.ubulk', '--json'],
];
for (const args of steps) {
  console.log(`\n$ iostore ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [bin, ...args], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
