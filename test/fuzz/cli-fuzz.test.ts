import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { ContainerReader, readToc } from '../../src/index.js';
import { sniffFile } from '../../src/util/sniff.js';
import { legacyGroupCode, parseZenShaderLibrary, planLegacyShaderLibrary } from '../../src/shaders/index.js';
import { toHex } from '../../src/util/bytes.js';
import { CORPUS_AES_KEY_HEX, corpusFiles, corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';
import { FuzzTally, MUTATIONS, mutate, prng } from './mutate.js';

// Each case runs the whole CLI (argument parsing included, ~10 ms), so the normal suite runs a sample that fits
// in a few seconds; `npm run fuzz` runs the full counts (2,000 TOCs, 1,000 packages and headers) or set
// IOSTORE_FUZZ_TOCS / IOSTORE_FUZZ_ZEN. The seeds are fixed: a failing case number reproduces.
const TOC_CASES = Number(process.env.IOSTORE_FUZZ_TOCS ?? 150);
const ZEN_CASES = Number(process.env.IOSTORE_FUZZ_ZEN ?? 100);
// Each shader case is a CLI process (~0.25 s): `npm run fuzz` runs 400.
const SHADER_CASES = Number(process.env.IOSTORE_FUZZ_SHADERS ?? 12);
// Another seed explores other cases (IOSTORE_FUZZ_SEED=7 npm run fuzz).
const SEED = Number(process.env.IOSTORE_FUZZ_SEED ?? 0);
const RSS_LIMIT = 200 * 2 ** 20;

const tmp = tempDir('iostore-fuzz-');

/**
 * Runs the CLI in-process, as a user would on the command line, and returns what it printed. `ms` is the smaller of
 * the wall time and the process's CPU time: a loaded machine stretches the one (a shader case took 5.9 s of wall
 * time at load 20), work on libuv's threads the other, and a case that loops without end grows both.
 */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string; ms: number }> {
  let out = '';
  let err = '';
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const code = await run(args, { out: (t) => (out += t), err: (t) => (err += t), isTTY: false });
  const cpu = process.cpuUsage(c0);
  return { code, out, err, ms: Math.min(performance.now() - t0, (cpu.user + cpu.system) / 1000) };
}

// The larger of the current RSS and the process's peak so far (maxRSS is in KiB).
const rssNow = () => Math.max(process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024);

