// Props read and write throughput, in MB of export data per second (`npm run bench -- --props` runs it alone):
// tagged zen packages (the ue5.8 fixture container) and unversioned legacy packages of games (with their .usmap).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ContainerReader, applyLegacyProps, applyZenProps, parseUsmap, readLegacyProps, readZenProps, scriptObjectsFromReader } from '../dist/index.js';

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

export async function zenSet(corpus) {
  const dir = join(corpus, 'ue5.8-cue4parse');
  const reader = await ContainerReader.open(join(dir, 'uncompressed', 'CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'));
  const global = await ContainerReader.open(join(dir, 'global', 'global.utoc'));
  const scriptObjects = await scriptObjectsFromReader(global);
  const items = [];
  for (let i = 0; i < reader.toc.chunkCount; i++) {
    if (reader.toc.chunkTypeName(i) === 'ExportBundleData') items.push({ bytes: await reader.readChunk(i), o: { scriptObjects } });
  }
  await reader.close();
  await global.close();
  return {
    label: 'tagged, zen (ue5.8 fixtures container)',
    read: (it) => readZenProps(it.bytes, it.o),
    write: (it, json) => applyZenProps(it.bytes, json, it.o),
    items,
  };
}

export function legacySet(corpus) {
  const items = [];
  const walk = (d) => readdirSync(d).flatMap((e) => (statSync(join(d, e)).isDirectory() ? walk(join(d, e)) : [join(d, e)]));
  for (const game of ['ue5.3-readyornot', 'ue5.4-billiards', 'ue5.4-blankgame', 'ue5.4-joy']) {
    const dir = join(corpus, 'legacy-games', game);
    if (!existsSync(dir)) continue;
    const files = walk(dir);
    const usmap = files.find((f) => f.endsWith('.usmap'));
    const mappings = usmap ? parseUsmap(readFileSync(usmap)) : undefined;
    const engine = `UE${game.slice(2, 3)}_${game.slice(4, 5)}`;
    for (const f of files.filter((x) => /\.(uasset|umap)$/.test(x))) {
      const uexp = f.replace(/\.(uasset|umap)$/, '.uexp');
      items.push({ uasset: new Uint8Array(readFileSync(f)), uexp: existsSync(uexp) ? new Uint8Array(readFileSync(uexp)) : undefined, o: { mappings, engine } });
    }
  }
  return {
    label: 'unversioned, legacy (UE 5.3-5.4 games, with their .usmap)',
    read: (it) => readLegacyProps(it.uasset, it.uexp, it.o),
    write: (it, json) => applyLegacyProps(it.uasset, it.uexp, json, it.o),
    items,
  };
}

export async function benchProps(corpus) {
  console.log('\nprops: read export data to JSON, and write unchanged JSON back (MB of export data/s, median of 7 after 2 warm-up runs)');
  for (const set of [await zenSet(corpus), legacySet(corpus)]) {
    if (set.items.length === 0) continue;
    const jsons = set.items.map((it) => set.read(it));
    const bytes = jsons.reduce((n, r) => n + r.bytes, 0);
    const readMs = [];
    const writeMs = [];
    for (let run = 0; run < 9; run++) {
      let s = process.hrtime.bigint();
      for (const it of set.items) set.read(it);
      const r = Number(process.hrtime.bigint() - s) / 1e6;
      s = process.hrtime.bigint();
      set.items.forEach((it, i) => set.write(it, jsons[i].json));
      const w = Number(process.hrtime.bigint() - s) / 1e6;
      if (run >= 2) {
        readMs.push(r);
        writeMs.push(w);
      }
    }
    const mb = (ms) => (bytes / 1e6 / (ms / 1000)).toFixed(1);
    const [r, w] = [median(readMs), median(writeMs)];
    console.log(`  ${set.label}: ${set.items.length} packages, ${(bytes / 1e6).toFixed(2)} MB: read ${r.toFixed(0)} ms = ${mb(r)} MB/s; write ${w.toFixed(0)} ms = ${mb(w)} MB/s`);
  }
  console.log('  (reading also writes each export back once to check it; writing parses the package and lays out its tables again)');
}
