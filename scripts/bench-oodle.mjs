#!/usr/bin/env node
// Oodle decoder throughput on one core, in the JIT's steady state: `node scripts/bench-oodle.mjs` (or
// `npm run bench -- --oodle`) prints every codec's MB/s of output on the corpus containers' Oodle blocks, held in
// memory, and on corpus/oodle-vectors, beside the TypeScript decoder alone and the native ooz-decode on the same bytes.
// A figure is the median of timed passes over all the blocks in one process (`child <kind> <codec>` runs one and
// prints JSON); the three decoders run in alternation, three rounds. Run `npm run build` first: it times
// dist/ (or the build that BENCH_OODLE_DIST names). `ab <other build's dist/index.js>` compares two builds (below).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = join(root, '..', 'shared', 'corpus');

/** Unencrypted corpus containers with Oodle blocks (the encrypted variants hold the same blocks). */
const CONTAINERS = [
  'ue5.8-cue4parse/oodle/CUE4ParseFixtures-Minimal-Oodle-Windows',
  'ue5.8-cue4parse/oodlepartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows',
  'ue6.0-cue4parse/oodle/CUE4ParseFixtures-Minimal-Oodle-Windows',
  'ue6.0-cue4parse/oodlepartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows',
  'ue5.1-patchtest/jh-patchtest-chunk1/pakchunk1-Windows',
  'ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows',
  'ue5.1-patchtest/jh-patchtest-chunk1001-p/pakchunk1001-Windows_0_P',
];
const CODEC_OF_TYPE = { 6: 'kraken', 10: 'mermaid', 11: 'bitknit', 12: 'leviathan' };
const CODECS = ['kraken', 'mermaid', 'selkie', 'leviathan', 'bitknit'];

/** Every Oodle block of the corpus containers as [compressed bytes, raw size, codec name]. */
export async function corpusBlocks() {
  const { readToc } = await import('../dist/index.js');
  const blocks = [];
  for (const name of CONTAINERS) {
    const base = join(corpus, name);
    if (!existsSync(`${base}.utoc`)) continue;
    const toc = readToc(new Uint8Array(readFileSync(`${base}.utoc`)));
    const parts = [];
    for (let p = 0; p < Math.max(1, toc.partitionCount); p++) parts.push(readFileSync(p === 0 ? `${base}.ucas` : `${base}_s${p}.ucas`));
    const partSize = Number.isFinite(toc.partitionSize) ? toc.partitionSize : Infinity;
    for (let k = 0; k < toc.blockCount; k++) {
      if (toc.compressionMethods[toc.blocks.method(k)]?.toLowerCase() !== 'oodle') continue;
      const off = toc.blocks.offset(k);
      const part = partSize === Infinity ? 0 : Math.floor(off / partSize);
      const at = off - part * (partSize === Infinity ? 0 : partSize);
      const c = new Uint8Array(parts[part].subarray(at, at + toc.blocks.compressedSize(k)));
      blocks.push([c, toc.blocks.uncompressedSize(k), CODEC_OF_TYPE[c[1] & 0x7f] ?? `type${c[1] & 0x7f}`]);
    }
  }
  return blocks;
}

/** A test vector (size prefix, 8 bytes for Leviathan, 4 otherwise, then the raw stream) as one block. */
function vectorBlock(codec) {
  const file = join(corpus, 'oodle-vectors', `xml.${codec}`);
  if (!existsSync(file)) return undefined;
  const bytes = new Uint8Array(readFileSync(file));
  const view = new DataView(bytes.buffer);
  const prefix = codec === 'leviathan' ? 8 : 4;
  const size = prefix === 8 ? Number(view.getBigUint64(0, true)) : view.getUint32(0, true);
  return [bytes.subarray(prefix), size, codec];
}

/**
 * Median MB/s of output over timed passes of `blocks` (after warm-up): by wall time, and by the process's CPU time
 * (which other processes on a busy machine do not inflate; it includes the GC's helper threads).
 */
function timePasses(decode, blocks, seconds = 1.5) {
  const bytes = blocks.reduce((a, b) => a + b[1], 0);
  const pass = () => { for (const [c, u] of blocks) decode(c, u); };
  const w = performance.now();
  while (performance.now() - w < 400) pass();
  const wall = [];
  const cpu = [];
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000 || wall.length < 7) {
    const s = performance.now();
    const c = process.cpuUsage();
    pass();
    const d = process.cpuUsage(c);
    wall.push(bytes / 1e6 / ((performance.now() - s) / 1000));
    cpu.push(bytes / 1e6 / ((d.user + d.system) / 1e6));
  }
  const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  return { rate: median(wall), cpuRate: median(cpu), passes: wall.length, bytes, blocks: blocks.length };
}

const isMain = process.argv[1] === fileURLToPath(import.meta.url);

