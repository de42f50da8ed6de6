// `npm run bench -- --pak`: `.pak` archives at game scale (a UE4 game ships its content as a few paks of tens of
// thousands of files each). A plain folder of IOSTORE_BENCH_PAK_FILES files (default 50,000, log-normal sizes around
// 8 KiB, cut from the corpus) is packed to a stored and a Zlib `.pak` by `pack`, then each pak unpacked, verified and
// listed, beside the machine's floors for the same bytes: `cp -r` of the folder (pack and unpack), one-core `gzip`
// (Zlib pack), `sha1sum` of the pak (verify hashes every entry's stored bytes with SHA-1) and `node -e 0` (list).
// Whole-process wall time and peak RSS, medians of runs in alternation (IOSTORE_BENCH_SCALE_RUNS, default 3).
// retoc reads no pak, so it has no column here.
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { alternate, corpusPool } from './bench-side.mjs';
import { buildFolder, printRows } from './bench-scale.mjs';

export function benchPak({ root, corpus, tmp }) {
  const files = Number(process.env.IOSTORE_BENCH_PAK_FILES ?? 50000);
  const runs = Number(process.env.IOSTORE_BENCH_SCALE_RUNS ?? 3);
  const iostore = [process.execPath, join(root, 'bin', 'iostore.js')];
  const dir = join(tmp, `pak-${files}`);
  const at = (name) => join(dir, name);
  const gone = (name) => () => rmSync(at(name), { recursive: true, force: true });
  const settle = () => spawnSync('sync');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    const t0 = Date.now();
    const raw = buildFolder(corpusPool(corpus), at('folder'), at('flat.bin'), files, 8 << 10);
    console.log(`\n.pak at scale: ${files} files, ${(raw / 1e6).toFixed(0)} MB, log-normal sizes around 8 KiB (built in ${((Date.now() - t0) / 1000).toFixed(0)} s) in ${tmp}; medians of ${runs} runs in alternation; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    const pak = { none: at('Stored.pak'), zlib: at('Zlib.pak') };
    const pack = (method) => [...iostore, 'pack', at('folder'), pak[method], '--compression', method, '--quiet'];
    const rows = [];
    const cp = (from) => ({ name: 'cp -r', argv: ['cp', '-r', from, at('cp')], before: () => { gone('cp')(); settle(); }, after: gone('cp') });
    {
      const r = alternate([{ name: 'ours', argv: pack('none'), before: () => { rmSync(pak.none, { force: true }); settle(); } }, cp(at('folder'))], runs);
      rows.push({ job: 'pack .pak, stored', ours: r[0], others: [r[1]] });
    }
    {
      const r = alternate([
        { name: 'ours', argv: pack('zlib'), before: () => { rmSync(pak.zlib, { force: true }); settle(); } },
        { name: 'gzip -6 (one core)', argv: ['sh', '-c', 'gzip -6 -c "$0" > /dev/null', at('flat.bin')] },
      ], runs);
      rows.push({ job: 'pack .pak, Zlib', ours: r[0], others: [r[1]] });
    }
    rmSync(at('flat.bin'), { force: true });
    for (const [label, method] of [['stored', 'none'], ['Zlib', 'zlib']]) {
      const r = alternate([{ name: 'ours', argv: [...iostore, 'unpack', pak[method], at('out'), '--quiet'], before: () => { gone('out')(); settle(); }, after: gone('out') }, cp(at('folder'))], runs);
      rows.push({ job: `unpack .pak, ${label}`, ours: r[0], others: [r[1]] });
      const v = alternate([{ name: 'ours', argv: [...iostore, 'verify', pak[method], '--quiet'] }, { name: 'sha1sum of the pak', argv: ['sha1sum', pak[method]] }], runs);
      rows.push({ job: `verify .pak, ${label}`, ours: v[0], others: [v[1]] });
    }
    const l = alternate([{ name: 'ours', argv: [...iostore, 'list', pak.zlib] }, { name: 'node -e 0', argv: [process.execPath, '-e', '0'] }], runs);
    rows.push({ job: 'list .pak', ours: l[0], others: [l[1]] });
    printRows(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
