// `npm run bench -- --scale` (issue 28): the toolkit at game scale, side by side with retoc, ooz-decode and the
// machine's floors. For each size (30,000 and 150,000 files; IOSTORE_BENCH_SCALE_SIZES=3000,... to choose): a plain
// mod folder of files cut from the corpus, packed by our own `pack --version UE5_4` stored and with Zlib (timed
// against `cp -r` of the folder and one-core `gzip` of the same bytes at pack's level), then unpack, verify and list
// of both containers against retoc, `cp -r` of the unpacked tree and the Node floor (scripts/node-floor.mjs); and an
// Oodle container of as many chunks, each one corpus Oodle block (scripts/synth.mjs: retoc reads no Oodle), unpacked
// and verified on every core and on one thread, against ooz-decode decoding the same blocks on one core. Every row is
// whole-process wall time and peak RSS, medians of runs in alternation (3 by default: IOSTORE_BENCH_SCALE_RUNS), and
// each ratio comes from the same run. The machine's load average is printed with each size. Every output is removed
// right after its run, so at most one unpacked tree exists at a time: `TMPDIR=/dev/shm npm run bench -- --scale` fits
// a tmpfs of ~10 GB and measures the work without the disk (whose write-back dominates on a small virtual machine).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { alternate, corpusPool, rng, timeRatio, writeNodeFloorPlan } from './bench-side.mjs';

/** The level `pack` compresses Zlib blocks at (node:zlib's default), for the gzip floor. */
const PACK_ZLIB_LEVEL = 6;

/**
 * A plain mod folder of `files` .ubulk files in folders of 300, log-normal sizes around `median` bytes (at most
 * 4 MiB), each cut from the corpus at a random offset; and the same bytes as one file (for gzip). Returns the raw size.
 */
export function buildFolder(pool, folder, flat, files, median) {
  const next = rng(28 + files);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const fd = openSync(flat, 'w');
  let raw = 0;
  try {
    for (let i = 0; i < files; i++) {
      const size = Math.max(1, Math.min(4 << 20, Math.round(median * Math.exp(1.2 * gauss()))));
      const data = Buffer.allocUnsafe(size);
      let at = Math.floor(next() * pool.length);
      for (let o = 0; o < size; ) {
        const n = Math.min(size - o, pool.length - at);
        pool.copy(data, o, at, at + n);
        o += n;
        at = 0;
      }
      const dir = join(folder, 'Game', 'Content', `D${String(Math.floor(i / 300)).padStart(3, '0')}`);
      if (i % 300 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `F${String(i).padStart(6, '0')}.ubulk`), data);
      writeSync(fd, data);
      raw += size;
    }
  } finally {
    closeSync(fd);
  }
  return raw;
}

