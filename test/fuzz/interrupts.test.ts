import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toLegacy } from '../../src/convert/to-legacy.js';
import type { Manifest } from '../../src/layout/manifest.js';
import { unpack } from '../../src/unpack/unpack.js';
import { verifyContainer } from '../../src/verify/verify.js';
import { ContainerReader } from '../../src/cas/container-reader.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { BIN } from '../hostile.js';
import { listFiles, tempDir, temporariesLeft } from '../tmp.js';
import { prng } from './mutate.js';

// SIGINT and SIGTERM at random moments of each long command: the process ends with 130 / 143 soon after the signal
// and its output is complete or absent. The suite sends one signal per command (IOSTORE_FUZZ_INTERRUPTS runs per
// command and signal under `npm run fuzz`). The moments are random (seeded: IOSTORE_FUZZ_SEED), within the time an
// uninterrupted run of the command took here (measured first under `npm run fuzz`, estimated in the suite).
const RUNS = Number(process.env.IOSTORE_FUZZ_INTERRUPTS ?? 0);
const FULL = RUNS > 0;
const SEED = Number(process.env.IOSTORE_FUZZ_SEED ?? Date.now() % 100_000);
// The issue's target is 0.5 s from the signal to the exit; the suite runs beside other engineers' work on 2 cores,
// so it allows slack (the measured figures are printed either way).
const LATENCY_MS = FULL ? 500 : 3000;

const MINIMAL = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc';
const MINIMAL_UTOC = corpusPath(MINIMAL);
const GLOBAL = corpusPath('ue5.8-cue4parse/global/global.utoc');
const LEGACY_PAK = corpusPath('ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak');

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From the signal to the exit; undefined when the run ended before the signal was sent. */
  latencyMs?: number;
  stderr: string;
}

/** Runs the CLI and sends `signal` after `delayMs` (unless it ended first). */
function interruptAfter(args: string[], delayMs: number, signal: 'SIGINT' | 'SIGTERM'): Promise<Outcome> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    let sentAt: number | undefined;
    const timer = setTimeout(() => {
      sentAt = performance.now();
      child.kill(signal);
    }, delayMs);
    const hang = setTimeout(() => child.kill('SIGKILL'), delayMs + 20_000);
    child.on('exit', (code, sig) => {
      const now = performance.now();
      clearTimeout(timer);
      clearTimeout(hang);
      res({ code, signal: sig, stderr, ...(sentAt !== undefined ? { latencyMs: now - sentAt } : {}) });
    });
  });
}

/** No temporary file or folder is left under `dir` (a staged folder once its detached remover is done). */
async function noTemporaries(dir: string): Promise<void> {
  expect(await temporariesLeft(dir)).toEqual([]);
}

/** Whether the signal ended the run (or the run ended first, with 0): anything else fails the test. */
function checkExit(o: Outcome, signal: 'SIGINT' | 'SIGTERM', what: string): boolean {
  const interrupted = signal === 'SIGINT' ? 130 : 143;
  if (o.latencyMs === undefined) {
    expect(o.code, `${what}: ended before the signal: ${o.stderr}`).toBe(0);
    return false;
  }
  // Killed before Node installed the handler (the first milliseconds): the shell reports 128 + the signal alike.
  const ok = o.code === interrupted || (o.code === null && o.signal === signal) || o.code === 0;
  expect(ok, `${what}: exit ${o.code} / ${o.signal}: ${o.stderr}`).toBe(true);
  expect(o.latencyMs, `${what}: exited ${o.latencyMs.toFixed(0)} ms after the signal`).toBeLessThan(LATENCY_MS);
  // One line at most: the interrupt itself.
  expect(o.stderr.trim().split('\n').filter((l) => l.startsWith('iostore:')).length, `${what}: ${o.stderr}`).toBeLessThanOrEqual(1);
  return o.code !== 0;
}

/** An unpack folder is complete: its manifest lists every chunk, each file whole. */
function unpackComplete(out: string): void {
  const m = JSON.parse(readFileSync(join(out, 'iostore-manifest.json'), 'utf8')) as Manifest;
  for (const c of m.containers) for (const ch of c.chunks) expect(statSync(join(out, ...ch.path.split('/'))).size).toBe(ch.size);
}

/** A packed container is complete (its three files, verifying) or absent (none of them, no folder made). */
async function containerCompleteOrAbsent(dir: string, name: string): Promise<void> {
  if (!existsSync(dir)) return;
  const files = readdirSync(dir).sort();
  if (files.length === 0) throw new Error(`${dir}: an empty output folder was left`);
  expect(files).toEqual([`${name}.pak`, `${name}.ucas`, `${name}.utoc`]);
  const reader = await ContainerReader.open(join(dir, `${name}.utoc`));
  try {
    expect((await verifyContainer(reader)).ok).toBe(true);
  } finally {
    await reader.close();
  }
}

