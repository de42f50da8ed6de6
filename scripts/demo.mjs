#!/usr/bin/env node
// The README demo: the whole cycle on a container the project built itself (samples/demo): inspect it, unpack
// it, verify it, pack the unpacked folder back into a container, and check the rebuilt one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const utoc = relative(process.cwd(), join(root, 'samples', 'demo', 'DemoMod-Windows.utoc')) || '.';
const bin = join(root, 'bin', 'iostore.js');
const work = mkdtempSync(join(tmpdir(), 'iostore-demo-'));
const unpacked = join(work, 'unpacked');
const rebuilt = join(work, 'rebuilt', 'DemoMod-Windows.utoc');

const steps = [
  ['info', utoc],
  ['list', utoc],
  ['list', utoc, '--by-type'],
  ['verify', utoc],
  ['unpack', utoc, unpacked],
  ['pack', unpacked, rebuilt],
  ['verify', rebuilt],
  ['list', rebuilt, '--filter', '**/*.ubulk', '--csv'],
];
try {
  for (const args of steps) {
    console.log(`\n$ iostore ${args.join(' ')}`);
    const r = spawnSync(process.execPath, [bin, ...args], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  console.log(`\ndemo complete: the rebuilt container verifies (files were under ${work}, now removed)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