// One of each kind the issue names: plain, Zlib, v10 AES-CTR, partitioned, and global (TOC v5 and v8).
const TOCS: Array<{ rel: string; key?: boolean }> = [
  { rel: 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc' },
  { rel: 'ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc' },
  { rel: 'ue6.0-cue4parse/oodleencrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc', key: true },
  { rel: 'ue6.0-cue4parse/oodlepartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows.utoc' },
  { rel: 'ue5.8-cue4parse/global/global.utoc' },
  { rel: 'ue5.1-templeofgiants/global.utoc' },
  { rel: 'ue5.1-patchtest/jh-patchtest-chunk1001-p/pakchunk1001-Windows_0_P.utoc' },
];

describe.skipIf(!hasCorpus)('CLI fuzz: mutated real files give exit 0/1/2 and one-line errors', () => {
  it(`${TOC_CASES} mutated TOCs through list --json and info`, async () => {
    const sources = TOCS.map(({ rel, key }) => {
      const bytes = new Uint8Array(readFileSync(corpusPath(rel)));
      const toc = readToc(bytes, { aesKey: Buffer.from(CORPUS_AES_KEY_HEX, 'hex') });
      // Mutations aim at the header and at every section's first bytes (counts, offsets, names).
      const spans = toc.sections.map((s) => [s.offset, s.offset + Math.min(s.size, 64)] as const);
      return { rel, key, bytes, spans };
    });
    const rand = prng(0x10c0ffee + SEED);
    const tally = new FuzzTally();
    const file = join(tmp, 'case.utoc');
    tally.peakRss = rssNow();
    for (let i = 0; i < TOC_CASES; i++) {
      const src = sources[i % sources.length]!;
      const op = MUTATIONS[rand(MUTATIONS.length)]!;
      writeFileSync(file, mutate(src.bytes, rand, op, src.spans));
      const keyArgs = src.key && rand(4) !== 0 ? ['--aes-key', CORPUS_AES_KEY_HEX] : [];
      const list = await cli(['list', file, '--json', ...keyArgs]);
      tally.add(list.code, list.err, list.ms, `case ${i} (${src.rel}, ${op}) list`);
      if (list.code === 0) expect(() => JSON.parse(list.out), `case ${i}: list --json prints JSON`).not.toThrow();
      const info = await cli(['info', file, ...keyArgs]);
      tally.add(info.code, info.err, info.ms, `case ${i} (${src.rel}, ${op}) info`);
      if (i % 25 === 0) tally.peakRss = Math.max(tally.peakRss, rssNow());
    }
    tally.peakRss = Math.max(tally.peakRss, rssNow());
    console.log(tally.summary(`${TOC_CASES} mutated TOCs x (list --json, info)`));
    expect(tally.bad).toEqual([]);
    expect(tally.ok + tally.partial + tally.cleanErrors).toBe(2 * TOC_CASES);
    // The mutations must reach both outcomes, or the test proves nothing.
    expect(tally.cleanErrors).toBeGreaterThan(TOC_CASES / 4);
    expect(tally.ok).toBeGreaterThan(TOC_CASES / 10);
    expect(tally.slowestMs).toBeLessThan(5000);
    expect(tally.peakRss).toBeLessThan(RSS_LIMIT);
  }, 600_000);

  describe('zen packages and container headers through inspect --json', () => {
    const sources: Array<{ name: string; bytes: Uint8Array }> = [];
    beforeAll(async () => {
      // Single zen packages of UE 4.27-5.5 as the engine wrote them (small ones: the suite must stay fast).
      for (const rel of [...corpusFiles('.uzenasset'), ...corpusFiles('.uasset')]) {
        if (!rel.startsWith('zen-assets/')) continue;
        const bytes = new Uint8Array(readFileSync(corpusPath(rel)));
        if (bytes.length > 100_000 || sniffFile(bytes)?.kind === 'legacy-package') continue;
        sources.push({ name: rel.replace(/.*\//, ''), bytes });
      }
      // Container headers (UE 5.8 and 6.0 layouts) and two packages, read out of real containers.
      for (const project of ['ue5.8-cue4parse', 'ue6.0-cue4parse']) {
        const reader = await ContainerReader.open(corpusPath(`${project}/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc`));
        try {
          const toc = reader.toc;
          let packages = 0;
          for (let i = 0; i < toc.chunkCount; i++) {
            const type = toc.chunkTypeName(i);
            if (type === 'ContainerHeader') sources.push({ name: `${project}-header.bin`, bytes: await reader.readChunk(i) });
            else if (type === 'ExportBundleData' && packages < 2 && toc.chunkSize(i) < 20_000) {
              packages++;
              sources.push({ name: `${project}-${packages}.uasset`, bytes: await reader.readChunk(i) });
            }
          }
        } finally {
          await reader.close();
        }
      }
    });

    it(`${ZEN_CASES} mutated packages and headers`, async () => {
      expect(sources.filter((s) => s.name.endsWith('.bin'))).toHaveLength(2);
      expect(sources.length).toBeGreaterThanOrEqual(12);
      for (const s of sources) {
        const r = await cli(['inspect', writeCase(s.name, s.bytes), '--json']);
        expect(r.code, `${s.name}: ${r.err}`).toBe(0);
      }
      const rand = prng(0x5eed2e11 + SEED);
      const tally = new FuzzTally();
      tally.peakRss = rssNow();
      for (let i = 0; i < ZEN_CASES; i++) {
        const src = sources[i % sources.length]!;
        const op = MUTATIONS[rand(MUTATIONS.length)]!;
        // The summary and the first tables sit at the front: aim there half of the time.
        const r = await cli(['inspect', writeCase(src.name, mutate(src.bytes, rand, op, [[0, 256]])), '--json']);
        tally.add(r.code, r.err, r.ms, `case ${i} (${src.name}, ${op})`);
        if (r.code === 0) expect(() => JSON.parse(r.out), `case ${i}: inspect --json prints JSON`).not.toThrow();
        if (i % 25 === 0) tally.peakRss = Math.max(tally.peakRss, rssNow());
      }
      tally.peakRss = Math.max(tally.peakRss, rssNow());
      console.log(tally.summary(`${ZEN_CASES} mutated zen packages and container headers x inspect --json`));
      expect(tally.bad).toEqual([]);
      expect(tally.ok + tally.partial + tally.cleanErrors).toBe(ZEN_CASES);
      expect(tally.cleanErrors).toBeGreaterThan(ZEN_CASES / 4);
      expect(tally.ok).toBeGreaterThan(ZEN_CASES / 20);
      expect(tally.slowestMs).toBeLessThan(5000);
      expect(tally.peakRss).toBeLessThan(RSS_LIMIT);
    }, 600_000);
  });
});

describe.skipIf(!hasCorpus)('CLI fuzz: mutated shader libraries', () => {
  it(`${SHADER_CASES} mutated libraries (IoStore form through to-legacy, legacy form through to-zen): clean errors, nothing half-written`, async () => {
    // The PCD3D_SM5 library of patchtest chunk1001 and its ShaderCode chunk, and its legacy form.
    const reader = await ContainerReader.open(corpusPath('ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.utoc'));
    let zenBytes: Uint8Array | undefined;
    const code = new Map<string, Uint8Array>();
    try {
      for (let i = 0; i < reader.toc.chunkCount; i++) {
        const type = reader.toc.chunkTypeName(i);
        if (type === 'ShaderCode') code.set(reader.toc.chunkIdHex(i), await reader.readChunk(i));
        if (type === 'ShaderCodeLibrary' && reader.toc.chunkPath(i)!.includes('SM5')) zenBytes = await reader.readChunk(i);
      }
    } finally {
      await reader.close();
    }
    const zen = parseZenShaderLibrary(zenBytes!);
    const plan = planLegacyShaderLibrary(zen);
    const legacyBytes = Buffer.concat([plan.tables, ...zen.groupChunkIds.flatMap((id, g) => legacyGroupCode(zen, g, code.get(toHex(id))!))]);
    const root = join(tmp, 'shaders');
    mkdirSync(join(root, '_chunks', 'ShaderCode'), { recursive: true });
    for (const [id, bytes] of code) writeFileSync(join(root, '_chunks', 'ShaderCode', `${id}.bin`), bytes);
    const name = 'ShaderArchive-Fuzz-PCD3D_SM5.ushaderbytecode';
    const rand = prng(0x5eed5ade + SEED);
    const tally = new FuzzTally();
    for (let i = 0; i < SHADER_CASES; i++) {
      const legacy = i % 2 === 1;
      const src = legacy ? new Uint8Array(legacyBytes) : zenBytes!;
      const op = MUTATIONS[rand(MUTATIONS.length)]!;
      const dir = join(root, `case${i}`);
      mkdirSync(dir);
      const file = join(dir, name);
      writeFileSync(file, mutate(src, rand, op, [[0, legacy ? plan.tables.length : src.length]]));
      const out = legacy ? join(dir, 'out', 'Mod.utoc') : join(dir, 'out');
      const r = legacy ? await cli(['to-zen', file, out, '--version', 'UE5_1', '--json']) : await cli(['to-legacy', file, out, '--json']);
      tally.add(r.code, r.err, r.ms, `case ${i} (${legacy ? 'legacy' : 'zen'}, ${op})`);
      // A refused library leaves no output behind.
      if (legacy && r.code === 2) expect(existsSync(out), `case ${i}: no .utoc after an error`).toBe(false);
      if (!legacy && r.code !== 0) expect(existsSync(join(out, name)), `case ${i}: no library after a failure`).toBe(false);
    }
    console.log(tally.summary(`${SHADER_CASES} mutated shader libraries x to-legacy / to-zen`));
    expect(tally.bad).toEqual([]);
    expect(tally.cleanErrors + tally.partial).toBeGreaterThan(SHADER_CASES / 4);
    expect(tally.slowestMs).toBeLessThan(5000);
  }, 120_000);
});

function writeCase(name: string, bytes: Uint8Array): string {
  const p = join(tmp, name);
  writeFileSync(p, bytes);
  return p;
}