describe.skipIf(!hasCorpus)('interrupts: SIGINT and SIGTERM at random moments (issue #24 item 8, done-when)', () => {
  const root = tempDir('iostore-interrupts-');
  let synthetic = '';
  let unpacked = '';
  let legacyDir = '';
  // What an uninterrupted to-legacy writes: made once, when first needed (the suite's runs seldom need it).
  let legacyList: Promise<string[]> | undefined;
  const legacy = () =>
    (legacyList ??= (async () => {
      legacyDir = join(root, 'legacy');
      await toLegacy([MINIMAL_UTOC], legacyDir, { global: GLOBAL });
      return listFiles(legacyDir);
    })());
  const latencies: number[] = [];
  const byCase = new Map<string, number[]>();
  const rand = prng(SEED);

  beforeAll(async () => {
    // @ts-expect-error plain JS module
    const { writeSyntheticContainer } = await import('../../scripts/synth.mjs');
    const src = join(root, 'src');
    mkdirSync(src);
    // Zlib blocks to decode and write: long enough for a signal to land mid-run.
    ({ utoc: synthetic } = await writeSyntheticContainer(src, 'Interrupts-Windows', FULL ? { chunks: 120, blocksPerChunk: 16, method: 'zlib' } : { chunks: 24, blocksPerChunk: 16, method: 'zlib' }));
    unpacked = join(root, 'unpacked');
    await unpack([synthetic], unpacked);
    // to-zen converts the to-legacy output of the corpus container (97 packages); the suite, a legacy pak of 5.
    if (FULL) await legacy();
  }, 120_000);

  // Each case: the command's arguments for a fresh output under `dir`, the time a run takes (estimated), and the check
  // of what it left after the signal.
  const cases: Array<{ name: string; args: (dir: string) => string[]; estimateMs: number; check: (dir: string, interrupted: boolean) => Promise<void> | void }> = [
    {
      name: 'unpack',
      args: (dir) => ['unpack', synthetic, join(dir, 'out')],
      estimateMs: 1200,
      check: (dir, interrupted) => {
        if (interrupted && !existsSync(join(dir, 'out'))) return;
        unpackComplete(join(dir, 'out'));
      },
    },
    { name: 'verify', args: () => ['verify', synthetic], estimateMs: 800, check: () => {} },
    { name: 'pack', args: (dir) => ['pack', unpacked, join(dir, 'p', 'P.utoc'), '--compression', 'zlib'], estimateMs: 1500, check: (dir) => containerCompleteOrAbsent(join(dir, 'p'), 'P') },
    {
      name: 'to-legacy',
      args: (dir) => ['to-legacy', MINIMAL_UTOC, join(dir, 'out'), '--global', GLOBAL],
      estimateMs: 1500,
      check: async (dir) => {
        if (existsSync(join(dir, 'out'))) expect(listFiles(join(dir, 'out'))).toEqual(await legacy());
      },
    },
    {
      name: 'to-zen',
      args: (dir) => ['to-zen', FULL ? join(legacyDir, 'CUE4ParseFixtures') : LEGACY_PAK, join(dir, 'z', 'Z.utoc'), '--like', MINIMAL_UTOC],
      estimateMs: 2000,
      check: (dir) => containerCompleteOrAbsent(join(dir, 'z'), 'Z'),
    },
  ];

  it.each(cases.map((c, k) => [c.name, k] as const))('%s', async (_, k) => {
    const c = cases[k]!;
    let budget = c.estimateMs;
    if (FULL) {
      // The time an uninterrupted run takes now: the moments are drawn within it.
      const dir = join(root, `${c.name}-ref`);
      mkdirSync(dir);
      const t0 = performance.now();
      const ref = await interruptAfter(c.args(dir), 600_000, 'SIGINT');
      expect(ref.code, ref.stderr).toBe(0);
      budget = performance.now() - t0;
      await c.check(dir, false);
    }
    const runs = FULL ? RUNS : 1;
    for (let r = 0; r < 2 * runs; r++) {
      // The suite's one run per command alternates the signal by command.
      const signal = (FULL ? r % 2 : k % 2) === 0 ? 'SIGINT' : 'SIGTERM';
      if (!FULL && r > 0) break;
      const dir = join(root, `${c.name}-${r}`);
      mkdirSync(dir);
      const delay = 30 + rand(Math.max(1, Math.floor(budget)));
      const o = await interruptAfter(c.args(dir), delay, signal);
      const interrupted = checkExit(o, signal, `${c.name} (${signal} after ${delay} ms, seed ${SEED})`);
      if (o.latencyMs !== undefined) {
        latencies.push(o.latencyMs);
        byCase.set(`${c.name} ${signal}`, [...(byCase.get(`${c.name} ${signal}`) ?? []), Math.round(o.latencyMs)]);
      }
      await noTemporaries(dir);
      await c.check(dir, interrupted);
    }
    if (k === cases.length - 1) {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]?.toFixed(0);
      console.log(`interrupts (seed ${SEED}): ${sorted.length} signals mid-run; exit after the signal: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms (${[...byCase].map(([k, v]) => `${k}: ${v.join('/')}`).join('; ')})`);
    }
  }, 600_000);
});