/** An Oodle container of `chunks` chunks, each one corpus Oodle block, written by a child (synth.mjs is asynchronous). */
export function oodleContainer(root, dir, chunks, rawSize) {
  const make = `import { writeSyntheticContainer } from ${JSON.stringify(join(root, 'scripts', 'synth.mjs'))};
    const r = await writeSyntheticContainer(${JSON.stringify(dir)}, 'ScaleOodle-Windows', { chunks: ${chunks}, blocksPerChunk: 1, method: 'oodle', rawSize: ${rawSize} });
    console.log(JSON.stringify({ utoc: r.utoc, raw: r.rawBytes, block: Buffer.from(r.storedBlock).toString('base64'), rawBlock: r.rawBlockSize }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', make], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`Oodle container not built: ${r.stderr.trim().split('\n').pop()}`);
  return JSON.parse(r.stdout);
}

/**
 * ooz-decode's one-core time for `count` decodes of one block: its rate over a blocks file of 256 copies, scaled up.
 * Returns { ms } as a contender row, or undefined without ooz-decode.
 */
function oozTime(ooz, tmp, block, rawBlock, count) {
  if (!existsSync(ooz)) return undefined;
  const h = Buffer.alloc(8);
  h.writeUInt32LE(block.length, 0);
  h.writeUInt32LE(rawBlock, 4);
  const file = join(tmp, 'ooz.blocks');
  writeFileSync(file, Buffer.concat(Array.from({ length: 256 }, () => [h, block]).flat()));
  const r = spawnSync(ooz, ['-B', '2', file], { encoding: 'utf8' });
  rmSync(file, { force: true });
  if (r.status !== 0) return undefined;
  const { rate } = JSON.parse(r.stdout);
  return { name: 'ooz-decode', ms: ((rawBlock * count) / 1e6 / rate) * 1000, rssMb: NaN, failed: '' };
}

const s = (x) => (x && Number.isFinite(x.ms) ? `${(x.ms / 1000).toFixed(2)} s` : '-');
const mb = (x) => (x && Number.isFinite(x.rssMb) ? `${x.rssMb.toFixed(0)} MB` : '-');
const ratio = (a, b) => (a && b && Number.isFinite(a.ms) && Number.isFinite(b.ms) ? `${timeRatio(a, b).toFixed(2)}x` : '-');

export function printRows(rows) {
  console.log(`  ${'job'.padEnd(24)} ${'ours'.padStart(8)} ${'peak RSS'.padStart(8)}   against`);
  for (const r of rows) {
    const others = r.others
      .filter(Boolean)
      .map((o) => `${o.name} ${s(o)}${Number.isFinite(o.rssMb) ? ` ${mb(o)}` : ''} (ours ${ratio(r.ours, o)})${o.failed ? ` [failed: ${o.failed}]` : ''}`)
      .join('; ');
    console.log(`  ${r.job.padEnd(24)} ${s(r.ours).padStart(8)} ${mb(r.ours).padStart(8)}   ${others}${r.ours.failed ? `  [ours failed: ${r.ours.failed}]` : ''}`);
  }
}

export function benchScale({ root, corpus, tmp }) {
  const sizes = (process.env.IOSTORE_BENCH_SCALE_SIZES ?? '30000,150000').split(',').map(Number).filter((n) => n > 0);
  const runs = Number(process.env.IOSTORE_BENCH_SCALE_RUNS ?? 3);
  const retoc = join(root, '..', 'shared', 'tools', 'retoc', 'retoc');
  const ooz = join(root, '..', 'shared', 'tools', 'ooz', 'ooz-decode');
  const haveRetoc = existsSync(retoc);
  const iostore = [process.execPath, join(root, 'bin', 'iostore.js')];
  const floorScript = join(root, 'scripts', 'node-floor.mjs');
  const pool = corpusPool(corpus);
  console.log(`\nat scale (issue 28): whole-process wall time and peak RSS, medians of ${runs} runs in alternation, in ${tmp}${haveRetoc ? '' : ' (retoc not found: its column is left out)'}`);
  for (const files of sizes) {
    const dir = join(tmp, `scale-${files}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const at = (name) => join(dir, name);
    const gone = (name) => () => rmSync(at(name), { recursive: true, force: true });
    const settle = () => spawnSync('sync');
    try {
      // Around 1 GB at 30,000 files; smaller files at 150,000, where the count is what is measured.
      const median = files >= 100000 ? 8 << 10 : 24 << 10;
      const t0 = Date.now();
      const raw = buildFolder(pool, at('folder'), at('flat.bin'), files, median);
      console.log(`\n  ${files} files, ${(raw / 1e6).toFixed(0)} MB, log-normal sizes around ${median >> 10} KiB (built in ${((Date.now() - t0) / 1000).toFixed(0)} s); load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
      const rows = [];
      const utoc = { none: at('stored/Scale-Windows.utoc'), zlib: at('zlib/Scale-Windows.utoc') };
      const pack = (method) => [...iostore, 'pack', at('folder'), utoc[method], '--version', 'UE5_4', '--compression', method, '--quiet'];
      {
        const r = alternate([
          { name: 'ours', argv: pack('none'), before: () => { gone('stored')(); settle(); } },
          { name: 'cp -r', argv: ['cp', '-r', at('folder'), at('cp')], before: () => { gone('cp')(); settle(); }, after: gone('cp') },
        ], runs);
        gone('cp')();
        rows.push({ job: 'pack, stored', ours: r[0], others: [r[1]] });
      }
      {
        const r = alternate([
          { name: 'ours', argv: pack('zlib'), before: () => { gone('zlib')(); settle(); } },
          { name: `gzip -${PACK_ZLIB_LEVEL} (one core)`, argv: ['sh', '-c', `gzip -${PACK_ZLIB_LEVEL} -c "$0" > /dev/null`, at('flat.bin')] },
        ], runs);
        rows.push({ job: 'pack, Zlib', ours: r[0], others: [r[1]] });
      }
      gone('folder')();
      rmSync(at('flat.bin'), { force: true });
      // The tree cp -r copies: the stored container unpacked once by us.
      spawnSync(iostore[0], [...iostore.slice(1), 'unpack', utoc.none, at('tree'), '--quiet']);
      for (const [label, method] of [['stored', 'none'], ['Zlib', 'zlib']]) {
        const plan = writeNodeFloorPlan(root, utoc[method], at(`floor-${method}.json`));
        const jobs = [
          { name: 'ours', argv: [...iostore, 'unpack', utoc[method], at('out-ours'), '--quiet'], before: () => { gone('out-ours')(); settle(); }, after: gone('out-ours') },
          { name: 'cp -r', argv: ['cp', '-r', at('tree'), at('out-cp')], before: () => { gone('out-cp')(); settle(); }, after: gone('out-cp') },
        ];
        if (haveRetoc) jobs.push({ name: 'retoc', argv: [retoc, 'unpack', utoc[method], at('out-retoc')], before: () => { gone('out-retoc')(); settle(); }, after: gone('out-retoc') });
        if (plan) jobs.push({ name: 'node floor', argv: [process.execPath, floorScript, plan, 'unpack', at('out-floor')], before: () => { gone('out-floor')(); settle(); }, after: gone('out-floor') });
        const r = alternate(jobs, runs);
        for (const n of ['out-ours', 'out-cp', 'out-retoc', 'out-floor']) gone(n)();
        rows.push({ job: `unpack, ${label}`, ours: r[0], others: r.slice(1) });
        const vjobs = [{ name: 'ours', argv: [...iostore, 'verify', utoc[method], '--quiet'] }];
        if (haveRetoc) vjobs.push({ name: 'retoc', argv: [retoc, 'verify', utoc[method]] });
        if (plan) vjobs.push({ name: 'node floor', argv: [process.execPath, floorScript, plan, 'verify'] });
        const v = alternate(vjobs, runs);
        rows.push({ job: `verify, ${label}`, ours: v[0], others: v.slice(1) });
      }
      gone('tree')();
      {
        const jobs = [{ name: 'ours', argv: [...iostore, 'list', utoc.zlib] }, { name: 'node -e 0', argv: [process.execPath, '-e', '0'] }];
        if (haveRetoc) jobs.push({ name: 'retoc', argv: [retoc, 'list', utoc.zlib] });
        const r = alternate(jobs, runs);
        rows.push({ job: 'list', ours: r[0], others: r.slice(1) });
      }
      gone('stored')();
      gone('zlib')();
      // Oodle: one corpus block per chunk (64 KiB; 16 KiB ones at 150,000 chunks, to keep the output near 2.5 GB).
      const o = oodleContainer(root, dir, files, files >= 100000 ? 16 << 10 : 64 << 10);
      const blockBytes = Buffer.from(o.block, 'base64');
      console.log(`  Oodle: ${files} chunks of one ${(o.rawBlock / 1024).toFixed(0)} KiB Kraken block each, ${(o.raw / 1e6).toFixed(0)} MB of output`);
      const native = oozTime(ooz, dir, blockBytes, o.rawBlock, files);
      for (const job of ['unpack', 'verify']) {
        const out = job === 'unpack' ? [at('out-oodle')] : [];
        const before = job === 'unpack' ? () => { gone('out-oodle')(); settle(); } : undefined;
        const after = job === 'unpack' ? gone('out-oodle') : undefined;
        const r = alternate([
          { name: 'ours', argv: [...iostore, job, o.utoc, ...out, '--quiet'], before, after },
          { name: 'ours, one thread', argv: [...iostore, job, o.utoc, ...out, '--quiet', '--threads', '0'], before, after },
        ], Math.max(runs, 5));
        gone('out-oodle')();
        rows.push({ job: `${job}, Oodle`, ours: r[0], others: [r[1], native] });
      }
      console.log(`  ooz-decode: one core decoding the same blocks (its -B rate over 256 copies of the block, times the count); "ours, one thread" / "ours" is the scaling on every core (the Oodle rows: medians of ${Math.max(runs, 5)} rounds)`);
      printRows(rows);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
