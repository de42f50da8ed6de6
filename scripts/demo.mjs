#!/usr/bin/env node
// The README demo, on files this project generates itself (samples/demo): pack a small mod folder of zen
// packages and bulk files into a container, list it, look inside a package, unpack it, and verify it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rel = (p) => relative(process.cwd(), p) || '.';
const mod = rel(join(root, 'samples', 'demo', 'mod'));
const bin = join(root, 'bin', 'iostore.js');
const work = mkdtempSync(join(tmpdir(), 'iostore-demo-'));
const utoc = join(work, 'Paks', 'DemoMod-Windows.utoc');

const steps = [
  ['pack', mod, utoc, '--version', 'UE5_4', '--compression', 'lz4'],
  ['info', utoc],
  ['list', utoc],
  ['list', utoc, '--by-type'],
  ['inspect', utoc, 'Demo/Noise.uasset'],
  ['unpack', utoc, join(work, 'unpacked')],
  ['verify', utoc],
];
try {
  for (const args of steps) {
    console.log(`\n$ iostore ${args.join(' ')}`);
    const r = spawnSync(process.execPath, [bin, ...args], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  console.log(`\ndemo complete (its files were under ${work}, now removed)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