/**
 * `ab <other dist/index.js> [seconds]`: this build against another one in one process, passes in alternation (so
 * that other load on the machine falls on both alike), by CPU time; prints each side's median MB/s and the median of
 * the per-round speedups for the corpus blocks and each vector, each in a fresh process (BENCH_OODLE_API: alloc,
 * into or view, as for `child`; codecs share the copy
 * routines, so one codec's runs would shape the compiled code of the next). Outputs are compared byte for byte first.
 */
if (isMain && process.argv[2] === 'ab') {
  const [otherPath, secs = '4', only] = process.argv.slice(3);
  if (only === undefined) {
    for (const set of ['corpus', ...CODECS]) {
      process.stdout.write(execFileSync(process.execPath, [fileURLToPath(import.meta.url), 'ab', otherPath, secs, set], { encoding: 'utf8' }));
    }
    process.exit(0);
  }
  // Each build as the path BENCH_OODLE_API names ('alloc' by default; 'view' falls back to 'into' where absent).
  const api = process.env.BENCH_OODLE_API ?? 'alloc';
  const pick = (m) => {
    if (api === 'alloc') return m.oodleDecompress;
    if (api === 'view' && m.oodleDecompressView) return m.oodleDecompressView;
    let out = new Uint8Array(0);
    return (c, u) => {
      if (out.length < u) out = new Uint8Array(u);
      const o = out.subarray(0, u);
      m.oodleDecompressInto(c, o);
      return o;
    };
  };
  const other = pick(await import(otherPath));
  const mine = pick(await import(process.env.BENCH_OODLE_DIST ?? '../dist/index.js'));
  const seconds = Number(secs);
  const sets = only === 'corpus' ? [['corpus blocks', await corpusBlocks()]] : [[`vector ${only}`, [vectorBlock(only)].filter(Boolean)]];
  const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  for (const [name, blocks] of sets) {
    if (!blocks.length) continue;
    for (const [c, u] of blocks) if (Buffer.compare(other(c, u), mine(c, u)) !== 0) throw new Error(`${name}: outputs differ`);
    const bytes = blocks.reduce((a, b) => a + b[1], 0);
    const pass = (f) => { const s = process.cpuUsage(); for (const [c, u] of blocks) f(c, u); const d = process.cpuUsage(s); return (d.user + d.system) / 1e6; };
    const w = performance.now();
    while (performance.now() - w < 1000) { pass(other); pass(mine); }
    const ratios = [], a = [], b = [];
    const t0 = performance.now();
    while (performance.now() - t0 < seconds * 1000 || ratios.length < 5) {
      const x = pass(other), y = pass(mine), x2 = pass(other), y2 = pass(mine);
      ratios.push((x + x2) / (y + y2));
      a.push((2 * bytes) / 1e6 / (x + x2));
      b.push((2 * bytes) / 1e6 / (y + y2));
    }
    console.log(`${name.padEnd(16)} other ${median(a).toFixed(0).padStart(5)} MB/s  this ${median(b).toFixed(0).padStart(5)} MB/s  speedup ${median(ratios).toFixed(3)} (${ratios.length} rounds, per CPU second)`);
  }
  process.exit(0);
}
if (isMain && process.argv[2] === 'child') {
  const [kind, codec, api = 'view'] = process.argv.slice(3);
  const { oodleDecompress, oodleDecompressInto, oodleDecompressView } = await import(process.env.BENCH_OODLE_DIST ?? '../dist/index.js');
  let blocks;
  if (kind === 'corpus') blocks = (await corpusBlocks()).filter((b) => codec === 'all' || b[2] === codec);
  else blocks = [vectorBlock(codec)].filter(Boolean);
  if (!blocks.length) {
    console.log('null');
  } else {
    // 'view': left in the decoder's memory and read from there (oodleDecompressView), as unpack and verify decode
    // (the reader's span buffer is the WebAssembly module's output area, Codec.outputArea); 'into': copied into one
    // reused buffer (oodleDecompressInto), as a caller that owns its output does; 'alloc': a fresh output buffer per
    // block (oodleDecompress), whose allocation and zeroing the figure then includes. A build without the view API
    // (BENCH_OODLE_DIST of an older one) is timed 'into'.
    const out = new Uint8Array(Math.max(...blocks.map((b) => b[1])));
    const into = (c, u) => oodleDecompressInto(c, out.subarray(0, u));
    const decode = api === 'alloc' ? oodleDecompress : api === 'view' && oodleDecompressView ? oodleDecompressView : into;
    console.log(JSON.stringify(timePasses(decode, blocks, Number(process.env.BENCH_OODLE_SECONDS ?? 1.5))));
  }
  process.exit(0);
}

/** Runs one measurement in a fresh process (`env` adds to the environment): { rate, cpuRate, ... } or null. */
function measureOnce(kind, codec, env = {}) {
  return JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), 'child', kind, codec, process.env.BENCH_OODLE_API ?? 'view'], { encoding: 'utf8', env: { ...process.env, ...env } }));
}

const OOZ = join(root, '..', 'shared', 'tools', 'ooz', 'ooz-decode');

