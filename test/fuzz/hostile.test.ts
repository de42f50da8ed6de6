import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writePakBytes } from '../../src/pak/index.js';
import { CORPUS_AES_KEY_HEX, corpusPath, hasCorpus } from '../corpus.js';
import { BIN, pakDeclaringBlock } from '../hostile.js';
import { CHILD_PEAK_RSS_BYTES } from '../peak-rss.js';
import { listFiles, tempDir } from '../tmp.js';
import { prng } from './mutate.js';

// Crafted header fields at their limits (partition count, block size, entry counts ...) through every command that
// reads a container, each run in its own process: no hang (a run is killed after HANG_MS), peak RSS under 300 MB,
// exit 0/1/2 and every error one line. The suite runs a few cases; `npm run fuzz` runs them for
// IOSTORE_FUZZ_HOSTILE_SECONDS (15) and adds a pak that shrinks while it is unpacked.
const SECONDS = Number(process.env.IOSTORE_FUZZ_HOSTILE_SECONDS ?? 0);
const FULL = SECONDS > 0;
const SUITE_CASES = 2;
const HANG_MS = 20_000;
const RSS_LIMIT_KB = 300 * 1024;
const SEED = Number(process.env.IOSTORE_FUZZ_SEED ?? 0);

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  rssKb: number;
  ms: number;
}

/** A preload that reports the process's peak RSS on stderr as it exits (a line the checks then drop). */
function rssPreload(dir: string): string {
  const file = join(dir, 'rss-preload.cjs');
  writeFileSync(file, `process.on('exit', () => process.stderr.write('\\n@@rss ' + Math.round(${CHILD_PEAK_RSS_BYTES} / 1024) + '\\n'));\n`);
  return file;
}

function runCli(preload: string, args: string[], o: { during?: (pid: number) => void } = {}): Promise<Run> {
  return new Promise((res) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--require', preload, BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    o.during?.(child.pid!);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      // One line per thread that loaded the preload (worker threads do too): the process's peak is the largest.
      const rss = [...stderr.matchAll(/@@rss (\d+)/g)].map((m) => Number(m[1]));
      res({ code, signal, stderr: stderr.replace(/\n?@@rss \d+\n/g, ''), rssKb: Math.max(0, ...rss), ms: performance.now() - t0 });
    });
  });
}

