// to-zen against pack on the same packages: the ue5.8 fixture container taken apart twice, once as zen packages
// (what pack takes) and once converted to legacy packages (what to-zen takes), both packed --like the original.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  ContainerReader, ScriptObjectIndex, ZenResolver, fileSource, openToc, packFolder, parseContainerHeader, parseScriptObjects,
  parseZenPackage, partitionPaths, toZen, zenToLegacy,
} from '../dist/index.js';

async function chunksOf(utoc) {
  const toc = await openToc(utoc);
  const reader = new ContainerReader(toc, partitionPaths(utoc, toc.partitionCount).map(fileSource));
  const paths = new Map(toc.files().map((f) => [f.tocIndex, f.path]));
  const out = [];
  for (let i = 0; i < toc.chunkCount; i++) out.push({ id: toc.chunkId(i).id, type: toc.chunkTypeName(i), path: paths.get(i), bytes: await reader.readChunk(i) });
  await reader.close();
  return out;
}

export async function benchToZen(corpus) {
  const like = join(corpus, 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
  const chunks = await chunksOf(like);
  const scripts = (await chunksOf(join(corpus, 'ue5.8-cue4parse/global/global.utoc'))).find((c) => c.type === 'ScriptObjects').bytes;
  const header = parseContainerHeader(chunks.find((c) => c.type === 'ContainerHeader').bytes);
  const pkgs = chunks.filter((c) => c.type === 'ExportBundleData');
  const parsed = new Map(pkgs.map((c) => [c.id, parseZenPackage(c.bytes, { engine: 'UE5_8' })]));
  const idOf = new Map([...parsed].map(([id, p]) => [p, id]));
  const resolver = new ZenResolver(new ScriptObjectIndex(parseScriptObjects(scripts)), {
    get: (id) => parsed.get(id),
    importedPackageIds: (p) => header.packages.find((e) => e.packageId === idOf.get(p))?.importedPackages,
  });
  const tmp = mkdtempSync(join(tmpdir(), 'iostore-bench-tozen-'));
  const zenDir = join(tmp, 'zen');
  const legacyDir = join(tmp, 'legacy');
  const put = (dir, path, bytes) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  };
  let bytes = 0;
  for (const c of chunks) {
    if (!c.path || !/\.(uasset|umap|ubulk|uptnl)$/.test(c.path)) continue;
    bytes += c.bytes.length;
    put(zenDir, c.path, c.bytes);
    if (c.type !== 'ExportBundleData') {
      put(legacyDir, c.path, c.bytes);
      continue;
    }
    const l = zenToLegacy(c.bytes, { engine: 'UE5_8', resolver, parsed: parsed.get(c.id) });
    put(legacyDir, c.path, l.uasset);
    put(legacyDir, c.path.replace(/\.(uasset|umap)$/, '.uexp'), l.uexp);
  }
  // Other work on the machine moves whole-run times a lot: the two commands run in alternation, and the figure is
  // the median of each pair's ratio (with each one's best and the CPU time, which contention moves less).
  const run = async (fn, i) => {
    const out = join(tmp, `out-${i}`, 'Bench_P.utoc');
    const cpu = process.cpuUsage();
    const s = process.hrtime.bigint();
    await fn(out);
    const ms = Number(process.hrtime.bigint() - s) / 1e6;
    const c = process.cpuUsage(cpu);
    rmSync(dirname(out), { recursive: true });
    return { ms, cpu: (c.user + c.system) / 1000 };
  };
  const pack = (out) => packFolder(zenDir, out, { like, threads: 0 });
  const convert = (out) => toZen([legacyDir], out, { like, threads: 0 });
  await run(pack, 'warm-p');
  await run(convert, 'warm-z');
  const p = [];
  const z = [];
  for (let i = 0; i < 11; i++) {
    p.push(await run(pack, `p${i}`));
    z.push(await run(convert, `z${i}`));
  }
  // Whole CLI processes (what a user waits for once): start-up, module loading and the code's first runs included.
  const bin = join(dirname(new URL(import.meta.url).pathname), '..', 'bin', 'iostore.js');
  const proc = (args) => {
    const s = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [bin, ...args, '--quiet'], { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`iostore ${args.join(' ')} exited with ${r.status}`);
    return Number(process.hrtime.bigint() - s) / 1e6;
  };
  const cp = [];
  const cz = [];
  for (let i = 0; i < 5; i++) {
    cp.push(proc(['pack', zenDir, join(tmp, `cli-p${i}`, 'Bench_P.utoc'), '--like', like, '--threads', '0']));
    cz.push(proc(['to-zen', legacyDir, join(tmp, `cli-z${i}`, 'Bench_P.utoc'), '--like', like, '--threads', '0']));
  }
  rmSync(tmp, { recursive: true, force: true });
  const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  const ratio = median(z.map((r, i) => r.ms / p[i].ms));
  const cpuRatio = median(z.map((r, i) => r.cpu / p[i].cpu));
  const best = (a) => Math.min(...a.map((r) => r.ms));
  console.log(`\nto-zen vs pack (ue5.8 fixtures: ${pkgs.length} packages, ${(bytes / 1048576).toFixed(1)} MiB, --like the original, main thread; 11 runs each, alternated)`);
  console.log(`  pack of the zen packages     ${best(p).toFixed(1).padStart(8)} ms best, ${median(p.map((r) => r.ms)).toFixed(1).padStart(8)} ms median`);
  console.log(`  to-zen of the legacy form    ${best(z).toFixed(1).padStart(8)} ms best, ${median(z.map((r) => r.ms)).toFixed(1).padStart(8)} ms median`);
  console.log(`  to-zen / pack                ${ratio.toFixed(2)}x wall time, ${cpuRatio.toFixed(2)}x CPU time (median of the pairs; goal: 1.3x at most)`);
  console.log(`  as CLI processes (5 each)    pack ${median(cp).toFixed(0)} ms, to-zen ${median(cz).toFixed(0)} ms median -> ${(median(cz.map((t, i) => t / cp[i]))).toFixed(2)}x (node start-up included)`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchToZen(process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..', '..', 'shared', 'corpus'));