/** ooz-decode's one-core benchmark of a vector file or a blocks file: { rate, cpuRate } (MB/s of output), or null. */
function oozRate(kind, file) {
  try {
    const r = JSON.parse(execFileSync(OOZ, [kind === 'vector' ? '-b' : '-B', '1.5', file], { encoding: 'utf8' }));
    return { rate: r.rate, cpuRate: r.cpuRate };
  } catch {
    return null;
  }
}

/** The corpus blocks of one codec as ooz-decode's blocks file ([u32 stored][u32 raw][bytes] each), in a temporary folder. */
function blocksFile(blocks, dir, codec) {
  const parts = [];
  for (const [c, u] of blocks) {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(c.length, 0);
    h.writeUInt32LE(u, 4);
    parts.push(h, c);
  }
  const file = join(dir, `${codec}.blocks`);
  writeFileSync(file, Buffer.concat(parts));
  return file;
}

/**
 * Ours (the WebAssembly decoder, as the library uses it), the TypeScript decoder alone (IOSTORE_OODLE_WASM=0) and
 * ooz-decode, `rounds` times in alternation, each a fresh process; medians of MB/s, and the median of the per-round
 * ratios ours / ooz-decode.
 */
function sideBySideRates(kind, codec, oozFile, rounds = 3) {
  const ours = [];
  const ts = [];
  const native = [];
  const ratio = [];
  const cpuRatio = [];
  for (let i = 0; i < rounds; i++) {
    const o = measureOnce(kind, codec);
    const t = measureOnce(kind, codec, { IOSTORE_OODLE_WASM: '0' });
    const n = oozFile ? oozRate(kind, oozFile) : null;
    if (!o) return null;
    ours.push(o);
    ts.push(t);
    if (n) {
      native.push(n);
      ratio.push(o.rate / n.rate);
      cpuRatio.push(o.cpuRate / n.cpuRate);
    }
  }
  const med = (a) => (a.length ? [...a].sort((x, y) => x - y)[a.length >> 1] : NaN);
  return {
    ours: med(ours.map((r) => r.rate)),
    ts: med(ts.map((r) => r.rate)),
    native: med(native.map((r) => r.rate)),
    ratio: med(ratio),
    cpuRatio: med(cpuRatio),
    blocks: ours[0].blocks,
    bytes: ours[0].bytes,
  };
}

/** Prints every codec's figure: the corpus container blocks by codec, then the test vectors. */
export async function benchOodle(log = console.log) {
  const blocks = await corpusBlocks();
  const byCodec = new Map();
  for (const b of blocks) byCodec.set(b[2], [...(byCodec.get(b[2]) ?? []), b]);
  const raw = blocks.reduce((a, b) => a + b[1], 0);
  const haveOoz = existsSync(OOZ);
  const tmp = mkdtempSync(join(tmpdir(), 'iostore-oodle-'));
  const line = (name, r) => {
    const vs = Number.isFinite(r.native) ? `ooz-decode ${r.native.toFixed(0).padStart(5)} MB/s   ours/ooz ${r.ratio.toFixed(2)}x (per CPU second ${r.cpuRatio.toFixed(2)}x)` : 'ooz-decode not found';
    log(`    ${name.padEnd(10)} ours ${r.ours.toFixed(0).padStart(5)} MB/s   TypeScript ${r.ts.toFixed(0).padStart(5)} MB/s   ${vs}`);
  };
  try {
    log(`\nOodle codecs, one core (MB/s of output, left in the decoder's memory as unpack and verify decode (BENCH_OODLE_API=into: copied into the caller's buffer); ours = the WebAssembly decoder the library uses, TypeScript = the reference decoder alone (IOSTORE_OODLE_WASM=0), ooz-decode = a native decoder (-b/-B); medians of 3 rounds in alternation, each a fresh process)`);
    log(`  corpus container blocks (${blocks.length} blocks, ${(raw / 1e6).toFixed(1)} MB of output, from ${CONTAINERS.filter((n) => existsSync(join(corpus, `${n}.utoc`))).length} containers):`);
    for (const [codec, list] of byCodec) {
      const r = sideBySideRates('corpus', codec, haveOoz ? blocksFile(list, tmp, codec) : null);
      line(codec, r);
      log(`               (${r.blocks} blocks, mean ${(r.bytes / r.blocks / 1024).toFixed(0)} KiB raw)`);
    }
    const missing = CODECS.filter((c) => !byCodec.has(c));
    if (missing.length) log(`    (no corpus container uses ${missing.join(', ')})`);
    log(`  corpus/oodle-vectors (one 5.3 MB text in every codec; BitKnit has no WebAssembly path, so ours is the TypeScript decoder there):`);
    for (const codec of CODECS) {
      const file = join(corpus, 'oodle-vectors', `xml.${codec}`);
      const r = sideBySideRates('vector', codec, haveOoz && existsSync(file) ? file : null);
      if (r) line(codec, r);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (isMain && process.argv[2] !== 'child' && process.argv[2] !== 'ab') await benchOodle();
