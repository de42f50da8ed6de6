import { existsSync, readFileSync } from 'node:fs';
import { it } from 'vitest';
import { ContainerReader } from '../../src/cas/container-reader.js';
import { scriptObjectsFromReader } from '../../src/inspect/context.js';
import { readLegacyProps, readZenProps } from '../../src/props/package-props.js';
import { parseUsmap } from '../../src/usmap/index.js';
import { corpusFiles, corpusPath } from '../corpus.js';
import { pakFiles } from '../legacy/helpers.js';

function stats(label: string, r: ReturnType<typeof readLegacyProps>) {
  let raw = 0, tail = 0, typed = 0, rawValues = 0;
  for (const e of r.json.exports) {
    const s = JSON.stringify(e);
    const rv = (s.match(/"raw":/g) ?? []).length;
    rawValues += rv;
    if (e.serialization === 'raw') raw++;
    else if (e.tail || rv) tail++;
    else typed++;
  }
  console.log(label, `typed ${typed} tail ${tail} raw ${raw} rawValues ${rawValues}`, r.warnings.slice(0, 3).join(' | '));
  for (const e of r.json.exports) if (e.tail && e.serialization !== 'raw' && process.env.SHOWTAIL) console.log('   tail', e.name, e.class, e.tail.offset, e.tail.hex.length / 2);
}

it('explore', async () => {
  const usmaps = new Map<string, ReturnType<typeof parseUsmap>>();
  for (const f of corpusFiles('.usmap').filter((f) => f.startsWith('legacy-games'))) usmaps.set(f.split('/')[1]!, parseUsmap(readFileSync(corpusPath(f))));
  for (const f of corpusFiles('').filter((f) => f.startsWith('legacy-games') && /\.(uasset|umap)$/.test(f))) {
    const dir = f.split('/')[1]!;
    const engine = ({ 'ue4.14': undefined, 'ue5.3': 'UE5_3', 'ue5.4': 'UE5_4', 'ue5.7': 'UE5_7', 'ue4.27': 'UE4_27', 'ue4.25': 'UE4_25' } as Record<string, string | undefined>)[dir.split('-')[0]!];
    const uexpPath = corpusPath(f.replace(/\.(uasset|umap)$/, '.uexp'));
    try {
      const r = readLegacyProps(readFileSync(corpusPath(f)), existsSync(uexpPath) ? readFileSync(uexpPath) : undefined, { source: f, mappings: usmaps.get(dir), engine: engine as never });
      stats(f, r);
    } catch (e) {
      console.log(f, 'FAILED', (e as Error).message);
    }
  }
  const pak = pakFiles('ue5.8-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak');
  for (const [p, b] of pak) {
    if (!/\.(uasset|umap)$/.test(p)) continue;
    const r = readLegacyProps(b, pak.get(p.replace(/\.(uasset|umap)$/, '.uexp')), { source: p });
    stats(p, r);
    if (p.includes(process.env.DUMP ?? '@@')) console.log(JSON.stringify(r.json, null, 1).slice(0, 20000));
  }
  const reader = await ContainerReader.open(corpusPath('ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'));
  const g = await ContainerReader.open(corpusPath('ue5.8-cue4parse/global/global.utoc'));
  const scriptObjects = await scriptObjectsFromReader(g);
  for (let i = 0; i < reader.toc.chunkCount; i++) {
    if (reader.toc.chunkTypeName(i) !== 'ExportBundleData') continue;
    const b = await reader.readChunk(i);
    const path = reader.toc.chunkPath(i) ?? '';
    const r = readZenProps(b, { source: path, scriptObjects });
    stats('zen ' + path, r);
    if (path.includes(process.env.DUMPZ ?? '@@')) console.log(JSON.stringify(r.json, null, 1).slice(0, 30000));
  }
}, 120000);

it('unversioned fixtures (local copy)', async () => {
  if (!existsSync('/tmp/cue4/IoStore/Unversioned/global.utoc')) return;
  const mappings = parseUsmap(readFileSync(corpusPath('ue5.8-cue4parse/mappings/CUE4ParseFixtures-Uncompressed.usmap')));
  const reader = await ContainerReader.open('/tmp/cue4/IoStore/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
  const g = await ContainerReader.open('/tmp/cue4/IoStore/Unversioned/global.utoc');
  const scriptObjects = await scriptObjectsFromReader(g);
  for (let i = 0; i < reader.toc.chunkCount; i++) {
    if (reader.toc.chunkTypeName(i) !== 'ExportBundleData') continue;
    const b = await reader.readChunk(i);
    const path = reader.toc.chunkPath(i) ?? '';
    const r = readZenProps(b, { source: path, scriptObjects, mappings });
    stats('uv ' + path, r);
    if (path.includes(process.env.DUMPU ?? '@@')) console.log(JSON.stringify(r.json, null, 1).slice(0, 30000));
  }
}, 120000);
