// to-zen against pack on the same packages: the ue5.8 fixture container taken apart twice, once as zen packages
// (what pack takes) and once converted to legacy packages (what to-zen takes), both packed --like the original.
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
  const best = async (fn) => {
    let b = Infinity;
    for (let i = 0; i < 7; i++) {
      const out = join(tmp, `out-${i}`, 'Bench_P.utoc');
      const s = process.hrtime.bigint();
      await fn(out);
      b = Math.min(b, Number(process.hrtime.bigint() - s) / 1e6);
      rmSync(dirname(out), { recursive: true });
    }
    return b;
  };
  const packMs = await best((out) => packFolder(zenDir, out, { like, threads: 0 }));
  const toZenMs = await best((out) => toZen([legacyDir], out, { like, threads: 0 }));
  rmSync(tmp, { recursive: true, force: true });
  console.log(`\nto-zen vs pack (ue5.8 fixtures: ${pkgs.length} packages, ${(bytes / 1048576).toFixed(1)} MiB, --like the original, main thread; best of 7)`);
  console.log(`  pack of the zen packages     ${packMs.toFixed(1).padStart(8)} ms`);
  console.log(`  to-zen of the legacy form    ${toZenMs.toFixed(1).padStart(8)} ms -> ${(toZenMs / packMs).toFixed(2)}x pack's time (goal: 1.3x at most)`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchToZen(process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..', '..', 'shared', 'corpus'));