/** The outcome is clean: an exit code, not a kill (no hang), bounded memory, and errors of one line each. */
function clean(r: Run, what: string): void {
  expect(r.signal, `${what}: killed after ${HANG_MS} ms (a hang)`).toBeNull();
  expect([0, 1, 2], `${what}: exit ${r.code}: ${r.stderr}`).toContain(r.code);
  expect(r.rssKb, `${what}: peak RSS ${r.rssKb} KB`).toBeLessThan(RSS_LIMIT_KB);
  expect(r.stderr, `${what}: ${r.stderr}`).not.toMatch(/internal error|RangeError|TypeError|^\s+at /m);
  // Errors one line each: every line of stderr is a message of its own (`iostore: ...`, `error: ...`, `warning: ...`,
  // a count) - no stack, no message cut by a raw newline.
  for (const line of r.stderr.split('\n').filter((l) => l.trim() !== '')) {
    expect(line, `${what}: a line that is no message of its own`).toMatch(/^(iostore: |error: |warning: |\d+ failures?[;(]|FAILED|OK|MISMATCH|ERROR|  )/);
  }
}

const NAME = 'CUE4ParseFixtures-Minimal';
const SOURCES = [
  { dir: 'ue5.8-cue4parse/uncompressed', name: `${NAME}-Uncompressed-Windows` },
  { dir: 'ue5.8-cue4parse/zlib', name: `${NAME}-Zlib-Windows` },
  { dir: 'ue6.0-cue4parse/oodlepartitioned', name: `${NAME}-OodlePartitioned-Windows`, partitions: 5 },
  { dir: 'ue6.0-cue4parse/oodleencrypted', name: `${NAME}-OodleEncrypted-Windows`, key: true },
];

/** Header fields of a .utoc (offset, name) and values at and around their limits. */
const FIELDS: Array<[number, string]> = [
  [0x18, 'entry count'],
  [0x1c, 'block entry count'],
  [0x24, 'method name count'],
  [0x28, 'method name length'],
  [0x2c, 'block size'],
  [0x30, 'directory index size'],
  [0x34, 'partition count'],
  [0x54, 'perfect-hash seed count'],
  [0x58, 'partition size (low word)'],
  [0x5c, 'partition size (high word)'],
  [0x60, 'chunks without perfect hash'],
  [0x64, 'source hash count'],
  [0x68, 'IV count'],
];
const VALUES = (real: number) => [0, 1, 2, real - 1, real + 1, 2 * real, 0xffff, 0x10000, 0xffffff, 1 << 24, (1 << 24) + 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];
const COMMANDS = ['unpack', 'verify', 'to-legacy', 'list', 'info'] as const;

interface Case {
  label: string;
  args: (dir: string) => string[];
}

describe.skipIf(!hasCorpus)('hostile input fuzz: crafted header fields, bombs and a shrinking pak (issue #24)', () => {
  const root = tempDir('iostore-hostile-');
  let preload = '';
  const cases: Case[] = [];

  beforeAll(async () => {
    preload = rssPreload(root);
    // Every field x value x source, each through one command (round robin), in a seeded order.
    for (const src of SOURCES) {
      const utoc = new Uint8Array(readFileSync(corpusPath(src.dir, `${src.name}.utoc`)));
      const view = new DataView(utoc.buffer);
      for (const [at, field] of FIELDS) {
        for (const value of VALUES(view.getUint32(at, true))) {
          if (value < 0 || value > 0xffffffff) continue;
          const label = `${src.name} ${field} = ${value}`;
          cases.push({
            label,
            args: (dir) => {
              const base = join(dir, src.name);
              const bytes = utoc.slice();
              new DataView(bytes.buffer).setUint32(at, value, true);
              writeFileSync(`${base}.utoc`, bytes);
              for (let p = 0; p < (src.partitions ?? 1); p++) {
                const part = p === 0 ? '.ucas' : `_s${p}.ucas`;
                if (existsSync(corpusPath(src.dir, `${src.name}${part}`))) copyFileSync(corpusPath(src.dir, `${src.name}${part}`), `${base}${part}`);
              }
              const cmd = COMMANDS[cases.length % COMMANDS.length]!;
              const key = src.key ? ['--aes-key', CORPUS_AES_KEY_HEX] : [];
              const out = cmd === 'unpack' || cmd === 'to-legacy' ? [join(dir, 'out')] : [];
              return [cmd, `${base}.utoc`, ...out, ...key];
            },
          });
        }
      }
    }
    // A Zlib block declaring 1 GiB, under unpack and verify.
    const bomb = join(root, 'bomb.pak');
    writeFileSync(bomb, await pakDeclaringBlock('Game/bomb.bin', 1 << 30));
    cases.push({ label: 'pak block declaring 1 GiB (unpack)', args: (dir) => ['unpack', bomb, join(dir, 'out')] });
    cases.push({ label: 'pak block declaring 1 GiB (verify)', args: () => ['verify', bomb] });
    // Seeded order, so the suite's few cases differ by seed but reproduce.
    const rand = prng(0xb0b + SEED);
    for (let i = cases.length - 1; i > 0; i--) {
      const j = rand(i + 1);
      [cases[i], cases[j]] = [cases[j]!, cases[i]!];
    }
  }, 60_000);

  it(`crafted header fields through unpack, verify, to-legacy, list and info (${FULL ? `${SECONDS} s` : `${SUITE_CASES} cases`})`, async () => {
    const until = performance.now() + SECONDS * 1000;
    let done = 0;
    let errors = 0;
    let peak = 0;
    let slowest = 0;
    for (const c of cases) {
      if (FULL ? performance.now() > until : done >= SUITE_CASES) break;
      const dir = join(root, `case-${done}`);
      mkdirSync(dir);
      const r = await runCli(preload, c.args(dir));
      rmSync(dir, { recursive: true, force: true });
      clean(r, c.label);
      done++;
      if (r.code !== 0) errors++;
      peak = Math.max(peak, r.rssKb);
      slowest = Math.max(slowest, r.ms);
    }
    console.log(`hostile fuzz (seed ${SEED}): ${done} of ${cases.length} crafted cases, ${errors} refused, 0 hangs, peak RSS ${(peak / 1024).toFixed(0)} MB, slowest ${slowest.toFixed(0)} ms`);
    expect(done).toBeGreaterThan(0);
  }, 900_000);

  it.runIf(FULL)('a stored pak that shrinks while unpack reads it: each entry fails or is whole, no hang', async () => {
    const data = new Uint8Array(4 << 20).map((_, i) => (i * 13) & 0xff);
    const files = Array.from({ length: 24 }, (_, k) => ({ path: `Game/f${k}.bin`, data }));
    const bytes = await writePakBytes(files, { version: 11 });
    const rand = prng(0x5417 + SEED);
    let runs = 0;
    let whole = 0;
    const until = performance.now() + Math.max(5, SECONDS / 3) * 1000;
    while (performance.now() < until) {
      const dir = join(root, `shrink-${runs++}`);
      mkdirSync(dir);
      const pak = join(dir, 'shrinking.pak');
      writeFileSync(pak, bytes);
      const cut = rand(bytes.length - 4096);
      const delay = 20 + rand(400);
      // Every other run with a worker writing the stored files by segments (PakStoredOut). A run that ends before its
      // cut takes its timer along: the folder goes next.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const r = await runCli(preload, ['unpack', pak, join(dir, 'out'), ...(runs % 2 === 0 ? ['--threads', '1'] : [])], { during: () => void (timer = setTimeout(() => truncateSync(pak, cut), delay)) });
      clearTimeout(timer);
      const what = `shrinking pak, cut to ${cut} after ${delay} ms`;
      clean(r, what);
      // Whole: every file the run left is the file packed (a cut one fails and is not there).
      const out = join(dir, 'out');
      const left = existsSync(out) ? listFiles(out).filter((f) => f.endsWith('.bin')) : [];
      for (const f of left) expect(Buffer.compare(readFileSync(join(out, f)), data), `${what}: ${f} is not whole`).toBe(0);
      whole += left.length;
      rmSync(dir, { recursive: true, force: true });
    }
    console.log(`hostile fuzz: ${runs} unpacks of a pak cut short while read (every other one with a worker), 0 hangs, ${whole} files left and each whole`);
  }, 900_000);
});
