import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { isIoStoreRelease, LEGACY_ENGINE_RELEASES, parseLegacyPackage, type LegacyEngineRelease } from '../../src/legacy/index.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { legacyGamesPackages } from '../legacy/helpers.js';
import { tempDir } from '../tmp.js';
import { FuzzTally, MUTATIONS, mutate, prng } from './mutate.js';

// Mutated legacy packages of every release folder (UE 4.14 to 5.7, cooked and editor) through `inspect --json` and
// `to-zen`. The suite runs a sample; `npm run fuzz` runs IOSTORE_FUZZ_LEGACY cases (1,000). Fixed seeds: a failing
// case number reproduces (IOSTORE_FUZZ_SEED picks another series).
const CASES = Number(process.env.IOSTORE_FUZZ_LEGACY ?? 16);
const SEED = Number(process.env.IOSTORE_FUZZ_SEED ?? 0);
const RSS_LIMIT = 300 * 2 ** 20;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string; ms: number }> {
  let out = '';
  let err = '';
  const t0 = performance.now();
  const code = await run(args, { out: (t) => (out += t), err: (t) => (err += t), isTTY: false });
  return { code, out, err, ms: performance.now() - t0 };
}

const rssNow = () => Math.max(process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024);

interface Source {
  name: string;
  release: LegacyEngineRelease;
  uasset: Uint8Array;
  uexp?: Uint8Array;
  headerSize: number;
}

/** The two smallest packages of each release folder (the fuzz reaches each layout; the suite stays fast). */
function sources(): Source[] {
  const byFolder = new Map<string, Source[]>();
  for (const p of legacyGamesPackages()) {
    const uasset = new Uint8Array(readFileSync(corpusPath(p.rel)));
    const s: Source = { name: p.rel.split('/').pop()!, release: p.release, uasset, headerSize: parseLegacyPackage(uasset, { engine: p.release }).summary.totalHeaderSize };
    if (p.uexp) s.uexp = new Uint8Array(readFileSync(corpusPath(p.uexp)));
    byFolder.set(p.folder, [...(byFolder.get(p.folder) ?? []), s]);
  }
  return [...byFolder.values()].flatMap((list) => list.sort((a, b) => a.uasset.length - b.uasset.length).slice(0, 2));
}

/** The release to-zen is asked for: the package's own from 4.26 on, else 4.27 (older releases are refused up front). */
const zenRelease = (r: LegacyEngineRelease) => (isIoStoreRelease(r) && LEGACY_ENGINE_RELEASES.indexOf(r) >= LEGACY_ENGINE_RELEASES.indexOf('UE4_26') ? r : 'UE4_27');

describe.skipIf(!hasCorpus)('CLI fuzz: mutated legacy packages of every release', () => {
  it(`${CASES} mutated packages x (inspect --json, to-zen): exit 0/1/2, one-line errors, nothing half-written`, async () => {
    const list = sources();
    expect(list.length).toBeGreaterThanOrEqual(19);
    const tmp = tempDir('iostore-legacy-fuzz-');
    const rand = prng(0x1e9ac7 + SEED);
    const inspect = new FuzzTally();
    const toZen = new FuzzTally();
    inspect.peakRss = rssNow();
    for (let i = 0; i < CASES; i++) {
      const src = list[i % list.length]!;
      const op = MUTATIONS[rand(MUTATIONS.length)]!;
      // One folder, emptied for each case (a thousand left for the end take longer to remove than a hook may).
      const root = join(tmp, 'case');
      rmSync(root, { recursive: true, force: true });
      const dir = join(root, 'Game', 'Content');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, src.name);
      // Mostly the header (summary, tables); a quarter of the cases mutate the .uexp instead.
      const inUexp = src.uexp !== undefined && rand(4) === 0;
      writeFileSync(file, inUexp ? src.uasset : mutate(src.uasset, rand, op, [[0, Math.min(src.headerSize, 4096)], [0, src.headerSize]]));
      if (src.uexp) writeFileSync(file.replace(/\.[^.]+$/, '.uexp'), inUexp ? mutate(src.uexp, rand, op) : src.uexp);
      const hint = rand(3) === 0 ? [] : ['--version', src.release];
      const a = await cli(['inspect', file, '--json', ...hint]);
      inspect.add(a.code, a.err, a.ms, `case ${i} (${src.name}, ${op}${inUexp ? ' .uexp' : ''}) inspect`);
      if (a.code === 0) expect(() => JSON.parse(a.out), `case ${i}: inspect --json prints JSON`).not.toThrow();
      const out = join(tmp, 'out', 'Mod_P.utoc');
      rmSync(join(tmp, 'out'), { recursive: true, force: true });
      const b = await cli(['to-zen', root, out, '--version', zenRelease(src.release), '--json']);
      toZen.add(b.code, b.err, b.ms, `case ${i} (${src.name}, ${op}${inUexp ? ' .uexp' : ''}) to-zen`);
      // Refused: no container; written: a whole one.
      if (b.code === 2) expect(existsSync(out), `case ${i}: no .utoc after an error`).toBe(false);
      else expect(statSync(out).size, `case ${i}: a .utoc`).toBeGreaterThan(0);
      if (i % 25 === 0) inspect.peakRss = Math.max(inspect.peakRss, rssNow());
    }
    inspect.peakRss = Math.max(inspect.peakRss, rssNow());
    toZen.peakRss = inspect.peakRss;
    console.log(inspect.summary(`${CASES} mutated legacy packages x inspect --json`));
    console.log(toZen.summary(`${CASES} mutated legacy packages x to-zen`));
    expect([...inspect.bad, ...toZen.bad]).toEqual([]);
    expect(inspect.ok + inspect.cleanErrors).toBe(CASES);
    // The mutations must reach both outcomes, or the test proves nothing.
    expect(inspect.cleanErrors).toBeGreaterThan(CASES / 5);
    expect(inspect.ok).toBeGreaterThan(CASES / 10);
    expect(Math.max(inspect.slowestMs, toZen.slowestMs)).toBeLessThan(5000);
    expect(inspect.peakRss).toBeLessThan(RSS_LIMIT);
  }, 1_200_000);
});
