#!/usr/bin/env node
// Writes samples/demo: a small mod folder of zen packages and bulk files that this project generates (no game
// content), and the container `iostore pack` makes of it, so the README demo runs on a fresh clone.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildZenPackage, packFolder } from '../dist/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SAMPLE_DIR = join(root, 'samples', 'demo');
export const MOD_DIR = join(SAMPLE_DIR, 'mod');
export const SAMPLE_NAME = 'DemoMod-Windows';
/** What the committed container was packed with; a test repacks the folder with the same settings. */
export const PACK_OPTIONS = { engine: 'UE5_4', compression: 'lz4' };

/** The files of the mod folder, laid out below the mount point `../../../`. */
export function sampleFiles() {
  const text = (s) => new TextEncoder().encode(s);
  let x = 0x9e3779b9;
  const noise = new Uint8Array(90_000).map(() => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) >>> 24));
  const gradient = new Uint8Array(200_000).map((_, i) => (i >> 8) & 0xff);
  const pkg = (name, exports) => buildZenPackage({ name, exports, fileVersionUE5: 1012 });
  return {
    'DemoMod/Content/Demo/Hello.uasset': pkg('/Game/Demo/Hello', [
      { name: 'Hello', className: '/Script/Engine/DataAsset', data: text('Hello from iostore-toolkit. '.repeat(40)) },
    ]),
    'DemoMod/Content/Demo/Gradient.uasset': pkg('/Game/Demo/Gradient', [
      { name: 'Gradient', className: '/Script/Engine/Texture2D', data: text('A texture package made by the sample generator. '.repeat(20)) },
    ]),
    'DemoMod/Content/Demo/Gradient.ubulk': gradient,
    'DemoMod/Content/Demo/Noise.uasset': pkg('/Game/Demo/Noise', [
      { name: 'Noise', className: '/Script/Engine/Texture2D', data: text('A package whose bulk data does not compress. '.repeat(10)) },
      { name: 'NoiseInfo', className: '/Script/Engine/DataAsset', data: text('A second export in the same package.') },
    ]),
    'DemoMod/Content/Demo/Noise.ubulk': noise,
  };
}

export function writeModFolder(dir) {
  rmSync(dir, { recursive: true, force: true });
  for (const [path, data] of Object.entries(sampleFiles())) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), data);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeModFolder(MOD_DIR);
  for (const ext of ['utoc', 'ucas', 'pak']) rmSync(join(SAMPLE_DIR, `${SAMPLE_NAME}.${ext}`), { force: true });
  const r = await packFolder(MOD_DIR, join(SAMPLE_DIR, `${SAMPLE_NAME}.utoc`), PACK_OPTIONS);
  console.log(`wrote ${MOD_DIR} and ${r.utoc} (${r.chunks} chunks, packages: ${r.packages.join(', ')})`);
}
