#!/usr/bin/env node
// Compiles the project's WebAssembly modules (AssemblyScript) and embeds each, base64, in a generated TypeScript
// file, so that the library, the CLI bundles and the browser page all carry them without a file of their own to find:
// the Oodle decoder (assembly/oodle -> src/codecs/oodle/wasm-bytes.generated.ts), the TOC reader's per-entry loops
// (assembly/toc -> src/toc/toc-scan-wasm.generated.ts), those loops with the chunk rows of `iostore list`
// (assembly/toc-listing, which imports assembly/toc and assembly/listing -> src/cli/toc-listing-wasm.generated.ts)
// a long unpack manifest's chunk entries (assembly/manifest ->
// src/layout/manifest-wasm.generated.ts) and CityHash64 of package names (assembly/cityhash ->
// src/hash/cityhash-wasm.generated.ts). Part of `npm run build`, before tsc. A module is rebuilt
// only when its sources, the compiler or its options change (their hash is in the generated file).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// -O3 for speed, no assertions (the code checks every bound itself), and the stub runtime: neither module allocates,
// so neither needs a garbage collector. The decoder also uses SIMD for its 16-byte copies. The TOC scan and the list
// rows import their memory: a .utoc read into one (src/toc/toc-scan.ts `tocBytesInModule`) is scanned and listed
// where it lies, by both modules.
const COMMON = ['--runtime', 'stub', '-O3', '--noAssert', '--converge', '--importMemory'];
const MODULES = [
  { dir: 'oodle', target: join('src', 'codecs', 'oodle', 'wasm-bytes.generated.ts'), name: 'OODLE_WASM_BASE64', what: "The Oodle decoder's", options: ['--runtime', 'stub', '-O3', '--noAssert', '--enable', 'simd', '--converge'] },
  // SIMD for the names' checks 16 bytes a step (assembly/toc nameBytes16), as the Oodle decoder's copies.
  { dir: 'toc', target: join('src', 'toc', 'toc-scan-wasm.generated.ts'), name: 'TOC_SCAN_WASM_BASE64', what: "The TOC reader's loops'", options: [...COMMON, '--enable', 'simd'] },
  // The TOC loops and the chunk rows writer as one module, for `iostore list` (one compile and instance). SIMD for
  // its hex (every Node the CLI runs on has it; the module serves the CLI only).
  { dir: 'toc-listing', uses: ['toc', 'listing'], target: join('src', 'cli', 'toc-listing-wasm.generated.ts'), name: 'TOC_LISTING_WASM_BASE64', what: 'The TOC loops and chunk rows writer', options: [...COMMON, '--enable', 'simd'] },
  // CityHash64 of package names, for a pack's plan (src/hash/names.ts): its own memory.
  { dir: 'cityhash', target: join('src', 'hash', 'cityhash-wasm.generated.ts'), name: 'CITYHASH_WASM_BASE64', what: 'CityHash64', options: ['--runtime', 'stub', '-O3', '--noAssert', '--converge', '--initialMemory', '1'] },
  // Its memory is shared: an unpack's .utoc lies in one (src/util/wasm.ts sharedModuleBytes), read in place.
  { dir: 'manifest', target: join('src', 'layout', 'manifest-wasm.generated.ts'), name: 'MANIFEST_WASM_BASE64', what: "The long manifest's chunk entries writer", options: [...COMMON, '--sharedMemory', '--maximumMemory', '65536', '--enable', 'threads'] },
];
const ascVersion = JSON.parse(readFileSync(join(root, 'node_modules', 'assemblyscript', 'package.json'), 'utf8')).version;

for (const m of MODULES) await build(m);

async function build({ dir, uses = [], target, name, what, options }) {
  const sources = join(root, 'assembly', dir);
  const out = join(root, target);
  const hash = createHash('sha256');
  hash.update(`${ascVersion}\n${options.join(' ')}\n`);
  // The module's own folder and those it imports from (`uses`).
  for (const d of [dir, ...uses]) {
    const files = readdirSync(join(root, 'assembly', d)).filter((f) => f.endsWith('.ts')).sort();
    for (const f of files) hash.update(`${d === dir ? '' : `${d}/`}${f}\n`).update(readFileSync(join(root, 'assembly', d, f)));
  }
  // And the files shared at assembly/'s top level (e.g. lanes.ts), which any module may import.
  for (const f of readdirSync(join(root, 'assembly')).filter((f) => f.endsWith('.ts')).sort()) hash.update(`../${f}\n`).update(readFileSync(join(root, 'assembly', f)));
  const digest = hash.digest('hex').slice(0, 16);
  if (existsSync(out) && readFileSync(out, 'utf8').includes(`SOURCE_HASH = '${digest}'`)) return;

  const asc = (await import('assemblyscript/asc')).default;
  const tmp = mkdtempSync(join(tmpdir(), 'iostore-wasm-'));
  try {
    const wasm = join(tmp, `${dir}.wasm`);
    const { error, stderr } = await asc.main([join(sources, 'index.ts'), ...options, '--outFile', wasm]);
    if (error) {
      console.error(stderr.toString());
      throw error;
    }
    const bytes = readFileSync(wasm);
    // Compiled here once, so that a module this Node cannot load fails the build rather than every use.
    new WebAssembly.Module(bytes);
    const lines = [
      `// Generated by scripts/build-wasm.mjs from assembly/${dir}: do not edit.`,
      `export const SOURCE_HASH = '${digest}';`,
      `/** ${what} WebAssembly module (${bytes.length} bytes), base64. */`,
      `export const ${name} =\n  '${bytes.toString('base64')}';`,
      '',
    ];
    writeFileSync(out, lines.join('\n'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
